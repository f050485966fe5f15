/*
 * The integer VIF kernels of ivif_simd_tmpl.c's C build: plain C written
 * for the compiler's vectoriser (the baseline instruction set's vectors),
 * for processors without a vector set that has intrinsic kernels. They
 * compute the reference's integers with 32-bit lanes only:
 * - symmetric taps are paired, f*(a + b), and columns are processed in
 *   blocks with the taps outer, so the accumulators stay in L1;
 * - a 64-bit moment sum S = sum f*v (v < 2^32, sum f = 65536) is kept as two
 *   exact 32-bit sums over the 16-bit halves of v, H = sum f*hi and
 *   L = sum f*lo (each < 65536 * 65535 < 2^32), and
 *   (uint32)((S + round) >> s) = (H << (16 - s)) + ((L + round) >> s)
 *   (mod 2^32) for s <= 16, because 2^16 * H is a multiple of 2^s;
 * - the 16-bit halves of a square x*x < 2^32 are summed the same way.
 * The statistic is the reference's own (ivif_stat_row_c).
 */
#ifndef EXACTVMAF_IVIF_SIMD_C_H
#define EXACTVMAF_IVIF_SIMD_C_H

#include <stdint.h>

#include "ivif_dsp.h"

/*
 * The loops below take their rows as restrict parameters (GCC keeps that
 * no-alias information when it inlines them, but not for restrict locals),
 * so that each vectorises without run-time alias checks.
 */

static inline const uint8_t *row8(const void *row, int j0)
{
    return (const uint8_t *)row + j0;
}

static inline const uint16_t *row16(const void *row, int j0)
{
    return (const uint16_t *)row + j0;
}

/** One centre tap, 8-bit: a = f*x, f*y, f*x*x, f*y*y, f*x*y. */
static inline void vtap0_u8(uint32_t f, const uint8_t *restrict x, const uint8_t *restrict y,
                            uint32_t *restrict a0, uint32_t *restrict a1,
                            uint32_t *restrict a2, uint32_t *restrict a3,
                            uint32_t *restrict a4, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x[j], b = y[j];
        a0[j] = f * a;
        a1[j] = f * b;
        a2[j] = f * (a * a);
        a3[j] = f * (b * b);
        a4[j] = f * (a * b);
    }
}

/** One pair of symmetric taps, 8-bit (x1/y1 and x2/y2 share the coefficient). */
static inline void vtap2_u8(uint32_t f, const uint8_t *restrict x1,
                            const uint8_t *restrict x2, const uint8_t *restrict y1,
                            const uint8_t *restrict y2, uint32_t *restrict a0,
                            uint32_t *restrict a1, uint32_t *restrict a2,
                            uint32_t *restrict a3, uint32_t *restrict a4, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x1[j], b = y1[j], c = x2[j], d = y2[j];
        a0[j] += f * (a + c);
        a1[j] += f * (b + d);
        a2[j] += f * (a * a + c * c);
        a3[j] += f * (b * b + d * d);
        a4[j] += f * (a * b + c * d);
    }
}

/**
 * Vertical taps of columns [j0, j0+n) into the scratch rows, 8-bit samples:
 * x*x < 2^16, so every moment sum is exact in 32 bits.
 * Channels: 0 mu1, 1 mu2, 2 xx, 4 yy, 6 xy (whole sums; vert_finish splits
 * them into 2/3, 4/5, 6/7).
 */
static inline void vert_block_u8(const IvifTaps *t, int j0, int n, uint32_t *const *v)
{
    const int fw = t->fw, r = fw / 2;
    vtap0_u8(t->f[r], row8(t->ref[r], j0), row8(t->dis[r], j0), v[0] + j0, v[1] + j0,
             v[2] + j0, v[4] + j0, v[6] + j0, n);
    for (int p = 0; p < r; p++)
        vtap2_u8(t->f[p], row8(t->ref[p], j0), row8(t->ref[fw - 1 - p], j0),
                 row8(t->dis[p], j0), row8(t->dis[fw - 1 - p], j0),
                 v[0] + j0, v[1] + j0, v[2] + j0, v[4] + j0, v[6] + j0, n);
}

/** One centre tap, 16-bit: the moments as sums over their 16-bit halves. */
static inline void vtap0_u16(uint32_t f, const uint16_t *restrict x,
                             const uint16_t *restrict y, uint32_t *restrict a0,
                             uint32_t *restrict a1, uint32_t *restrict a2,
                             uint32_t *restrict a3, uint32_t *restrict a4,
                             uint32_t *restrict a5, uint32_t *restrict a6,
                             uint32_t *restrict a7, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x[j], b = y[j];
        const uint32_t aa = a * a, bb = b * b, ab = a * b;
        a0[j] = f * a;
        a1[j] = f * b;
        a2[j] = f * (aa & 0xffff);
        a3[j] = f * (aa >> 16);
        a4[j] = f * (bb & 0xffff);
        a5[j] = f * (bb >> 16);
        a6[j] = f * (ab & 0xffff);
        a7[j] = f * (ab >> 16);
    }
}

/** One pair of symmetric taps, 16-bit. */
static inline void vtap2_u16(uint32_t f, const uint16_t *restrict x1,
                             const uint16_t *restrict x2, const uint16_t *restrict y1,
                             const uint16_t *restrict y2, uint32_t *restrict a0,
                             uint32_t *restrict a1, uint32_t *restrict a2,
                             uint32_t *restrict a3, uint32_t *restrict a4,
                             uint32_t *restrict a5, uint32_t *restrict a6,
                             uint32_t *restrict a7, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x1[j], b = y1[j], c = x2[j], d = y2[j];
        const uint32_t aa = a * a, bb = b * b, ab = a * b;
        const uint32_t cc = c * c, dd = d * d, cd = c * d;
        a0[j] += f * (a + c);
        a1[j] += f * (b + d);
        a2[j] += f * ((aa & 0xffff) + (cc & 0xffff));
        a3[j] += f * ((aa >> 16) + (cc >> 16));
        a4[j] += f * ((bb & 0xffff) + (dd & 0xffff));
        a5[j] += f * ((bb >> 16) + (dd >> 16));
        a6[j] += f * ((ab & 0xffff) + (cd & 0xffff));
        a7[j] += f * ((ab >> 16) + (cd >> 16));
    }
}

/**
 * Vertical taps of columns [j0, j0+n), 16-bit samples: each moment as the
 * sums of the 16-bit halves of the products (module comment).
 * Channels: 0 mu1, 1 mu2, 2/3 xx lo/hi, 4/5 yy lo/hi, 6/7 xy lo/hi.
 */
static inline void vert_block_u16(const IvifTaps *t, int j0, int n, uint32_t *const *v)
{
    const int fw = t->fw, r = fw / 2;
    vtap0_u16(t->f[r], row16(t->ref[r], j0), row16(t->dis[r], j0), v[0] + j0, v[1] + j0,
              v[2] + j0, v[3] + j0, v[4] + j0, v[5] + j0, v[6] + j0, v[7] + j0, n);
    for (int p = 0; p < r; p++)
        vtap2_u16(t->f[p], row16(t->ref[p], j0), row16(t->ref[fw - 1 - p], j0),
                  row16(t->dis[p], j0), row16(t->dis[fw - 1 - p], j0),
                  v[0] + j0, v[1] + j0, v[2] + j0, v[3] + j0, v[4] + j0, v[5] + j0,
                  v[6] + j0, v[7] + j0, n);
}

/** a = (uint16)((a + round) >> shift): the vertical mean. */
static inline void round_mu(uint32_t *restrict a, uint32_t round, int shift, int n)
{
    for (int j = 0; j < n; j++)
        a[j] = (uint16_t)((a[j] + round) >> shift);
}

/** Round whole 32-bit moment sums (8-bit input) and split them into halves. */
static inline void finish_u8(uint32_t *restrict lo, uint32_t *restrict hi, uint32_t round,
                             int shift, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t q = (uint32_t)(((uint64_t)lo[j] + round) >> shift);
        lo[j] = q & 0xffff;
        hi[j] = q >> 16;
    }
}

/** Round moment sums held as halves (module comment) and split the result again. */
static inline void finish_u16(uint32_t *restrict lo, uint32_t *restrict hi, uint32_t round,
                              int shift, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t q = (hi[j] << (16 - shift)) + ((lo[j] + round) >> shift);
        lo[j] = q & 0xffff;
        hi[j] = q >> 16;
    }
}

/** Round the vertical sums of [j0, j0+n); moments end as 16-bit halves in 2/3, 4/5, 6/7. */
static inline void vert_finish(const IvifTaps *t, int j0, int n, uint32_t *const *v)
{
    round_mu(v[0] + j0, t->mu_round, t->mu_shift, n);
    round_mu(v[1] + j0, t->mu_round, t->mu_shift, n);
    for (int c = 0; c < 3; c++) {
        if (t->u8)
            finish_u8(v[2 + 2 * c] + j0, v[3 + 2 * c] + j0, t->sq_round, t->sq_shift, n);
        else
            finish_u16(v[2 + 2 * c] + j0, v[3 + 2 * c] + j0, t->sq_round, t->sq_shift, n);
    }
}

/** a = fc * x[0..n) (centre tap). */
static inline void htap0(uint32_t fc, const uint32_t *restrict x, uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] = fc * x[j];
}

/** a += f * (x1 + x2) (a pair of symmetric taps). */
static inline void htap2(uint32_t f, const uint32_t *restrict x1, const uint32_t *restrict x2,
                         uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] += f * (x1[j] + x2[j]);
}

/** Horizontal taps of output columns [j0, j0+n): 8 channels of 16-bit values. */
static inline void horz_block(const IvifTaps *t, int j0, int n, uint32_t *const *v,
                              uint32_t *const *acc)
{
    const int fw = t->fw, r = fw / 2;
    for (int c = 0; c < 8; c++) {
        const uint32_t *x = v[c] + j0;
        htap0(t->f[r], x, acc[c], n);
        for (int p = 0; p < r; p++)
            htap2(t->f[p], x - r + p, x + r - p, acc[c], n);
    }
}

/** The horizontal results of a block: the means as they are, the moments recombined. */
static inline void horz_finish(const uint32_t *restrict m1, const uint32_t *restrict m2,
                               const uint32_t *restrict xl, const uint32_t *restrict xh,
                               const uint32_t *restrict yl, const uint32_t *restrict yh,
                               const uint32_t *restrict pl, const uint32_t *restrict ph,
                               uint32_t *restrict o1, uint32_t *restrict o2,
                               uint32_t *restrict oxx, uint32_t *restrict oyy,
                               uint32_t *restrict oxy, int n)
{
    for (int j = 0; j < n; j++) {
        o1[j] = m1[j];
        o2[j] = m2[j];
        oxx[j] = xh[j] + ((xl[j] + 32768) >> 16);
        oyy[j] = yh[j] + ((yl[j] + 32768) >> 16);
        oxy[j] = ph[j] + ((pl[j] + 32768) >> 16);
    }
}

static void filter_row(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int w = t->w, r = t->fw / 2;
    uint32_t *const *v = s->v;

    for (int j0 = 0; j0 < w; j0 += IVIF_BLOCK) {
        const int n = w - j0 < IVIF_BLOCK ? w - j0 : IVIF_BLOCK;
        if (t->u8)
            vert_block_u8(t, j0, n, v);
        else
            vert_block_u16(t, j0, n, v);
        vert_finish(t, j0, n, v);
    }
    for (int c = 0; c < 8; c++)
        ivif_pad_row(v[c], w, r);

    for (int j0 = 0; j0 < w; j0 += IVIF_BLOCK) {
        const int n = w - j0 < IVIF_BLOCK ? w - j0 : IVIF_BLOCK;
        horz_block(t, j0, n, v, s->blk);
        uint32_t *const *b = s->blk;
        horz_finish(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], out->mu1 + j0,
                    out->mu2 + j0, out->xx + j0, out->yy + j0, out->xy + j0, n);
    }
}

static inline void dtap0_u8(uint32_t f, const uint8_t *restrict x, uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] = f * x[j];
}

static inline void dtap2_u8(uint32_t f, const uint8_t *restrict x1, const uint8_t *restrict x2,
                            uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] += f * ((uint32_t)x1[j] + x2[j]);
}

static inline void dtap0_u16(uint32_t f, const uint16_t *restrict x, uint32_t *restrict a,
                             int n)
{
    for (int j = 0; j < n; j++)
        a[j] = f * x[j];
}

static inline void dtap2_u16(uint32_t f, const uint16_t *restrict x1,
                             const uint16_t *restrict x2, uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] += f * ((uint32_t)x1[j] + x2[j]);
}

/** Horizontal taps at the even columns: out[j] from v[2j - r .. 2j + r]. */
static inline void decimate_horz(const uint16_t *f, int r, const uint32_t *restrict v,
                                 uint16_t *restrict out, int n)
{
    const uint32_t fc = f[r];
    for (int j = 0; j < n; j++) {
        uint32_t m = fc * v[2 * j];
        for (int p = 0; p < r; p++)
            m += f[p] * (v[2 * j - r + p] + v[2 * j + r - p]);
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

static void row_sums(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
                     const uint16_t *log2_table, IvifAccum *acc)
{
    filter_row(t, s, &s->row);
    ivif_stat_row_c(&s->row, t->w, gl, log2_table, acc);
}

static void decimate_row(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint32_t *v = s->v[0];

    for (int j0 = 0; j0 < w; j0 += IVIF_BLOCK) {
        const int n = w - j0 < IVIF_BLOCK ? w - j0 : IVIF_BLOCK;
        if (t->u8) {
            dtap0_u8(t->f[r], row8(t->ref[r], j0), v + j0, n);
            for (int p = 0; p < r; p++)
                dtap2_u8(t->f[p], row8(t->ref[p], j0), row8(t->ref[fw - 1 - p], j0),
                         v + j0, n);
        } else {
            dtap0_u16(t->f[r], row16(t->ref[r], j0), v + j0, n);
            for (int p = 0; p < r; p++)
                dtap2_u16(t->f[p], row16(t->ref[p], j0), row16(t->ref[fw - 1 - p], j0),
                          v + j0, n);
        }
        round_mu(v + j0, t->mu_round, t->mu_shift, n);
    }
    ivif_pad_row(v, w, r);
    decimate_horz(t->f, r, v, out, w / 2);
}

#endif
