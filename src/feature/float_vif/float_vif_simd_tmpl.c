/*
 * float_vif's filters and statistic (float_vif.c), built once per
 * instruction set (src/simd.h). Every output keeps its own tap sequence and
 * the sums are scalar loops in the reference's order, so only the vector
 * width differs between builds.
 */
#include <stddef.h>

#include "float_vif_state.h"

/* Mirror a row's r samples beyond each end (reflect-101). */
static void pad_row(float *row, int w, int r)
{
    for (int m = 1; m <= r; m++) {
        row[-m] = row[m];
        row[w - 1 + m] = row[w - 1 - m];
    }
}
/** Vertical taps of output row i into out[0..w): taps outer, columns inner. */
static void vertical_row(const float *f, int fw, const float *src, size_t stride,
                         int h, int i, int w, float *restrict out)
{
    const int r = fw / 2;
    const float *p = src + (size_t)vif_reflect(i - r, h) * stride;
    for (int j = 0; j < w; j++)
        out[j] = vif_tap(0.0f, f[0], p[j]);
    for (int k = 1; k < fw; k++) {
        const float fk = f[k];
        p = src + (size_t)vif_reflect(i - r + k, h) * stride;
        for (int j = 0; j < w; j++)
            out[j] = vif_tap(out[j], fk, p[j]);
    }
}

/**
 * The five vertical sums of output row i at once: mu1, mu2 and, with the
 * square or product formed per tap, xx, yy, xy.
 */
static void vertical_row5(const float *f, int fw, const float *ref, const float *dis,
                          size_t stride, int h, int i, int w,
                          float *restrict m1, float *restrict m2, float *restrict xx,
                          float *restrict yy, float *restrict xy)
{
    const int r = fw / 2;
    size_t o = (size_t)vif_reflect(i - r, h) * stride;
    const float *a = ref + o, *b = dis + o;
    const float f0 = f[0];
    for (int j = 0; j < w; j++) {
        m1[j] = vif_tap(0.0f, f0, a[j]);
        m2[j] = vif_tap(0.0f, f0, b[j]);
        xx[j] = vif_tap_sq(0.0f, f0, a[j]);
        yy[j] = vif_tap_sq(0.0f, f0, b[j]);
        xy[j] = vif_tap_xy(0.0f, f0, a[j], b[j]);
    }
    for (int k = 1; k < fw; k++) {
        const float fk = f[k];
        o = (size_t)vif_reflect(i - r + k, h) * stride;
        a = ref + o;
        b = dis + o;
        for (int j = 0; j < w; j++) {
            m1[j] = vif_tap(m1[j], fk, a[j]);
            m2[j] = vif_tap(m2[j], fk, b[j]);
            xx[j] = vif_tap_sq(xx[j], fk, a[j]);
            yy[j] = vif_tap_sq(yy[j], fk, b[j]);
            xy[j] = vif_tap_xy(xy[j], fk, a[j], b[j]);
        }
    }
}

/** Horizontal taps: out[j] = sum_k f[k] * padded[j + k], k ascending. */
static void horizontal_row(const float *f, int fw, const float *restrict padded,
                           int w, float *restrict out)
{
    for (int j = 0; j < w; j++)
        out[j] = vif_tap(0.0f, f[0], padded[j]);
    for (int k = 1; k < fw; k++) {
        const float fk = f[k];
        const float *p = padded + k;
        for (int j = 0; j < w; j++)
            out[j] = vif_tap(out[j], fk, p[j]);
    }
}

/** Horizontal taps at the even columns only: out[j] = filtered column 2j. */
static void horizontal_row_even(const float *f, int fw, const float *restrict padded,
                                int n, float *restrict out)
{
    for (int j = 0; j < n; j++)
        out[j] = vif_tap(0.0f, f[0], padded[2 * j]);
    for (int k = 1; k < fw; k++) {
        const float fk = f[k];
        const float *p = padded + k;
        for (int j = 0; j < n; j++)
            out[j] = vif_tap(out[j], fk, p[2 * j]);
    }
}

/**
 * Next scale's image: filter src (w x h) with the scale's kernel and keep
 * the even rows and columns, (w/2) x (h/2).
 */
static void filter_decimate(const VifState *s, int scale, const float *src,
                            size_t src_stride, int w, int h, float *dst,
                            size_t dst_stride)
{
    const float *f = s->filter[scale];
    const int fw = s->fw[scale];
    float *row = s->vrow[0] + s->max_radius;

    for (int i = 0; i < h / 2; i++) {
        vertical_row(f, fw, src, src_stride, h, 2 * i, w, row);
        pad_row(row, w, fw / 2);
        horizontal_row_even(f, fw, row - fw / 2, w / 2, dst + (size_t)i * dst_stride);
    }
}

/** num and den sums of one scale: fp32 running sum per row, rows in order. */
static void scale_sums(const VifState *s, int scale, float *num, float *den)
{
    const float *f = s->filter[scale];
    const int fw = s->fw[scale], r = fw / 2;
    const int w = s->sw[scale], h = s->sh[scale];
    float *v[VIF_P_COUNT];
    for (int p = 0; p < VIF_P_COUNT; p++)
        v[p] = s->vrow[p] + s->max_radius;

    float total_num = 0.0f, total_den = 0.0f;
    for (int i = 0; i < h; i++) {
        vertical_row5(f, fw, s->ref[scale], s->dis[scale], s->stride[scale], h, i, w,
                      v[VIF_P_MU1], v[VIF_P_MU2], v[VIF_P_XX], v[VIF_P_YY], v[VIF_P_XY]);
        for (int p = 0; p < VIF_P_COUNT; p++) {
            pad_row(v[p], w, r);
            horizontal_row(f, fw, v[p] - r, w, s->hrow[p]);
        }

        const float *m1 = s->hrow[VIF_P_MU1], *m2 = s->hrow[VIF_P_MU2];
        const float *xx = s->hrow[VIF_P_XX], *yy = s->hrow[VIF_P_YY], *xy = s->hrow[VIF_P_XY];
        float *nr = s->num_row, *dr = s->den_row;
        for (int j = 0; j < w; j++)
            vif_stat(m1[j], m2[j], xx[j], yy[j], xy[j], &s->stat, &nr[j], &dr[j]);

        float row_num = 0.0f, row_den = 0.0f;
        for (int j = 0; j < w; j++) {
            row_num = FADD(row_num, nr[j]);
            row_den = FADD(row_den, dr[j]);
        }
        total_num = FADD(total_num, row_num);
        total_den = FADD(total_den, row_den);
    }
    *num = total_num;
    *den = total_den;
}

const VifKern EV_SIMD_NAME(vif_kern) = { filter_decimate, scale_sums };
