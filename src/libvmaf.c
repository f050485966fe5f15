/*
 * The context: registrations, its start, each frame handed to the parts
 * that compute it, the flush, and the libvmaf API entry points that are
 * not about models or output.
 *
 * The start (start(), at the first picture: the API gives the geometry
 * there) makes the parts in one place, in order: the GPU side
 * (context_gpu.c: devices, the pipeline and its twins), under backend auto
 * the failover that watches it (failover.c), then the CPU's scheduler
 * (scheduler.h) with every metric the GPU does not take.
 *
 * GPU: extractors with a twin on the chosen backend have one instance in
 * the GPU frame pipeline (src/gpu/pipeline.h), which holds K frames in
 * flight per device and concludes them in order on its own thread; the
 * others run on the CPU's scheduler (its worker threads, or the calling
 * thread), in the same run.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context_internal.h"
#include "device_record.h"
#include "export.h"
#include "failover.h"
#include "fex_internal.h"
#include "gpu/cuda/cuda_backend.h"
#include "log.h"
#include "picture_internal.h"
#include "scheduler.h"

VMAF_EXPORT const char *vmaf_version(void)
{
    return EXACTVMAF_VERSION_STRING;
}

VMAF_EXPORT int vmaf_init(VmafContext **out, VmafConfiguration cfg)
{
    vmaf_log_bind(0);
    if (!out) return -EINVAL;
    if (cfg.n_threads > 256) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "n_threads %u is more than 256", cfg.n_threads);
        return -EINVAL;
    }
    VmafContext *vmaf = calloc(1, sizeof(*vmaf));
    if (!vmaf) return -ENOMEM;
    vmaf->cfg = cfg;
    vmaf->last_index = -1;
    vmaf->backend = EXACTVMAF_BACKEND_AUTO;
    vmaf->n_gpu = 1;
    /* Netflix's "%.6f"; EXACTVMAF_PRECISION (digits, or "max" for "%.17g") lets
     * a program that calls vmaf_write_output() as it is (FFmpeg's filters)
     * write values that round-trip. */
    vmaf->output_precision = 6;
    const char *prec = getenv("EXACTVMAF_PRECISION");
    if (prec && *prec) {
        const int d = strcmp(prec, "max") ? atoi(prec) : 0;
        vmaf->output_precision = d > 0 && d <= 16 ? d : 0;
    }
    vmaf_log_set_level(cfg.log_level);
    vmaf->log_id = vmaf_log_register(cfg.log_level);
    vmaf_log_bind(vmaf->log_id);
    const int err = vmaf_fc_create(&vmaf->fc);
    if (err) goto fail;
    *out = vmaf;
    return 0;
fail:
    vmaf_log_unregister(vmaf->log_id);
    vmaf_log_bind(0);
    free(vmaf);
    return err;
}

int vmaf_ctx_use_feature(VmafContext *vmaf, const char *fex_name, const VmafDict *opts)
{
    if (!vmaf || !fex_name) return -EINVAL;
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "features must be registered before the first picture");
        return -EINVAL;
    }
    const VmafFeatureExtractor *desc = vmaf_fex_find(fex_name);
    if (!desc) {
        if (vmaf_fex_declared(fex_name)) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "feature extractor \"%s\" is not built yet", fex_name);
            return -ENOSYS;
        }
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "unknown feature extractor \"%s\"", fex_name);
        return -EINVAL;
    }
    /* Check the options now, so that a bad one fails at registration. */
    VmafFex *probe = NULL;
    const VmafFexEnv env = { .division = vmaf->division };
    int err = vmaf_fex_create(&probe, desc, opts, &env, vmaf->fc, 0);
    if (err) return err;
    vmaf_fex_destroy(probe);

    char *id = vmaf_fex_identity(desc, opts);
    if (!id) return -ENOMEM;
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        if (strcmp(vmaf->reg[i].identity, id)) continue;
        /* Same outputs: one instance. Options that do not rename outputs
         * (debug) are merged, later registrations winning. */
        free(id);
        VmafDict *merged = NULL;
        err = vmaf_dict_merge(vmaf->reg[i].opts, opts, &merged);
        if (err) return err;
        vmaf_dict_free(&vmaf->reg[i].opts);
        vmaf->reg[i].opts = merged;
        return 0;
    }
    Registration *r = realloc(vmaf->reg, (vmaf->n_reg + 1) * sizeof(*r));
    if (!r) {
        free(id);
        return -ENOMEM;
    }
    vmaf->reg = r;
    Registration *n = &vmaf->reg[vmaf->n_reg];
    *n = (Registration){ .desc = desc, .identity = id };
    err = vmaf_dict_copy(opts, &n->opts);
    if (err) {
        free(id);
        return err;
    }
    vmaf->n_reg++;
    return 0;
}

VMAF_EXPORT int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                                 VmafFeatureDictionary *opts_dict)
{
    vmaf_ctx_bind_log(vmaf);
    VmafDict *d = (VmafDict *)opts_dict;
    int err = vmaf_ctx_use_feature(vmaf, feature_name, d);
    vmaf_dict_free(&d);
    return err;
}

VMAF_EXPORT int exactvmaf_planes_used(VmafContext *vmaf, unsigned *mask)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !mask) return -EINVAL;
    *mask = 0;
    const VmafFexEnv env = { .division = vmaf->division };
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        const Registration *r = &vmaf->reg[i];
        if (!r->desc->planes) {
            *mask = 7;
            return 0;
        }
        /* An instance, not started, to read its options. */
        VmafFex *probe = NULL;
        const int err = vmaf_fex_create(&probe, r->desc, r->opts, &env, vmaf->fc, 0);
        if (err) return err;
        *mask |= r->desc->planes(probe);
        vmaf_fex_destroy(probe);
    }
    return 0;
}

VMAF_EXPORT int exactvmaf_has_temporal(VmafContext *vmaf)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    for (unsigned i = 0; i < vmaf->n_reg; i++)
        if (vmaf->reg[i].desc->flags & VMAF_FEX_TEMPORAL) return 1;
    return 0;
}

VMAF_EXPORT unsigned exactvmaf_output_count(VmafContext *vmaf)
{
    vmaf_ctx_bind_log(vmaf);
    return vmaf ? vmaf_fc_count(vmaf->fc) : 0;
}

VMAF_EXPORT const char *exactvmaf_output_name(VmafContext *vmaf, unsigned i)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return NULL;
    const char *name = vmaf_fc_name_at(vmaf->fc, i);
    return name ? vmaf_feature_alias(name) : NULL;
}

VMAF_EXPORT int exactvmaf_backend_at(VmafContext *vmaf, unsigned i, const char **extractor,
                                     const char **backend)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !extractor || !backend) return -EINVAL;
    if (!vmaf->backends || i >= vmaf->backends->cnt) return -ENOENT;
    *extractor = vmaf->backends->entry[i].key;
    *backend = vmaf->backends->entry[i].val;
    return 0;
}

VMAF_EXPORT int exactvmaf_device_field_at(VmafContext *vmaf, unsigned i, unsigned k,
                                          unsigned f, const char **key, const char **value)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !key || !value) return -EINVAL;
    const VmafDict *rec = vmaf_device_records_at(vmaf->devices, i, k);
    if (!rec || f >= rec->cnt) return -ENOENT;
    *key = rec->entry[f].key;
    *value = rec->entry[f].val;
    return 0;
}

VMAF_EXPORT int exactvmaf_aggregate_at(VmafContext *vmaf, unsigned i, const char **name,
                                       double *value)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !name || !value) return -EINVAL;
    if (i >= vmaf_fc_aggregate_count(vmaf->fc)) return -ENOENT;
    *name = vmaf_fc_aggregate_at(vmaf->fc, i, value);
    return 0;
}

VMAF_EXPORT int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                                          double value, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !feature_name) return -EINVAL;
    return vmaf_fc_append(vmaf->fc, feature_name, value, index,
                          vmaf_fc_order_key(index, 0xfff, 0));
}

/* The CPU's scheduler, with every metric the GPU did not take. */
static int start_cpu(VmafContext *vmaf)
{
    const VmafSchedConfig sc = {
        .n_threads = vmaf->cfg.n_threads, .n_subsample = vmaf->cfg.n_subsample,
        .n_slots = vmaf->n_reg, .division = vmaf->division, .fc = vmaf->fc,
        .log_id = vmaf->log_id, .pix_fmt = vmaf->pix_fmt, .bpc = vmaf->bpc,
        .w = vmaf->w, .h = vmaf->h,
    };
    int err = vmaf_sched_create(&vmaf->cpu, &sc);
    for (unsigned i = 0; !err && i < vmaf->n_reg; i++) {
        const Registration *r = &vmaf->reg[i];
        if (!r->gpu) err = vmaf_sched_add(vmaf->cpu, i, r->desc, r->opts, 0, NULL);
    }
    return err ? err : vmaf_sched_start(vmaf->cpu);
}

/*
 * The context's start, the one point where its parts are made, once the
 * geometry is known (exactvmaf_start, else the first picture): the GPU side
 * first (the metrics its twins take are not the CPU's), under backend auto
 * the failover that watches it, then the CPU's scheduler, and the record of
 * which backend and devices compute each extractor. Its error is sticky.
 */
static int start(VmafContext *vmaf, enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w,
                 unsigned h)
{
    if (!vmaf->n_reg) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "no feature registered before the first picture");
        return -EINVAL;
    }
    vmaf->started = true;
    vmaf->pix_fmt = pix_fmt;
    vmaf->bpc = bpc;
    vmaf->w = w;
    vmaf->h = h;
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_start);

    int err = vmaf_ctx_start_gpu(vmaf);
    if (!err && vmaf->gpu && vmaf_ctx_falls_back(vmaf)) err = vmaf_failover_create(vmaf);
    if (!err) err = start_cpu(vmaf);
    if (!err) err = vmaf_ctx_record_backends(vmaf);
    return vmaf->start_err = err;
}

VMAF_EXPORT int exactvmaf_start(VmafContext *vmaf, enum VmafPixelFormat pix_fmt, unsigned bpc,
                                unsigned w, unsigned h)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the context has started already");
        return -EINVAL;
    }
    VmafPicture geometry;
    if (vmaf_picture_geometry(&geometry, pix_fmt, bpc, w, h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cannot start on %ux%u %u-bit pictures of format %d",
                 w, h, bpc, (int)pix_fmt);
        return -EINVAL;
    }
    return start(vmaf, pix_fmt, bpc, w, h);
}

static int validate(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                    unsigned index)
{
    if (!ref->ref || !dist->ref || !ref->data[0] || !dist->data[0]) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame %u: pictures must come from vmaf_picture_alloc()", index);
        return -EINVAL;
    }
    if (ref->pix_fmt != dist->pix_fmt || ref->bpc != dist->bpc ||
        ref->w[0] != dist->w[0] || ref->h[0] != dist->h[0]) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "frame %u: reference is %ux%u %u-bit, distorted %ux%u %u-bit: they must match",
                 index, ref->w[0], ref->h[0], ref->bpc, dist->w[0], dist->h[0], dist->bpc);
        return -EINVAL;
    }
    if (vmaf->started && (ref->pix_fmt != vmaf->pix_fmt || ref->bpc != vmaf->bpc ||
                          ref->w[0] != vmaf->w || ref->h[0] != vmaf->h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame %u: picture format changed mid-stream", index);
        return -EINVAL;
    }
    if ((long long)index <= vmaf->last_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame index %u after %lld: indices must increase",
                 index, vmaf->last_index);
        return -EINVAL;
    }
    return 0;
}

static int flush(VmafContext *vmaf)
{
    /* The GPU's end first: under backend auto the CPU computes what it dropped. */
    int err = vmaf_ctx_gpu_drain(vmaf);
    /* The CPU's end, its temporal metrics' flush included, then the twins'. */
    const int cerr = vmaf_sched_finish(vmaf->cpu);
    if (!err) err = cerr;
    if (!err) err = vmaf_ctx_flush_gpu(vmaf);
    vmaf->flushed = true;
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_end);
    if (vmaf->pool) {
        /* The pool only grows: what it made is the most pictures held at once. */
        unsigned n;
        size_t bytes;
        vmaf_picture_pool_usage(vmaf->pool, &n, &bytes);
        vmaf_log(VMAF_LOG_LEVEL_INFO, "pictures in memory at most: %u of %.1f MiB (%.1f MiB)",
                 n, bytes / 1048576.0, n * (bytes / 1048576.0));
    }
    return err;
}

static int read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                         unsigned index);

VMAF_EXPORT int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref,
                                   VmafPicture *dist, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    const int err = read_pictures(vmaf, ref, dist, index);
    /* The GPU's errors held back for a failover are the run's now. */
    if (err) vmaf_failover_give_up(vmaf);
    return err;
}

static int read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                         unsigned index)
{
    if (!ref != !dist) return -EINVAL;
    if (!ref) {
        if (vmaf->flushed) return -EINVAL;
        return flush(vmaf);
    }

    /* The library owns the pictures from here on, also on error. The same
     * picture given as both gets a second reference for the second unref. */
    if (ref->ref && ref->ref == dist->ref) vmaf_picture_ref(dist, ref);
    VmafPicture in_ref = *ref, in_dist = *dist;
    int err = 0;
    if (vmaf->flushed) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "pictures read after the flush");
        err = -EINVAL;
    }
    if (!err) err = validate(vmaf, ref, dist, index);
    if (!err && !vmaf->started) {
        err = start(vmaf, in_ref.pix_fmt, in_ref.bpc, in_ref.w[0], in_ref.h[0]);
    } else if (!err && vmaf->start_err) {
        err = vmaf->start_err;
    }
    if (err) {
        /* Pictures that did not come from vmaf_picture_alloc() are not ours to free. */
        if (in_ref.ref) {
            vmaf_picture_unref(&in_ref);
            memset(ref, 0, sizeof(*ref));
        }
        if (in_dist.ref) {
            vmaf_picture_unref(&in_dist);
            memset(dist, 0, sizeof(*dist));
        }
        return err;
    }
    memset(ref, 0, sizeof(*ref));
    memset(dist, 0, sizeof(*dist));

    /* The GPU's part, then the CPU's. */
    err = vmaf_ctx_gpu_frame(vmaf, &in_ref, &in_dist, index);
    /* The CPU reads device pictures' host copies (downloaded here, once). */
    if (!err && vmaf_sched_any(vmaf->cpu)) {
        err = vmaf_picture_to_host(&in_ref);
        if (!err) err = vmaf_picture_to_host(&in_dist);
    }
    if (err) {
        vmaf_picture_unref(&in_ref);
        vmaf_picture_unref(&in_dist);
        return err;
    }
    vmaf->last_index = index;
    vmaf->pic_cnt++;
    return vmaf_sched_frame(vmaf->cpu, &in_ref, &in_dist, index);
}

VMAF_EXPORT int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                            double *score, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !feature_name || !score) return -EINVAL;
    if (!vmaf_fc_get(vmaf->fc, feature_name, index, score)) return 0;
    /* Accept the short name for a canonical one, and the other way round. */
    for (unsigned i = 0; i < vmaf_fc_count(vmaf->fc); i++) {
        const VmafFeatureVector *v = vmaf_fc_at(vmaf->fc, i);
        if (strcmp(vmaf_feature_alias(v->name), feature_name)) continue;
        return vmaf_fc_get(vmaf->fc, v->name, index, score);
    }
    return -EINVAL;
}

VMAF_EXPORT int vmaf_close(VmafContext *vmaf)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    vmaf_sched_destroy(vmaf->cpu);
    vmaf_ctx_destroy_gpu(vmaf);
    vmaf_failover_destroy(vmaf);
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        vmaf_dict_free(&vmaf->reg[i].opts);
        free(vmaf->reg[i].identity);
    }
    free(vmaf->reg);
    evc_state_close(vmaf->cuda);
    vmaf_dict_free(&vmaf->backends);
    vmaf_device_records_free(&vmaf->devices);
    vmaf_ctx_free_gpu_records(vmaf);
    vmaf_fc_destroy(vmaf->fc);
    vmaf_picture_pool_close(vmaf->pool);
    evc_picture_pool_close(vmaf->dev_pool);
    vmaf_log_unregister(vmaf->log_id);
    vmaf_log_bind(0);
    free(vmaf);
    return 0;
}
