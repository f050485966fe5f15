/*
 * The SpEED estimator shared by speed_chroma and speed_temporal: geometry,
 * filters and prescale tables fixed at init, and the per-plane pipeline
 * (prescale, anti-alias + decimate by 16, local-mean removal, 5x5 block
 * Gaussian-scale-mixture estimate) with its host conclusion (log2
 * entropies, score). Arithmetic is in speed_arith.h.
 */
#ifndef EXACTVMAF_SPEED_CORE_H
#define EXACTVMAF_SPEED_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "feature/common/prescale.h"
#include "libvmaf/picture.h"
#include "simd.h"
#include "speed_arith.h"

/** Widest filter any accepted kernel scale gives (9 * 4 -> 37 taps). */
#define SPEED_MAX_TAPS 64

/** The options SpEED computes with (the extractors' option values). */
typedef struct SpeedParams {
    double kernelscale;
    double prescale;
    const char *prescale_method;
    double sigma_nn;
    double nn_floor;
    int weight_var_mode;   /**< 0..6; speed_temporal always uses 0 */
} SpeedParams;

/** One picture's estimate: per block, its entropy and its variance. */
typedef struct SpeedEstimate {
    float *entropy;
    float *variance;
    bool singular;         /**< the covariance could not be inverted */
} SpeedEstimate;

/** Lanes of the centred-sample table: the 25 offsets padded to a multiple of 4. */
#define SPEED_CENT_LANES 28

/** Fixed-size scratch of the 25x25 linear algebra. */
typedef struct SpeedLinalg {
    float mean[SPEED_N];
    double cov_sum[SPEED_N][SPEED_CENT_LANES];
    float cov[SPEED_N * SPEED_N];
    float a[SPEED_N * SPEED_N];
    float q[SPEED_N * SPEED_N], r[SPEED_N * SPEED_N];
    float z[SPEED_N * SPEED_N], h[SPEED_N * SPEED_N], t[SPEED_N * SPEED_N];
    float eig[SPEED_N], sd[SPEED_N], v[SPEED_N], x[SPEED_N];
} SpeedLinalg;

/** Source positions and weights of one axis of the prescaler. */
typedef struct SpeedCore {
    const char *name;      /**< extractor name, for messages */
    SpeedParams p;
    float sigma_nn, nn_floor; /**< the options as float, as the reference passes them */

    /* Geometry. */
    int w, h;              /**< the plane's size */
    int sw, sh;            /**< after the prescale */
    int ow, oh;            /**< after decimation: (sw >> 4) x (sh >> 4) */
    int nbh, nbv, nb;      /**< 5x5 blocks across, down, in all */
    int subw, subh;        /**< covariance submatrix: 5 * nb{h,v} - 4 */

    /* Prescale (identity when skipped or when the sizes agree). */
    bool scaled;
    enum EvPrescaleMethod method;
    EvPrescaleAxis ax, ay;

    /* Filters. */
    float aa[SPEED_MAX_TAPS];   /**< anti-alias filter before decimation */
    int aa_n;
    float lm[SPEED_MAX_TAPS];   /**< local-mean filter on the decimated image */
    int lm_n;

    /** Rows the pipeline reads (1) or never reads (0): of the plane (h
     * entries) and of the prescaled plane (sh entries). */
    unsigned char *src_rows, *scaled_rows;

    /* Per-plane buffers, allocated at init. */
    size_t sstride;        /**< floats per row of the prescaled plane */
    float *splane;         /**< prescaled plane (only the rows read are filled) */
    float *vrow;           /**< vertical anti-alias pass of one row, padded */
    float *dec;            /**< decimated image, ow x oh, then minus its local mean */
    float *blur, *tmp;     /**< local-mean filter output and its vertical pass */
    double *cent;          /**< one submatrix row, centred: [subw][SPEED_CENT_LANES] */
    float *Y, *X, *B;      /**< SPEED_N x nb: block samples, solution, Q Y */
    SpeedLinalg la;

    SpeedEstimate ref, dis;
} SpeedCore;

/**
 * Check the options and the w x h plane, build the tables and allocate.
 * -EINVAL with a logged message for invalid options or a plane SpEED cannot
 * handle (the prescaled plane must be at least 80x80: its decimated image
 * needs a 5x5 block), -ENOMEM. speed_core_close() frees after any result.
 */
int speed_core_init(SpeedCore *c, const char *name, const SpeedParams *p, int w, int h);

void speed_core_close(SpeedCore *c);

/** Input offset of SpEED's planes, as for the other float extractors. */
#define SPEED_OFFSET (-128.0f)

/**
 * Plane `plane` of pic (c->w x c->h) as float with SPEED_OFFSET, into dst
 * (`stride` floats per row); only the rows the pipeline reads are written.
 */
void speed_core_load(const SpeedCore *c, const VmafPicture *pic, unsigned plane,
                     float *dst, size_t stride);

/** dst = a - b (fp32) on the rows the pipeline reads. */
void speed_core_diff(const SpeedCore *c, const float *a, const float *b, float *dst,
                     size_t stride);

/**
 * Estimate one float plane (w x h, `stride` floats per row; only rows with
 * src_rows[i] set are read) into *out (c->ref or c->dis).
 */
void speed_core_estimate(SpeedCore *c, const float *plane, size_t stride,
                         SpeedEstimate *out);

/**
 * The block estimate from the decimated, local-mean-removed image in
 * c->dec (ow x oh floats, row-major): covariance, eigenvalues, linear solve,
 * entropies (libm log2). Host side of every backend: a twin computes c->dec
 * on its device and calls this. speed_core_estimate() ends with it.
 */
void speed_core_conclude(SpeedCore *c, SpeedEstimate *out);

/**
 * speed_core_conclude() after the covariance sums: a twin that computes
 * c->dec and c->la.cov_sum[x][y] (y <= x) on its device calls this.
 */
void speed_core_conclude_sums(SpeedCore *c, SpeedEstimate *out);

/**
 * Bytes for a copy of c that speed_core_conclude_sums() and
 * speed_core_score() may work in: a GPU frame in flight's own, so that
 * frames conclude on several threads at once.
 */
size_t speed_core_conclusion_bytes(const SpeedCore *c);
/**
 * out = c, with its own dec, Y, X, B and estimate arrays in mem
 * (speed_core_conclusion_bytes(c), 64-byte aligned). The other buffers
 * stay c's, read-only through out.
 */
void speed_core_conclusion_bind(const SpeedCore *c, SpeedCore *out, void *mem);

/**
 * The score of the ref/dis estimates: 0 when exactly one is singular,
 * else the mean over blocks of |ref - dis| weighted entropies.
 * *singular is set when either one is.
 */
float speed_core_score(const SpeedCore *c, bool *singular);

/** The CPU loops, each instruction set's build (speed_simd_tmpl.c, src/simd.h). */
typedef struct SpeedKern {
    void (*load_row)(const uint8_t *src, unsigned bpc, int w, float *restrict d);
    void (*vertical_taps)(const float *f, int n, const float *src, size_t stride, int h, int i,
                          int w, float *restrict out);
    void (*covariance_sums)(SpeedCore *c);
} SpeedKern;
EV_SIMD_DECLARE(SpeedKern, speed_kern);

#endif
