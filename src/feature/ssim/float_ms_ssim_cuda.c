/*
 * float_ms_ssim's CUDA twin: host side. The CPU path's init validates the
 * geometry and options. Per frame the kernels (float_ms_ssim_cuda.cu) make
 * the five scales of both pictures and the l, c and s terms of every valid
 * pixel of every scale; those come back and are added here in raster order
 * in fp64, as the CPU's sums are, then reduced to fp32 means (ssim_mean),
 * pooled by ms_ssim_pool() and converted by ssim_to_db(), the CPU's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "ssim_arith.h"
#include "ssim_host.h"

extern const VmafFeatureExtractor vmaf_fex_float_ms_ssim;
extern const EvcFatbin evc_fatbin_float_ms_ssim;

/* The reference's append order: l of every scale, then c, then s. */
static const char *const lcs_names[3][MS_SSIM_SCALES] = {
    { "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1", "float_ms_ssim_l_scale2",
      "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4" },
    { "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
      "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4" },
    { "float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2",
      "float_ms_ssim_s_scale3", "float_ms_ssim_s_scale4" },
};

typedef struct MsSsimCuda {
    VmafCudaState *st;
    bool enable_lcs, enable_db;
    double max_db;
    unsigned w, h, bpc;
    int sw[MS_SSIM_SCALES], sh[MS_SSIM_SCALES];
    EvcBuf img[2][MS_SSIM_SCALES];  /**< scales 1-4, compact (sw floats per row) */
    EvcBuf hp;                      /**< the horizontal pass: 5 planes of scale 0's size */
    EvcBuf terms;                   /**< l, c, s of every valid pixel, scale after scale */
    size_t terms_off[MS_SSIM_SCALES], n_terms;
    double *h_terms;
    CUfunction k_dec, k_h, k_stat;
} MsSsimCuda;

static void twin_close(VmafFex *fex)
{
    MsSsimCuda *g = fex->twin_priv;
    if (g && g->st && !evc_push(g->st)) {
        evc_sync(g->st);
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < MS_SSIM_SCALES; k++)
                evc_buf_free(g->st, &g->img[i][k]);
        evc_buf_free(g->st, &g->hp);
        evc_buf_free(g->st, &g->terms);
        evc_host_free(g->st, (void **)&g->h_terms);
        evc_pop(g->st);
    }
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_float_ms_ssim.close) vmaf_fex_float_ms_ssim.close(fex);
}

static int setup(MsSsimCuda *g)
{
    VmafCudaState *st = g->st;
    int err = 0;
    size_t n = 0;
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        g->sw[k] = k ? ssim_decimated_size(g->sw[k - 1], 2) : (int)g->w;
        g->sh[k] = k ? ssim_decimated_size(g->sh[k - 1], 2) : (int)g->h;
        g->terms_off[k] = n;
        n += 3 * (size_t)(g->sw[k] - (SSIM_WIN - 1)) * (size_t)(g->sh[k] - (SSIM_WIN - 1));
        for (int i = 0; i < 2 && k && !err; i++)
            err = evc_buf_alloc(st, &g->img[i][k], (size_t)g->sw[k] * g->sh[k] * sizeof(float));
    }
    g->n_terms = n;
    const size_t hp = 5 * (size_t)(g->w - (SSIM_WIN - 1)) * g->h * sizeof(float);
    if (!err) err = evc_buf_alloc(st, &g->hp, hp);
    if (!err) err = evc_buf_alloc(st, &g->terms, n * sizeof(double));
    if (!err) err = evc_host_alloc(st, (void **)&g->h_terms, n * sizeof(double));
    const EvcFatbin *fb = &evc_fatbin_float_ms_ssim;
    if (!err) err = evc_function(st, fb, "mss_decimate", &g->k_dec);
    if (!err) err = evc_function(st, fb, "mss_hpass", &g->k_h);
    if (!err) err = evc_function(st, fb, "mss_stat", &g->k_stat);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_float_ms_ssim.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    MsSsimCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    bool clip;
    err = evc_opt_bool(fex, "enable_lcs", &g->enable_lcs);
    if (!err) err = evc_opt_bool(fex, "enable_db", &g->enable_db);
    if (!err) err = evc_opt_bool(fex, "clip_db", &clip);
    if (err) return err;
    g->max_db = ssim_max_db(bpc, w, h, clip);
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    g->st = fex->env.cuda;
    err = evc_push(g->st);
    if (err) {
        g->st = NULL;
        return err;
    }
    err = setup(g);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

static int queue_frame(MsSsimCuda *g, CUdeviceptr r0, CUdeviceptr d0, int p0)
{
    VmafCudaState *st = g->st;
    int err = 0;
    evc_phase(st, EVC_PHASE_KERNELS);
    for (int k = 0; k < MS_SSIM_SCALES && !err; k++) {
        CUdeviceptr im[2] = { k ? g->img[0][k].p : r0, k ? g->img[1][k].p : d0 };
        int pitch = k ? g->sw[k] : p0;
        if (k + 1 < MS_SSIM_SCALES) {
            for (int i = 0; i < 2 && !err; i++) {
                int w = g->sw[k], h = g->sh[k], dp = g->sw[k + 1];
                void *a[] = { &im[i], &pitch, &w, &h, &g->img[i][k + 1].p, &dp };
                err = evc_launch(st, g->k_dec, (unsigned)g->sw[k + 1], (unsigned)g->sh[k + 1],
                                 1, 32, 8, a);
            }
        }
        int w = g->sw[k], h = g->sh[k], wv = w - (SSIM_WIN - 1), hv = h - (SSIM_WIN - 1);
        size_t plane = (size_t)wv * h;
        void *ha[] = { &im[0], &im[1], &pitch, &w, &h, &g->hp.p, &wv, &plane };
        if (!err) err = evc_launch(st, g->k_h, (unsigned)wv, (unsigned)h, 1, 32, 8, ha);
        CUdeviceptr t = g->terms.p + g->terms_off[k] * sizeof(double);
        void *sa[] = { &g->hp.p, &wv, &plane, &wv, &hv, &t };
        if (!err) err = evc_launch(st, g->k_stat, (unsigned)wv, (unsigned)hv, 1, 32, 8, sa);
    }
    if (!err) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_terms, g->terms.p, g->n_terms * sizeof(double));
    }
    if (!err) err = evc_sync(st);
    return err;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    MsSsimCuda *g = fex->twin_priv;
    if (ref->w[0] != g->w || ref->h[0] != g->h || dist->w[0] != g->w ||
        dist->h[0] != g->h || ref->bpc != g->bpc || dist->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_ms_ssim: frame %u does not match the %ux%u %u-bit geometry "
                 "given at init", index, g->w, g->h, g->bpc);
        return -EINVAL;
    }
    VmafCudaState *st = g->st;
    evc_twin_begin(st, "float_ms_ssim");
    int err = evc_push(st);
    if (err) return err;
    CUdeviceptr r, d;
    size_t rp, dp;
    err = evc_plane_float(st, ref, 0, index, 0.0f, &r, &rp);
    if (!err) err = evc_plane_float(st, dist, 0, index, 0.0f, &d, &dp);
    if (!err) err = queue_frame(g, r, d, (int)rp);
    const int err2 = evc_pop(st);
    if (err || err2) return err ? err : err2;

    /* The CPU's four fp64 sums per scale, over the valid pixels in raster order. */
    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], s[MS_SSIM_SCALES];
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        const int wv = g->sw[k] - (SSIM_WIN - 1), hv = g->sh[k] - (SSIM_WIN - 1);
        const size_t n = (size_t)wv * hv;
        const double *tl = g->h_terms + g->terms_off[k], *tc = tl + n, *ts = tc + n;
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
    evc_twin_end(st);

    double score;
    err = ms_ssim_pool(l, c, s, &score);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_ms_ssim: frame %u: the MS-SSIM product is "
                 "infinite (the reference fails the frame there)", index);
        return err;
    }
    if (g->enable_db)
        score = ssim_to_db(score, g->max_db);
    err = vmaf_fex_emit(fex, "float_ms_ssim", score, index);
    const float *terms[3] = { l, c, s };
    for (int t = 0; t < 3 && !err && g->enable_lcs; t++)
        for (int k = 0; k < MS_SSIM_SCALES && !err; k++)
            err = vmaf_fex_emit(fex, lcs_names[t][k], (double)terms[t][k], index);
    return err;
}

const VmafFexTwin vmaf_fex_float_ms_ssim_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .close = twin_close,
};
