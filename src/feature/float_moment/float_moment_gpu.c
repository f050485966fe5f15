/*
 * float_moment's GPU twin (one kernel text for CUDA and OpenCL,
 * float_moment_kernels.h): host side, in the GPU frame pipeline. Per frame
 * the kernel gives the four unit totals of the luma planes (moment_arith.h:
 * integer sums that equal the reference's fp64 raster sums while below
 * 2^53); float_moment_conclude(), the CPU path's, turns them into the
 * outputs, and runs the reference's raster loop on the host pictures for a
 * total that is too large to be exact (16-bit frames only).
 */
#include <stdint.h>

#include "feature/extractor.h"
#include "gpu/twin.h"

#include "float_moment_conclude.h"

VMAF_GPU_PROGRAM_DECLARE(float_moment);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(float_moment);

typedef struct MomentGpu {
    unsigned bpc, w, h;
} MomentGpu;

/** One frame in flight: ref 1st, dist 1st, ref 2nd, dist 2nd. */
typedef struct MomentLane {
    VmafGpuPtr total;
    uint64_t *h_total;
    VmafGpuKernel *k_units;
} MomentLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    MomentGpu *g = fex->twin_priv;
    (void)pix_fmt;
    g->bpc = bpc;
    g->w = w;
    g->h = h;
    vmaf_gpu_use_plane(needs, 3, 0);
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const MomentGpu *g = fex->twin_priv;
    MomentLane *q = lp;
    int err = vmaf_gpu_alloc(l, &q->total, 4 * sizeof(uint64_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_total, 4 * sizeof(uint64_t));
    if (!err)
        err = vmaf_gpu_kernel(l, &program,
                              g->bpc == 8 ? "moment_units_u8" : "moment_units_u16", &q->k_units);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const MomentGpu *g = fex->twin_priv;
    MomentLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr r, d;
    int err = vmaf_gpu_plane(fr, VMAF_GPU_REF, 0, &r);
    if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, 0, &d);
    if (!err) err = vmaf_gpu_memset(l, q->total, 4 * sizeof(uint64_t));
    int w = (int)g->w;
    VmafGpuArg a[] = { VMAF_GPU_ARG(r), VMAF_GPU_ARG(d), VMAF_GPU_ARG(w),
                       VMAF_GPU_ARG(q->total) };
    /* Groups of 256 along a row (MOMENT_GROUP). */
    if (!err) err = vmaf_gpu_launch(l, q->k_units, g->w, g->h, 1, 256, 1, a);
    if (!err) err = vmaf_gpu_download(l, q->h_total, q->total, 4 * sizeof(uint64_t));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const MomentLane *q = lp;
    const uint64_t s1[2] = { q->h_total[0], q->h_total[1] };
    const uint64_t s2[2] = { q->h_total[2], q->h_total[3] };
    /* The conclusion reads samples when a sum is too large to be exact. */
    const VmafPicture *hp[2];
    const int err = vmaf_gpu_host_pictures(fr, hp);
    return err ? err : float_moment_conclude(fex, hp[0], hp[1], s1, s2, fr->index);
}

const VmafFexTwin vmaf_fex_float_moment_gpu = {
    .program = &program,
    .priv_size = sizeof(MomentGpu),
    .lane_size = sizeof(MomentLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
