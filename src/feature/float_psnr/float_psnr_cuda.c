/*
 * float_psnr's CUDA twin: host side. The CPU path's init validates the
 * depth and size; per frame the kernel (float_psnr_cuda.cu) gives the
 * luma plane's squared differences as an integer total of 1/S^2 units,
 * which is the reference's fp64 raster sum exactly while it is below
 * 2^53 (float_psnr_arith.h); float_psnr_conclude(), the CPU's, gives the
 * score. A frame whose total reaches 2^53 (only 16-bit frames with huge
 * errors) is computed by the CPU path, whose raster loop is the fallback.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "float_psnr_arith.h"
#include "float_psnr_conclude.h"

extern const VmafFeatureExtractor vmaf_fex_float_psnr;
extern const EvcFatbin evc_fatbin_float_psnr;

typedef struct FloatPsnrCuda {
    VmafCudaState *st;
    unsigned bpc, w, h;
    double peak, psnr_max;
    EvcBuf total;
    uint64_t *h_total;
    CUfunction k_units;
} FloatPsnrCuda;

static void twin_close(VmafFex *fex)
{
    FloatPsnrCuda *g = fex->twin_priv;
    if (g && g->st && !evc_push(g->st)) {
        evc_sync(g->st);
        evc_buf_free(g->st, &g->total);
        evc_host_free(g->st, (void **)&g->h_total);
        evc_pop(g->st);
    }
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_float_psnr.close) vmaf_fex_float_psnr.close(fex);
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the depth and the size, with its messages. */
    int err = vmaf_fex_float_psnr.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    FloatPsnrCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    err = float_psnr_constants(bpc, &g->peak, &g->psnr_max);
    if (err) return err;
    g->bpc = bpc;
    g->w = w;
    g->h = h;
    g->st = fex->env.cuda;
    err = evc_push(g->st);
    if (err) {
        g->st = NULL;
        return err;
    }
    err = evc_buf_alloc(g->st, &g->total, sizeof(uint64_t));
    if (!err) err = evc_host_alloc(g->st, (void **)&g->h_total, sizeof(uint64_t));
    if (!err)
        err = evc_function(g->st, &evc_fatbin_float_psnr,
                           bpc == 8 ? "fpsnr_units_u8" : "fpsnr_units_u16", &g->k_units);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    FloatPsnrCuda *g = fex->twin_priv;
    if (ref->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_psnr: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, g->bpc);
        return -EINVAL;
    }
    if (ref->w[0] != g->w || ref->h[0] != g->h || dist->w[0] != g->w || dist->h[0] != g->h) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_psnr: frame %u does not match the %ux%u size given at init",
                 index, g->w, g->h);
        return -EINVAL;
    }
    VmafCudaState *st = g->st;
    evc_twin_begin(st, "float_psnr");
    int err = evc_push(st);
    if (err) return err;
    CUdeviceptr r, d;
    err = evc_plane_raw(st, ref, 0, index, &r);
    if (!err) err = evc_plane_raw(st, dist, 0, index, &d);
    if (!err) err = evc_memset(st, g->total.p, sizeof(uint64_t));
    if (!err) {
        evc_phase(st, EVC_PHASE_KERNELS);
        int w = (int)g->w, h = (int)g->h;
        void *a[] = { &r, &d, &w, &h, &g->total.p };
        err = evc_launch(st, g->k_units, g->w, g->h, 1, 256, 1, a);
    }
    if (!err) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_total, g->total.p, sizeof(uint64_t));
    }
    if (!err) err = evc_sync(st);
    const int err2 = evc_pop(st);
    if (err || err2) return err ? err : err2;
    evc_twin_end(st);

    const uint64_t units = *g->h_total;
    if (units >= FPSNR_EXACT_UNITS)
        return vmaf_fex_float_psnr.extract(fex, ref, dist, index);
    const double noise = DMUL((double)units, fpsnr_unit(g->bpc));
    const double score = float_psnr_conclude(noise, g->w, g->h, g->peak, g->psnr_max);
    return vmaf_fex_emit(fex, "float_psnr", score, index);
}

const VmafFexTwin vmaf_fex_float_psnr_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .close = twin_close,
};
