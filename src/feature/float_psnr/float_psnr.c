/*
 * float_psnr: Netflix libvmaf v3.2.0's float PSNR of the luma plane, bit for
 * bit (docs/numerics.md section 8). No options; output float_psnr.
 *
 * The reference's fp64 raster sum of fp32 squared differences is computed
 * as an integer total (float_psnr_arith.h explains why that is the same sum
 * bit for bit), with the reference's own loop as the fallback where the
 * total is too large to be exact; no float copy of the frame is made.
 *
 * Differences from the reference: depths other than 8, 10, 12 and 16 bits
 * are refused with -EINVAL (the reference refuses them with -ENOMEM), and
 * frames of more than INT_MAX samples (where its int area overflows).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "math/ev_math.h"
#include "feature/extractor.h"
#include "float_psnr_arith.h"
#include "float_psnr_conclude.h"
#include "log.h"

typedef struct FloatPsnrState {
    unsigned bpc;
    double peak;
    double psnr_max;
} FloatPsnrState;

static const char *const provided_features[] = {
    "float_psnr",
    NULL
};

int float_psnr_constants(unsigned bpc, double *peak, double *psnr_max)
{
    switch (bpc) {
    case 8: *peak = 255.0; *psnr_max = 60.0; return 0;
    case 10: *peak = 255.75; *psnr_max = 72.0; return 0;
    case 12: *peak = 255.9375; *psnr_max = 84.0; return 0;
    case 16: *peak = 255.99609375; *psnr_max = 108.0; return 0;
    default: return -EINVAL;
    }
}

double float_psnr_conclude(double noise_sum, unsigned w, unsigned h,
                           double peak, double psnr_max)
{
    /* The reference: noise /= (int)(w*h); MIN/MAX are its ternary macros. */
    const double noise = noise_sum / (double)(w * h);
    const double floor_noise = noise > 1e-10 ? noise : 1e-10;
    const double db = 10 * ev_log10(peak * peak / floor_noise);
    return db < psnr_max ? db : psnr_max;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    FloatPsnrState *s = fex->priv;
    (void)pix_fmt;

    if (float_psnr_constants(bpc, &s->peak, &s->psnr_max)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_psnr: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    if ((uint64_t)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_psnr: frame %ux%u is too large", w, h);
        return -EINVAL;
    }
    s->bpc = bpc;
    return 0;
}

/* 10 and 12 bits: integer squares while the differences allow (always in
 * range), the float-rounded terms otherwise; 16 bits: the latter. */
static uint64_t row_units_hbd(const uint16_t *r, const uint16_t *d, unsigned w, unsigned bpc)
{
    if (bpc != 16) {
        uint32_t or_abs;
        const uint64_t units = fpsnr_units_row_u16_small(r, d, w, &or_abs);
        if (or_abs < 4096)
            return units;
    }
    return fpsnr_units_row_u16(r, d, w);
}

/** The frame's noise sum, as the reference's fp64 raster sum. */
static double noise_sum(const VmafPicture *ref, const VmafPicture *dist, unsigned bpc)
{
    const unsigned w = ref->w[0], h = ref->h[0];
    const uint8_t *r = ref->data[0], *d = dist->data[0];
    uint64_t units = 0;

    for (unsigned i = 0; i < h; i++) {
        const uint8_t *ri = r + i * ref->stride[0], *di = d + i * dist->stride[0];
        if (bpc == 8)
            units += fpsnr_units_row_u8(ri, di, w);
        else
            units += row_units_hbd((const uint16_t *)ri, (const uint16_t *)di, w, bpc);
    }
    if (units < FPSNR_EXACT_UNITS) {
        /* Units of 1/S^2: a power of two, so the scaling is exact. */
        return DMUL((double)units, fpsnr_unit(bpc));
    }

    double acc = 0.0;
    for (unsigned i = 0; i < h; i++)
        acc = fpsnr_raster_row(acc, r + i * ref->stride[0], d + i * dist->stride[0], w, bpc);
    return acc;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    FloatPsnrState *s = fex->priv;

    if (ref->bpc != s->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_psnr: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, s->bpc);
        return -EINVAL;
    }
    const double score = float_psnr_conclude(noise_sum(ref, dist, s->bpc), ref->w[0],
                                             ref->h[0], s->peak, s->psnr_max);
    return vmaf_fex_emit(fex, "float_psnr", score, index);
}

const VmafFeatureExtractor vmaf_fex_float_psnr = {
    .name = "float_psnr",
    .init = init,
    .extract = extract,
    .priv_size = sizeof(FloatPsnrState),
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_psnr_gpu),
    .planes = vmaf_fex_planes_luma,
};
