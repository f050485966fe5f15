/*
 * float_adm per-sample arithmetic, written once for the CPU reference and
 * every GPU twin (docs/numerics.md section 3). Each function is the reference's
 * expression operation for operation: fp32 where Netflix's operands are
 * float, fp64 where a double literal or a double option promotes them, each
 * step rounded on its own (FMUL/FADD/... from fp.h, never contracted).
 */
#ifndef EXACTVMAF_ADM_ARITH_H
#define EXACTVMAF_ADM_ARITH_H

#include <math.h>

#include "fp.h"

#if defined(__OPENCL_C_VERSION__)
/* OpenCL C has no fabsf: its fabs of a float is the float |x|. */
#define fabsf(x) fabs((float)(x))
#endif

/*
 * Constants, as hex literals of the values the reference's compiler stores.
 * The db2 filters are float arrays initialised from double literals
 * (0.482962913144690, 0.836516303737469, 0.224143868041857,
 * -0.129409522550921): each is the double rounded once to float.
 */
#define ADM_DWT_LO0 0x1.ee8dd4p-2f   /* 0x3ef746ea */
#define ADM_DWT_LO1 0x1.ac4bdep-1f   /* 0x3f5625ef */
#define ADM_DWT_LO2 0x1.cb0bf0p-3f   /* 0x3e6585f8 */
#define ADM_DWT_LO3 -0x1.0907dcp-3f  /* 0xbe0483ee */
#define ADM_DWT_HI0 ADM_DWT_LO3
#define ADM_DWT_HI1 (-ADM_DWT_LO2)
#define ADM_DWT_HI2 ADM_DWT_LO1
#define ADM_DWT_HI3 (-ADM_DWT_LO0)

/* `const float eps = 1e-30;` in adm_decouple_s: 0x0da24260. */
#define ADM_EPS 0x1.4484c0p-100f
/* cos(1 deg)^2 computed in double, stored as float: 0x3f7fec0a. */
#define ADM_COS_1DEG_SQ 0x1.ffd814p-1f
/*
 * FLOAT_ONE_BY_15 / FLOAT_ONE_BY_30 are the decimal literals 0.0666666701
 * and 0.0333333351, i.e. doubles (neither 1/15 nor (double)(1.0f/15)):
 * ev_d constants (the literal with binary64, its bits without).
 */
#define ADM_ONE_BY_15 D_K(0x3fb111111fd00e7d, 0x1.111111fd00e7dp-4)
#define ADM_ONE_BY_30 D_K(0x3fa11111203e01fc, 0x1.11111203e01fcp-5)

/**
 * One db2 tap sum: the reference starts its accumulator at +0 and adds the
 * four products in tap order (the +0 start turns an all -0 sum into +0).
 */
EV_FN float adm_dwt_tap4(float c0, float c1, float c2, float c3,
                         float s0, float s1, float s2, float s3)
{
    float acc = 0.0f;
    acc = FADD(acc, FMUL(c0, s0));
    acc = FADD(acc, FMUL(c1, s1));
    acc = FADD(acc, FMUL(c2, s2));
    acc = FADD(acc, FMUL(c3, s3));
    return acc;
}

EV_FN float adm_dwt_lo(float s0, float s1, float s2, float s3)
{
    return adm_dwt_tap4(ADM_DWT_LO0, ADM_DWT_LO1, ADM_DWT_LO2, ADM_DWT_LO3,
                        s0, s1, s2, s3);
}

EV_FN float adm_dwt_hi(float s0, float s1, float s2, float s3)
{
    return adm_dwt_tap4(ADM_DWT_HI0, ADM_DWT_HI1, ADM_DWT_HI2, ADM_DWT_HI3,
                        s0, s1, s2, s3);
}

/** Gain ratio t / (o + eps), IEEE quotient (the reference without SSE2). */
EV_FN float adm_ratio_ieee(float t, float o)
{
    return FDIV(t, FADD(o, ADM_EPS));
}

/**
 * rcp_s() of the x86 reference: xi + xi * (1 - x * xi), xi = RCPSS(x), one
 * unfused Newton step in fp32.
 */
EV_FN float adm_rcp_refine(float x, float xi)
{
    return FADD(xi, FMUL(xi, FSUB(1.0f, FMUL(x, xi))));
}

/**
 * Gain ratio of the x86 reference: t * rcp_s(o + eps). `xi` is the
 * processor's estimate of 1 / (o + eps); see adm_ratio_denominator().
 */
EV_FN float adm_ratio_rcp(float t, float d, float xi)
{
    return FMUL(t, adm_rcp_refine(d, xi));
}

EV_FN float adm_ratio_denominator(float o)
{
    return FADD(o, ADM_EPS);
}

/** Clamp to [0, 1] with the reference's ternaries: NaN passes through. */
EV_FN float adm_clamp01(float k)
{
    return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k);
}

/**
 * Angle test on the h and v components only:
 * dp >= 0 && dp*dp >= (cos^2(1 deg) * |o|^2) * |t|^2, all fp32.
 */
EV_FN int adm_angle_flag(float oh, float ov, float th, float tv)
{
    const float dp = FADD(FMUL(oh, th), FMUL(ov, tv));
    const float om = FADD(FMUL(oh, oh), FMUL(ov, ov));
    const float tm = FADD(FMUL(th, th), FMUL(tv, tv));
    return (dp >= 0.0f) & (FMUL(dp, dp) >= FMUL(FMUL(ADM_COS_1DEG_SQ, om), tm));
}

/**
 * Restored coefficient of one band: rst = k * o, then the enhancement-gain
 * limit. The product rst * egl and the min/max against t are double (egl is
 * a double option); the result is stored back as float. The second test
 * reads the value the first one may have updated, as the reference does.
 * Both products are formed unconditionally so that the CPU loop vectorises;
 * the selected values are the reference's. Written with fp.h's ev_d / D_*:
 * double where there is binary64, its exact integer form where not.
 */
EV_FN float adm_restore(float k, float o, float t, int flag, ev_d egl)
{
    const ev_d td = D_FROM_F(t);
    float rst = FMUL(k, o);
    const ev_d up = D_MUL(D_FROM_F(rst), egl);
    rst = (flag && rst > 0.0f) ? D_TO_F(D_LT(up, td) ? up : td) : rst;
    const ev_d dn = D_MUL(D_FROM_F(rst), egl);
    rst = (flag && rst < 0.0f) ? D_TO_F(D_GT(dn, td) ? dn : td) : rst;
    return rst;
}

/** Additive impairment a = t - rst (fp32). */
EV_FN float adm_additive(float t, float rst)
{
    return FSUB(t, rst);
}

/** CSF-weighted value: rfactor * x (fp32). */
EV_FN float adm_csf(float rfactor, float x)
{
    return FMUL(rfactor, x);
}

/** Filtered CSF value: f32(FLOAT_ONE_BY_30 * |csf|), the product in double. */
EV_FN float adm_csf_flt(float csf)
{
    return D_TO_F(D_MUL(ADM_ONE_BY_30, D_FROM_F(fabsf(csf))));
}

/**
 * Masking-threshold sum of one band at one sample: the eight filtered
 * neighbours (n0..n8 minus n4, row-major) and, fifth, the centre's
 * unfiltered |csf| times FLOAT_ONE_BY_15, added in double and rounded once.
 */
EV_FN float adm_cm_band_sum(float n0, float n1, float n2, float n3,
                            float csf_centre, float n5, float n6, float n7,
                            float n8)
{
    float s = 0.0f;
    s = FADD(s, n0);
    s = FADD(s, n1);
    s = FADD(s, n2);
    s = FADD(s, n3);
    s = D_TO_F(D_ADD(D_FROM_F(s), D_MUL(ADM_ONE_BY_15, D_FROM_F(fabsf(csf_centre)))));
    s = FADD(s, n5);
    s = FADD(s, n6);
    s = FADD(s, n7);
    s = FADD(s, n8);
    return s;
}

/** Masked value: max(|src * rfactor| - thr, 0), fp32 (NaN passes through). */
EV_FN float adm_cm_masked(float src, float rfactor, float thr)
{
    const float x = FSUB(fabsf(FMUL(src, rfactor)), thr);
    return x < 0.0f ? 0.0f : x;
}

/** |rfactor * o| for the denominator. */
EV_FN float adm_den_value(float rfactor, float o)
{
    return fabsf(FMUL(rfactor, o));
}

/** The p = 3 term (x*x)*x. */
EV_FN float adm_cube(float x)
{
    return FMUL(FMUL(x, x), x);
}

#endif
