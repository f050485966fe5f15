/*
 * Integer VIF ("vif") arithmetic, written once for the CPU reference and
 * every GPU twin: Netflix libvmaf v3.2.0's integer_vif.c C path, operation
 * for operation (docs/numerics.md section 9).
 *
 * Everything is integer (exact, order-free sums) except four places, which
 * are written here with the reference's types and order:
 *  - the log2 table, libm log2f at init (ivif_log2_table_entry, host only);
 *  - per pixel on the log branch, the gain g and the two truncations, in
 *    double, unfused (ivif_stat_pixel);
 *  - per scale, num and den from the integer sums, in double rounded to
 *    float (ivif_scale_num / ivif_scale_den);
 *  - the scale score, a float quotient promoted to double.
 *
 * The per-pixel double sites (ivif_stat_common, ivif_stat_num_log,
 * ivif_trunc_i32) are written once with fp.h's ev_d and D_* operations:
 * where there is binary64 (host, CUDA, OpenCL with fp64) they are the same
 * double operations as the reference's; on an OpenCL device without fp64
 * they are fp_exact.h's integer routines, which give the same bits. The
 * per-scale conclusion is host-only double (#if EV_F64).
 *
 * OpenCL C 1.2 has no generic address space: the log2 table, in device
 * memory, is reached through IVIF_GLOBAL pointers (`global` there, nothing
 * elsewhere).
 */
#ifndef EXACTVMAF_IVIF_ARITH_H
#define EXACTVMAF_IVIF_ARITH_H

#include <math.h>
#include <stdint.h>

#include "fp.h"

#if defined(__OPENCL_C_VERSION__)
#define IVIF_GLOBAL global
#else
#define IVIF_GLOBAL
#endif

/** INT32_MIN (OpenCL C has no <stdint.h> limits). */
#define IVIF_INT32_MIN (-2147483647 - 1)

#define IVIF_NUM_SCALES 4
#define IVIF_MAX_TAPS 17

/**
 * The fixed Q16 filters (each sums to 65536): 17 taps at scale 0, 9, 5 and
 * 3 at scales 1..3. The anti-alias filter that makes scale s (s >= 1) from
 * scale s-1 is scale s's filter. An initializer, so that a GPU twin can put
 * the same numbers in its constant memory.
 */
#define IVIF_FILTER_TABLE { \
    { 489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, \
      1640, 935, 489 }, \
    { 1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244 }, \
    { 3571, 16004, 26386, 16004, 3571 }, \
    { 10904, 43728, 10904 }, \
}

/** Taps of the filter of `scale`. */
EV_FN int ivif_filter_width(int scale)
{
    return scale == 0 ? 17 : scale == 1 ? 9 : scale == 2 ? 5 : 3;
}

/** The noise variance 2, in the statistic's Q16 units (65536 << 1). */
#define IVIF_SIGMA_NSQ 131072
/** log2 results are Q11 (x 2048). */
#define IVIF_LOG2_ONE 2048
/** The table is read at [32768, 65535]: arguments normalised to 16 bits. */
#define IVIF_LOG2_TABLE_MIN 32768
#define IVIF_LOG2_TABLE_SIZE 65536

/** reflect-101 (-i -> i, n-1+i -> n-1-i); valid while the overhang is < n. */
EV_FN int ivif_reflect(int i, int n)
{
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

/* ---- Filtering: the reference's rounding steps ---- */

/**
 * The vertical pass's mean: (uint16)((acc + round) >> shift), shift = bpc
 * at scale 0 (round 2^(bpc-1)) and 16 above it (round 32768). acc + round
 * stays below 2^32 for every 16-bit sample.
 */
EV_FN uint32_t ivif_vert_mu(uint32_t acc, uint32_t round, int shift)
{
    return (uint16_t)((acc + round) >> shift);
}

/**
 * The vertical pass's squares and product: (uint32)((acc + round) >> shift),
 * acc a uint64 sum of f*x*y. shift = 2*(bpc-8) at scale 0 (round 0 for
 * 8-bit, else 2^(shift-1)) and 16 above it (round 32768).
 */
EV_FN uint32_t ivif_vert_sq(uint64_t acc, uint64_t round, int shift)
{
    return (uint32_t)((acc + round) >> shift);
}

/** The horizontal pass's squares and product: (uint32)((acc + 32768) >> 16). */
EV_FN uint32_t ivif_horz_sq(uint64_t acc)
{
    return (uint32_t)((acc + 32768) >> 16);
}

/** mu*mu' in Q32 rounded back: (uint32)(((uint64)a*b + 2^31) >> 32). */
EV_FN uint32_t ivif_mul_round32(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a * b + 2147483648u) >> 32);
}

/* ---- log2 ---- */

/**
 * Entry i of the reference's table: (uint16)round(log2f((float)i) * 2048),
 * libm's log2f, glibc's as src/math gives it (the product is exact, a power-of-two scale; round() takes
 * it as double). Host only: GPU twins receive the table.
 */
#if !defined(__CUDA_ARCH__) && !defined(__OPENCL_C_VERSION__)
#include "math/ev_math.h"
static inline uint16_t ivif_log2_table_entry(unsigned i)
{
    return (uint16_t)round(ev_log2f((float)i) * 2048);
}
#endif

/** floor(log2(v)) for v > 0. */
EV_FN int ivif_floor_log2(uint64_t v)
{
#if defined(__CUDA_ARCH__)
    return 63 - __clzll((long long)v);
#elif defined(__OPENCL_C_VERSION__)
    return 63 - (int)clz(v);
#else
    return 63 - __builtin_clzll(v);
#endif
}

/**
 * The reference's log2 of an integer v >= 2^15, in Q11: keep the top 16
 * bits (a truncating shift by k = floor(log2 v) - 15), look them up, add
 * 2048*k. This is both of the reference's log2_32 and log2_64 (they agree
 * on every argument either takes).
 */
EV_FN int32_t ivif_log2(const IVIF_GLOBAL uint16_t *table, uint64_t v)
{
    const int k = ivif_floor_log2(v) - 15;
    return (int32_t)table[v >> k] + IVIF_LOG2_ONE * k;
}

/* ---- The statistic ---- */

/*
 * C's truncating double -> integer conversions: the cast where there are
 * doubles, fp_exact.h's ev_d_to_i64_trunc (then narrowed) where not. They
 * agree in range, which IVIF_D_TO_I32's caller tests first; out of int64
 * range both give INT64_MIN, as x86's cvttsd2si does.
 */
#if EV_F64
#define IVIF_D_TO_I32(x) ((int32_t)(x))
#define IVIF_D_TO_I64(x) ((int64_t)(x))
#else
#define IVIF_D_TO_I32(x) ((int32_t)ev_d_to_i64_trunc(x))
#define IVIF_D_TO_I64(x) ev_d_to_i64_trunc(x)
#endif

/** x86's double -> int32 truncation: out of range (and NaN) gives INT32_MIN. */
EV_FN int32_t ivif_trunc_i32(ev_d x)
{
    return D_GT(x, D_K(EV_U64(0xc1e0000000200000), -2147483649.0)) &&
                   D_LT(x, D_K(EV_U64(0x41e0000000000000), 2147483648.0))
               ? IVIF_D_TO_I32(x)
               : IVIF_INT32_MIN;
}

/** The four integer sums of one scale (order-free: any grouping gives the same). */
typedef struct IvifAccum {
    int64_t num_log;      /**< sum of log2(numerator terms), Q11 */
    int64_t den_log;      /**< sum of log2(1 + sigma1^2/nsq), Q11 */
    int64_t num_non_log;  /**< sum of sigma2^2 where sigma1^2 < nsq */
    int64_t den_non_log;  /**< count of those pixels */
} IvifAccum;

/** Instances that differ only in vif_enhn_gain_limit share a pass, up to this many. */
#define IVIF_MAX_GAIN_LIMITS 4

/**
 * The gain limits one pass serves (acc[e] for v[e]); passed to kernels by
 * value. Each limit is fp.h's ev_d: the host's double, and on an OpenCL
 * device without fp64 the same 8 bytes read as its bit pattern.
 */
typedef struct IvifGainLimits {
    ev_d v[IVIF_MAX_GAIN_LIMITS];
    int n;
} IvifGainLimits;

/** What the gain-limited numerator term of a pixel needs (ivif_stat_common). */
typedef struct IvifGain {
    ev_d g;                 /**< sigma12 / (sigma1_sq + eps), before the limit */
    int32_t sigma1_sq;
    uint32_t numer1;        /**< sv_sq + nsq */
} IvifGain;

/**
 * One pixel of the statistic from its five filtered values, all but the
 * part vif_enhn_gain_limit acts on: mu1, mu2 the horizontal mean sums
 * (Q32-ish uint32), xx, yy, xy the rounded second moments. Adds the
 * pixel's den_log and non-log terms to acc; returns 1 when the pixel has a
 * num_log term, whose inputs are then in *gain (ivif_stat_num_log).
 */
EV_FN int ivif_stat_common(uint32_t mu1, uint32_t mu2, uint32_t xx, uint32_t yy, uint32_t xy,
                           const IVIF_GLOBAL uint16_t *table, IvifAccum *acc,
                           IvifGain *gain)
{
    const int32_t sigma1_sq = (int32_t)(xx - ivif_mul_round32(mu1, mu1));
    int32_t sigma2_sq = (int32_t)(yy - ivif_mul_round32(mu2, mu2));
    const int32_t sigma12 = (int32_t)(xy - ivif_mul_round32(mu1, mu2));

    sigma2_sq = sigma2_sq > 0 ? sigma2_sq : 0;
    if (sigma1_sq < IVIF_SIGMA_NSQ) {
        acc->num_non_log += sigma2_sq;
        acc->den_non_log++;
        return 0;
    }
    /* log2(1 + s1/nsq) = log2(nsq + s1) - log2(nsq) = log2(nsq + s1) - 17.
     * The sum is formed in 32 bits (the reference adds two int32). */
    acc->den_log += ivif_log2(table, (uint32_t)IVIF_SIGMA_NSQ + (uint32_t)sigma1_sq) -
                    17 * IVIF_LOG2_ONE;
    if (sigma12 <= 0 || sigma2_sq <= 0)
        return 0;

    /* The reference's double sites, in its order and unfused:
     * g = s12 / (s1 + 65536e-10); sv = (int32)(s2 - g*s12), then >= 0
     * (from g before the limit). */
    const ev_d eps = D_K(EV_U64(0x3edb7cdfd9d7bdbb), 65536 * 1.0e-10);
    const ev_d g = D_DIV(D_FROM_I64(sigma12), D_ADD(D_FROM_I64(sigma1_sq), eps));
    int32_t sv_sq = ivif_trunc_i32(D_SUB(D_FROM_I64(sigma2_sq), D_MUL(g, D_FROM_I64(sigma12))));
    sv_sq = sv_sq > 0 ? sv_sq : 0;
    gain->g = g;
    gain->sigma1_sq = sigma1_sq;
    gain->numer1 = (uint32_t)sv_sq + IVIF_SIGMA_NSQ;
    return 1;
}

/**
 * The pixel's num_log term under the gain limit `egl`:
 * g = min(g, egl); log2((int64)(g*g*s1) + numer1) - log2(numer1).
 */
EV_FN int32_t ivif_stat_num_log(const IvifGain *gain, ev_d egl,
                                const IVIF_GLOBAL uint16_t *table)
{
    const ev_d g = D_LT(gain->g, egl) ? gain->g : egl;
    const int64_t numer1_tmp =
        IVIF_D_TO_I64(D_MUL(D_MUL(g, g), D_FROM_I64(gain->sigma1_sq))) + gain->numer1;
    return ivif_log2(table, (uint64_t)numer1_tmp) - ivif_log2(table, gain->numer1);
}

/** One pixel of the statistic (both parts above); `egl` is vif_enhn_gain_limit. */
EV_FN void ivif_stat_pixel(uint32_t mu1, uint32_t mu2, uint32_t xx, uint32_t yy,
                           uint32_t xy, ev_d egl, const IVIF_GLOBAL uint16_t *table,
                           IvifAccum *acc)
{
    IvifGain gain;
    if (ivif_stat_common(mu1, mu2, xx, yy, xy, table, acc, &gain))
        acc->num_log += ivif_stat_num_log(&gain, egl, table);
}

/* ---- Per-scale conclusion (host) ---- */

#if EV_F64

/** num = f32(num_log/2048 + (count - (sum_sigma2/16384)/65025)), in double. */
EV_FN float ivif_scale_num(const IvifAccum *a)
{
    return (float)DADD(DDIV((double)a->num_log, 2048.0),
                       DSUB((double)a->den_non_log,
                            DDIV(DDIV((double)a->num_non_log, 16384.0), 65025.0)));
}

/** den = f32(den_log/2048 + count), in double. */
EV_FN float ivif_scale_den(const IvifAccum *a)
{
    return (float)DADD(DDIV((double)a->den_log, 2048.0), (double)a->den_non_log);
}
#endif

#endif
