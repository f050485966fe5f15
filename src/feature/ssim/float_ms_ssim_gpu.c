/*
 * float_ms_ssim's GPU twin (CUDA and OpenCL kernels): host side, in the GPU
 * frame pipeline. Per frame the kernels (float_ms_ssim_kernels.h) make the
 * five scales of both pictures and the l, c and s terms of every valid
 * pixel of every scale (binary64 bit patterns, with or without OpenCL
 * fp64); those come back and are added here in raster order in fp64, as the
 * CPU's sums are, then reduced to fp32 means (ssim_mean), pooled by
 * ms_ssim_pool() and converted by ssim_to_db(), the CPU's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "float_ms_ssim_state.h"
#include "ssim_arith.h"
#include "ssim_host.h"
#include "ssim_gpu.h"

VMAF_GPU_PROGRAM_DECLARE(float_ms_ssim);
/* The SSIM room's kernels: MS-SSIM's, and float_ssim's box decimation. */
const VmafGpuProgram ssim_gpu_program = VMAF_GPU_PROGRAM(float_ms_ssim);

/* The reference's append order: l of every scale, then c, then s. */
static const char *const lcs_names[3][MS_SSIM_SCALES] = {
    { "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1", "float_ms_ssim_l_scale2",
      "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4" },
    { "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
      "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4" },
    { "float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2",
      "float_ms_ssim_s_scale3", "float_ms_ssim_s_scale4" },
};

typedef struct MsSsimGpu {
    bool enable_lcs, enable_db;
    double max_db;
    unsigned w, h, bpc;
    int sw[MS_SSIM_SCALES], sh[MS_SSIM_SCALES];
    size_t terms_off[MS_SSIM_SCALES], n_terms;
} MsSsimGpu;

/** One frame in flight. */
typedef struct MsSsimLane {
    VmafGpuPtr img[2][MS_SSIM_SCALES]; /**< scales 1-4, compact (sw floats per row) */
    VmafGpuPtr hp;                     /**< the horizontal pass: 5 planes of scale 0's size */
    VmafGpuPtr terms;                  /**< l, c, s of every valid pixel, scale after scale */
    double *h_terms;
    VmafGpuKernel *k_dec, *k_h, *k_stat;
} MsSsimLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const MsSsimState *s = fex->priv;
    MsSsimGpu *g = fex->twin_priv;
    g->enable_lcs = s->enable_lcs;
    g->enable_db = s->enable_db;
    g->max_db = s->max_db;
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    size_t n = 0;
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        g->sw[k] = s->sw[k];
        g->sh[k] = s->sh[k];
        g->terms_off[k] = n;
        n += 3 * (size_t)(g->sw[k] - (SSIM_WIN - 1)) * (size_t)(g->sh[k] - (SSIM_WIN - 1));
    }
    g->n_terms = n;
    (void)pix_fmt;
    return vmaf_gpu_use_float(needs, 3, 0, 0.0f);
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const MsSsimGpu *g = fex->twin_priv;
    MsSsimLane *q = lp;
    int err = 0;
    for (int k = 1; k < MS_SSIM_SCALES; k++)
        for (int i = 0; i < 2 && !err; i++)
            err = vmaf_gpu_alloc(l, &q->img[i][k], (size_t)g->sw[k] * g->sh[k] * sizeof(float));
    const size_t hp = 5 * (size_t)(g->w - (SSIM_WIN - 1)) * g->h * sizeof(float);
    if (!err) err = vmaf_gpu_alloc(l, &q->hp, hp);
    if (!err) err = vmaf_gpu_alloc(l, &q->terms, g->n_terms * sizeof(double));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_terms, g->n_terms * sizeof(double));
    const VmafGpuProgram *fb = &ssim_gpu_program;
    if (!err) err = vmaf_gpu_kernel(l, fb, "mss_decimate", &q->k_dec);
    if (!err) err = vmaf_gpu_kernel(l, fb, "mss_hpass", &q->k_h);
    if (!err) err = vmaf_gpu_kernel(l, fb, "mss_stat", &q->k_stat);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const MsSsimGpu *g = fex->twin_priv;
    MsSsimLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr r0, d0;
    size_t rp, dp;
    int err = vmaf_gpu_plane_float(fr, VMAF_GPU_REF, 0, 0.0f, &r0, &rp);
    if (!err) err = vmaf_gpu_plane_float(fr, VMAF_GPU_DIST, 0, 0.0f, &d0, &dp);
    for (int k = 0; k < MS_SSIM_SCALES && !err; k++) {
        VmafGpuPtr im[2] = { k ? q->img[0][k] : r0, k ? q->img[1][k] : d0 };
        int pitch = k ? g->sw[k] : (int)rp;
        if (k + 1 < MS_SSIM_SCALES) {
            for (int i = 0; i < 2 && !err; i++) {
                int w = g->sw[k], h = g->sh[k], op = g->sw[k + 1];
                VmafGpuArg a[] = { VMAF_GPU_ARG(im[i]), VMAF_GPU_ARG(pitch), VMAF_GPU_ARG(w),
                                   VMAF_GPU_ARG(h), VMAF_GPU_ARG(q->img[i][k + 1]),
                                   VMAF_GPU_ARG(op) };
                err = vmaf_gpu_launch(l, q->k_dec, (unsigned)g->sw[k + 1],
                                      (unsigned)g->sh[k + 1], 1, 32, 8, a);
            }
        }
        int w = g->sw[k], h = g->sh[k], wv = w - (SSIM_WIN - 1), hv = h - (SSIM_WIN - 1);
        size_t plane = (size_t)wv * h;
        VmafGpuArg ha[] = { VMAF_GPU_ARG(im[0]), VMAF_GPU_ARG(im[1]), VMAF_GPU_ARG(pitch),
                            VMAF_GPU_ARG(w), VMAF_GPU_ARG(h), VMAF_GPU_ARG(q->hp),
                            VMAF_GPU_ARG(wv), VMAF_GPU_ARG(plane) };
        if (!err) err = vmaf_gpu_launch(l, q->k_h, (unsigned)wv, (unsigned)h, 1, 32, 8, ha);
        VmafGpuPtr t = vmaf_gpu_at(q->terms, g->terms_off[k] * sizeof(double));
        VmafGpuArg sa[] = { VMAF_GPU_ARG(q->hp), VMAF_GPU_ARG(wv), VMAF_GPU_ARG(plane),
                            VMAF_GPU_ARG(wv), VMAF_GPU_ARG(hv), VMAF_GPU_ARG(t) };
        if (!err) err = vmaf_gpu_launch(l, q->k_stat, (unsigned)wv, (unsigned)hv, 1, 32, 8, sa);
    }
    if (!err) err = vmaf_gpu_download(l, q->h_terms, q->terms, g->n_terms * sizeof(double));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const MsSsimGpu *g = fex->twin_priv;
    const MsSsimLane *q = lp;
    /* The CPU's four fp64 sums per scale, over the valid pixels in raster order. */
    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], s[MS_SSIM_SCALES];
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        const int wv = g->sw[k] - (SSIM_WIN - 1), hv = g->sh[k] - (SSIM_WIN - 1);
        const size_t n = (size_t)wv * hv;
        const double *tl = q->h_terms + g->terms_off[k], *tc = tl + n, *ts = tc + n;
        double bl = 0.0, bc = 0.0, bs = 0.0;
        for (size_t i = 0; i < n; i++) {
            bl = DADD(bl, tl[i]);
            bc = DADD(bc, tc[i]);
            bs = DADD(bs, ts[i]);
        }
        l[k] = ssim_mean(bl, wv, hv);
        c[k] = ssim_mean(bc, wv, hv);
        s[k] = ssim_mean(bs, wv, hv);
    }
    double score;
    int err = ms_ssim_pool(l, c, s, &score);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_ms_ssim: frame %u: the MS-SSIM product is "
                 "infinite (the reference fails the frame there)", fr->index);
        return err;
    }
    if (g->enable_db)
        score = ssim_to_db(score, g->max_db);
    err = vmaf_fex_emit(fex, "float_ms_ssim", score, fr->index);
    const float *terms[3] = { l, c, s };
    for (int t = 0; t < 3 && !err && g->enable_lcs; t++)
        for (int k = 0; k < MS_SSIM_SCALES && !err; k++)
            err = vmaf_fex_emit(fex, lcs_names[t][k], (double)terms[t][k], fr->index);
    return err;
}

const VmafFexTwin vmaf_fex_float_ms_ssim_gpu = {
    .program = &ssim_gpu_program,
    .priv_size = sizeof(MsSsimGpu),
    .lane_size = sizeof(MsSsimLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
