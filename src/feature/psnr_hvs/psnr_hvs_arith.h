/*
 * psnr_hvs per-block arithmetic, shared by the CPU reference and every GPU
 * twin. It reproduces Netflix libvmaf v3.2.0's psnr_hvs (the Xiph/Daala
 * PSNR-HVS-M) operation for operation: an exact integer 8x8 DCT, fp32 block
 * statistics, fp32 per-coefficient error terms. The frame sum of the terms is
 * one fp32 running sum in block raster order (hvs_accumulate), so a twin
 * returns the 64 terms of each block and the host adds them in that order.
 */
#ifndef EXACTVMAF_PSNR_HVS_ARITH_H
#define EXACTVMAF_PSNR_HVS_ARITH_H

#include <math.h>
#include <stdint.h>

#include "fp.h"

/** Blocks are 8x8 and start every 7 samples (they overlap by one). */
#define HVS_BLOCK 8
#define HVS_STEP 7

/*
 * Daala's unbiased shift: adds the sign bit's carry before the arithmetic
 * shift so that negative values round toward zero. The sum is formed in
 * uint32 (the reference's cast), then read back as int32.
 */
EV_FN int32_t hvs_half_toward_zero(int32_t a, int b)
{
    const uint32_t carry = (uint32_t)a >> (32 - b);
    return (int32_t)(carry + (uint32_t)a) >> b;
}

/*
 * int32 product with two's-complement wrap-around: what the reference's
 * int multiply compiles to, without undefined behaviour on out-of-range
 * sample values (in range, at most 12 bits, it never wraps).
 */
EV_FN int32_t hvs_mul(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a * (uint32_t)b);
}

/* One lifting step: (v * mul + round) >> shift, in int32. */
EV_FN int32_t hvs_lift(int32_t v, int32_t mul, int32_t round, int shift)
{
    return (int32_t)((uint32_t)hvs_mul(v, mul) + (uint32_t)round) >> shift;
}

/**
 * Daala's lossless 8-point type-II DCT (lifting form), exact in int32 for
 * inputs of at most 12 bits. Reads x[k*xs], writes y[k*ys], k = 0..7.
 */
EV_FN void hvs_fdct8(int32_t *y, int ys, const int32_t *x, int xs)
{
    /* Inputs in the transform's butterfly order. */
    int32_t a0 = x[0 * xs], a4 = x[1 * xs], a2 = x[2 * xs], a6 = x[3 * xs];
    int32_t a7 = x[4 * xs], a3 = x[5 * xs], a5 = x[6 * xs], a1 = x[7 * xs];
    int32_t h1, h4, h6;

    /* Sum/difference stage. */
    a1 = a0 - a1;
    h1 = hvs_half_toward_zero(a1, 1);
    a0 -= h1;
    a4 += a5;
    h4 = hvs_half_toward_zero(a4, 1);
    a5 -= h4;
    a3 = a2 - a3;
    a2 -= hvs_half_toward_zero(a3, 1);
    a6 += a7;
    h6 = hvs_half_toward_zero(a6, 1);
    a7 = h6 - a7;

    /* Even half: a 4-point DCT. */
    a0 += h6;
    a6 = a0 - a6;
    a2 = h4 - a2;
    a4 = a2 - a4;
    /* Its 2-point DCT (rotation by pi/4). */
    a0 -= hvs_lift(a4, 13573, 16384, 15);
    a4 += hvs_lift(a0, 11585, 8192, 14);
    a0 -= hvs_lift(a4, 13573, 16384, 15);
    /* Its 2-point DST-IV (rotation by 3pi/8). */
    a6 -= hvs_lift(a2, 21895, 16384, 15);
    a2 += hvs_lift(a6, 15137, 8192, 14);
    a6 -= hvs_lift(a2, 21895, 16384, 15);

    /* Odd half: a 4-point DST-IV. */
    a3 += hvs_lift(a5, 19195, 16384, 15);
    a5 += hvs_lift(a3, 11585, 8192, 14);
    a3 -= hvs_lift(a5, 7489, 4096, 13);
    a7 = hvs_half_toward_zero(a5, 1) - a7;
    a5 -= a7;
    a3 = h1 - a3;
    a1 -= a3;
    /* Rotation by pi/16. */
    a7 += hvs_lift(a1, 3227, 16384, 15);
    a1 -= hvs_lift(a7, 6393, 16384, 15);
    a7 += hvs_lift(a1, 3227, 16384, 15);
    /* Rotation by 3pi/16. */
    a5 += hvs_lift(a3, 2485, 4096, 13);
    a3 -= hvs_lift(a5, 18205, 16384, 15);
    a5 += hvs_lift(a3, 2485, 4096, 13);

    y[0 * ys] = a0;
    y[1 * ys] = a1;
    y[2 * ys] = a2;
    y[3 * ys] = a3;
    y[4 * ys] = a4;
    y[5 * ys] = a5;
    y[6 * ys] = a6;
    y[7 * ys] = a7;
}

/**
 * 2-D DCT of a row-major 8x8 block: columns first (column c's result goes to
 * row c of the intermediate), then the intermediate's columns. out[8u + v]
 * is vertical frequency u, horizontal frequency v. in and out may alias.
 */
EV_FN void hvs_fdct8x8(int32_t out[64], const int32_t in[64])
{
    int32_t tmp[64];
    for (int c = 0; c < 8; c++)
        hvs_fdct8(tmp + 8 * c, 1, in + c, 8);
    for (int c = 0; c < 8; c++)
        hvs_fdct8(out + 8 * c, 1, tmp + c, 8);
}

/** Quadrant (0..3) of coefficient k of a row-major block: (i >= 4) + 2 (j >= 4). */
EV_FN int hvs_quadrant(int k)
{
    return ((k >> 3) >> 2) + (((k & 7) >> 2) << 1);
}

/*
 * Block statistics. The reference's fp32 running sums of the samples are
 * exact (integers below 2^24), so they equal int sums converted once.
 */

/** Block or quadrant mean from its int sample sum: sum / n in fp32. */
EV_FN float hvs_mean(int32_t sum, float n)
{
    return FDIV((float)sum, n);
}

/** One step of a variance sum: acc + (v - mean)^2, fp32. */
EV_FN float hvs_dev_step(float acc, int32_t v, float mean)
{
    const float d = FSUB((float)v, mean);
    return FADD(acc, FMUL(d, d));
}

/*
 * Variance ratio from the block's and its quadrants' deviation sums: the
 * sums are scaled by the fp32 constants (1/63.f)*64 and (1/15.f)*16 (not by
 * 64/63, 16/15), then (q0 + q1 + q2 + q3) / var when var > 0, else the
 * scaled var itself.
 */
EV_FN float hvs_ratio(float var, const float qvar[4])
{
    const float k63 = FMUL(FDIV(1.0f, 63.0f), 64.0f);
    const float k15 = FMUL(FDIV(1.0f, 15.0f), 16.0f);
    var = FMUL(var, k63);
    if (var > 0.0f) {
        const float q = FADD(FADD(FADD(FMUL(qvar[0], k15), FMUL(qvar[1], k15)),
                                  FMUL(qvar[2], k15)),
                             FMUL(qvar[3], k15));
        var = FDIV(q, var);
    }
    return var;
}

/** One step of the masking energy: acc + (float)(c * c) * mask (int32 square). */
EV_FN float hvs_energy_step(float acc, int32_t c, float mask)
{
    return FADD(acc, FMUL((float)hvs_mul(c, c), mask));
}

/**
 * Masking level from the AC energy: the reference takes sqrt(energy * ratio)
 * / 32 in double and stores it as float. That is the fp32 root divided by
 * 32: a double root of a float, rounded to float, is the correctly rounded
 * fp32 root (53 >= 2 * 24 + 2 bits), and / 32 is exact both ways (the root
 * of a positive float is at least 2^-75, far from the subnormals). Written
 * so, it needs no fp64 on a GPU.
 */
EV_FN float hvs_masking_level(float energy, float ratio)
{
    return FMUL(FSQRT(FMUL(energy, ratio)), 0.03125f);
}

/**
 * The error term of coefficient k: err = |ref - dist| (int, then fp32); for
 * an AC coefficient (k > 0) less the threshold level / mask, floored at 0;
 * then (err * csf) * (err * csf).
 */
EV_FN float hvs_term(int32_t cs, int32_t cd, int k, float level, float mask, float csf)
{
    const int32_t diff = cs - cd;
    float err = (float)(diff < 0 ? -diff : diff);
    if (k != 0) {
        const float thr = FDIV(level, mask);
        err = err < thr ? 0.0f : FSUB(err, thr);
    }
    const float w = FMUL(err, csf);
    return FMUL(w, w);
}

/** The variance ratio of one row-major block. */
EV_FN float hvs_block_ratio(const int32_t px[64])
{
    int32_t total = 0;
    int32_t qtotal[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < 64; k++) {
        total += px[k];
        qtotal[hvs_quadrant(k)] += px[k];
    }
    const float mean = hvs_mean(total, 64.0f);
    float qmean[4];
    for (int q = 0; q < 4; q++)
        qmean[q] = hvs_mean(qtotal[q], 16.0f);

    float var = 0.0f;
    float qvar[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    for (int k = 0; k < 64; k++) {
        const int q = hvs_quadrant(k);
        var = hvs_dev_step(var, px[k], mean);
        qvar[q] = hvs_dev_step(qvar[q], px[k], qmean[q]);
    }
    return hvs_ratio(var, qvar);
}

/** The masking level of one transformed block: the AC energy in raster order. */
EV_FN float hvs_block_level(const int32_t dct[64], const float mask[64], float ratio)
{
    float e = 0.0f;
    for (int k = 1; k < 64; k++)
        e = hvs_energy_step(e, dct[k], mask[k]);
    return hvs_masking_level(e, ratio);
}

/**
 * The 64 error terms of one block pair, in raster order. src and dst are the
 * blocks' samples, row-major; the masking level is the larger of the two
 * pictures' levels.
 */
EV_FN void hvs_block_terms(const int32_t src[64], const int32_t dst[64],
                           const float csf[64], const float mask[64],
                           float terms[64])
{
    int32_t ds[64], dd[64];
    const float ratio_s = hvs_block_ratio(src);
    const float ratio_d = hvs_block_ratio(dst);
    hvs_fdct8x8(ds, src);
    hvs_fdct8x8(dd, dst);
    float level = hvs_block_level(ds, mask, ratio_s);
    const float level_d = hvs_block_level(dd, mask, ratio_d);
    if (level_d > level)
        level = level_d;
    for (int k = 0; k < 64; k++)
        terms[k] = hvs_term(ds[k], dd[k], k, level, mask[k], csf[k]);
}

/** Add one block's terms to the plane's fp32 running sum, in raster order. */
EV_FN float hvs_accumulate(float acc, const float terms[64])
{
    for (int k = 0; k < 64; k++)
        acc = FADD(acc, terms[k]);
    return acc;
}

#if EV_F64
/**
 * The plane's score from the running sum: acc / (float)count, then divided
 * by (float)(maxval^2), maxval = 2^bpc - 1 (an int product), fp32; returned
 * as double.
 */
EV_FN double hvs_plane_score(float acc, int32_t count, int bpc)
{
    const int32_t maxval = (1 << bpc) - 1;
    float r = FDIV(acc, (float)count);
    r = FDIV(r, (float)(maxval * maxval));
    return (double)r;
}

#endif

#endif
