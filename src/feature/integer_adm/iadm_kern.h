/*
 * Integer ADM row kernels: one table per instruction set, each the build of
 * iadm_kern_tmpl.c for that set (src/simd.h); the C build is the reference.
 * All kernels are integer-exact (the only float steps, in the decoupling,
 * are IEEE double operations that vector units round identically), so
 * every table gives the same bits; tests/checkasm checks that.
 *
 * Conventions: bands are int16 at scale 0 and int32 at scales 1-3; a row
 * kernel processes columns [j0, j1) of one band row; `w` is the band width
 * where columns are mirrored (masking threshold).
 */
#ifndef EXACTVMAF_IADM_KERN_H
#define EXACTVMAF_IADM_KERN_H

#include <stdint.h>

#include "simd.h"

/** Constants of one masking pass (scale 0 or 1-3). */
typedef struct IadmCmParams {
    int32_t rf0[3];         /**< scale 0: uint16 factors */
    uint32_t rf123[3];      /**< scales 1-3: Q32 factors */
    int cub_shift[3];
    int64_t cub_add[3];
} IadmCmParams;

typedef struct IadmDsp {
    /** Scale 0 vertical DWT of one output row, 8-bit input (shift 8);
     * hi may be NULL (low-pass only). */
    void (*dwt0_vert_8)(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                        const uint8_t *r3, int n, int16_t *lo, int16_t *hi);
    /** Same for 9..16-bit input (shift = bpc). */
    void (*dwt0_vert_16)(const uint16_t *r0, const uint16_t *r1, const uint16_t *r2,
                         const uint16_t *r3, int n, int shift, int16_t *lo,
                         int16_t *hi);
    /** Scale 0 horizontal DWT into n_out outputs, output j from inputs
     * 2j-1 .. 2j+2: the rows are padded at -1, n and n+1 with the values the
     * reference's tap indices read. Band a (int16 values) is stored widened
     * to int32, as scale 1 reads it. hi, v, h, d NULL: low-pass only. */
    void (*dwt0_horiz)(const int16_t *lo, const int16_t *hi, int n_out,
                       int32_t *a, int16_t *v, int16_t *h, int16_t *d);
    /** Scales 1-3 vertical DWT: int64 taps, (sum + add) >> shift. */
    void (*dwt_vert)(const int32_t *r0, const int32_t *r1, const int32_t *r2,
                     const int32_t *r3, int n, int64_t add, int shift,
                     int32_t *lo, int32_t *hi);
    /** Scale 1 vertical DWT (rounding 0, shift 0) of int16-valued rows:
     * the same values as dwt_vert, in int32 arithmetic. */
    void (*dwt1_vert)(const int32_t *r0, const int32_t *r1, const int32_t *r2,
                      const int32_t *r3, int n, int32_t *lo, int32_t *hi);
    /** Scales 1-3 horizontal DWT, padded rows as dwt0_horiz. */
    void (*dwt_horiz)(const int32_t *lo, const int32_t *hi, int n_out,
                      int64_t add, int shift, int32_t *a, int32_t *v,
                      int32_t *h, int32_t *d);

    /** Scale 0 decoupling of one row: o = reference bands (h, v, d), t =
     * distorted; writes restored r and additive a. tmp: scratch of at
     * least 8 * j1 int32. */
    void (*decouple0)(const int16_t *const o[3], const int16_t *const t[3],
                      int j0, int j1, const int32_t *div_lookup, float cos2,
                      double egl, int32_t *tmp, int16_t *const r[3],
                      int16_t *const a[3]);
    void (*decouple)(const int32_t *const o[3], const int32_t *const t[3],
                     int j0, int j1, const int32_t *div_lookup, float cos2,
                     double egl, int32_t *tmp, int32_t *const r[3],
                     int32_t *const a[3]);

    /** Denominator row sums (not yet row-shifted), bands h, v, d. */
    void (*den0)(const int16_t *const b[3], int j0, int j1, uint64_t out[3]);
    void (*den)(const int32_t *const b[3], int j0, int j1, int sq_shift,
                uint64_t cub_add, int cub_shift, uint64_t out[3]);

    /** CSF of one row of three bands into the masking threshold's terms:
     * F = sum of filtered values, G = sum of centre terms - F. */
    void (*csf0)(const int16_t *const src[3], const int32_t rf[3], int j0,
                 int j1, int32_t *f, int32_t *g);
    void (*csf)(const int32_t *const src[3], const uint32_t rf[3], int j0,
                int j1, int32_t *f, int32_t *g);

    /** Masking of one row: thresholds from F rows up/mid/down (already
     * mirrored) and G, terms from x; sums per band (not row-shifted).
     * vtmp holds at least w int32. */
    void (*cm0)(const int16_t *const x[3], const int32_t *fu, const int32_t *fm,
                const int32_t *fd, const int32_t *g, int j0, int j1, int w,
                const IadmCmParams *p, int32_t *vtmp, int64_t out[3]);
    void (*cm)(const int32_t *const x[3], const int32_t *fu, const int32_t *fm,
               const int32_t *fd, const int32_t *g, int j0, int j1, int w,
               const IadmCmParams *p, int32_t *vtmp, int64_t out[3]);
} IadmDsp;

/** The kernels, each instruction set's build (iadm_kern_tmpl.c). */
EV_SIMD_DECLARE(IadmDsp, iadm_dsp);

/** The widest build this processor runs (under ev_cpu_isa's cap). */
void iadm_dsp_init(IadmDsp *d);

#endif
