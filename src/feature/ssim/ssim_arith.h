/*
 * float_ssim / float_ms_ssim per-sample arithmetic, shared by the CPU
 * reference and every GPU twin. Each function reproduces one step of Netflix
 * libvmaf v3.2.0's SSIM (its iqa code, default arguments) operation for
 * operation (docs/numerics.md sections 6 and 7): same types, same order, one
 * rounding per operation, nothing fused.
 *
 * The tables are given as initialiser macros so that the host keeps them in
 * a static const array and a device in its constant memory, from one text.
 *
 * The binary64 steps (the convolution sums, the l and c numerators and
 * quotients, the means) are written once with fp.h's ev_d / D_*: doubles
 * where there is binary64 (the host, CUDA, OpenCL with fp64), exact integer
 * routines giving the same bits where not.
 */
#ifndef EXACTVMAF_SSIM_ARITH_H
#define EXACTVMAF_SSIM_ARITH_H

#include <math.h>

#include "fp.h"

/** Taps of the 11-tap Gaussian window, as fp32 literals (the 1-D pair). */
#define SSIM_WIN 11
#define SSIM_WIN_TAPS_INIT { \
    0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f, \
    0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f }

/**
 * MS-SSIM's 9x9 down-sampling low-pass table, row-major. The reference
 * decimates with this 2-D table (rounded to 6 decimals, so not the outer
 * product of its 1-D 9/7 filter), never with the separable pair.
 */
#define MS_SSIM_LPF 9
#define MS_SSIM_LPF_INIT { \
    { 0.000714f,-0.000450f,-0.002090f, 0.007132f, 0.016114f, 0.007132f,-0.002090f,-0.000450f, 0.000714f}, \
    {-0.000450f, 0.000283f, 0.001316f,-0.004490f,-0.010146f,-0.004490f, 0.001316f, 0.000283f,-0.000450f}, \
    {-0.002090f, 0.001316f, 0.006115f,-0.020867f,-0.047149f,-0.020867f, 0.006115f, 0.001316f,-0.002090f}, \
    { 0.007132f,-0.004490f,-0.020867f, 0.071207f, 0.160885f, 0.071207f,-0.020867f,-0.004490f, 0.007132f}, \
    { 0.016114f,-0.010146f,-0.047149f, 0.160885f, 0.363505f, 0.160885f,-0.047149f,-0.010146f, 0.016114f}, \
    { 0.007132f,-0.004490f,-0.020867f, 0.071207f, 0.160885f, 0.071207f,-0.020867f,-0.004490f, 0.007132f}, \
    {-0.002090f, 0.001316f, 0.006115f,-0.020867f,-0.047149f,-0.020867f, 0.006115f, 0.001316f,-0.002090f}, \
    {-0.000450f, 0.000283f, 0.001316f,-0.004490f,-0.010146f,-0.004490f, 0.001316f, 0.000283f,-0.000450f}, \
    { 0.000714f,-0.000450f,-0.002090f, 0.007132f, 0.016114f, 0.007132f,-0.002090f,-0.000450f, 0.000714f} }

/** MS-SSIM scale count and its exponents: fp32 values, promoted to double by pow. */
#define MS_SSIM_SCALES 5
#define MS_SSIM_ALPHA_INIT { 0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f }
#define MS_SSIM_BETA_INIT { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }
#define MS_SSIM_GAMMA_INIT { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }

/** The stabilising constants, all fp32 (0x40d0147a, 0x426a1709, 0x41ea1709). */
typedef struct SsimConst {
    float c1, c2, c3;
} SsimConst;

/** C1 = (K1*L)^2, C2 = (K2*L)^2, C3 = C2/2 with K1 = 0.01f, K2 = 0.03f, L = 255, each step fp32. */
EV_FN SsimConst ssim_const(void)
{
    const float k1l = FMUL(0.01f, 255.0f);
    const float k2l = FMUL(0.03f, 255.0f);
    SsimConst c;
    c.c1 = FMUL(k1l, k1l);
    c.c2 = FMUL(k2l, k2l);
    c.c3 = FDIV(c.c2, 2.0f);
    return c;
}

/**
 * One tap of every convolution in SSIM (the window's passes and both
 * decimations): an fp32 product added to an fp64 running sum that starts at
 * 0.0. The reference's final `sum * scale` has scale 1.0f, which is exact.
 */
EV_FN ev_d ssim_tap(ev_d acc, float x, float k)
{
    return D_ADD(acc, D_FROM_F(FMUL(x, k)));
}

/** The fp64 sum's start, +0.0. */
#define SSIM_ACC0 D_K(0x0000000000000000, 0.0)

/**
 * Half-sample symmetric index (-1 -> 0, n -> n-1), mirrored once, as the
 * reference's KBND_SYMMETRIC: the edges of both decimations.
 */
EV_FN int ssim_mirror(int i, int n)
{
    return i < 0 ? -1 - i : (i >= n ? n - (i - n) - 1 : i);
}

/** The filtered value stored after a convolution: the fp64 sum rounded to fp32. */
EV_FN float ssim_round(ev_d acc)
{
    return D_TO_F(acc);
}

/** Product of two samples (x*x, y*y or x*y), fp32, convolved like a sample. */
EV_FN float ssim_prod(float a, float b)
{
    return FMUL(a, b);
}

/**
 * Variance from filtered square and mean: xx - mu*mu in fp32, then the
 * reference's MAX(0.0, v): a negative becomes +0, NaN and -0 stay as they
 * are. The reference compares in double; the promotion is exact, so the
 * fp32 comparison decides the same.
 */
EV_FN float ssim_variance(float xx, float mu)
{
    const float v = FSUB(xx, FMUL(mu, mu));
    return 0.0f > v ? 0.0f : v;
}

/** Covariance from filtered product and means: xy - mu1*mu2, fp32, unclamped. */
EV_FN float ssim_covariance(float xy, float mu1, float mu2)
{
    return FSUB(xy, FMUL(mu1, mu2));
}

/** Argument of the square root: sigma1^2 * sigma2^2 in fp32. */
EV_FN float ssim_sigma_prod(float s1, float s2)
{
    return FMUL(s1, s2);
}

/**
 * sqrt of an fp32 value as the reference takes it: sqrt() of the promoted
 * float, stored as float. A double root of a float, rounded to float, is the
 * correctly rounded fp32 root, so this is the IEEE fp32 square root.
 */
EV_FN float ssim_sqrt(float p)
{
    return FSQRT(p);
}

/**
 * The covariance the structure term uses: 0 when s12 < 0 and sr <= 0 (the
 * reference's fix for flat identical windows, where rounding can leave a
 * negative covariance beside a zero root), else s12 (NaN and -0 kept).
 */
EV_FN float ssim_clamp_cov(float s12, float sr)
{
    return (s12 < 0.0f && sr <= 0.0f) ? 0.0f : s12;
}

/**
 * The three terms of one pixel from the means, variances, clamped
 * covariance s12c = ssim_clamp_cov(s12, sr) and sr = ssim_sqrt(s1*s2):
 *   l = (2.0*mu1*mu2 + C1) / f32((mu1*mu1 + mu2*mu2) + C1)
 *       fp64 numerator (2*mu1*mu2 is exact in fp64), fp32 denominator,
 *       fp64 quotient;
 *   c = (2.0*sr + C2) / f32((s1 + s2) + C2), same mixed types;
 *   s = (s12c + C3) / (sr + C3), all fp32.
 */
EV_FN void ssim_lcs(float mu1, float mu2, float s1, float s2, float s12c, float sr,
                    const SsimConst *k, ev_d *l, ev_d *c, ev_d *s)
{
    const ev_d two = D_K(0x4000000000000000, 2.0);
    const ev_d l_num = D_ADD(D_MUL(D_MUL(two, D_FROM_F(mu1)), D_FROM_F(mu2)), D_FROM_F(k->c1));
    const float l_den = FADD(FADD(FMUL(mu1, mu1), FMUL(mu2, mu2)), k->c1);
    *l = D_DIV(l_num, D_FROM_F(l_den));

    const ev_d c_num = D_ADD(D_MUL(two, D_FROM_F(sr)), D_FROM_F(k->c2));
    const float c_den = FADD(FADD(s1, s2), k->c2);
    *c = D_DIV(c_num, D_FROM_F(c_den));

    *s = D_FROM_F(FDIV(FADD(s12c, k->c3), FADD(sr, k->c3)));
}

/** The term ssim_sum adds: (l*c)*s in fp64. */
EV_FN ev_d ssim_lcs_product(ev_d l, ev_d c, ev_d s)
{
    return D_MUL(D_MUL(l, c), s);
}

/**
 * One pixel from its five filtered values (mu1, mu2, xx, yy, xy), for
 * backends that evaluate a pixel at once. The CPU loops split it at the
 * square root so that the pieces vectorise.
 */
EV_FN void ssim_pixel(float mu1, float mu2, float xx, float yy, float xy,
                      const SsimConst *k, ev_d *l, ev_d *c, ev_d *s)
{
    const float s1 = ssim_variance(xx, mu1);
    const float s2 = ssim_variance(yy, mu2);
    const float s12 = ssim_covariance(xy, mu1, mu2);
    const float sr = ssim_sqrt(ssim_sigma_prod(s1, s2));
    ssim_lcs(mu1, mu2, s1, s2, ssim_clamp_cov(s12, sr), sr, k, l, c, s);
}

/** A mean over the valid region: the fp64 raster-order sum / (w*h), stored as fp32. */
EV_FN float ssim_mean(ev_d sum, int w, int h)
{
    return D_TO_F(D_DIV(sum, D_FROM_I64(w * h)));
}

#endif
