/*
 * What a twin's init uses: the needs it declares (planes as samples or
 * floats, history, a shared pass), which the framework then hands to the
 * pipeline with the instance (vmaf_gpu_add). The options a twin reads are
 * its metric's state struct, fex->priv (<metric>_state.h).
 */
#include <errno.h>
#include <string.h>

#include "gpu/lane.h"

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
