/*
 * CAMBI arithmetic, written once for the CPU reference and every GPU twin.
 * Reference: Netflix libvmaf v3.2.0 src/feature/cambi.c (its C path).
 *
 * Almost all of CAMBI is integer work (10-bit conversion, anti-dithering,
 * zero-derivative mask, 3x3 mode filter, windowed histograms), which any
 * evaluation order gives exactly. The float operations are:
 *   - the nearest-neighbour resampler's coordinates (fp32 running sum, fp64
 *     rounding offset);
 *   - each pixel's contrast term, fp32: (float)(w*p0*pm) times a reciprocal
 *     table entry (not a division: the table's entries are not all 1/n);
 *   - the frame conclusion, fp64: top-k mean, scale weighting, clip.
 * Each float operation below is one FMUL/FADD/... of src/fp.h.
 */
#ifndef EXACTVMAF_CAMBI_ARITH_H
#define EXACTVMAF_CAMBI_ARITH_H

#include <stdint.h>

#include "fp.h"

#define CAMBI_NUM_SCALES 5
/** num_diffs = 1 << max_log_contrast, max_log_contrast in [0, 5]. */
#define CAMBI_MAX_DIFFS 32
/** Entries of the reference's reciprocal table: windows up to 65x65. */
#define CAMBI_RCP_SIZE 4226
/** Side of the zero-derivative counting window of the spatial mask. */
#define CAMBI_MASK_FILTER_SIZE 7
/** The GPU c-value kernel's group: one item per column of a strip this wide. */
#define CAMBI_CV_COLS 32
/** The GPU pooling kernels' groups, each over a chunk of a scale's c-values. */
#define CAMBI_POOL_ITEMS 256
#define CAMBI_POOL_CHUNK (CAMBI_POOL_ITEMS * 32)
/*
 * Per-scale state of the GPU pooling, in words: the three passes'
 * histograms of the select (2048, 1024 and 1024 bins), then T's bits, the
 * count of values above T, the count of those below 0.5, (in scale 0's
 * state) the range check's count of samples above the picture's maximum,
 * their sum in units (two words), and 64 counters: groups whose finest
 * value has that many trailing zero bits of units.
 */
#define CAMBI_POOL_HISTS 4096
#define CAMBI_POOL_T CAMBI_POOL_HISTS
#define CAMBI_POOL_COUNT (CAMBI_POOL_HISTS + 1)
#define CAMBI_POOL_SMALL (CAMBI_POOL_HISTS + 2)
#define CAMBI_POOL_RANGE (CAMBI_POOL_HISTS + 3)
#define CAMBI_POOL_SUM (CAMBI_POOL_HISTS + 4)
#define CAMBI_POOL_TZ (CAMBI_POOL_HISTS + 6)
#define CAMBI_POOL_STRIDE (CAMBI_POOL_HISTS + 72)

/** Per-scale weights of the final inner product, finest scale first. */
EV_FN int cambi_scale_weight(int scale)
{
    return 16 >> scale;
}

#if !defined(__OPENCL_C_VERSION__)
/** Suprathreshold contrast weight of luma difference d + 1 (host: the kernels get a table). */
EV_FN int cambi_contrast_weight(int d)
{
    /* 1 2 3 4 4 5 5 6 6 6 6 7 7 7 7 8 8 8 8 8 8 8 9 9 9 9 9 9 9 9 9 9 */
    static const unsigned char w[CAMBI_MAX_DIFFS] = {
        1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
        8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
    };
    return w[d];
}
#endif

/* ---- Picture -> 10-bit luma ---- */

/** 8-bit sample to 10 bits. */
EV_FN uint16_t cambi_from_8bit(unsigned v)
{
    return (uint16_t)(v << 2);
}

/** 9-bit sample to 10 bits. */
EV_FN uint16_t cambi_from_9bit(unsigned v)
{
    return (uint16_t)(v << 1);
}

/**
 * bpc >= 10 sample to 10 bits, rounding half up: (v + 2^(s-1)) >> s with
 * s = bpc - 10. 16- and 12-bit maxima round up to 1024, which the
 * reference keeps (it never clamps).
 */
EV_FN uint16_t cambi_from_hbd(unsigned v, int shift)
{
    const unsigned round = shift ? 1u << (shift - 1) : 0u;
    return (uint16_t)((v + round) >> shift);
}

#if EV_F64
/**
 * Nearest-neighbour resampler, per axis: ratio = in/out in fp32, start =
 * ratio/2 - 0.5 (fp32 halving, fp64 subtraction, rounded to fp32), then
 * x_j = x_{j-1} + ratio as an fp32 running sum; the source index is
 * (int)(x + 0.5) with the addition in fp64.
 */
EV_FN float cambi_resample_ratio(unsigned in, unsigned out)
{
    return FDIV((float)in, (float)out);
}

EV_FN float cambi_resample_start(float ratio)
{
    return (float)DSUB((double)FDIV(ratio, 2.0f), 0.5);
}

EV_FN float cambi_resample_next(float x, float ratio)
{
    return FADD(x, ratio);
}

EV_FN int cambi_resample_index(float x)
{
    return (int)DADD((double)x, 0.5);
}
#endif

/** Anti-dithering (encodes below 10 bits): mean of a 2x2 block, floored. */
EV_FN uint16_t cambi_avg4(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return (uint16_t)((a + b + c + d) >> 2);
}

/** Anti-dithering on the last row / column: mean of two, floored. */
EV_FN uint16_t cambi_avg2(unsigned a, unsigned b)
{
    return (uint16_t)((a + b) >> 1);
}

/* ---- Mode filter ---- */

/** Mode of three; when all differ, the smallest. Symmetric in a, b, c. */
EV_FN uint16_t cambi_mode3(uint16_t a, uint16_t b, uint16_t c)
{
    const uint16_t ab = a < b ? a : b;
    const uint16_t lo = ab < c ? ab : c;
    return (a == b || a == c) ? a : (b == c ? b : lo);
}

/* ---- Spatial mask ---- */

/**
 * Threshold on the count of zero-derivative pixels in the 7x7 window:
 * (49 + 3*(ceil(log2((w>>6)*(h>>6))) - 11) - 1) >> 1, ceil(log2(0)) = 0.
 */
EV_FN unsigned cambi_mask_threshold(unsigned w, unsigned h)
{
    const uint32_t n = (w >> 6) * (h >> 6);
    int log2n = 0;
    for (uint32_t t = n ? n - 1 : 0; t; t >>= 1)
        log2n++;
    const int f = CAMBI_MASK_FILTER_SIZE;
    return (unsigned)((f * f + 3 * (log2n - 11) - 1) >> 1);
}

/* ---- Contrast per pixel ---- */

/**
 * Whether luma difference d + 1 is considered at a pixel: value is the
 * pixel's luma plus num_diffs (the reference's offset domain, in which the
 * thresholds are stored), tvi_d the visibility limit for d + 1 and vlt the
 * visibility-luminance floor. The floor is compared in that same offset
 * domain, as the reference does.
 */
EV_FN int cambi_diff_active(unsigned value, int d, unsigned tvi_d, unsigned vlt)
{
    return value <= tvi_d && value + (unsigned)d + 1u > vlt;
}

/**
 * One contrast term: p0 pixels of the centre value and pm of the more
 * frequent neighbour value in the window (p0 + pm <= 65*65). The integer
 * product is converted to fp32 (one rounding above 2^24), then multiplied
 * by the table's reciprocal of p0 + pm.
 */
EV_FN float cambi_c_term_r(int weight, int p0, int pm, float rcp_n)
{
    return FMUL((float)(weight * p0 * pm), rcp_n);
}

/** The same with the table in host or private memory: rcp_n = rcp[p0 + pm]. */
EV_FN float cambi_c_term(int weight, int p0, int pm, const float *rcp)
{
    return cambi_c_term_r(weight, p0, pm, rcp[p0 + pm]);
}

/* ---- Top-k sums as integers (GPU pooling, cambi_gpu.c) ---- */

/*
 * A c-value x >= 0.5, given by its bits v, as a whole number of units of
 * 2^-24: x = m * 2^(e - 23) with e >= -1, so x * 2^24 = m << (e + 1). Every
 * c-value is below 2^14 (weight 9 times p0 * pm / (p0 + pm) <= 4225 / 4,
 * times a reciprocal), so a unit count is below 2^38, and the sum of 2^25
 * of them (an 8K frame) below 2^63.
 */
EV_FN uint64_t cambi_pool_units(uint32_t v)
{
    const int e = (int)(v >> 23) - 127;
    const uint64_t mant = (uint64_t)((v & 0x7fffffu) | 0x800000u);
    return mant << (e + 1);
}

/** Trailing zero bits of a unit count u > 0: the value is a multiple of 2^that units. */
EV_FN uint32_t cambi_pool_tz(uint64_t u)
{
    uint32_t z = 0;
    while (!(u & 1u)) {
        u >>= 1;
        z++;
    }
    return z;
}

/* ---- Frame conclusion (fp64, on the host) ---- */
#if EV_F64

/** Pixels averaged per scale: clip((int)(topk * n), 1, n). */
EV_FN int cambi_topk_count(double topk, int n)
{
    const int k = (int)DMUL(topk, (double)n);
    return k < 1 ? 1 : (k > n ? n : k);
}

/** One step of the top-k sum: a running fp64 sum of the fp32 values. */
EV_FN double cambi_sum_step(double sum, float c)
{
    return DADD(sum, (double)c);
}

EV_FN double cambi_topk_mean(double sum, int k)
{
    return DDIV(sum, (double)k);
}

/** One step of the weighted sum over scales, finest first, from +0. */
EV_FN double cambi_weight_step(double acc, double scale_score, int scale)
{
    return DADD(acc, DMUL(scale_score, (double)cambi_scale_weight(scale)));
}

/** Normalise by the window's pixel count (the window side is odd). */
EV_FN double cambi_normalise(double acc, unsigned window)
{
    const unsigned side = 2u * (window >> 1) + 1u;
    return DDIV(acc, (double)(uint16_t)(side * side));
}

/** min(score, max_val), the reference's MIN macro. */
EV_FN double cambi_clip_max(double score, double max_val)
{
    return score < max_val ? score : max_val;
}

/** Full-reference score: max(0, dist - src), the reference's MAX macro. */
EV_FN double cambi_full_ref(double dist, double src)
{
    const double d = DSUB(dist, src);
    return 0 > d ? 0.0 : d;
}
#endif

#endif
