/* Integer ADM CPU pipeline: buffers and the per-frame loops over the row kernels. */
#ifndef EXACTVMAF_IADM_CPU_H
#define EXACTVMAF_IADM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "libvmaf/picture.h"

#include "iadm_host.h"
#include "iadm_kern.h"

/** Rows of scale 0's band a kept for scale 1 (a power of 2). */
#define IADM_RING0 8

/** Instances that differ only in adm_enhn_gain_limit share a pass, up to this many. */
#define IADM_MAX_GAIN_LIMITS 4

/** The rows one gain limit needs past the DWT: what decoupling makes from the bands. */
typedef struct IadmLimitRows {
    void *rst[2][3], *add[2][3];        /**< restored / additive rows, ring of 2 */
    int32_t *fa[3], *ga[3], *fr[3], *gr[3]; /**< threshold terms, ring of 3 */
} IadmLimitRows;

/**
 * Buffers of one extractor instance, all allocated at init. Only band a of
 * each scale (the next scale's input) is kept whole; every other band lives
 * in row buffers: one row of the DWT bands, and per gain limit two of the
 * restored and additive parts and three of the masking threshold terms (a
 * ring each, index row % 2 or row % 3). Row buffers are int32-sized and
 * hold either type.
 */
typedef struct IadmCpu {
    int w, h;
    IadmScaleGeom geom[IADM_NUM_SCALES];
    IadmDsp dsp;
    int32_t *div_lookup;                /**< IADM_DIV_TABLE_SIZE entries */
    int *idx_y[IADM_NUM_SCALES];        /**< vertical tap rows, 4 x geom.h */
    size_t s32;                         /**< row stride (int32) of the a planes */
    /** Band a planes, ping-pong by scale; scale 0's band a lives in the
     * first IADM_RING0 rows of [0] (row i at i % IADM_RING0), read by
     * scale 1 as it goes. */
    int32_t *a_ref[2], *a_dis[2];
    void *ref_b[3], *dis_b[3];          /**< DWT band rows h, v, d */
    IadmLimitRows lim[IADM_MAX_GAIN_LIMITS];
    IadmLimitRows lim1[IADM_MAX_GAIN_LIMITS]; /**< scale 1's, which runs within scale 0 */
    int n_lim;                          /**< gain limits the buffers serve */
    int emu;                            /**< the reference's scale-3 row -1 (see iadm_cpu.c) */
    /* Vertical DWT rows, padded: [-1] and [n], [n + 1]. */
    int16_t *lo16, *hi16;
    int32_t *lo_ref, *hi_ref, *lo_dis, *hi_dis;
    int32_t *tmp;                       /**< eight rows of scratch */
    /* What the reference's scale-3 DWT reads at row -1 (see iadm_cpu.c). */
    int32_t *emu_ref, *emu_dis;
    void *block;
    size_t block_size;      /* bytes mapped at block */
} IadmCpu;

/**
 * Allocate for a w x h frame (w, h >= IADM_MIN_SIZE, checked by the
 * caller) and up to n_lim gain limits per pass. 0, -EINVAL (no valid
 * geometry) or -ENOMEM.
 */
int iadm_cpu_init(IadmCpu *c, int w, int h, int n_lim);

/**
 * Whether one pass can serve several gain limits at this size: not when the
 * reference's scale-3 DWT reads (at row -1) a CSF row, which depends on the
 * limit (frames of 17 to 32 samples on a side).
 */
int iadm_cpu_can_share(const IadmCpu *c);

/** Free what iadm_cpu_init allocated; safe on a zeroed struct. */
void iadm_cpu_close(IadmCpu *c);

/**
 * Run the four scales of one frame pair under each gain limit egl[e]
 * (n_egl <= c->n_lim; p->egl is not read) and fill acc[e]. The DWT and the
 * denominators are computed once.
 */
void iadm_cpu_frame(IadmCpu *c, const IadmParams *p, const double *egl, int n_egl,
                    const VmafPicture *ref, const VmafPicture *dis,
                    IadmAccum acc[][IADM_NUM_SCALES]);

#endif
