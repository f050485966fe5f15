/* The prescale's tables and its CPU rows (prescale.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prescale.h"
#include "prescale_arith.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define LANCZOS_A 4

const char *const ev_prescale_method_names[] = {
    [EV_PRESCALE_NEAREST] = "nearest",
    [EV_PRESCALE_BILINEAR] = "bilinear",
    [EV_PRESCALE_BICUBIC] = "bicubic",
    [EV_PRESCALE_LANCZOS4] = "lanczos4",
    [EV_PRESCALE_LANCZOS4 + 1] = NULL,
};

int ev_prescale_method_parse(const char *name, enum EvPrescaleMethod *method)
{
    for (int i = 0; name && ev_prescale_method_names[i]; i++) {
        if (!strcmp(name, ev_prescale_method_names[i])) {
            *method = (enum EvPrescaleMethod)i;
            return 0;
        }
    }
    return -EINVAL;
}

/* The reference's mirror(): float arguments, one reflection (reflect-101). */
static float mirror(float i, float left, float right)
{
    return i < left ? -i : i > right ? 2 * right - i : i;
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

int ev_prescale_axis_build(EvPrescaleAxis *ax, enum EvPrescaleMethod method, int len, int n)
{
    static const int taps_of[] = {
        [EV_PRESCALE_NEAREST] = 1,
        [EV_PRESCALE_BILINEAR] = 2,
        [EV_PRESCALE_BICUBIC] = 4,
        [EV_PRESCALE_LANCZOS4] = 2 * LANCZOS_A + 1,
    };
    memset(ax, 0, sizeof(*ax));
    ax->taps = taps_of[method];
    ax->idx = malloc(sizeof(int) * (size_t)n * (size_t)ax->taps);
    ax->wt = malloc(sizeof(float) * (size_t)n * (size_t)ax->taps);
    if (!ax->idx || !ax->wt) {
        ev_prescale_axis_free(ax);
        return -ENOMEM;
    }

    const float ratio = (float)len / (float)n;
    const float last = (float)(len - 1);
    for (int x = 0; x < n; x++) {
        int *ix = ax->idx + (size_t)x * (size_t)ax->taps;
        float *w = ax->wt + (size_t)x * (size_t)ax->taps;
        /* The source position (x + 0.5) * ratio - 0.5 in double, stored as float. */
        const float pos = (float)((x + 0.5) * ratio - 0.5);
        switch (method) {
        case EV_PRESCALE_NEAREST:
            /* (int)(x * ratio): int converted to float, float product. */
            ix[0] = (int)((float)x * ratio);
            w[0] = 1.0f;
            break;
        case EV_PRESCALE_BILINEAR:
            ix[0] = (int)mirror((float)floor(pos), 0, last);
            ix[1] = (int)mirror((float)ceil(pos), 0, last);
            /* The fraction is taken from the mirrored lower index. */
            w[0] = pos - (float)ix[0];
            w[1] = 0.0f;
            break;
        case EV_PRESCALE_BICUBIC:
        case EV_PRESCALE_LANCZOS4: {
            const int x0 = (int)floor(pos);
            const float d = pos - (float)x0;
            const int lo = method == EV_PRESCALE_BICUBIC ? -1 : -LANCZOS_A;
            for (int t = 0; t < ax->taps; t++) {
                const int i = lo + t;
                ix[t] = (int)mirror((float)(x0 + i), 0, last);
                w[t] = method == EV_PRESCALE_BICUBIC
                     ? bicubic_weight((float)i - d)
                     : lanczos_weight((float)i - d, (float)LANCZOS_A);
            }
            break;
        }
        }
        for (int t = 0; t < ax->taps; t++) {
            if (ix[t] < 0 || ix[t] >= len) {
                ev_prescale_axis_free(ax);
                return -EINVAL;
            }
        }
    }
    return 0;
}

void ev_prescale_axis_free(EvPrescaleAxis *ax)
{
    free(ax->idx);
    free(ax->wt);
    ax->idx = NULL;
    ax->wt = NULL;
}

void ev_prescale_row(enum EvPrescaleMethod method, const EvPrescaleAxis *ax,
                     const EvPrescaleAxis *ay, int y, int w, const float *src, size_t stride,
                     float *dst)
{
    const int *yi = ay->idx + (size_t)y * (size_t)ay->taps;
    const float *wy = ay->wt + (size_t)y * (size_t)ay->taps;
    switch (method) {
    case EV_PRESCALE_NEAREST: {
        const float *row = src + (size_t)yi[0] * stride;
        for (int x = 0; x < w; x++)
            dst[x] = row[ax->idx[x]];
        break;
    }
    case EV_PRESCALE_BILINEAR: {
        const float *r1 = src + (size_t)yi[0] * stride;
        const float *r2 = src + (size_t)yi[1] * stride;
        for (int x = 0; x < w; x++) {
            const int x1 = ax->idx[2 * x], x2 = ax->idx[2 * x + 1];
            dst[x] = ev_prescale_bilinear(r1[x1], r1[x2], r2[x1], r2[x2], ax->wt[2 * x], wy[0]);
        }
        break;
    }
    case EV_PRESCALE_BICUBIC:
        for (int x = 0; x < w; x++) {
            const int *xi = ax->idx + (size_t)4 * x;
            const float *wx = ax->wt + (size_t)4 * x;
            float v = 0.0f;
            for (int j = 0; j < 4; j++) {
                const float *row = src + (size_t)yi[j] * stride;
                for (int i = 0; i < 4; i++)
                    v = ev_prescale_bicubic_tap(v, row[xi[i]], wx[i], wy[j]);
            }
            dst[x] = v;
        }
        break;
    case EV_PRESCALE_LANCZOS4:
        for (int x = 0; x < w; x++) {
            const int *xi = ax->idx + (size_t)9 * x;
            const float *wx = ax->wt + (size_t)9 * x;
            float v = 0.0f, wsum = 0.0f;
            for (int j = 0; j < 9; j++) {
                const float *row = src + (size_t)yi[j] * stride;
                for (int i = 0; i < 9; i++)
                    ev_prescale_lanczos_tap(&v, &wsum, row[xi[i]], wx[i], wy[j]);
            }
            dst[x] = FDIV(v, wsum);
        }
        break;
    }
}
