/*
 * float_psnr's GPU twin (CUDA and OpenCL kernels): host side, in the GPU
 * frame pipeline. Per frame the kernel (float_psnr_cuda.cu) gives the luma
 * plane's squared differences as an integer total of 1/S^2 units, which is
 * the reference's fp64 raster sum exactly while it is below 2^53
 * (float_psnr_arith.h); float_psnr_conclude(), the CPU's, gives the score. A
 * frame whose total reaches 2^53 (only 16-bit frames with huge errors) is
 * computed by the CPU path, whose raster loop is the fallback.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "float_psnr_arith.h"
#include "float_psnr_conclude.h"

VMAF_GPU_PROGRAM_DECLARE(float_psnr);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(float_psnr);

typedef struct FloatPsnrGpu {
    unsigned bpc, w, h;
    double peak, psnr_max;
} FloatPsnrGpu;

/** One frame in flight. */
typedef struct FloatPsnrLane {
    VmafGpuPtr total;
    uint64_t *h_total;
    VmafGpuKernel *k_units;
} FloatPsnrLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    FloatPsnrGpu *g = fex->twin_priv;
    const int err = float_psnr_constants(bpc, &g->peak, &g->psnr_max);
    if (err) return err;
    g->bpc = bpc;
    g->w = w;
    g->h = h;
    vmaf_gpu_use_plane(needs, 3, 0);
    (void)pix_fmt;
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const FloatPsnrGpu *g = fex->twin_priv;
    FloatPsnrLane *q = lp;
    int err = vmaf_gpu_alloc(l, &q->total, sizeof(uint64_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_total, sizeof(uint64_t));
    if (!err)
        err = vmaf_gpu_kernel(l, &program,
                              g->bpc == 8 ? "fpsnr_units_u8" : "fpsnr_units_u16", &q->k_units);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const FloatPsnrGpu *g = fex->twin_priv;
    FloatPsnrLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr r, d;
    int err = vmaf_gpu_plane(fr, VMAF_GPU_REF, 0, &r);
    if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, 0, &d);
    if (!err) err = vmaf_gpu_memset(l, q->total, sizeof(uint64_t));
    int w = (int)g->w, h = (int)g->h;
    VmafGpuArg a[] = { VMAF_GPU_ARG(r), VMAF_GPU_ARG(d), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                       VMAF_GPU_ARG(q->total) };
    if (!err) err = vmaf_gpu_launch(l, q->k_units, g->w, g->h, 1, 256, 1, a);
    if (!err) err = vmaf_gpu_download(l, q->h_total, q->total, sizeof(uint64_t));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const FloatPsnrGpu *g = fex->twin_priv;
    const FloatPsnrLane *q = lp;
    const uint64_t units = *q->h_total;
    if (units >= FPSNR_EXACT_UNITS) {
        const VmafPicture *hp[2];
        const int err = vmaf_gpu_host_pictures(fr, hp);
        return err ? err : fex->desc->extract(fex, hp[0], hp[1], fr->index);
    }
    const double noise = DMUL((double)units, fpsnr_unit(g->bpc));
    const double score = float_psnr_conclude(noise, g->w, g->h, g->peak, g->psnr_max);
    return vmaf_fex_emit(fex, "float_psnr", score, fr->index);
}

const VmafFexTwin vmaf_fex_float_psnr_gpu = {
    .program = &program,
    .priv_size = sizeof(FloatPsnrGpu),
    .lane_size = sizeof(FloatPsnrLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
