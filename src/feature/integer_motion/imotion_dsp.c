/*
 * Integer motion SAD kernels (see imotion_dsp.h).
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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "imotion_dsp.h"

static inline int32_t sample(const void *base, ptrdiff_t stride, int i, int j, int hbd)
{
    const uint8_t *row = (const uint8_t *)base + (ptrdiff_t)i * stride;
    return hbd ? ((const uint16_t *)(const void *)row)[j] : row[j];
}

/* ---- Reference ---- */

uint64_t imotion_sad_c(const void *prev, ptrdiff_t prev_stride, const void *cur,
                       ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                       const ImotionScratch *s)
{
    const int hbd = bpc > 8;
    int32_t *y = s->y;
    uint64_t sad = 0;

    for (int i = 0; i < h; i++) {
        int32_t any = 0;
        for (int j = 0; j < w; j++) {
            int32_t d[IMOTION_TAPS];
            for (int k = 0; k < IMOTION_TAPS; k++) {
                const int row = imotion_mirror(i - IMOTION_RADIUS + k, h);
                d[k] = sample(prev, prev_stride, row, j, hbd) -
                       sample(cur, cur_stride, row, j, hbd);
            }
            y[j] = imotion_vert_px(d, bpc);
            any |= y[j];
        }
        if (!any)
            continue;
        uint32_t row_sad = 0;
        for (int j = 0; j < w; j++) {
            int32_t t[IMOTION_TAPS];
            for (int k = 0; k < IMOTION_TAPS; k++)
                t[k] = y[imotion_mirror(j - IMOTION_RADIUS + k, w)];
            row_sad += imotion_abs(imotion_horz_px(t));
        }
        sad += row_sad;
    }
    return sad;
}

/* ---- Fast (auto-vectorised) ---- */

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

static inline void pad2(int32_t *y, int w)
{
    y[-1] = y[1];
    y[-2] = y[2];
    y[w] = y[w - 2];
    y[w + 1] = y[w - 3];
}

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
        pad2(s->yh, w);
        pad2(s->yl, w);
        sad += horz(s->yh, s->yl, w);
    }
    return sad;
}

uint64_t imotion_sad_vec(const void *prev, ptrdiff_t prev_stride, const void *cur,
                         ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                         const ImotionScratch *s)
{
    return sad_fast(prev, prev_stride, cur, cur_stride, w, h, bpc, s);
}

#if IMOTION_HAVE_AVX2
EV_TARGET_AVX2_BEGIN
uint64_t imotion_sad_avx2(const void *prev, ptrdiff_t prev_stride, const void *cur,
                          ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                          const ImotionScratch *s)
{
    return sad_fast(prev, prev_stride, cur, cur_stride, w, h, bpc, s);
}
EV_TARGET_END

EV_TARGET_AVX512_BEGIN
uint64_t imotion_sad_avx512(const void *prev, ptrdiff_t prev_stride, const void *cur,
                            ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                            const ImotionScratch *s)
{
    return sad_fast(prev, prev_stride, cur, cur_stride, w, h, bpc, s);
}
EV_TARGET_END
#endif

ImotionSadFn imotion_sad_best(void)
{
#if IMOTION_HAVE_AVX2
    if (ev_cpu_isa() >= EV_ISA_AVX512)
        return imotion_sad_avx512;
    if (ev_cpu_isa() >= EV_ISA_AVX2)
        return imotion_sad_avx2;
#elif IMOTION_HAVE_NEON
    if (ev_cpu_isa() >= EV_ISA_NEON)
        return imotion_sad_neon;
#endif
    return imotion_sad_vec;
}

/* ---- Scratch ---- */

static int32_t *alloc_row(int w_max)
{
    const size_t n = (size_t)w_max + 2 * IMOTION_RADIUS + 16;
    int32_t *p = calloc(n, sizeof(int32_t));
    return p ? p + IMOTION_RADIUS : NULL;
}

int imotion_scratch_alloc(ImotionScratch *s, int w_max)
{
    s->y = alloc_row(w_max);
    s->yh = alloc_row(w_max);
    s->yl = alloc_row(w_max);
    if (!s->y || !s->yh || !s->yl) {
        imotion_scratch_free(s);
        return -ENOMEM;
    }
    return 0;
}

void imotion_scratch_free(ImotionScratch *s)
{
    free(s->y ? s->y - IMOTION_RADIUS : NULL);
    free(s->yh ? s->yh - IMOTION_RADIUS : NULL);
    free(s->yl ? s->yl - IMOTION_RADIUS : NULL);
    s->y = s->yh = s->yl = NULL;
}
