#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "exactvmaf/exactvmaf.h"
#include "export.h"
#include "fex_internal.h"
#include "gpu/pipeline.h"
#include "log.h"

int vmaf_fex_create(VmafFex **out, const VmafFeatureExtractor *desc,
                    const VmafDict *opts, const VmafFexEnv *env,
                    VmafFeatureCollector *fc, unsigned ordinal)
{
    if (!out || !desc) return -EINVAL;
    int err = -ENOMEM;
    VmafFex *fex = calloc(1, sizeof(*fex));
    if (!fex) return -ENOMEM;
    fex->desc = desc;
    fex->fc = fc;
    fex->ordinal = ordinal;
    atomic_init(&fex->written, 0);
    if (env) fex->env = *env;
    if (desc->priv_size) {
        fex->priv = calloc(1, desc->priv_size);
        if (!fex->priv) goto fail;
    }
    vmaf_options_set_defaults(desc->options, fex->priv);
    if (opts && opts->cnt && !desc->options) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s takes no options (got \"%s\")",
                 desc->name, opts->entry[0].key);
        err = -EINVAL;
        goto fail;
    }
    err = vmaf_options_apply(desc->name, desc->options, fex->priv, opts);
    if (err) goto fail;
    /* A context computing on a GPU hands each metric with a twin to it. */
    if (env && env->gpu && desc->gpu && vmaf_gpu_runs(env->gpu, desc->gpu->program))
        fex->twin = desc->gpu;

    for (const char *const *p = desc->provided_features; p && *p; p++) {
        char *name = vmaf_option_feature_name(*p, desc->options, fex->priv);
        if (!name) {
            err = -ENOMEM;
            goto fail;
        }
        err = vmaf_dict_set(&fex->names, *p, name);
        free(name);
        if (err) goto fail;
    }
    *out = fex;
    return 0;
fail:
    vmaf_dict_free(&fex->names);
    free(fex->priv);
    free(fex);
    return err;
}

/* The twin's host state and the CPU path's, undone. */
static void twin_release(VmafFex *fex)
{
    if (fex->twin->close) fex->twin->close(fex);
    free(fex->twin_priv);
    fex->twin_priv = NULL;
    if (fex->desc->close) fex->desc->close(fex);
}

int vmaf_fex_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                  unsigned w, unsigned h)
{
    fex->w = w;
    fex->h = h;
    fex->bpc = bpc;
    /* The CPU path validates the geometry and the options first, with its
     * messages, for the twin as well. */
    const int err = fex->desc->init ? fex->desc->init(fex, pix_fmt, bpc, w, h) : 0;
    if (err) fex->twin = NULL;  /* the metric's own refusal, on any backend */
    if (err || !fex->twin) return err;
    if (fex->twin->priv_size) {
        fex->twin_priv = calloc(1, fex->twin->priv_size);
        if (!fex->twin_priv) return -ENOMEM;
    }
    /* The twin declares what it needs of the pipeline; the pipeline takes
     * the instance with those needs. */
    VmafGpuNeeds needs;
    vmaf_gpu_needs_init(&needs, fex->env.gpu, fex);
    int terr = fex->twin->needs_fp64 && !vmaf_gpu_fp64(fex->env.gpu)
                   ? VMAF_FEX_TWIN_DECLINED
                   : fex->twin->init(fex, pix_fmt, bpc, w, h, &needs);
    if (!terr) terr = vmaf_gpu_add(fex->env.gpu, fex, &needs);
    if (terr != VMAF_FEX_TWIN_DECLINED) return terr;
    /* The CPU path, initialised above, takes over. */
    vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: no %s twin for these options; computed on the CPU",
             fex->desc->name, vmaf_gpu_backend(fex->env.gpu));
    if (fex->twin->close) fex->twin->close(fex);
    free(fex->twin_priv);
    fex->twin_priv = NULL;
    fex->twin = NULL;
    return 0;
}

int vmaf_fex_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                     unsigned index)
{
    if (fex->twin) return -EINVAL;     /* twins compute through the GPU pipeline */
    /* Once for every extractor: the state init sized fits these pictures only. */
    if (ref->w[0] != fex->w || ref->h[0] != fex->h || dist->w[0] != fex->w ||
        dist->h[0] != fex->h || ref->bpc != fex->bpc || dist->bpc != fex->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "%s: frame %u does not match the %ux%u %u-bit geometry given at init",
                 fex->desc->name, index, fex->w, fex->h, fex->bpc);
        return -EINVAL;
    }
    fex->call_index = index;
    fex->emit_seq = 0;
    fex->hold = UINT_MAX;
    const int err = fex->desc->extract(fex, ref, dist, index);
    if (!err) atomic_store(&fex->written, fex->hold < index + 1 ? fex->hold : index + 1);
    return err;
}

void vmaf_fex_hold(VmafFex *fex, unsigned from)
{
    fex->hold = from;
}

int vmaf_fex_conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    if (!fex->twin) return -EINVAL;
    fex->call_index = fr->index;
    fex->emit_seq = 0;
    fex->hold = UINT_MAX;
    const int err = fex->twin->conclude(fex, fr, lp);
    if (!err) {
        fex->twin_next = fr->index + 1;
        atomic_store(&fex->written, fex->hold < fr->index + 1 ? fex->hold : fr->index + 1);
    }
    return err;
}

int vmaf_fex_flush(VmafFex *fex, unsigned call_index)
{
    int (*flush)(VmafFex *) = fex->twin ? fex->twin->flush : fex->desc->flush;
    if (!flush) return 0;
    fex->call_index = call_index;
    fex->emit_seq = 0;
    return flush(fex);
}

bool vmaf_fex_can_take_over(const VmafFex *fex)
{
    return !fex->twin || !(fex->desc->flags & VMAF_FEX_TEMPORAL) || fex->twin->handover;
}

int vmaf_fex_take_over(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                       const unsigned *index, unsigned n)
{
    if (!fex->twin) return 0;
    if (!vmaf_fex_can_take_over(fex)) return -ENOTSUP;
    const bool temporal = fex->desc->flags & VMAF_FEX_TEMPORAL;
    int err = temporal ? fex->twin->handover(fex) : 0;
    if (fex->twin->close) fex->twin->close(fex);
    free(fex->twin_priv);
    fex->twin_priv = NULL;
    fex->twin = NULL;
    fex->env.gpu = NULL;
    for (unsigned k = 0; temporal && fex->desc->prime && k < n && !err; k++) {
        fex->call_index = index[k];
        fex->emit_seq = 0;
        err = fex->desc->prime(fex, &ref[k], &dist[k], index[k]);
    }
    return err;
}

void vmaf_fex_destroy(VmafFex *fex)
{
    if (!fex) return;
    if (fex->twin) twin_release(fex);
    else if (fex->desc->close) fex->desc->close(fex);
    vmaf_dict_free(&fex->names);
    free(fex->share_key);
    free(fex->priv);
    free(fex);
}

VmafFex *vmaf_fex_share_find(const VmafFex *fex, const char *key)
{
    for (unsigned i = 0; i < fex->env.n_siblings; i++) {
        VmafFex *s = fex->env.siblings[i];
        if (s && s->desc == fex->desc && s->share_key && !strcmp(s->share_key, key)) return s;
    }
    return NULL;
}

int vmaf_fex_share_lead(VmafFex *fex, const char *key)
{
    free(fex->share_key);
    fex->share_key = strdup(key);
    return fex->share_key ? 0 : -ENOMEM;
}

int vmaf_fex_emit(VmafFex *fex, const char *name, double value, unsigned index)
{
    if (!fex || !name) return -EINVAL;
    const char *out = vmaf_dict_get(fex->names, name);
    const uint64_t key = vmaf_fc_order_key(fex->call_index, fex->ordinal, fex->emit_seq++);
    int err = vmaf_fc_append(fex->fc, out ? out : name, value, index, key);
    if (err)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: cannot store %s for frame %u (%d)",
                 fex->desc->name, out ? out : name, index, err);
    return err;
}

int vmaf_fex_emit_list(VmafFex *fex, const char *const *names, const double *values,
                       unsigned n, unsigned index)
{
    for (unsigned k = 0; k < n; k++) {
        const int err = vmaf_fex_emit(fex, names[k], values[k], index);
        if (err) return err;
    }
    return 0;
}

unsigned vmaf_fex_planes_luma(const VmafFex *fex)
{
    (void)fex;
    return 1;
}

const char *vmaf_fex_backend(const VmafFex *fex)
{
    return fex->twin ? vmaf_gpu_backend(fex->env.gpu) : "cpu";
}

static void *options_obj(const VmafFeatureExtractor *desc, const VmafDict *opts,
                         int *err)
{
    void *obj = calloc(1, desc->priv_size ? desc->priv_size : 1);
    *err = -ENOMEM;
    if (!obj) return NULL;
    vmaf_options_set_defaults(desc->options, obj);
    *err = vmaf_options_apply(desc->name, desc->options, obj, opts);
    if (*err) {
        free(obj);
        return NULL;
    }
    return obj;
}

char *vmaf_fex_identity(const VmafFeatureExtractor *desc, const VmafDict *opts)
{
    int err;
    void *obj = options_obj(desc, opts, &err);
    if (!obj) return NULL;
    char *id = vmaf_option_identity(desc->name, desc->options, obj);
    free(obj);
    return id;
}

char *vmaf_fex_output_name(const char *feature_name, const VmafDict *opts)
{
    const VmafFeatureExtractor *desc = vmaf_fex_find_by_feature(feature_name);
    if (!desc) return NULL;
    int err;
    void *obj = options_obj(desc, opts, &err);
    if (!obj) return NULL;
    char *name = vmaf_option_feature_name(feature_name, desc->options, obj);
    free(obj);
    return name;
}

VMAF_EXPORT const char *exactvmaf_option_name(const char *extractor, const char *key)
{
    const VmafFeatureExtractor *desc = extractor && key ? vmaf_fex_find(extractor) : NULL;
    const VmafOption *o = desc ? vmaf_option_find(desc->options, key) : NULL;
    return o ? o->name : NULL;
}

const char *vmaf_fex_name_for_feature(const char *feature_name)
{
    const VmafFeatureExtractor *desc = vmaf_fex_find_by_feature(feature_name);
    return desc ? desc->name : NULL;
}
