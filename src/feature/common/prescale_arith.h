/*
 * The prescale's per-sample sums (prescale.h), in the kernel dialect: the
 * CPU paths and every GPU twin that resample call these. Each is the
 * reference's expression, operation for operation, nothing fused.
 */
#ifndef EXACTVMAF_FEATURE_COMMON_PRESCALE_ARITH_H
#define EXACTVMAF_FEATURE_COMMON_PRESCALE_ARITH_H

#include "fp.h"

/**
 * Bilinear sample: ((1-dy)(1-dx))p11 + ((1-dy)dx)p12 + (dy(1-dx))p21 +
 * (dy dx)p22, each weight product formed first, summed left to right.
 */
EV_FN float ev_prescale_bilinear(float p11, float p12, float p21, float p22, float dx, float dy)
{
    const float ody = FSUB(1.0f, dy), odx = FSUB(1.0f, dx);
    const float a = FMUL(FMUL(ody, odx), p11);
    const float b = FMUL(FMUL(ody, dx), p12);
    const float c = FMUL(FMUL(dy, odx), p21);
    const float d = FMUL(FMUL(dy, dx), p22);
    return FADD(FADD(FADD(a, b), c), d);
}

/** One bicubic tap: acc + p * (wx * wy); source rows outer, one running sum. */
EV_FN float ev_prescale_bicubic_tap(float acc, float p, float wx, float wy)
{
    return FADD(acc, FMUL(p, FMUL(wx, wy)));
}

/** One lanczos4 tap: the weight wx * wy goes to both running sums (the
 * sample is their quotient, FDIV, at the end). */
EV_FN void ev_prescale_lanczos_tap(float *acc, float *wsum, float p, float wx, float wy)
{
    const float w = FMUL(wx, wy);
    *wsum = FADD(*wsum, w);
    *acc = FADD(*acc, FMUL(p, w));
}

#endif
