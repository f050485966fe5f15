/*
 * float_motion arithmetic, written once for the CPU reference and every GPU
 * twin (docs/numerics.md section 5). Every float operation is one
 * FMUL/FADD/FSUB/FDIV (src/fp.h), never fused, in the reference's order.
 *
 * Pipeline per plane: picture -> float (offset -128) -> separable blur
 * (vertical pass into an fp32 temporary, then horizontal; reflect-101 on
 * every edge) -> SAD against the previous frame's blur (fp32 running sum per
 * row, fp32 running sum of the row totals) -> mean. The frame-level clip and
 * blend are double (motion_clip, motion_blended), host side.
 */
#ifndef EXACTVMAF_MOTION_ARITH_H
#define EXACTVMAF_MOTION_ARITH_H

#include <math.h>
#include <stddef.h>

#include "fp.h"

#if defined(__OPENCL_C_VERSION__)
/* OpenCL C has no fabsf: its fabs of a float is the float |x| (exact). */
#define fabsf(x) fabs((float)(x))
/* The twins' blur reads device memory: a global pointer there. */
#define MOTION_GLOBAL global
#else
#define MOTION_GLOBAL
#endif

#define MOTION_MAX_TAPS 5

/**
 * The blur kernel for option motion_filter_size: 1 is the 5-tap identity
 * (the reference still runs it through the tap sums), 3 the 3-tap kernel,
 * every other value the 5-tap kernel, as the reference's if/else chain does.
 * The reference declares float arrays initialised from double literals; the
 * casts below are that same double -> float rounding (bits in docs/numerics.md §11).
 * Returns the tap count.
 */
EV_FN int motion_filter_taps(int filter_size, float taps[MOTION_MAX_TAPS])
{
    if (filter_size == 1) {
        taps[0] = 0.0f;
        taps[1] = 0.0f;
        taps[2] = 1.0f;
        taps[3] = 0.0f;
        taps[4] = 0.0f;
        return 5;
    }
    if (filter_size == 3) {
        taps[0] = (float)0.166378498;
        taps[1] = (float)0.667243004;
        taps[2] = (float)0.166378498;
        return 3;
    }
    taps[0] = (float)0.054488685;
    taps[1] = (float)0.244201342;
    taps[2] = (float)0.402619947;
    taps[3] = (float)0.244201342;
    taps[4] = (float)0.054488685;
    return 5;
}

/**
 * Reflect-101 index into [0, n): -i -> i, n-1+i -> n-1-i. Valid for
 * -n < i < 2n-1, which the callers guarantee (n >= radius + 1).
 */
EV_FN int motion_mirror(int i, int n)
{
    if (i < 0) return -i;
    if (i >= n) return n - (i - n + 2);
    return i;
}

/** One filter tap: acc + f*x, two roundings (the reference never fuses). */
EV_FN float motion_tap(float acc, float f, float x)
{
    return FADD(acc, FMUL(f, x));
}

/**
 * Vertical pass, one output sample: taps ascending into an fp32 running sum
 * that starts at +0. The CPU loops compute the same sum taps-outer over a
 * whole row with motion_tap; a twin may call this per thread.
 */
EV_FN float motion_blur_v_px(const MOTION_GLOBAL float *src, ptrdiff_t stride, int h,
                             const float *taps, int n_taps, int i, int j)
{
    const int radius = n_taps / 2;
    float acc = 0.0f;
    for (int k = 0; k < n_taps; k++)
        acc = motion_tap(acc, taps[k], src[motion_mirror(i - radius + k, h) * stride + j]);
    return acc;
}

/** Horizontal pass, one output sample of row `row` (width w). */
EV_FN float motion_blur_h_px(const MOTION_GLOBAL float *row, int w, const float *taps,
                             int n_taps, int j)
{
    const int radius = n_taps / 2;
    float acc = 0.0f;
    for (int k = 0; k < n_taps; k++)
        acc = motion_tap(acc, taps[k], row[motion_mirror(j - radius + k, w)]);
    return acc;
}

/** The SAD term |a - b| of one sample: the fp32 difference's magnitude (exact). */
EV_FN float motion_sad_term(float a, float b)
{
    return fabsf(FSUB(a, b));
}

/**
 * One SAD step. The reference writes `accum_line += fabs(a - b)`: the
 * fp32 difference, a double fabs, a double add rounded back to float. A
 * double-rounded sum of two floats equals the single fp32 add (53 >= 2*24+2),
 * so this is exactly the reference.
 */
EV_FN float motion_sad_step(float acc, float a, float b)
{
    return FADD(acc, motion_sad_term(a, b));
}

/** SAD of one row: fp32 running sum from +0, left to right. */
EV_FN float motion_sad_row(const float *a, const float *b, int w)
{
    float acc = 0.0f;
    for (int j = 0; j < w; j++)
        acc = motion_sad_step(acc, a[j], b[j]);
    return acc;
}

/** Row totals in an fp32 running sum, top to bottom. */
EV_FN float motion_sum_rows(const float *row_sums, int h)
{
    float acc = 0.0f;
    for (int i = 0; i < h; i++)
        acc = FADD(acc, row_sums[i]);
    return acc;
}

/** The plane's motion: total / (float)(w*h), an int area converted to float. */
EV_FN float motion_mean(float total, int w, int h)
{
    return FDIV(total, (float)(w * h));
}

/* ---- motion_add_scale1: bilinear half-size downscale (docs/numerics.md §4.3) ---- */

#if EV_F64
/* The positions and sizes are host constants, in double (no kernel needs
 * them: an OpenCL device without fp64 compiles this header without them). */

/** Scaled size: (int)(n*0.5 + 0.5) in double, as the reference computes it. */
EV_FN int motion_scale1_size(int n)
{
    return (int)DADD(DMUL((double)n, 0.5), 0.5);
}

/** Source/destination ratio: (float)src / dst in fp32. */
EV_FN float motion_bilinear_ratio(int src_n, int dst_n)
{
    return FDIV((float)src_n, (float)dst_n);
}

/**
 * Source positions of output coordinate x along one axis (host constants, G5):
 * xx = f32((x + 0.5)*ratio - 0.5) evaluated in double; i1 = mirror(floor(xx)),
 * i2 = mirror(ceil(xx)) with the reference's float mirror (i < 0 -> -i,
 * i > n-1 -> 2(n-1) - i, exact on these integers); d = xx - i1 in fp32, taken
 * after the mirror as the reference does.
 */
EV_FN void motion_bilinear_coord(int x, float ratio, int src_n,
                                 int *i1, int *i2, float *d)
{
    const float xx = (float)DSUB(DMUL(DADD((double)x, 0.5), (double)ratio), 0.5);
    const int right = src_n - 1;
    int a = (int)floor((double)xx);
    int b = (int)ceil((double)xx);
    a = a < 0 ? -a : a > right ? 2 * right - a : a;
    b = b < 0 ? -b : b > right ? 2 * right - b : b;
    *i1 = a;
    *i2 = b;
    *d = FSUB(xx, (float)a);
}
#endif /* EV_F64 */

/**
 * One bilinear output sample: four fp32 weight products, each multiplied by
 * its sample, summed left to right:
 * ((1-dy)(1-dx))p11 + ((1-dy)dx)p12 + (dy(1-dx))p21 + (dy dx)p22.
 */
EV_FN float motion_bilinear_px(float p11, float p12, float p21, float p22,
                               float dx, float dy)
{
    const float ody = FSUB(1.0f, dy);
    const float odx = FSUB(1.0f, dx);
    const float a = FMUL(FMUL(ody, odx), p11);
    const float b = FMUL(FMUL(ody, dx), p12);
    const float c = FMUL(FMUL(dy, odx), p21);
    const float e = FMUL(FMUL(dy, dx), p22);
    return FADD(FADD(FADD(a, b), c), e);
}

/** motion with motion_add_scale1: the two plane means added in fp32. */
EV_FN float motion_add_scales(float scale0, float scale1)
{
    return FADD(scale0, scale1);
}

/* ---- Frame-level conclusion (double, host) ---- */
#if EV_F64

/** The double options the conclusion needs. */
typedef struct MotionParams {
    double fps_weight;   /**< motion_fps_weight */
    double blend_factor; /**< motion_blend_factor */
    double blend_offset; /**< motion_blend_offset */
    double max_val;      /**< motion_max_val */
} MotionParams;

/** The reference's MIN macro: (a < b) ? a : b. */
EV_FN double motion_min(double a, double b)
{
    return a < b ? a : b;
}

/**
 * motion_add_uv: score = (y + u) + v in double, each plane's float motion
 * promoted, added in the reference's order.
 */
EV_FN double motion_add_planes(float y, float u, float v)
{
    return DADD(DADD((double)y, (double)u), (double)v);
}

/** motion and motion2 value: min(score * fps_weight, max_val). */
EV_FN double motion_clip(double score, const MotionParams *p)
{
    return motion_min(DMUL(score, p->fps_weight), p->max_val);
}

/**
 * motion3 value: min(blend(score * fps_weight), max_val) with
 * blend(x) = x*bf + (1 - bf)*min(bo, x), all double.
 */
EV_FN double motion_blended(double score, const MotionParams *p)
{
    const double x = DMUL(score, p->fps_weight);
    const double blend = DADD(DMUL(x, p->blend_factor),
                              DMUL(DSUB(1.0, p->blend_factor),
                                   motion_min(p->blend_offset, x)));
    return motion_min(blend, p->max_val);
}
#endif /* EV_F64 */

#endif
