/*
 * What a twin's init uses: its declarations (planes as samples or floats,
 * history, a shared pass), made while the pipeline runs its init
 * (vmaf_gpu_add), and the CPU path's options by name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/pipeline_internal.h"
#include "log.h"
#include "opt.h"

/* ---- Declarations ---- */

void vmaf_gpu_use_plane(VmafGpu *gpu, unsigned which_mask, unsigned plane)
{
    if (plane >= gpu_plane_count(gpu->pix_fmt)) return;
    for (unsigned k = 0; k < 2; k++)
        if (which_mask & (1u << k)) gpu->pending_planes[k] |= 1u << plane;
}

int vmaf_gpu_use_float(VmafGpu *gpu, unsigned which_mask, unsigned plane, float offset)
{
    if (plane >= gpu_plane_count(gpu->pix_fmt)) return -EINVAL;
    vmaf_gpu_use_plane(gpu, which_mask, plane);
    for (unsigned i = 0; i < gpu->n_pending_fl; i++) {
        FloatDecl *f = &gpu->pending_fl[i];
        if (f->plane == plane && f->offset == offset) {
            f->which_mask |= which_mask;
            return 0;
        }
    }
    if (gpu->n_pending_fl == MAX_FLOATS) return -ENOMEM;
    gpu->pending_fl[gpu->n_pending_fl++] = (FloatDecl){ which_mask, plane, offset };
    return 0;
}

void vmaf_gpu_use_history(VmafGpu *gpu, unsigned frames)
{
    if (frames > gpu->pending.history) gpu->pending.history = frames;
}

VmafFex *vmaf_gpu_share(VmafGpu *gpu, const char *key)
{
    free(gpu->pending.share_key);
    gpu->pending.share_key = strdup(key);
    gpu->pending.leader = NULL;
    for (unsigned t = 0; gpu->pending.share_key && t < gpu->n_twin; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (tr->share_key && !tr->leader && tr->fex->desc == gpu->pending_desc &&
            !strcmp(tr->share_key, key)) {
            gpu->pending.leader = tr->fex;
            break;
        }
    }
    return gpu->pending.leader;
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
