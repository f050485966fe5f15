/*
 * The integer motion SAD for AArch64's NEON (imotion_dsp.h). 8-bit input:
 * every value the filters multiply fits 16 bits (d = prev - cur in
 * [-255, 255], a pair of them in [-510, 510]; the vertical result y in
 * [-65280, 65280] split into y >> 8 in [-255, 255] and y & 255), so each
 * tap is a widening 16 x 16 -> 32-bit multiply-add (smull, smlal), eight
 * columns per step, and the split rows are kept as int16. The products and
 * sums are the integers imotion_dsp.c's fast kernel forms (its module
 * comment shows they equal the reference's): the same bits. The rounding
 * (x + 128) >> 8 is srshr, (x >> 8) with narrowing is shrn; the row sum of
 * |v| wraps modulo 2^32 per lane and across lanes, as the reference's uint32
 * row sum does. Deeper input takes the compiler-vectorised kernel
 * (imotion_sad_vec, NEON on AArch64): its differences need 17 bits.
 */
#include "imotion_dsp.h"

#if IMOTION_HAVE_NEON

#include <arm_neon.h>

enum { F0 = IMOTION_F0, F1 = IMOTION_F1, F2 = IMOTION_F2 };

/* Vertical pass of one 8-bit row: yh = y >> 8, yl = y & 255; the OR of y. */
static int32_t vert_u8(const uint8_t *const p[IMOTION_TAPS], const uint8_t *const c[IMOTION_TAPS],
                       int16_t *restrict yh, int16_t *restrict yl, int w)
{
    int32x4_t any4 = vdupq_n_s32(0);
    const int32x4_t low8 = vdupq_n_s32(255);
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        int16x8_t d[IMOTION_TAPS];
        for (int k = 0; k < IMOTION_TAPS; k++)
            d[k] = vreinterpretq_s16_u16(vsubl_u8(vld1_u8(p[k] + j), vld1_u8(c[k] + j)));
        const int16x8_t s04 = vaddq_s16(d[0], d[4]), s13 = vaddq_s16(d[1], d[3]);
        int32x4_t lo = vmull_n_s16(vget_low_s16(s04), F0);
        lo = vmlal_n_s16(lo, vget_low_s16(s13), F1);
        lo = vmlal_n_s16(lo, vget_low_s16(d[2]), F2);
        int32x4_t hi = vmull_high_n_s16(s04, F0);
        hi = vmlal_high_n_s16(hi, s13, F1);
        hi = vmlal_high_n_s16(hi, d[2], F2);
        lo = vrshrq_n_s32(lo, 8);
        hi = vrshrq_n_s32(hi, 8);
        any4 = vorrq_s32(any4, vorrq_s32(lo, hi));
        vst1q_s16(yh + j, vcombine_s16(vshrn_n_s32(lo, 8), vshrn_n_s32(hi, 8)));
        vst1q_s16(yl + j, vcombine_s16(vmovn_s32(vandq_s32(lo, low8)),
                                       vmovn_s32(vandq_s32(hi, low8))));
    }
    int32_t any = vgetq_lane_s32(any4, 0) | vgetq_lane_s32(any4, 1) | vgetq_lane_s32(any4, 2) |
                  vgetq_lane_s32(any4, 3);
    for (; j < w; j++) {
        const int32_t d0 = p[0][j] - c[0][j], d1 = p[1][j] - c[1][j], d2 = p[2][j] - c[2][j];
        const int32_t d3 = p[3][j] - c[3][j], d4 = p[4][j] - c[4][j];
        const int32_t y = (F0 * (d0 + d4) + F1 * (d1 + d3) + F2 * d2 + 128) >> 8;
        yh[j] = (int16_t)(y >> 8);
        yl[j] = (int16_t)(y & 255);
        any |= y;
    }
    return any;
}

static inline void pad2(int16_t *y, int w)
{
    y[-1] = y[1];
    y[-2] = y[2];
    y[w] = y[w - 2];
    y[w + 1] = y[w - 3];
}

/* Horizontal taps of 8 columns of a padded int16 row: the low and high
 * halves of sum f * y. */
static inline void horz_taps(const int16_t *y, int32x4_t *lo, int32x4_t *hi)
{
    const int16x8_t s04 = vaddq_s16(vld1q_s16(y - 2), vld1q_s16(y + 2));
    const int16x8_t s13 = vaddq_s16(vld1q_s16(y - 1), vld1q_s16(y + 1));
    const int16x8_t s2 = vld1q_s16(y);
    *lo = vmlal_n_s16(vmlal_n_s16(vmull_n_s16(vget_low_s16(s04), F0), vget_low_s16(s13), F1),
                      vget_low_s16(s2), F2);
    *hi = vmlal_high_n_s16(vmlal_high_n_s16(vmull_high_n_s16(s04, F0), s13, F1), s2, F2);
}

/* (a + ((b + 2^15) >> 8)) >> 8, then |.| */
static inline uint32x4_t horz_abs(int32x4_t a, int32x4_t b)
{
    const int32x4_t half = vdupq_n_s32(32768);
    const int32x4_t v = vshrq_n_s32(vaddq_s32(a, vshrq_n_s32(vaddq_s32(b, half), 8)), 8);
    return vreinterpretq_u32_s32(vabsq_s32(v));
}

/* The uint32 row sum of |horizontal pass|. */
static uint32_t horz(const int16_t *yh, const int16_t *yl, int w)
{
    uint32x4_t acc = vdupq_n_u32(0);
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        int32x4_t alo, ahi, blo, bhi;
        horz_taps(yh + j, &alo, &ahi);
        horz_taps(yl + j, &blo, &bhi);
        acc = vaddq_u32(acc, vaddq_u32(horz_abs(alo, blo), horz_abs(ahi, bhi)));
    }
    uint32_t sum = vaddvq_u32(acc);
    for (; j < w; j++) {
        const int32_t a = F0 * (yh[j - 2] + yh[j + 2]) + F1 * (yh[j - 1] + yh[j + 1]) +
                          F2 * yh[j];
        const int32_t b = F0 * (yl[j - 2] + yl[j + 2]) + F1 * (yl[j - 1] + yl[j + 1]) +
                          F2 * yl[j];
        const int32_t v = (a + ((b + 32768) >> 8)) >> 8;
        sum += (uint32_t)(v < 0 ? -v : v);
    }
    return sum;
}

uint64_t imotion_sad_neon(const void *prev, ptrdiff_t prev_stride, const void *cur,
                          ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                          const ImotionScratch *s)
{
    if (bpc != 8)
        return imotion_sad_vec(prev, prev_stride, cur, cur_stride, w, h, bpc, s);
    /* The scratch rows hold w_max + 2 * IMOTION_RADIUS + 16 int32 around
     * [0, w): as int16 they have the same room on each side and more. */
    int16_t *yh = (int16_t *)(void *)s->yh, *yl = (int16_t *)(void *)s->yl;
    const uint8_t *pb = prev, *cb = cur;
    uint64_t sad = 0;
    for (int i = 0; i < h; i++) {
        const uint8_t *p[IMOTION_TAPS], *c[IMOTION_TAPS];
        for (int k = 0; k < IMOTION_TAPS; k++) {
            const int row = imotion_mirror(i - IMOTION_RADIUS + k, h);
            p[k] = pb + (ptrdiff_t)row * prev_stride;
            c[k] = cb + (ptrdiff_t)row * cur_stride;
        }
        /* A row whose vertical results are all zero adds zero. */
        if (!vert_u8(p, c, yh, yl, w))
            continue;
        pad2(yh, w);
        pad2(yl, w);
        sad += horz(yh, yl, w);
    }
    return sad;
}

#endif
