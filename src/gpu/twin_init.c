/*
 * What a twin's init uses: the needs it declares (planes as samples or
 * floats, history, a shared pass), which the framework then hands to the
 * pipeline with the instance (vmaf_gpu_add), and the CPU path's options by
 * name.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "gpu/pipeline_internal.h"
#include "log.h"
#include "opt.h"

/* ---- Needs ---- */

void vmaf_gpu_needs_init(VmafGpuNeeds *n, VmafGpu *gpu, const VmafFex *fex)
{
    memset(n, 0, sizeof(*n));
    n->gpu = gpu;
    n->fex = fex;
}

void vmaf_gpu_use_plane(VmafGpuNeeds *n, unsigned which_mask, unsigned plane)
{
    if (plane >= gpu_plane_count(n->gpu->pix_fmt)) return;
    for (unsigned k = 0; k < 2; k++)
        if (which_mask & (1u << k)) n->planes[k] |= 1u << plane;
}

int vmaf_gpu_use_float(VmafGpuNeeds *n, unsigned which_mask, unsigned plane, float offset)
{
    if (plane >= gpu_plane_count(n->gpu->pix_fmt)) return -EINVAL;
    vmaf_gpu_use_plane(n, which_mask, plane);
    for (unsigned i = 0; i < n->n_fl; i++) {
        VmafGpuFloatUse *f = &n->fl[i];
        if (f->plane == plane && f->offset == offset) {
            f->which_mask |= which_mask;
            return 0;
        }
    }
    if (n->n_fl == VMAF_GPU_MAX_FLOATS) return -ENOMEM;
    n->fl[n->n_fl++] = (VmafGpuFloatUse){ which_mask, plane, offset };
    return 0;
}

void vmaf_gpu_use_history(VmafGpuNeeds *n, unsigned frames)
{
    if (frames > n->history) n->history = frames;
}

VmafFex *vmaf_gpu_share(VmafGpuNeeds *n, const char *key)
{
    const VmafGpu *gpu = n->gpu;
    n->leader = NULL;
    n->share_key[0] = '\0';
    if (strlen(key) >= sizeof(n->share_key)) return NULL;
    strcpy(n->share_key, key);
    for (unsigned t = 0; t < gpu->n_twin; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (tr->share_key && !tr->leader && tr->fex->desc == n->fex->desc &&
            !strcmp(tr->share_key, key)) {
            n->leader = tr->fex;
            break;
        }
    }
    return n->leader;
}

void *vmaf_gpu_state_of(VmafFex *fex, const VmafGpuFrame *fr)
{
    const int t = gpu_twin_index(fr->lane->gpu, fex);
    return t < 0 ? NULL : fr->lane->lp[t];
}

/* ---- Options of the CPU path's private struct, for twins ---- */

static const void *option(const VmafFex *fex, const char *name, enum VmafOptionType type)
{
    const VmafOption *opt = vmaf_option_find(fex->desc->options, name);
    if (!opt || opt->type != type || !fex->priv) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: the GPU twin reads option %s, which the "
                 "extractor does not have with that type", fex->desc->name, name);
        return NULL;
    }
    return (const char *)fex->priv + opt->offset;
}

int vmaf_gpu_opt_bool(const VmafFex *fex, const char *name, bool *out)
{
    const bool *p = option(fex, name, VMAF_OPT_TYPE_BOOL);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int vmaf_gpu_opt_int(const VmafFex *fex, const char *name, int *out)
{
    const int *p = option(fex, name, VMAF_OPT_TYPE_INT);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int vmaf_gpu_opt_double(const VmafFex *fex, const char *name, double *out)
{
    const double *p = option(fex, name, VMAF_OPT_TYPE_DOUBLE);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int vmaf_gpu_opt_string(const VmafFex *fex, const char *name, const char **out)
{
    const char *const *p = option(fex, name, VMAF_OPT_TYPE_STRING);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}
