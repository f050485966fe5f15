/*
 * float_psnr arithmetic (docs/numerics.md section 8), shared by the CPU
 * reference and every GPU twin.
 *
 * The reference converts each luma sample to float (sample / S, S = 1, 4,
 * 16, 256 for 8, 10, 12, 16 bits), takes d = r - s and adds the fp32
 * product d*d into an fp64 running sum in raster order. In units of 1/S^2
 * each term is an integer:
 *   - d is exact, so d*d is (a-b)^2 / S^2 rounded to float, and as the
 *     scaling by a power of two commutes with the rounding, the term is
 *     (float)(uint32)(a-b)^2: exact, i.e. (a-b)^2, for 8 bits and in-range
 *     10 and 12 bits, rounded to 24 bits at 16 bits (or for samples above
 *     2^bpc - 1, which the reference converts like any other).
 * While the unit total stays below 2^53 every partial sum of the reference
 * is exact, so the integer total (order-free) times 1/S^2 is its sum, bit
 * for bit. Above that a backend falls back to fpsnr_raster_row(), which is
 * the reference's loop itself.
 */
#ifndef EXACTVMAF_FLOAT_PSNR_ARITH_H
#define EXACTVMAF_FLOAT_PSNR_ARITH_H

#include <stdint.h>

#include "fp.h"

/** Integer unit totals below this are exact in the reference's double sum. */
#define FPSNR_EXACT_UNITS (UINT64_C(1) << 53)

/** Units of 1/S^2 per frame: 8-bit row, sum of (a-b)^2. */
EV_FN uint64_t fpsnr_units_row_u8(const uint8_t *ref, const uint8_t *dis, unsigned w)
{
    uint64_t acc = 0;
    for (unsigned j = 0; j < w; j++) {
        const int32_t e = (int32_t)ref[j] - (int32_t)dis[j];
        acc += (uint32_t)(e * e);
    }
    return acc;
}

/**
 * 10- to 16-bit row while every |a-b| < 2^12: then (a-b)^2 < 2^24 and the
 * fp32 product is exact, so plain integer squares are the terms. *or_abs
 * receives the OR of the |a-b|; when it reaches 2^12 the result is not the
 * reference's and the row must be taken with fpsnr_units_row_u16().
 */
EV_FN uint64_t fpsnr_units_row_u16_small(const uint16_t *ref, const uint16_t *dis,
                                         unsigned w, uint32_t *or_abs)
{
    uint64_t acc = 0;
    uint32_t o = 0;
    for (unsigned j = 0; j < w; j++) {
        const int32_t e = (int32_t)ref[j] - (int32_t)dis[j];
        const uint32_t m = (uint32_t)(e < 0 ? -e : e);
        o |= m;
        acc += m * m;
    }
    *or_abs = o;
    return acc;
}

/**
 * 10- to 16-bit row: each (a-b)^2 (< 2^32) rounded to float as the fp32
 * product is. In range, 10- and 12-bit squares are below 2^24 and the
 * rounding changes nothing; it matters at 16 bits, and for samples above
 * 2^bpc - 1, which the reference converts like any other.
 */
EV_FN uint64_t fpsnr_units_row_u16(const uint16_t *ref, const uint16_t *dis,
                                           unsigned w)
{
    uint64_t acc = 0;
    for (unsigned j = 0; j < w; j++) {
        const int32_t e = (int32_t)ref[j] - (int32_t)dis[j];
        const uint32_t m = (uint32_t)(e < 0 ? -e : e);
        acc += (uint64_t)(float)(m * m);
    }
    return acc;
}

#if EV_F64
/** The value of one unit of the integer total: 1/S^2 for samples scaled by 1/S (exact). */
EV_FN double fpsnr_unit(unsigned bpc)
{
    return bpc == 8 ? 1.0 : bpc == 10 ? 0x1p-4 : bpc == 12 ? 0x1p-8 : 0x1p-16;
}
#endif

/** The reference's sample-to-float conversion (offset 0). */
EV_FN float fpsnr_sample(const void *row, unsigned j, unsigned bpc)
{
    if (bpc == 8)
        return (float)((const uint8_t *)row)[j];
    const float scale = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
    return FDIV((float)((const uint16_t *)row)[j], scale);
}

#if EV_F64
/**
 * The reference's own loop over one row: acc + f64(d (x) d), left to right.
 * Used only when the unit total reaches 2^53.
 */
EV_FN double fpsnr_raster_row(double acc, const void *ref, const void *dis,
                              unsigned w, unsigned bpc)
{
    for (unsigned j = 0; j < w; j++) {
        const float d = FSUB(fpsnr_sample(ref, j, bpc), fpsnr_sample(dis, j, bpc));
        acc = DADD(acc, FMUL(d, d));
    }
    return acc;
}
#endif

#endif
