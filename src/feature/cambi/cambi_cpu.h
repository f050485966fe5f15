/*
 * CAMBI's per-frame stages on the CPU: picture -> 10-bit luma (resampled,
 * anti-dithered), spatial mask, then per scale decimation, mode filter and
 * the per-pixel c-values that the host pools (cambi_host.h).
 */
#ifndef EXACTVMAF_CAMBI_CPU_H
#define EXACTVMAF_CAMBI_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cambi_host.h"
#include "libvmaf/picture.h"

/** Source row / column of each output row / column of one resampling. */
typedef struct CambiResample {
    unsigned in_w, in_h, out_w, out_h;
    unsigned *x, *y;
} CambiResample;

/**
 * Build the nearest-neighbour tables for in -> out. Returns -EINVAL (logged)
 * when the reference's coordinates would leave the picture, -ENOMEM.
 */
int cambi_resample_init(CambiResample *rs, unsigned in_w, unsigned in_h,
                        unsigned out_w, unsigned out_h);
void cambi_resample_free(CambiResample *rs);

/** Working buffers of one instance, for frames up to alloc_w x alloc_h. */
typedef struct CambiCpu {
    unsigned alloc_w, alloc_h;
    size_t stride;       /**< samples per row of img and mask */
    uint16_t *img;       /**< 10-bit luma of the current scale */
    uint8_t *mask;       /**< spatial mask of the current scale (0/1) */
    float *c;            /**< c-values of the current scale, w*h packed */
    uint16_t *hist;      /**< window counts of one strip: a row per band value */
    uint16_t *band;      /**< count row of each pixel of the current scale */
    uint16_t *events;    /**< 2 rows of scratch (window slide) */
    uint8_t *flags;      /**< 1 row + 16 of scratch (window slide) */
    uint16_t *rows;      /**< 3 rows of scratch (mode filter) */
    uint8_t *deriv;      /**< 8 rows of zero-derivative flags (mask) */
    uint8_t *colsum;     /**< alloc_w + 6 column sums (mask) */
    uint16_t *ring;      /**< 3 rows of full-size luma (load_mask, decimating) */
    uint8_t *mrow;       /**< 1 row of full-size mask (load_mask, decimating) */
    CambiPoolStats pool; /**< of the c-values of the current scale */
    /** Values with c-values to compute: n_active intervals [lo, lo + span]. */
    int n_active;
    uint16_t active_lo[CAMBI_MAX_DIFFS], active_span[CAMBI_MAX_DIFFS];
} CambiCpu;

int cambi_cpu_alloc(CambiCpu *cpu, unsigned alloc_w, unsigned alloc_h,
                    const CambiParams *p);
void cambi_cpu_free(CambiCpu *cpu);

/**
 * Luma of pic -> 10 bits at rs->out_w x rs->out_h, then the anti-dithering
 * filter when `antidither`, and the spatial mask of that: 7x7
 * zero-derivative counts above the threshold. Into cpu->img and cpu->mask,
 * whole, or with `decimate` only every other row and column of each (what
 * cambi_cpu_decimate() would keep of them; nothing is written past that).
 * Returns -EINVAL (logged) when a 9..15-bit picture holds samples above its
 * maximum, as the reference does.
 */
int cambi_cpu_load_mask(CambiCpu *cpu, const VmafPicture *pic, const CambiResample *rs,
                        bool antidither, bool decimate);

/** Log that a bpc-bit picture holds samples above its maximum; -EINVAL. */
int cambi_range_error(unsigned bpc);

/** Keep every other row and column of img and mask: new size w x h. */
void cambi_cpu_decimate(CambiCpu *cpu, unsigned w, unsigned h);

/**
 * 3x3 separable mode filter of img in place (rows 0 and h-1 untouched), and
 * the band image of the result for cambi_cpu_c_values() with this window.
 */
void cambi_cpu_mode_filter(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h,
                           unsigned window);

/**
 * After cambi_cpu_mode_filter() of this scale: the c-values of the w x h
 * pixels with a window x window neighbourhood (window odd, h >= window / 2;
 * a narrower w takes in what earlier scales left past it, as the reference
 * does). With `store`, into cpu->c[i*w + j] for pixel (i, j); with `stats`,
 * their pooling statistics into cpu->pool.
 */
void cambi_cpu_c_values(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h,
                        unsigned window, bool store, bool stats);

#endif
