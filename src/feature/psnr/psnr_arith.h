/*
 * psnr (libvmaf's integer PSNR) arithmetic, shared by the CPU reference and
 * every GPU twin.
 *
 * The per-plane sum of squared errors is integer end to end, so any
 * summation order, vector width or thread split gives the same sum. The
 * reference's widths are kept: for 8-bit input each row is summed in a
 * uint32 (which it is, and which wraps only for rows wider than 66 052
 * samples) and the rows in a uint64; for 10 to 16 bits every squared error
 * is a uint32 and the sum a uint64. Only the conclusion (psnr_conclude.h)
 * is floating point, and it runs on the host.
 */
#ifndef EXACTVMAF_PSNR_ARITH_H
#define EXACTVMAF_PSNR_ARITH_H

#include <stdint.h>

#include "fp.h"

/** Squared error of one 8-bit row, as the reference's uint32 row total. */
EV_FN uint32_t psnr_sse_row_u8(const uint8_t *ref, const uint8_t *dis, unsigned w)
{
    uint32_t sse = 0;
    for (unsigned j = 0; j < w; j++) {
        const int32_t e = (int32_t)ref[j] - (int32_t)dis[j];
        sse += (uint32_t)(e * e);
    }
    return sse;
}

/**
 * Squared error of one 10- to 16-bit row. |e| <= 65535, so e*e fits a
 * uint32 exactly; the total is a uint64 as the reference's.
 */
EV_FN uint64_t psnr_sse_row_u16(const uint16_t *ref, const uint16_t *dis, unsigned w)
{
    uint64_t sse = 0;
    for (unsigned j = 0; j < w; j++) {
        const int32_t d = (int32_t)ref[j] - (int32_t)dis[j];
        const uint32_t e = (uint32_t)(d < 0 ? -d : d);
        sse += (uint64_t)(e * e);
    }
    return sse;
}

#endif
