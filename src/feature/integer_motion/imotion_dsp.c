/*
 * Integer motion SAD: the C reference and the scratch (imotion_dsp.h); the
 * fast kernel, built once per instruction set, is imotion_simd_tmpl.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simd.h"
#include "imotion_dsp.h"

static inline int32_t sample(const void *base, ptrdiff_t stride, int i, int j, int hbd)
{
    const uint8_t *row = (const uint8_t *)base + (ptrdiff_t)i * stride;
    return hbd ? ((const uint16_t *)(const void *)row)[j] : row[j];
}

/* ---- Reference ---- */

uint64_t imotion_sad_ref(const void *prev, ptrdiff_t prev_stride, const void *cur,
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

/* ---- The fastest build this processor runs (imotion_simd_tmpl.c) ---- */

ImotionSadFn imotion_sad_best(void)
{
    static const ImotionSadFn *const sad[EV_ISA_COUNT] = EV_SIMD_TABLE(imotion_sad);
    return *sad[ev_cpu_isa()];
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
