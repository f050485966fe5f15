/*
 * Integer motion's fast SAD (imotion_dsp.h), built once per instruction set
 * (src/simd.h): plain C written for the compiler's vectoriser, and on
 * AArch64 NEON intrinsics for 8-bit input.
 *
 * The fast kernel computes the same integers in 32-bit lanes: with
 * d = 256*dh + dl (dh = d >> 8, dl = d & 255),
 *   floor((sum f*d + 2^(b-1)) / 2^b) = (A + ((B + 2^(b-1)) >> 8)) >> (b - 8)
 * for A = sum f*dh and B = sum f*dl (b >= 8; nested floors of an integer
 * by powers of two), and likewise for the horizontal pass with y split at
 * bit 8 and 2^16. Every partial sum then fits in 32 bits for any 16-bit
 * input: |y| < 2^23, so |sum f*(y >> 8)| < 2^31. Symmetric taps are
 * paired. A row whose vertical results are all zero adds zero, so it is
 * skipped, as in the reference.
 */
#include <stddef.h>
#include <stdint.h>

#include "imotion_dsp.h"
#include "simd.h"

enum { F0 = IMOTION_F0, F1 = IMOTION_F1, F2 = IMOTION_F2 };

/** Vertical pass, 8-bit: y, split into y >> 8 and y & 255; returns the OR of y. */
static inline int32_t vert_u8(const uint8_t *restrict p0, const uint8_t *restrict p1,
                              const uint8_t *restrict p2, const uint8_t *restrict p3,
                              const uint8_t *restrict p4, const uint8_t *restrict c0,
                              const uint8_t *restrict c1, const uint8_t *restrict c2,
                              const uint8_t *restrict c3, const uint8_t *restrict c4,
                              int32_t *restrict yh, int32_t *restrict yl, int w)
{
    int32_t any = 0;
    for (int j = 0; j < w; j++) {
        const int32_t d0 = p0[j] - c0[j], d1 = p1[j] - c1[j], d2 = p2[j] - c2[j];
        const int32_t d3 = p3[j] - c3[j], d4 = p4[j] - c4[j];
        /* |sum| <= 65536 * 255: exact in 32 bits. */
        const int32_t y = (F0 * (d0 + d4) + F1 * (d1 + d3) + F2 * d2 + 128) >> 8;
        yh[j] = y >> 8;
        yl[j] = y & 255;
        any |= y;
    }
    return any;
}

/** Vertical pass, 16-bit samples, with d split at bit 8 (module comment). */
static inline int32_t vert_u16(const uint16_t *restrict p0, const uint16_t *restrict p1,
                               const uint16_t *restrict p2, const uint16_t *restrict p3,
                               const uint16_t *restrict p4, const uint16_t *restrict c0,
                               const uint16_t *restrict c1, const uint16_t *restrict c2,
                               const uint16_t *restrict c3, const uint16_t *restrict c4,
                               int32_t *restrict yh, int32_t *restrict yl, int w,
                               unsigned bpc)
{
    const int32_t round = 1 << (bpc - 1);
    const int shift = (int)bpc - 8;
    int32_t any = 0;
    for (int j = 0; j < w; j++) {
        const int32_t d0 = p0[j] - c0[j], d1 = p1[j] - c1[j], d2 = p2[j] - c2[j];
        const int32_t d3 = p3[j] - c3[j], d4 = p4[j] - c4[j];
        const int32_t a = F0 * ((d0 >> 8) + (d4 >> 8)) + F1 * ((d1 >> 8) + (d3 >> 8)) +
                          F2 * (d2 >> 8);
        const int32_t b = F0 * ((d0 & 255) + (d4 & 255)) + F1 * ((d1 & 255) + (d3 & 255)) +
                          F2 * (d2 & 255);
        const int32_t y = (a + ((b + round) >> 8)) >> shift;
        yh[j] = y >> 8;
        yl[j] = y & 255;
        any |= y;
    }
    return any;
}

/** Horizontal pass over padded y halves; the uint32 row sum of |.|. */
static inline uint32_t horz(const int32_t *restrict yh, const int32_t *restrict yl, int w)
{
    uint32_t sum = 0;
    for (int j = 0; j < w; j++) {
        const int32_t a = F0 * (yh[j - 2] + yh[j + 2]) + F1 * (yh[j - 1] + yh[j + 1]) +
                          F2 * yh[j];
        const int32_t b = F0 * (yl[j - 2] + yl[j + 2]) + F1 * (yl[j - 1] + yl[j + 1]) +
                          F2 * yl[j];
        const int32_t v = (a + ((b + 32768) >> 8)) >> 8;
        sum += (uint32_t)(v < 0 ? -v : v);
    }
    return sum;
}

/* The row's two mirrored samples at each end, for the 5-tap pass (the
 * int32 halves here, NEON's int16 ones below). */
#define PAD2(y, w)                                                                          \
    do {                                                                                    \
        (y)[-1] = (y)[1];                                                                   \
        (y)[-2] = (y)[2];                                                                   \
        (y)[(w)] = (y)[(w) - 2];                                                            \
        (y)[(w) + 1] = (y)[(w) - 3];                                                        \
    } while (0)

/* The body of the fast kernel, built for the baseline instruction set, AVX2
 * and AVX-512 (the same integer operations; only the vector width differs). */
static inline __attribute__((always_inline)) uint64_t
sad_fast(const void *prev, ptrdiff_t prev_stride, const void *cur, ptrdiff_t cur_stride,
         int w, int h, unsigned bpc, const ImotionScratch *s)
{
    const uint8_t *pb = prev, *cb = cur;
    uint64_t sad = 0;

    for (int i = 0; i < h; i++) {
        const uint8_t *p[IMOTION_TAPS], *c[IMOTION_TAPS];
        for (int k = 0; k < IMOTION_TAPS; k++) {
            const int row = imotion_mirror(i - IMOTION_RADIUS + k, h);
            p[k] = pb + (ptrdiff_t)row * prev_stride;
            c[k] = cb + (ptrdiff_t)row * cur_stride;
        }
        int32_t any;
        if (bpc == 8)
            any = vert_u8(p[0], p[1], p[2], p[3], p[4], c[0], c[1], c[2], c[3], c[4],
                          s->yh, s->yl, w);
        else
            any = vert_u16((const uint16_t *)(const void *)p[0],
                           (const uint16_t *)(const void *)p[1],
                           (const uint16_t *)(const void *)p[2],
                           (const uint16_t *)(const void *)p[3],
                           (const uint16_t *)(const void *)p[4],
                           (const uint16_t *)(const void *)c[0],
                           (const uint16_t *)(const void *)c[1],
                           (const uint16_t *)(const void *)c[2],
                           (const uint16_t *)(const void *)c[3],
                           (const uint16_t *)(const void *)c[4], s->yh, s->yl, w, bpc);
        if (!any)
            continue;
        PAD2(s->yh, w);
        PAD2(s->yl, w);
        sad += horz(s->yh, s->yl, w);
    }
    return sad;
}

#if EV_SIMD_IS_NEON
/*
 * The NEON build (AArch64) takes intrinsics for 8-bit input:
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
 * above: its differences need 17 bits.
 */
#include <arm_neon.h>

/* Vertical pass of one 8-bit row: yh = y >> 8, yl = y & 255; the OR of y. */
static int32_t neon_vert_u8(const uint8_t *const p[IMOTION_TAPS], const uint8_t *const c[IMOTION_TAPS],
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

/* Horizontal taps of 8 columns of a padded int16 row: the low and high
 * halves of sum f * y. */
static inline void neon_horz_taps(const int16_t *y, int32x4_t *lo, int32x4_t *hi)
{
    const int16x8_t s04 = vaddq_s16(vld1q_s16(y - 2), vld1q_s16(y + 2));
    const int16x8_t s13 = vaddq_s16(vld1q_s16(y - 1), vld1q_s16(y + 1));
    const int16x8_t s2 = vld1q_s16(y);
    *lo = vmlal_n_s16(vmlal_n_s16(vmull_n_s16(vget_low_s16(s04), F0), vget_low_s16(s13), F1),
                      vget_low_s16(s2), F2);
    *hi = vmlal_high_n_s16(vmlal_high_n_s16(vmull_high_n_s16(s04, F0), s13, F1), s2, F2);
}

/* (a + ((b + 2^15) >> 8)) >> 8, then |.| */
static inline uint32x4_t neon_horz_abs(int32x4_t a, int32x4_t b)
{
    const int32x4_t half = vdupq_n_s32(32768);
    const int32x4_t v = vshrq_n_s32(vaddq_s32(a, vshrq_n_s32(vaddq_s32(b, half), 8)), 8);
    return vreinterpretq_u32_s32(vabsq_s32(v));
}

/* The uint32 row sum of |horizontal pass|. */
static uint32_t neon_horz(const int16_t *yh, const int16_t *yl, int w)
{
    uint32x4_t acc = vdupq_n_u32(0);
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        int32x4_t alo, ahi, blo, bhi;
        neon_horz_taps(yh + j, &alo, &ahi);
        neon_horz_taps(yl + j, &blo, &bhi);
        acc = vaddq_u32(acc, vaddq_u32(neon_horz_abs(alo, blo), neon_horz_abs(ahi, bhi)));
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

static uint64_t sad_neon(const void *prev, ptrdiff_t prev_stride, const void *cur,
                         ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                         const ImotionScratch *s)
{
    if (bpc != 8)
        return sad_fast(prev, prev_stride, cur, cur_stride, w, h, bpc, s);
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
        if (!neon_vert_u8(p, c, yh, yl, w))
            continue;
        PAD2(yh, w);
        PAD2(yl, w);
        sad += neon_horz(yh, yl, w);
    }
    return sad;
}

const ImotionSadFn EV_SIMD_NAME(imotion_sad) = sad_neon;
#else
const ImotionSadFn EV_SIMD_NAME(imotion_sad) = sad_fast;
#endif
