/*
 * Integer motion ("motion") arithmetic, written once for the CPU reference
 * and every GPU twin: Netflix libvmaf v3.2.0's integer_motion.c C path
 * (docs/numerics.md section 9).
 *
 * Per frame: d = prev - cur on the luma plane; a 5-tap vertical filter of d
 * rounded by 2^bpc, a 5-tap horizontal filter rounded by 2^16 (both
 * reflect-101), |.| summed per row in uint32 and over rows in uint64. That
 * SAD is integer (order-free). Floating point enters only in the frame
 * score and in the end-of-stream motion2/motion3, all double, here.
 */
#ifndef EXACTVMAF_IMOTION_ARITH_H
#define EXACTVMAF_IMOTION_ARITH_H

#include <stdint.h>

#include "fp.h"

#define IMOTION_TAPS 5
#define IMOTION_RADIUS 2

/** The Q16 blur taps (sum 65536): an initializer for host and device tables. */
#define IMOTION_FILTER { 3571, 16004, 26386, 16004, 3571 }

/** reflect-101: -i -> i, n-1+i -> n-1-i (n >= 3 for the 5-tap filter). */
EV_FN int imotion_mirror(int i, int n)
{
    if (i < 0) return -i;
    if (i >= n) return 2 * n - i - 2;
    return i;
}

/**
 * Vertical pass, one sample: d[k] = prev - cur at rows i-2..i+2 (mirrored);
 * floor((sum f*d + 2^(bpc-1)) / 2^bpc) with an arithmetic shift, as the
 * reference's int32 (8-bit) and int64 (deeper) sums both give.
 */
EV_FN int32_t imotion_vert_px(const int32_t d[IMOTION_TAPS], unsigned bpc)
{
    const int32_t f[IMOTION_TAPS] = IMOTION_FILTER;
    int64_t acc = 0;
    for (int k = 0; k < IMOTION_TAPS; k++)
        acc += (int64_t)f[k] * d[k];
    return (int32_t)((acc + ((int64_t)1 << (bpc - 1))) >> bpc);
}

/** Horizontal pass, one sample: floor((sum f*y + 2^15) / 2^16). */
EV_FN int32_t imotion_horz_px(const int32_t y[IMOTION_TAPS])
{
    const int32_t f[IMOTION_TAPS] = IMOTION_FILTER;
    int64_t acc = 0;
    for (int k = 0; k < IMOTION_TAPS; k++)
        acc += (int64_t)f[k] * y[k];
    return (int32_t)((acc + 32768) >> 16);
}

/** |v| as the reference adds it to its uint32 row sum. */
EV_FN uint32_t imotion_abs(int32_t v)
{
    return v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
}

/* ---- Frame score and end-of-stream values (double, host) ---- */
#if EV_F64

/** The reference's MIN macro: (a < b) ? a : b. */
EV_FN double imotion_min(double a, double b)
{
    return a < b ? a : b;
}

/**
 * The frame score: min(sad / 256 / (w*h) * fps_weight, max_val), left to
 * right in double; w*h is an unsigned product, as in the reference.
 */
EV_FN double imotion_score(uint64_t sad, unsigned w, unsigned h, double fps_weight,
                           double max_val)
{
    const double area = (double)(unsigned)(w * h);
    return imotion_min(DMUL(DDIV(DDIV((double)sad, 256.0), area), fps_weight), max_val);
}

/** motion_blend_tools.h: x*bf + (1 - bf)*min(bo, x). */
EV_FN double imotion_blend(double x, double bf, double bo)
{
    return DADD(DMUL(x, bf), DMUL(DSUB(1.0, bf), imotion_min(bo, x)));
}
#endif

#endif
