/*
 * Integer ADM host-side pieces shared by every backend: the per-scale
 * geometry and shift constants, the CSF factors and their fixed-point forms,
 * the division table, and the conclusion that turns the integer accumulators
 * into Netflix's outputs (libm, in the reference's types). A GPU twin fills
 * IadmAccum and calls iadm_conclude().
 */
#ifndef EXACTVMAF_IADM_HOST_H
#define EXACTVMAF_IADM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "feature/common/adm_scores.h"

#define IADM_NUM_SCALES 4
/* Smallest frame side the reference does not loop out of bounds on: its
 * index builder needs every scale's input to be at least 3 samples. */
#define IADM_MIN_SIZE 17
/* Entries of the reference's 2^30 / i table, i in [-32768, 32768]. */
#define IADM_DIV_TABLE_SIZE 65537

/** A half-open rectangle of band coordinates. */
typedef struct IadmRect {
    int left, top, right, bottom;
} IadmRect;

/** Everything about one scale that depends only on the frame size. */
typedef struct IadmScaleGeom {
    int in_w, in_h;         /**< DWT input */
    int w, h;               /**< bands: (in + 1) / 2 */
    IadmRect ext;           /**< decoupling and CSF (border minus 1, plus 2) */
    IadmRect cm;            /**< masking and denominator (10 % border) */
    /* Denominator: per-row (inner + row_add) >> row_shift; scales 1-3 also
     * round each cube (cub_add, cub_shift) after a square >> sq_shift. */
    int den_row_shift;
    uint64_t den_row_add;
    int den_sq_shift;
    int den_cub_shift;
    uint64_t den_cub_add;
    double den_div;         /**< accumulator -> value: 2^(pending shifts) */
    /* Masking: per-band cube rounding, per-row shift, final divisor. */
    int cm_cub_shift[3];
    int64_t cm_cub_add[3];
    int cm_row_shift;
    int64_t cm_row_add;
    double cm_div0[3];      /**< scale 0: double divisors per band */
    float cm_div123;        /**< scales 1-3: a float divisor */
} IadmScaleGeom;

/** Option values the arithmetic depends on (integer_adm's option table). */
typedef struct IadmOptions {
    double enhn_gain_limit;
    double norm_view_dist;
    int ref_display_height;
    int csf_mode;
    double csf_scale;
    double csf_diag_scale;
    double noise_weight;
    double dlm_weight;
    double min_val;
    bool skip_aim;
    bool skip_scale0;
} IadmOptions;

/** Per-instance constants derived from the options. */
typedef struct IadmParams {
    float rfactor[IADM_NUM_SCALES][3];      /**< float CSF factors (h, v, d) */
    int32_t rf0[3];                         /**< scale 0 fixed point (uint16) */
    uint32_t rf123[IADM_NUM_SCALES][3];     /**< scales 1-3, Q32 */
    float cos2;                             /**< cos^2(1 degree) as float */
    double egl;
    double noise_weight;
    double dlm_weight;
    double min_val;
    bool skip_aim, skip_scale0;
} IadmParams;

/** Integer sums of one scale, in the reference's accumulator types. */
typedef struct IadmAccum {
    uint64_t den[3];    /**< reference CSF cubes, bands h, v, d */
    int64_t num[3];     /**< masked restored (DLM) cubes */
    int64_t aim[3];     /**< masked additive (AIM) cubes */
} IadmAccum;

/**
 * Fill the geometry of the four scales of a w x h frame (w, h >=
 * IADM_MIN_SIZE). Returns 0, or -EINVAL when a shift would leave [0, 63]
 * (frames far beyond any real size).
 */
int iadm_geometry(int w, int h, IadmScaleGeom g[IADM_NUM_SCALES]);

/** Derive IadmParams from the option values. */
void iadm_params(const IadmOptions *o, IadmParams *p);

/** The reference's div_lookup: t[32768 + i] = 2^30 / i, t[32768 - i] = -t[32768 + i]. */
void iadm_div_table(int32_t t[IADM_DIV_TABLE_SIZE]);

/**
 * DWT tap indices of the reference (dwt2_src_indices_filt) for an input of
 * n samples: idx[k * half + i], k = 0..3, i = 0..half-1, half = (n + 1) / 2.
 * Index -1 appears when half == 2, as in the reference (see iadm_cpu.c).
 */
void iadm_dwt_indices(int n, int *idx);

/**
 * Turn the accumulators of one frame into its outputs: per-scale p-th roots
 * and noise floors with powf, pooling in double, adm3, as the reference.
 */
void iadm_conclude(const IadmAccum acc[IADM_NUM_SCALES],
                   const IadmScaleGeom g[IADM_NUM_SCALES], const IadmParams *p,
                   int w, int h, AdmScores *out);

/**
 * Emit frame `index`'s outputs in Netflix's order: adm2, aim, adm3 and the
 * four scale scores, then (debug) the totals and per-scale num and den.
 * Shared by the CPU path and every twin. @return 0 or the first error of
 * vmaf_fex_emit().
 */
int iadm_emit(VmafFex *fex, const AdmScores *sc, bool debug, unsigned index);

#endif
