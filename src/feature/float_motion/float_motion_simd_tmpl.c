/*
 * float_motion's blur and SADs (float_motion.c), built once per instruction
 * set (src/simd.h). Every output keeps its own tap sequence and each row's
 * SAD its left-to-right order, so only the vector width differs between
 * builds.
 */
#include <stddef.h>

#include "float_motion_state.h"

/* One tap over a row: acc[j] = +0 + t*x[j] for the first tap, then
 * acc[j] = acc[j] + t*x[j] (motion_tap) for each following one. */
static inline void tap_row_first(float *restrict acc, const float *restrict x,
                                 float t, unsigned w)
{
    for (unsigned j = 0; j < w; j++)
        acc[j] = motion_tap(0.0f, t, x[j]);
}

static inline void tap_row(float *restrict acc, const float *restrict x,
                           float t, unsigned w)
{
    for (unsigned j = 0; j < w; j++)
        acc[j] = motion_tap(acc[j], t, x[j]);
}

/* SAD rows processed together: independent running sums interleave, so the
 * additions' latency overlaps; each row's own sum keeps its left-to-right order. */
#define SAD_ROWS 8

/**
 * row_sums[i] = SAD of row i of (a, b) for i in [0, n), each an fp32 running
 * sum from +0, left to right (motion_sad_row's order).
 */
static void sad_rows(const float *a, const float *b, size_t stride, unsigned w,
                     unsigned n, float *row_sums)
{
    unsigned i = 0;
    for (; i + SAD_ROWS <= n; i += SAD_ROWS) {
        float acc[SAD_ROWS];
        for (int r = 0; r < SAD_ROWS; r++)
            acc[r] = 0.0f;
        const float *ar = a + i * stride, *br = b + i * stride;
        for (unsigned j = 0; j < w; j++)
            for (int r = 0; r < SAD_ROWS; r++)
                acc[r] = motion_sad_step(acc[r], ar[r * stride + j], br[r * stride + j]);
        for (int r = 0; r < SAD_ROWS; r++)
            row_sums[i + r] = acc[r];
    }
    for (; i < n; i++)
        row_sums[i] = motion_sad_row(a + i * stride, b + i * stride, (int)w);
}
/**
 * Blur `src` (w x h, `stride` floats per row) into `dst`. When `prev` (the
 * previous frame's blur) is given, row_sums[i] receives SAD row i of
 * (prev, dst). Vertical pass: taps outer, columns inner, into the row buffer
 * (each sample's running sum keeps the ascending tap order, so GCC can
 * vectorise across columns without reassociating); the row is then padded
 * reflect-101 so that the horizontal pass has no edge cases.
 */
static void blur_plane(const float *taps, int n_taps, const float *src,
                            float *dst, const float *prev, float *row_buf,
                            float *row_sums, unsigned w, unsigned h, size_t stride)
{
    const int radius = n_taps / 2;
    float *row = row_buf + radius;

    for (unsigned i = 0; i < h; i++) {
        for (int k = 0; k < n_taps; k++) {
            const float *sk = src + (size_t)motion_mirror((int)i - radius + k, (int)h) * stride;
            if (k == 0)
                tap_row_first(row, sk, taps[0], w);
            else
                tap_row(row, sk, taps[k], w);
        }
        for (int m = 1; m <= radius; m++) {
            row[-m] = row[m];
            row[(int)w - 1 + m] = row[(int)w - 1 - m];
        }

        float *out = dst + i * stride;
        tap_row_first(out, row_buf, taps[0], w);
        for (int k = 1; k < n_taps; k++)
            tap_row(out, row_buf + k, taps[k], w);

        /* SAD a block of rows as soon as its blur is done, while in cache. */
        if (prev && ((i + 1) % SAD_ROWS == 0 || i + 1 == h)) {
            const unsigned first = i - i % SAD_ROWS;
            sad_rows(prev + first * stride, dst + first * stride, stride, w,
                     i + 1 - first, row_sums + first);
        }
    }
}

const MotionKern EV_SIMD_NAME(motion_kern) = { blur_plane, sad_rows };
