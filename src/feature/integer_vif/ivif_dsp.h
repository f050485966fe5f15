/*
 * Integer VIF row kernels and their table. The plain-C reference kernels
 * (ivif_dsp_ref) compute each value the way ivif_arith.h writes it; the fast
 * kernels are one template built per instruction set (ivif_simd_tmpl.c,
 * src/simd.h): vectorisable C in the C build, AVX2, AVX-512 or NEON
 * intrinsics in the others. Every kernel gives the reference's bits: the
 * sums are integer, so regrouping them (symmetric taps, split 64-bit sums,
 * vector lanes, pixel order within a row) is exact. tests/checkasm
 * compares every build with the reference on random and edge inputs.
 */
#ifndef EXACTVMAF_IVIF_DSP_H
#define EXACTVMAF_IVIF_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "ivif_arith.h"
#include "simd.h"

/** The five filtered values of one row of a scale, w entries each. */
typedef struct IvifRow {
    uint32_t *mu1, *mu2;      /**< horizontal mean sums */
    uint32_t *xx, *yy, *xy;   /**< rounded second moments */
} IvifRow;

/**
 * One output row to filter: the fw input rows of each picture that the
 * vertical taps read (reflect-101 already resolved), and the vertical pass's
 * rounding. Samples are uint8_t when `u8`, else uint16_t.
 */
typedef struct IvifTaps {
    const void *ref[IVIF_MAX_TAPS];
    const void *dis[IVIF_MAX_TAPS];
    const uint16_t *f;   /**< fw taps */
    int fw;              /**< 17, 9, 5 or 3 */
    int w;               /**< samples per row, > fw/2 */
    int u8;              /**< 8-bit samples: scale 0 at 8 bpc, read with filter 0 or 1;
                              the moments are then not rounded (sq_shift 0, sq_round 0),
                              which the SIMD kernels rely on */
    uint32_t mu_round;   /**< vertical mean: (acc + mu_round) >> mu_shift */
    int mu_shift;
    uint32_t sq_round;   /**< vertical moments: (acc + sq_round) >> sq_shift, sq_shift <= 16 */
    int sq_shift;
} IvifTaps;

/** Padding on each side of a scratch row (the widest filter's radius, rounded up). */
#define IVIF_PAD 16
/** Columns per block of the blocked C kernels (accumulators stay in L1). */
#define IVIF_BLOCK 256

/**
 * Per-instance scratch for the row kernels, sized for rows of w_max samples.
 * Each row of v and h has IVIF_PAD entries before index 0 and w_max +
 * IVIF_PAD + 48 from index 0 on, all initialised: the SIMD horizontal pass
 * reads up to 40 entries past the last column (into lanes it drops).
 */
typedef struct IvifScratch {
    uint32_t *v[8];    /**< vertical results, 32-bit */
    uint32_t *blk[8];  /**< column-block accumulators */
    uint16_t *h[8];    /**< vertical results as 16-bit halves, offset by 32768 (SIMD) */
    IvifRow row;       /**< horizontal results */
} IvifScratch;

typedef struct IvifDsp {
    /**
     * The statistic's four sums over one row (filter and statistic) under
     * each gain limit: added to acc[e] for gl->v[e]. The filter and every
     * part of the statistic but the gain-limited term are computed once.
     */
    void (*row_sums)(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
                     const uint16_t *log2_table, IvifAccum *acc);
    /**
     * One row of the next scale: the means of t (only t->ref is read) at the
     * even columns, rounded to 16 bits: out[j] for j < t->w / 2.
     */
    void (*decimate_row)(const IvifTaps *t, const IvifScratch *s, uint16_t *out);
    /**
     * The filter part of row_sums alone, into out (t->w values each); for
     * tests, which compare every pixel's five values.
     */
    void (*filter_row)(const IvifTaps *t, const IvifScratch *s, const IvifRow *out);
    /**
     * The statistic part of row_sums alone over n pixels, added to acc[e]
     * for gl->v[e]; for tests (the C build's is the reference's).
     */
    void (*stat_row)(const IvifRow *in, int n, const IvifGainLimits *gl,
                     const uint16_t *log2_table, IvifAccum *acc);
} IvifDsp;

/** The plain-C reference kernels. */
extern const IvifDsp ivif_dsp_ref;
/** The fast kernels, each instruction set's build (ivif_simd_tmpl.c). */
EV_SIMD_DECLARE(IvifDsp, ivif_dsp);

/** The fastest kernels this processor runs (under ev_cpu_isa's cap). */
void ivif_dsp_init(IvifDsp *dsp);

/** Allocate scratch for rows up to w_max samples; -ENOMEM. */
int ivif_scratch_alloc(IvifScratch *s, int w_max);
void ivif_scratch_free(IvifScratch *s);

/** The reference statistic over n pixels of a row (plain C), added to acc[e] for gl->v[e]. */
void ivif_stat_row_c(const IvifRow *in, int n, const IvifGainLimits *gl,
                     const uint16_t *log2_table, IvifAccum *acc);

/** reflect-101 padding of r entries on each side of v[0..w). */
static inline void ivif_pad_row(uint32_t *v, int w, int r)
{
    for (int m = 1; m <= r; m++) {
        v[-m] = v[m];
        v[w - 1 + m] = v[w - 1 - m];
    }
}

/**
 * Vertical taps of column j, as the reference computes them: the two
 * rounded means and the three rounded moments.
 */
static inline void ivif_vert_column(const IvifTaps *t, int j, uint32_t out[5])
{
    uint32_t m1 = 0, m2 = 0;
    uint64_t xx = 0, yy = 0, xy = 0;
    for (int k = 0; k < t->fw; k++) {
        const uint32_t a = t->u8 ? ((const uint8_t *)t->ref[k])[j]
                                 : ((const uint16_t *)t->ref[k])[j];
        const uint32_t b = t->u8 ? ((const uint8_t *)t->dis[k])[j]
                                 : ((const uint16_t *)t->dis[k])[j];
        const uint32_t fa = t->f[k] * a, fb = t->f[k] * b;
        m1 += fa;
        m2 += fb;
        xx += (uint64_t)fa * a;
        yy += (uint64_t)fb * b;
        xy += (uint64_t)fa * b;
    }
    out[0] = ivif_vert_mu(m1, t->mu_round, t->mu_shift);
    out[1] = ivif_vert_mu(m2, t->mu_round, t->mu_shift);
    out[2] = ivif_vert_sq(xx, t->sq_round, t->sq_shift);
    out[3] = ivif_vert_sq(yy, t->sq_round, t->sq_shift);
    out[4] = ivif_vert_sq(xy, t->sq_round, t->sq_shift);
}

/** The vertical mean of column j of t->ref alone (decimation). */
static inline uint32_t ivif_vert_mu_column(const IvifTaps *t, int j)
{
    uint32_t m = 0;
    for (int k = 0; k < t->fw; k++)
        m += (uint32_t)t->f[k] * (t->u8 ? ((const uint8_t *)t->ref[k])[j]
                                        : ((const uint16_t *)t->ref[k])[j]);
    return ivif_vert_mu(m, t->mu_round, t->mu_shift);
}

#endif
