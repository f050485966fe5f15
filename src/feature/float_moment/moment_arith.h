/*
 * float_moment arithmetic, shared by the CPU reference and every GPU twin.
 *
 * The reference converts each luma sample to float, p = a / S (S = 1, 4,
 * 16, 256 for 8, 10, 12, 16 bits), and adds into fp64 running sums in
 * raster order: p itself (1st moment) and the fp32 product p*p (2nd). In
 * units of 1/S and 1/S^2 every term is an integer:
 *   - p is a exactly;
 *   - p*p is a^2 / S^2 rounded to float, and as the scaling by a power of
 *     two commutes with the rounding, the term is (float)(uint32)a^2: a^2
 *     itself for 8 bits and in-range 10 and 12 bits (a^2 < 2^24), rounded
 *     to 24 bits at 16 bits (or for samples above 2^bpc - 1).
 * While a unit total stays below 2^53 every partial sum of the reference is
 * exact, so the integer total (order-free) times 1/S or 1/S^2 is its sum
 * bit for bit. The 1st-moment total always qualifies (65535 * 2^31 < 2^53);
 * the 2nd-moment one may not (16 bits), and then a backend falls back to
 * moment2_raster_row(), the reference's loop itself.
 */
#ifndef EXACTVMAF_MOMENT_ARITH_H
#define EXACTVMAF_MOMENT_ARITH_H

#include <stdint.h>

#include "fp.h"

/** Integer unit totals below this are exact in the reference's double sums. */
#define MOMENT_EXACT_UNITS (UINT64_C(1) << 53)

/** Sums of one row in units: s1 += a, s2 += a^2 (8-bit). */
EV_FN void moment_units_row_u8(const uint8_t *x, unsigned w, uint64_t *s1, uint64_t *s2)
{
    uint64_t a1 = 0, a2 = 0;
    for (unsigned j = 0; j < w; j++) {
        const uint32_t a = x[j];
        a1 += a;
        a2 += a * a;
    }
    *s1 += a1;
    *s2 += a2;
}

/**
 * 10 to 16 bits while every a < 2^12: then a^2 < 2^24 and the fp32 product
 * is exact, so plain integer squares are the terms. Returns the OR of the
 * samples; when it reaches 2^12 the sums are not the reference's and the
 * row must be taken with moment_units_row_u16() instead (s1, s2 untouched).
 */
EV_FN uint32_t moment_units_row_u16_small(const uint16_t *x, unsigned w, uint64_t *s1,
                                          uint64_t *s2)
{
    uint64_t a1 = 0, a2 = 0;
    uint32_t o = 0;
    for (unsigned j = 0; j < w; j++) {
        const uint32_t a = x[j];
        o |= a;
        a1 += a;
        a2 += a * a;
    }
    if (o < 4096) {
        *s1 += a1;
        *s2 += a2;
    }
    return o;
}

/**
 * 10 to 16 bits: each a^2 (< 2^32) rounded to float as the fp32 product is.
 * In range, 10- and 12-bit squares are below 2^24 and the rounding changes
 * nothing; it matters at 16 bits, and for samples above 2^bpc - 1, which
 * the reference converts like any other.
 */
EV_FN void moment_units_row_u16(const uint16_t *x, unsigned w, uint64_t *s1,
                                        uint64_t *s2)
{
    uint64_t a1 = 0, a2 = 0;
    for (unsigned j = 0; j < w; j++) {
        const uint32_t a = x[j];
        a1 += a;
        a2 += (uint64_t)(float)(a * a);
    }
    *s1 += a1;
    *s2 += a2;
}

/** The reference's sample-to-float conversion (offset 0). */
EV_FN float moment_sample(const void *row, unsigned j, unsigned bpc)
{
    if (bpc == 8)
        return (float)((const uint8_t *)row)[j];
    const float scale = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
    return FDIV((float)((const uint16_t *)row)[j], scale);
}

#if EV_F64
/**
 * The reference's 2nd-moment loop over one row: acc + f64(p (x) p), left to
 * right. Used only when the unit total reaches 2^53.
 */
EV_FN double moment2_raster_row(double acc, const void *row, unsigned w, unsigned bpc)
{
    for (unsigned j = 0; j < w; j++) {
        const float p = moment_sample(row, j, bpc);
        acc = DADD(acc, FMUL(p, p));
    }
    return acc;
}
#endif

#endif
