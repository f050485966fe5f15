/*
 * float_ssim / float_ms_ssim host code shared by both extractors and by every
 * backend: scale choice, dB conversion, MS-SSIM pooling (the libm tail), and
 * the CPU engine (the window's convolutions, the statistic and the ordered
 * sums; the two decimations).
 */
#ifndef EXACTVMAF_SSIM_HOST_H
#define EXACTVMAF_SSIM_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "simd.h"
#include "ssim_arith.h"

/* ---- Conclusions (every backend) ---- */

/**
 * float_ssim's decimation factor: the option when it is > 0, else
 * max(1, round_half_away(f32(min(w, h)) / 256.0f)) (the reference's _round,
 * which truncates and adds the sign when the fraction is >= 0.5).
 */
int ssim_scale_factor(int option, int w, int h);

/** Size of an n-sample axis decimated by f: n/f + (n & 1) (not a ceiling for f > 2). */
int ssim_decimated_size(int n, int f);

/**
 * The dB ceiling: ceil(10*log10(peak^2 / (0.5/(w*h)))) with peak = 2^bpc - 1
 * (unsigned arithmetic, as the reference) when clip is set, +inf otherwise.
 */
double ssim_max_db(unsigned bpc, unsigned w, unsigned h, bool clip);

/** min(-10*log10(1 - score), max_db), in double. */
double ssim_to_db(double score, double max_db);

/**
 * MS-SSIM from the five scales' fp32 means: 1.0 times, per scale in order,
 * (pow(l, alpha) * pow(c, beta)) * pow(s, gamma) with the fp32 exponents
 * promoted to double. Writes *score; -ERANGE when the product is +inf (the
 * reference fails the frame there).
 */
int ms_ssim_pool(const float l[MS_SSIM_SCALES], const float c[MS_SSIM_SCALES],
                 const float s[MS_SSIM_SCALES], double *score);

/* ---- CPU engine ---- */

/** Means of one image pair over the valid region, each fp32 as the reference stores it. */
/* The engine's rows: the five filtered quantities, the statistic's pieces,
 * the l/c/s terms. */
enum { Q_MU1, Q_MU2, Q_XX, Q_YY, Q_XY, Q_COUNT };
enum { S_SIG1, S_SIG2, S_SIG12, S_ROOT, S_COUNT };
enum { T_L, T_C, T_S, T_COUNT };

/** The box's first and last tap offsets: [-(f/2), f/2 - (f even)], as the reference's kernel. */
static inline void box_reach(int f, int *lo, int *hi)
{
    *lo = -(f / 2);
    *hi = f / 2 - ((f & 1) ? 0 : 1);
}

typedef struct SsimMeans {
    float ssim, l, c, s;
} SsimMeans;

/** Row buffers of the SSIM core for images up to max_w wide; allocated once. */
typedef struct SsimEngine {
    int max_w;
    size_t row_stride;   /**< floats per buffered row (>= max_w - 10, padded) */
    float *ring;         /**< 5 quantities x 11 horizontally filtered rows */
    float *vrow;         /**< 5 vertically filtered rows: mu1, mu2, xx, yy, xy */
    float *stat;         /**< 4 rows: sigma1^2, sigma2^2, sigma12, sqrt argument/root */
    double *terms;       /**< 3 rows of l, c, s */
} SsimEngine;

/** Allocate for images up to max_w (>= 11) wide. 0 or -ENOMEM. */
int ssim_engine_init(SsimEngine *e, int max_w);

/** Free what ssim_engine_init allocated (safe on a zeroed or failed engine). */
void ssim_engine_free(SsimEngine *e);

/**
 * SSIM of ref/cmp (w x h, w <= max_w, both >= 11; `stride` floats per row)
 * with the 11x11 Gaussian window, over the (w-10) x (h-10) valid region.
 */
void ssim_engine_means(const SsimEngine *e, const float *ref, const float *cmp,
                       size_t stride, int w, int h, SsimMeans *out);

/**
 * float_ssim's box decimation by f > 1, in place on a compact w x h image
 * (stride w), exactly as the reference runs it: outputs in raster order,
 * each written over the source as soon as it is computed. Taps are f32(1/f^2)
 * products summed in fp64, rows outer; edges half-sample symmetric.
 */
void ssim_box_decimate_inplace(float *img, int w, int h, int f);

/**
 * 1 when no output of the in-place decimation reads a sample that an earlier
 * output has already overwritten, so that decimating out of place
 * (ssim_box_decimate) gives the same image. Holds except on small images
 * with a large factor.
 */
bool ssim_box_inplace_is_pure(int w, int h, int f);

/** The mirrored source column of every (tap, output column): f * (w/f + (w&1)) entries. */
void ssim_box_columns(int w, int f, int *cols);

/**
 * The same decimation out of place: dst (compact, sw wide) from src
 * (src_stride floats per row), with the ssim_box_columns table and one row
 * of fp64 sums in acc. Equal to the in-place one when ssim_box_inplace_is_pure.
 */
void ssim_box_decimate(const float *src, size_t src_stride, int w, int h, int f,
                       const int *cols, float *dst, double *acc);

/** Columns of padding each side of an MS-SSIM scale image (the 9x9 kernel's reach). */
#define MS_SSIM_PAD 4

/**
 * Fill the MS_SSIM_PAD columns left and right of every row of a w x h image
 * (w >= MS_SSIM_PAD) with its half-sample symmetric mirror.
 */
void ms_ssim_pad_columns(float *img, size_t stride, int w, int h);

/** Floats per row of ms_ssim_decimate's split buffer for a source w wide. */
size_t ms_ssim_split_stride(int w);

/**
 * One MS-SSIM decimation: dst (w/2 + (w&1)) x (h/2 + (h&1)) from src w x h
 * whose rows are padded by ms_ssim_pad_columns. Output (x, y) is the 9x9
 * table applied around (2x, 2y), fp32 products summed in fp64, rows outer;
 * rows beyond the edges mirror half-sample symmetric. `split` holds
 * h * ms_ssim_split_stride(w) floats (the source's even and odd columns),
 * `acc` one output row of fp64 sums (w/2 + 1 doubles).
 */
void ms_ssim_decimate(const float *src, size_t src_stride, int w, int h,
                      float *dst, size_t dst_stride, float *split, double *acc);

/**
 * The three loops above for one instruction set (cpu.h's EvIsa; a set this
 * build lacks gives the C loops). The functions above run the processor's
 * widest; tests/checkasm compares every set with the C one.
 */
typedef struct SsimKern {
    void (*engine_means)(const SsimEngine *e, const float *ref, const float *cmp,
                         size_t stride, int w, int h, SsimMeans *out);
    void (*box_decimate)(const float *src, size_t src_stride, int w, int h, int f,
                         const int *cols, float *dst, double *acc);
    void (*ms_decimate)(const float *src, size_t src_stride, int w, int h,
                        float *dst, size_t dst_stride, float *split, double *acc);
} SsimKern;

/** Each instruction set's build (ssim_simd_tmpl.c, src/simd.h). */
EV_SIMD_DECLARE(SsimKern, ssim_kern);
const SsimKern *ssim_kern_for(int isa);

#endif
