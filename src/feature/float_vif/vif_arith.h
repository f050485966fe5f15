/*
 * float_vif per-sample arithmetic, shared by the CPU reference and every GPU
 * twin. Each function reproduces one step of Netflix libvmaf v3.2.0's float
 * VIF operation for operation (docs/numerics.md section 4): same types, same
 * order, one rounding per operation, nothing fused.
 */
#ifndef EXACTVMAF_VIF_ARITH_H
#define EXACTVMAF_VIF_ARITH_H

#include <math.h>
#include <stdint.h>
#if !defined(__CUDA_ARCH__) && !defined(__OPENCL_C_VERSION__)
#include <string.h>
#endif

#include "fp.h"

/** The reference's fp32 epsilon, 1.0e-10f (0x2edbe6ff). */
#define VIF_EPS 1.0e-10f

/**
 * The reference's log2: libvmaf defines VIF_OPT_FAST_LOG2, which replaces
 * every log2f of the statistic by an exponent split plus a 9-coefficient
 * fp32 polynomial in (mantissa - 1). Never a library log2f.
 * The coefficients are double literals stored into a float table, hence the
 * (float) casts of double constants (not float literals, which could round
 * differently). Horner runs all nine steps from 0, as the reference does.
 */
EV_FN float vif_log2(float x)
{
    if (x == 0.0f)
        return -INFINITY;
    if (x < 0.0f)
        return NAN;
    const uint32_t u = ev_f32_bits(x);
    const int32_t exponent = (int32_t)((u & 0x7f800000u) >> 23);
    /* Mantissa with a zero exponent: a value in [1, 2). */
    const float m = ev_bits_f32((u & 0x007fffffu) | 0x3f800000u);
    const float t = FSUB(m, 1.0f);
    float p = 0.0f;
    p = FADD(FMUL(p, t), (float)-0.012671635276421);
    p = FADD(FMUL(p, t), (float)0.064841182402670);
    p = FADD(FMUL(p, t), (float)-0.157048836463065);
    p = FADD(FMUL(p, t), (float)0.257167726303123);
    p = FADD(FMUL(p, t), (float)-0.353800560300520);
    p = FADD(FMUL(p, t), (float)0.480131410397451);
    p = FADD(FMUL(p, t), (float)-0.721314327952201);
    p = FADD(FMUL(p, t), (float)1.442694803896991);
    p = FADD(FMUL(p, t), (float)0.0);
    return FADD((float)(exponent - 127), p);
}

/**
 * Constants of the statistic, fixed per instance (computed on the host).
 * sigma_nsq is binary64 (fp.h's ev_d: a double wherever there are doubles,
 * its bits on an OpenCL device without fp64; the same 16-byte layout).
 */
typedef struct VifStatConst {
    ev_d sigma_nsq;       /**< vif_sigma_nsq, kept double as in the reference */
    float gain_limit;     /**< (float)vif_enhn_gain_limit */
    float sigma_max_inv;  /**< f32(powf((float)nsq, 2.0f) / 65025.0) */
} VifStatConst;

/**
 * The VIF statistic of one pixel ('matching_matlab' mode of the reference).
 * Inputs are the five filtered values at that pixel; writes the pixel's
 * num and den terms.
 */
EV_FN void vif_stat(float mu1, float mu2, float xx, float yy, float xy,
                    const VifStatConst *c, float *num, float *den)
{
    float s1 = FSUB(xx, FMUL(mu1, mu1));
    float s2 = FSUB(yy, FMUL(mu2, mu2));
    const float s12 = FSUB(xy, FMUL(mu1, mu2));

    /* MAX(x, 0.0f) as a ternary: NaN and -0 become +0. */
    s1 = s1 > 0.0f ? s1 : 0.0f;
    s2 = s2 > 0.0f ? s2 : 0.0f;

    float g = FDIV(s12, FADD(s1, VIF_EPS));
    float sv = FSUB(s2, FMUL(g, s12));

    if (s1 < VIF_EPS) {
        g = 0.0f;
        sv = s2;
        s1 = 0.0f;
    }
    if (s2 < VIF_EPS) {
        g = 0.0f;
        sv = 0.0f;
    }
    if (g < 0.0f) {
        sv = s2;
        g = 0.0f;
    }

    /* Below the noise variance the reference overwrites both logs; they have
     * no side effects, so they are not computed. The comparison is float
     * against double, as in the reference. */
    if (D_LT(D_FROM_F(s1), c->sigma_nsq)) {
        *num = FSUB(1.0f, FMUL(s2, c->sigma_max_inv));
        *den = 1.0f;
        return;
    }

    sv = sv > VIF_EPS ? sv : VIF_EPS;
    g = g < c->gain_limit ? g : c->gain_limit;

    /* Both log arguments are double expressions rounded to float once, when
     * they are passed to the float log2. */
    const float gg_s1 = FMUL(FMUL(g, g), s1);
    const ev_d one = D_K(0x3ff0000000000000, 1.0);
    const ev_d num_arg = D_ADD(one, D_DIV(D_FROM_F(gg_s1), D_ADD(D_FROM_F(sv), c->sigma_nsq)));
    const ev_d den_arg = D_ADD(one, D_DIV(D_FROM_F(s1), c->sigma_nsq));
    *num = s12 < 0.0f ? 0.0f : vif_log2(D_TO_F(num_arg));
    *den = vif_log2(D_TO_F(den_arg));
}

/** reflect-101 border (v3.2.0): -i -> i, n-1+i -> n-1-i. Needs n > |overhang|. */
EV_FN int vif_reflect(int i, int n)
{
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

/** One filter tap: acc + f*x. */
EV_FN float vif_tap(float acc, float f, float x)
{
    return FADD(acc, FMUL(f, x));
}

/** One tap of the x*x filter: the square is formed before the coefficient. */
EV_FN float vif_tap_sq(float acc, float f, float x)
{
    return FADD(acc, FMUL(f, FMUL(x, x)));
}

/** One tap of the x*y filter: the product is formed before the coefficient. */
EV_FN float vif_tap_xy(float acc, float f, float x, float y)
{
    return FADD(acc, FMUL(f, FMUL(x, y)));
}

#endif
