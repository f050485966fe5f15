/*
 * psnr's CUDA twin: host side. The CPU path's init validates the depth;
 * per frame the kernel (psnr_cuda.cu) gives each plane's integer squared
 * error (8-bit: per-row uint32 totals, added here in uint64 as the CPU
 * does), and psnr_host_frame() / psnr_host_flush(), the CPU's, conclude.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "psnr_host.h"

extern const VmafFeatureExtractor vmaf_fex_psnr;
extern const EvcFatbin evc_fatbin_psnr;

typedef struct PsnrCuda {
    VmafCudaState *st;
    unsigned bpc, max_h;
    PsnrHost host;
    EvcBuf rows;        /**< 8-bit: max_h uint32 per plane; deeper: one uint64 per plane */
    void *h_rows;
    size_t rows_bytes;
    CUfunction k_sse;
} PsnrCuda;

static void twin_close(VmafFex *fex)
{
    PsnrCuda *g = fex->twin_priv;
    if (g && g->st && !evc_push(g->st)) {
        evc_sync(g->st);
        evc_buf_free(g->st, &g->rows);
        evc_host_free(g->st, &g->h_rows);
        evc_pop(g->st);
    }
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_psnr.close) vmaf_fex_psnr.close(fex);
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the depth and the options, with its messages. */
    int err = vmaf_fex_psnr.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    PsnrCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    bool chroma, mse, apsnr, reduced;
    double min_sse;
    err = evc_opt_bool(fex, "enable_chroma", &chroma);
    if (!err) err = evc_opt_bool(fex, "enable_mse", &mse);
    if (!err) err = evc_opt_bool(fex, "enable_apsnr", &apsnr);
    if (!err) err = evc_opt_bool(fex, "reduced_hbd_peak", &reduced);
    if (!err) err = evc_opt_double(fex, "min_sse", &min_sse);
    if (err) return err;
    psnr_host_init(&g->host, chroma, mse, apsnr, reduced, min_sse, pix_fmt, bpc, w, h);
    g->bpc = bpc;
    g->max_h = h;
    g->st = fex->env.cuda;
    err = evc_push(g->st);
    if (err) {
        g->st = NULL;
        return err;
    }
    g->rows_bytes = bpc == 8 ? 3 * (size_t)h * sizeof(uint32_t) : 3 * sizeof(uint64_t);
    err = evc_buf_alloc(g->st, &g->rows, g->rows_bytes);
    if (!err) err = evc_host_alloc(g->st, &g->h_rows, g->rows_bytes);
    if (!err)
        err = evc_function(g->st, &evc_fatbin_psnr, bpc == 8 ? "psnr_sse_u8" : "psnr_sse_u16",
                           &g->k_sse);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

static int queue_frame(PsnrCuda *g, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned index)
{
    VmafCudaState *st = g->st;
    int err = evc_memset(st, g->rows.p, g->rows_bytes);
    for (unsigned p = 0; p < g->host.n_planes && !err; p++) {
        CUdeviceptr r, d;
        err = evc_plane_raw(st, ref, p, index, &r);
        if (!err) err = evc_plane_raw(st, dist, p, index, &d);
        if (err) break;
        evc_phase(st, EVC_PHASE_KERNELS);
        int w = (int)ref->w[p], h = (int)ref->h[p];
        CUdeviceptr out = g->bpc == 8 ? g->rows.p + (size_t)p * g->max_h * sizeof(uint32_t)
                                      : g->rows.p + (size_t)p * sizeof(uint64_t);
        void *a[] = { &r, &d, &w, &h, &out };
        if (w && h) err = evc_launch(st, g->k_sse, (unsigned)w, (unsigned)h, 1, 256, 1, a);
    }
    if (!err) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_rows, g->rows.p, g->rows_bytes);
    }
    if (!err) err = evc_sync(st);
    return err;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    PsnrCuda *g = fex->twin_priv;
    if (ref->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "psnr: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, g->bpc);
        return -EINVAL;
    }
    for (unsigned p = 0; p < g->host.n_planes; p++) {
        if (ref->h[p] > g->max_h || dist->w[p] != ref->w[p] || dist->h[p] != ref->h[p]) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "psnr: frame %u plane %u does not match the geometry given at init",
                     index, p);
            return -EINVAL;
        }
    }
    VmafCudaState *st = g->st;
    evc_twin_begin(st, "psnr");
    int err = evc_push(st);
    if (err) return err;
    err = queue_frame(g, ref, dist, index);
    const int err2 = evc_pop(st);
    if (err || err2) return err ? err : err2;

    uint64_t sse[3] = { 0, 0, 0 };
    unsigned pw[3] = { 0, 0, 0 }, ph[3] = { 0, 0, 0 };
    for (unsigned p = 0; p < g->host.n_planes; p++) {
        if (g->bpc == 8) {
            const uint32_t *rows = (const uint32_t *)g->h_rows + (size_t)p * g->max_h;
            for (unsigned i = 0; i < ref->h[p]; i++)
                sse[p] += rows[i];
        } else {
            sse[p] = ((const uint64_t *)g->h_rows)[p];
        }
        pw[p] = ref->w[p];
        ph[p] = ref->h[p];
    }
    evc_twin_end(st);
    return psnr_host_frame(fex, &g->host, sse, pw, ph, index);
}

static int twin_flush(VmafFex *fex)
{
    PsnrCuda *g = fex->twin_priv;
    return psnr_host_flush(fex, &g->host);
}

const VmafFexTwin vmaf_fex_psnr_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .flush = twin_flush,
    .close = twin_close,
};
