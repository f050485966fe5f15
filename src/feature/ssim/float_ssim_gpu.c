/*
 * float_ssim's GPU twin (CUDA and OpenCL): host side, in the GPU frame
 * pipeline. Per frame the box decimation (ssim_box, float_ssim_kernels.h)
 * shrinks both luma planes by the factor init chose, and float_ms_ssim's
 * window and statistic kernels (mss_hpass, mss_stat) give the l, c and s
 * terms of every valid pixel as binary64 bit patterns (with or without
 * OpenCL fp64). They come back and are added here in raster order in fp64,
 * as the CPU's sums are ((l*c)*s for the SSIM sum), then reduced to fp32
 * means and emitted by float_ssim_emit(), the CPU's.
 *
 * Where the reference's in-place decimation reads samples it has already
 * overwritten (small pictures with a large factor), the twin declines and
 * the CPU path runs the instance.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "feature/extractor.h"
#include "gpu/twin.h"

#include "float_ssim_conclude.h"
#include "float_ssim_state.h"
#include "ssim_arith.h"
#include "ssim_gpu.h"
#include "ssim_host.h"

typedef struct SsimGpu {
    unsigned w, h;
    int factor, sw, sh, wv, hv;
} SsimGpu;

/** One frame in flight. */
typedef struct SsimLane {
    VmafGpuPtr small[2];    /**< the decimated planes (factor > 1), sw floats per row */
    VmafGpuPtr hp;          /**< the horizontal pass: 5 planes of (sw - 10) x sh */
    VmafGpuPtr terms;       /**< l, c, s of every valid pixel */
    double *h_terms;
    VmafGpuKernel *k_box, *k_h, *k_stat;
} SsimLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const SsimState *s = fex->priv;
    SsimGpu *g = fex->twin_priv;
    (void)pix_fmt;
    (void)bpc;
    /* The decimation init chose: in place, it is the CPU path's. */
    if (s->factor > 1 && !s->out_of_place) return VMAF_FEX_TWIN_DECLINED;
    g->factor = s->factor;
    g->sw = s->sw;
    g->sh = s->sh;
    g->w = w;
    g->h = h;
    g->wv = g->sw - (SSIM_WIN - 1);
    g->hv = g->sh - (SSIM_WIN - 1);
    return vmaf_gpu_use_float(needs, 3, 0, 0.0f);
}

static size_t n_terms(const SsimGpu *g)
{
    return 3 * (size_t)g->wv * (size_t)g->hv;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const SsimGpu *g = fex->twin_priv;
    SsimLane *q = lp;
    int err = 0;
    for (int i = 0; i < 2 && !err && g->factor > 1; i++)
        err = vmaf_gpu_alloc(l, &q->small[i], (size_t)g->sw * g->sh * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->hp, 5 * (size_t)g->wv * g->sh * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->terms, n_terms(g) * sizeof(double));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_terms, n_terms(g) * sizeof(double));
    if (!err) err = vmaf_gpu_kernel(l, &ssim_gpu_program, "ssim_box", &q->k_box);
    if (!err) err = vmaf_gpu_kernel(l, &ssim_gpu_program, "mss_hpass", &q->k_h);
    if (!err) err = vmaf_gpu_kernel(l, &ssim_gpu_program, "mss_stat", &q->k_stat);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const SsimGpu *g = fex->twin_priv;
    SsimLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr im[2];
    size_t pitch[2];
    int err = vmaf_gpu_plane_float(fr, VMAF_GPU_REF, 0, 0.0f, &im[0], &pitch[0]);
    if (!err) err = vmaf_gpu_plane_float(fr, VMAF_GPU_DIST, 0, 0.0f, &im[1], &pitch[1]);
    int p = (int)pitch[0];
    if (!err && g->factor > 1) {
        /* The reference's weight: f32(1 / f^2), computed here once. */
        float wt = 1.0f / (float)(g->factor * g->factor);
        int w = (int)g->w, h = (int)g->h, f = g->factor, sw = g->sw, sh = g->sh;
        for (int i = 0; i < 2 && !err; i++) {
            VmafGpuArg a[] = { VMAF_GPU_ARG(im[i]), VMAF_GPU_ARG(p),  VMAF_GPU_ARG(w),
                               VMAF_GPU_ARG(h),     VMAF_GPU_ARG(f),  VMAF_GPU_ARG(wt),
                               VMAF_GPU_ARG(q->small[i]), VMAF_GPU_ARG(sw), VMAF_GPU_ARG(sh) };
            err = vmaf_gpu_launch(l, q->k_box, (unsigned)sw, (unsigned)sh, 1, 32, 8, a);
            im[i] = q->small[i];
        }
        p = g->sw;
    }
    int w = g->sw, h = g->sh, wv = g->wv, hv = g->hv;
    uint64_t plane = (uint64_t)wv * (uint64_t)h;
    VmafGpuArg ha[] = { VMAF_GPU_ARG(im[0]), VMAF_GPU_ARG(im[1]), VMAF_GPU_ARG(p),
                        VMAF_GPU_ARG(w),     VMAF_GPU_ARG(h),     VMAF_GPU_ARG(q->hp),
                        VMAF_GPU_ARG(wv),    VMAF_GPU_ARG(plane) };
    if (!err) err = vmaf_gpu_launch(l, q->k_h, (unsigned)wv, (unsigned)h, 1, 32, 8, ha);
    VmafGpuArg sa[] = { VMAF_GPU_ARG(q->hp), VMAF_GPU_ARG(wv), VMAF_GPU_ARG(plane),
                        VMAF_GPU_ARG(wv),    VMAF_GPU_ARG(hv), VMAF_GPU_ARG(q->terms) };
    if (!err) err = vmaf_gpu_launch(l, q->k_stat, (unsigned)wv, (unsigned)hv, 1, 32, 8, sa);
    if (!err) err = vmaf_gpu_download(l, q->h_terms, q->terms, n_terms(g) * sizeof(double));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const SsimGpu *g = fex->twin_priv;
    const SsimLane *q = lp;
    /* The CPU's four fp64 sums over the valid pixels in raster order. */
    const size_t n = (size_t)g->wv * g->hv;
    const double *tl = q->h_terms, *tc = tl + n, *ts = tc + n;
    double a = 0.0, bl = 0.0, bc = 0.0, bs = 0.0;
    for (size_t i = 0; i < n; i++) {
        a = DADD(a, ssim_lcs_product(tl[i], tc[i], ts[i]));
        bl = DADD(bl, tl[i]);
        bc = DADD(bc, tc[i]);
        bs = DADD(bs, ts[i]);
    }
    const SsimMeans m = { ssim_mean(a, g->wv, g->hv), ssim_mean(bl, g->wv, g->hv),
                          ssim_mean(bc, g->wv, g->hv), ssim_mean(bs, g->wv, g->hv) };
    return float_ssim_emit(fex, &m, fr->index);
}

const VmafFexTwin vmaf_fex_float_ssim_gpu = {
    .program = &ssim_gpu_program,
    .priv_size = sizeof(SsimGpu),
    .lane_size = sizeof(SsimLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
