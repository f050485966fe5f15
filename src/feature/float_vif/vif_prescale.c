/*
 * vif_prescale / vif_prescale_method: resample the float luma before VIF,
 * as libvmaf v3.2.0's vif_scale_frame_s() does (docs/numerics.md 4.3).
 *
 * Every weight depends on the output column or the output row only, so the
 * source indices and weights are computed once at init with the reference's
 * own expressions; the per-pixel sums then run in the reference's order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "vif_host.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define LANCZOS_A 4

int vif_prescale_method_parse(const char *name, enum VifPrescaleMethod *method)
{
    static const struct {
        const char *name;
        enum VifPrescaleMethod method;
    } methods[] = {
        { "nearest", VIF_PRESCALE_NEAREST },
        { "bilinear", VIF_PRESCALE_BILINEAR },
        { "bicubic", VIF_PRESCALE_BICUBIC },
        { "lanczos4", VIF_PRESCALE_LANCZOS4 },
    };
    for (size_t i = 0; name && i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (!strcmp(name, methods[i].name)) {
            *method = methods[i].method;
            return 0;
        }
    }
    vmaf_log(VMAF_LOG_LEVEL_ERROR,
             "float_vif: invalid vif_prescale_method \"%s\"; supported: "
             "nearest, bilinear, bicubic, lanczos4", name ? name : "(null)");
    return -EINVAL;
}

/* The reference's mirror(): float arguments, one reflection (reflect-101). */
static float mirror(float i, float left, float right)
{
    return i < left ? -i : i > right ? 2 * right - i : i;
}

/* Source position of output sample x: (x + 0.5) * ratio - 0.5 in double,
 * rounded to float. */
static float source_pos(int x, float ratio)
{
    return (float)((x + 0.5) * ratio - 0.5);
}

/* Keys cubic with a = -0.75, all float. */
static float bicubic_weight(float t)
{
    const float a = -0.75f;
    if (t < 0)
        t = -t;
    if (t < 1)
        return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
        return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

/* Lanczos window: double expression (libm sin), rounded to float. */
static float lanczos_weight(float x, float a)
{
    if (x == 0.0)
        return 1.0f;
    if (x > -a && x < a)
        return (float)(a * sin(M_PI * x) * sin(M_PI * x / a) / (M_PI * M_PI * x * x));
    return 0.0f;
}

/* Indices and weights of one axis: n outputs from a source of size len.
 * Returns 0, or -EINVAL when a mirrored index leaves the source. */
static int build_axis(enum VifPrescaleMethod method, int len, int n, int taps,
                      int *idx, float *wt)
{
    const float ratio = (float)len / (float)n;
    const float last = (float)(len - 1);

    for (int x = 0; x < n; x++) {
        int *ix = idx + (size_t)x * taps;
        float *w = wt + (size_t)x * taps;

        switch (method) {
        case VIF_PRESCALE_NEAREST:
            /* (int)(x * ratio): int converted to float, float product. */
            ix[0] = (int)((float)x * ratio);
            w[0] = 1.0f;
            break;
        case VIF_PRESCALE_BILINEAR: {
            const float pos = source_pos(x, ratio);
            ix[0] = (int)mirror((float)floor(pos), 0, last);
            ix[1] = (int)mirror((float)ceil(pos), 0, last);
            /* The fraction is taken from the mirrored lower index. */
            w[0] = pos - (float)ix[0];
            w[1] = 0.0f;
            break;
        }
        case VIF_PRESCALE_BICUBIC:
        case VIF_PRESCALE_LANCZOS4: {
            const float pos = source_pos(x, ratio);
            const int x0 = (int)floor(pos);
            const float d = pos - (float)x0;
            const int lo = method == VIF_PRESCALE_BICUBIC ? -1 : -LANCZOS_A;
            for (int t = 0; t < taps; t++) {
                const int i = lo + t;
                ix[t] = (int)mirror((float)(x0 + i), 0, last);
                w[t] = method == VIF_PRESCALE_BICUBIC
                     ? bicubic_weight((float)i - d)
                     : lanczos_weight((float)i - d, (float)LANCZOS_A);
            }
            break;
        }
        }
        for (int t = 0; t < taps; t++)
            if (ix[t] < 0 || ix[t] >= len)
                return -EINVAL;
    }
    return 0;
}

void vif_prescale_close(VifPrescale *ps)
{
    free(ps->col_idx);
    free(ps->row_idx);
    free(ps->col_wt);
    free(ps->row_wt);
    ps->col_idx = ps->row_idx = NULL;
    ps->col_wt = ps->row_wt = NULL;
}

int vif_prescale_init(VifPrescale *ps, enum VifPrescaleMethod method,
                      int src_w, int src_h, int dst_w, int dst_h)
{
    static const int taps_of[] = {
        [VIF_PRESCALE_NEAREST] = 1,
        [VIF_PRESCALE_BILINEAR] = 2,
        [VIF_PRESCALE_BICUBIC] = 4,
        [VIF_PRESCALE_LANCZOS4] = 2 * LANCZOS_A + 1,
    };
    int err;

    memset(ps, 0, sizeof(*ps));
    ps->method = method;
    ps->src_w = src_w;
    ps->src_h = src_h;
    ps->dst_w = dst_w;
    ps->dst_h = dst_h;
    ps->taps = taps_of[method];
    /* The reference copies whenever the sizes agree, whatever the method. */
    ps->identity = src_w == dst_w && src_h == dst_h;
    if (ps->identity)
        return 0;

    const size_t taps = (size_t)ps->taps;
    err = -ENOMEM;
    ps->col_idx = malloc(sizeof(int) * taps * (size_t)dst_w);
    ps->row_idx = malloc(sizeof(int) * taps * (size_t)dst_h);
    ps->col_wt = malloc(sizeof(float) * taps * (size_t)dst_w);
    ps->row_wt = malloc(sizeof(float) * taps * (size_t)dst_h);
    if (!ps->col_idx || !ps->row_idx || !ps->col_wt || !ps->row_wt)
        goto fail;

    err = build_axis(method, src_w, dst_w, ps->taps, ps->col_idx, ps->col_wt);
    if (!err)
        err = build_axis(method, src_h, dst_h, ps->taps, ps->row_idx, ps->row_wt);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_vif: a %dx%d frame is too small to prescale to %dx%d "
                 "with this vif_prescale_method (its taps reach past the mirrored border)",
                 src_w, src_h, dst_w, dst_h);
        goto fail;
    }
    return 0;

fail:
    vif_prescale_close(ps);
    return err;
}

static void apply_nearest(const VifPrescale *ps, const float *src, size_t src_stride,
                          float *dst, size_t dst_stride)
{
    for (int y = 0; y < ps->dst_h; y++) {
        const float *s = src + (size_t)ps->row_idx[y] * src_stride;
        float *d = dst + (size_t)y * dst_stride;
        for (int x = 0; x < ps->dst_w; x++)
            d[x] = s[ps->col_idx[x]];
    }
}

static void apply_bilinear(const VifPrescale *ps, const float *src, size_t src_stride,
                           float *dst, size_t dst_stride)
{
    for (int y = 0; y < ps->dst_h; y++) {
        const float *r1 = src + (size_t)ps->row_idx[2 * y] * src_stride;
        const float *r2 = src + (size_t)ps->row_idx[2 * y + 1] * src_stride;
        const float dy = ps->row_wt[2 * y];
        float *d = dst + (size_t)y * dst_stride;
        for (int x = 0; x < ps->dst_w; x++) {
            const int x1 = ps->col_idx[2 * x], x2 = ps->col_idx[2 * x + 1];
            const float dx = ps->col_wt[2 * x];
            /* Four float products, each weight product formed first, summed
             * left to right. */
            d[x] = (1 - dy) * (1 - dx) * r1[x1] +
                   (1 - dy) * dx * r1[x2] +
                   dy * (1 - dx) * r2[x1] +
                   dy * dx * r2[x2];
        }
    }
}

static void apply_bicubic(const VifPrescale *ps, const float *src, size_t src_stride,
                          float *dst, size_t dst_stride)
{
    for (int y = 0; y < ps->dst_h; y++) {
        const int *yi = ps->row_idx + (size_t)4 * y;
        const float *wy = ps->row_wt + (size_t)4 * y;
        float *d = dst + (size_t)y * dst_stride;
        for (int x = 0; x < ps->dst_w; x++) {
            const int *xi = ps->col_idx + (size_t)4 * x;
            const float *wx = ps->col_wt + (size_t)4 * x;
            /* One float running sum, source rows outer. */
            float v = 0.0f;
            for (int j = 0; j < 4; j++) {
                const float *row = src + (size_t)yi[j] * src_stride;
                for (int i = 0; i < 4; i++)
                    v += row[xi[i]] * (wx[i] * wy[j]);
            }
            d[x] = v;
        }
    }
}

static void apply_lanczos4(const VifPrescale *ps, const float *src, size_t src_stride,
                           float *dst, size_t dst_stride)
{
    enum { T = 2 * LANCZOS_A + 1 };
    for (int y = 0; y < ps->dst_h; y++) {
        const int *yi = ps->row_idx + (size_t)T * y;
        const float *wy = ps->row_wt + (size_t)T * y;
        float *d = dst + (size_t)y * dst_stride;
        for (int x = 0; x < ps->dst_w; x++) {
            const int *xi = ps->col_idx + (size_t)T * x;
            const float *wx = ps->col_wt + (size_t)T * x;
            /* Float running sums of the weights and of the weighted samples,
             * rows outer, then one float division. */
            float v = 0.0f, wsum = 0.0f;
            for (int j = 0; j < T; j++) {
                const float *row = src + (size_t)yi[j] * src_stride;
                for (int i = 0; i < T; i++) {
                    const float w = wx[i] * wy[j];
                    wsum += w;
                    v += row[xi[i]] * w;
                }
            }
            d[x] = v / wsum;
        }
    }
}

void vif_prescale_apply(const VifPrescale *ps, const float *src, size_t src_stride,
                        float *dst, size_t dst_stride)
{
    switch (ps->method) {
    case VIF_PRESCALE_NEAREST:
        apply_nearest(ps, src, src_stride, dst, dst_stride);
        break;
    case VIF_PRESCALE_BILINEAR:
        apply_bilinear(ps, src, src_stride, dst, dst_stride);
        break;
    case VIF_PRESCALE_BICUBIC:
        apply_bicubic(ps, src, src_stride, dst, dst_stride);
        break;
    case VIF_PRESCALE_LANCZOS4:
        apply_lanczos4(ps, src, src_stride, dst, dst_stride);
        break;
    }
}
