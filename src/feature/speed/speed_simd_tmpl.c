/*
 * SpEED's loops (speed_core.c), built once per instruction set
 * (src/simd.h): the same operations per element and sums in the
 * reference's order, so only the vector width differs between builds.
 */
#include <stddef.h>
#include <stdint.h>

#include "speed_core.h"
/* One row of a plane as float with SPEED_OFFSET. */
static void load_row(const uint8_t *src, unsigned bpc, int w, float *restrict d)
{
    if (bpc == 8) {
        for (int j = 0; j < w; j++)
            d[j] = (float)src[j] + SPEED_OFFSET;
        return;
    }
    /* The reference divides by 4, 16 or 256: exact, any order. */
    const float scale = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
    const uint16_t *s16 = (const uint16_t *)(const void *)src;
    for (int j = 0; j < w; j++)
        d[j] = (float)s16[j] / scale + SPEED_OFFSET;
}

/* Vertical taps of row i (taps outer, columns inner: each sample's running
 * sum keeps the ascending tap order). */
static void vertical_taps(const float *f, int n, const float *src, size_t stride,
                               int h, int i, int w, float *restrict out)
{
    const int r = n / 2;
    const float *p = src + (size_t)speed_reflect(i - r, h) * stride;
    for (int j = 0; j < w; j++)
        out[j] = speed_tap(0.0f, f[0], p[j]);
    for (int k = 1; k < n; k++) {
        const float fk = f[k];
        p = src + (size_t)speed_reflect(i - r + k, h) * stride;
        for (int j = 0; j < w; j++)
            out[j] = speed_tap(out[j], fk, p[j]);
    }
}

/* The 25 submatrix means and the 25x25 covariance sums of the decimated
 * image: submatrix k starts at (k / 5, k % 5) and is subh x subw. */
static void covariance_sums(SpeedCore *c)
{
    SpeedLinalg *la = &c->la;
    const int ow = c->ow, subw = c->subw, subh = c->subh;
    const float *o = c->dec;

    /* Means: one fp32 running sum per offset, raster order. */
    float sum[SPEED_N];
    for (int k = 0; k < SPEED_N; k++)
        sum[k] = 0.0f;
    for (int i = 0; i < subh; i++)
        for (int j = 0; j < subw; j++)
            for (int k = 0; k < SPEED_N; k++)
                sum[k] = FADD(sum[k], o[(size_t)(i + k / SPEED_BLOCK) * ow + j + k % SPEED_BLOCK]);
    const float count = (float)((size_t)subw * (size_t)subh);
    for (int k = 0; k < SPEED_N; k++)
        la->mean[k] = speed_mean(sum[k], count);

    /* Covariance sums: for each submatrix row, the centred samples of all
     * 25 offsets side by side, then acc[x][y] += cx * cy across y. */
    for (int x = 0; x < SPEED_N; x++)
        for (int y = 0; y < SPEED_CENT_LANES; y++)
            la->cov_sum[x][y] = 0.0;
    double *restrict cent = c->cent;
    for (int i = 0; i < subh; i++) {
        for (int k = 0; k < SPEED_N; k++) {
            const float *row = o + (size_t)(i + k / SPEED_BLOCK) * ow + k % SPEED_BLOCK;
            const float m = la->mean[k];
            for (int j = 0; j < subw; j++)
                cent[(size_t)j * SPEED_CENT_LANES + k] = speed_centered(row[j], m);
        }
        for (int x = 0; x < SPEED_N; x++) {
            double acc[SPEED_CENT_LANES];
            for (int y = 0; y < SPEED_CENT_LANES; y++)
                acc[y] = la->cov_sum[x][y];
            for (int j = 0; j < subw; j++) {
                const double *cj = cent + (size_t)j * SPEED_CENT_LANES;
                const double cx = cj[x];
                for (int y = 0; y < SPEED_CENT_LANES; y++)
                    acc[y] = speed_cov_step(acc[y], cx, cj[y]);
            }
            for (int y = 0; y < SPEED_CENT_LANES; y++)
                la->cov_sum[x][y] = acc[y];
        }
    }
}

const SpeedKern EV_SIMD_NAME(speed_kern) = { load_row, vertical_taps, covariance_sums };
