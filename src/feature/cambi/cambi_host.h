/*
 * CAMBI host side: the constants set up once per instance (visibility
 * thresholds from the EOTF, with the host's libm; the reciprocal table)
 * and the frame conclusion (top-k pooling per scale, scale weighting), which
 * every backend runs here on the host from its per-pixel c-values.
 */
#ifndef EXACTVMAF_CAMBI_HOST_H
#define EXACTVMAF_CAMBI_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "cambi_arith.h"

/** Per-instance constants of the contrast stage (backend-independent). */
typedef struct CambiParams {
    int num_diffs;                      /**< 1 << max_log_contrast */
    /** Largest value + num_diffs at which difference d + 1 is visible. */
    uint16_t tvi[CAMBI_MAX_DIFFS];
    int weight[CAMBI_MAX_DIFFS];        /**< cambi_contrast_weight(d) */
    uint16_t vlt_luma;                  /**< visibility-luminance floor, luma code */
    /**
     * Luma values whose window counts are ever read: [band_lo, band_hi].
     * Empty (band_hi < band_lo) when nothing can be visible: every c-value is 0.
     */
    int band_lo, band_hi;
    /** active[v]: bit d set when difference d + 1 is considered at luma v. */
    uint32_t active[1025];
    float rcp[CAMBI_RCP_SIZE];          /**< the reference's reciprocal table */
} CambiParams;

/**
 * Fill p for the given options. eotf is "bt1886" or "pq". Returns -EINVAL
 * (logged) for settings on which the reference would never finish or would
 * read outside its histograms.
 */
int cambi_params_init(CambiParams *p, const char *eotf, double tvi_threshold,
                      double vis_lum_threshold, int max_log_contrast);

/**
 * Mean of the largest topk share of c[0..n), in the reference's order:
 * c is partially sorted in place by the reference's quickselect, then its
 * first k entries are summed in fp64 from the front. n >= 1.
 */
double cambi_pool_scale(float *c, int n, double topk);

/**
 * The reference's quickselect (cambi_pool_scale's first step): afterwards
 * a[0..k) holds the k largest values, in the order the reference leaves
 * them. Branch-free partition passes; equal to the reference's own loops
 * swap for swap (test_cambi_select.c checks it). 1 <= k <= n.
 */
void cambi_select_top(float *a, int n, int k);

/**
 * What a scale's pooling needs of its c-values when their top-k sum cannot
 * round (cambi_pool_exact()): gathered by the stage that computes them.
 */
typedef struct CambiPoolStats {
    uint64_t units;     /**< sum of the nonzero values, in cambi_pool_units() */
    uint64_t bits;      /**< OR of those unit counts: its trailing zeros are theirs */
    int64_t nonzero;    /**< values other than +0 */
    int small;          /**< whether a nonzero value is below 0.5 (not in units) */
} CambiPoolStats;

/**
 * cambi_pool_scale()'s result for n c-values from their statistics alone,
 * when it is certain to be the same: all the nonzero values are among the
 * top k (the rest of the top k are +0, which leave the sum unchanged), and
 * every partial sum of them, in any order, is exactly representable in
 * fp64, so the reference's additions in its order give the exact sum.
 * Returns false (and leaves *mean) otherwise: pool the values themselves.
 */
bool cambi_pool_exact(const CambiPoolStats *st, int n, double topk, double *mean);

/** Weighted inner product of the per-scale scores, normalised by the window. */
double cambi_conclude(const double scale_scores[CAMBI_NUM_SCALES], unsigned window);

#endif
