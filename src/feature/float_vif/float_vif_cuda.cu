/*
 * float_vif CUDA kernels. Every value comes from vif_arith.h, the CPU path's
 * functions: the taps (vif_tap, vif_tap_sq, vif_tap_xy), the reflect-101
 * border (vif_reflect) and the statistic (vif_stat, with its log2
 * polynomial). Separable filters run as the CPU runs them: the vertical
 * taps of a sample into an fp32 sum from +0, taps ascending, then the
 * horizontal taps over those sums. One thread per row adds a row's terms
 * left to right; the host adds the rows (float_vif_cuda.c).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/float_vif/vif_arith.h"

/** Decimation, vertical pass: tmp row i = taps at source rows 2i - r + k (reflected). */
extern "C" __global__ void vif_dec_v(const float *src, int sp, int w, int h, const float *f,
                                     int fw, float *tmp, int tp)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h / 2 || j >= w) return;
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc = vif_tap(acc, f[k], src[(size_t)vif_reflect(2 * i - r + k, h) * sp + j]);
    tmp[(size_t)i * tp + j] = acc;
}

/** Decimation, horizontal pass at the even columns: out column j = taps at 2j - r + k. */
extern "C" __global__ void vif_dec_h(const float *tmp, int tp, int w, int oh, const float *f,
                                     int fw, float *dst, int dp)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= oh || j >= w / 2) return;
    const int r = fw / 2;
    const float *row = tmp + (size_t)i * tp;
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc = vif_tap(acc, f[k], row[vif_reflect(2 * j - r + k, w)]);
    dst[(size_t)i * dp + j] = acc;
}

/** Statistics, vertical pass: mu1, mu2, xx, yy, xy planes (vps floats apart). */
extern "C" __global__ void vif_stat_v(const float *ref, const float *dis, int sp, int w, int h,
                                      const float *f, int fw, float *v, int vp, long long vps)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    const int r = fw / 2;
    float m1 = 0.0f, m2 = 0.0f, xx = 0.0f, yy = 0.0f, xy = 0.0f;
    for (int k = 0; k < fw; k++) {
        const size_t o = (size_t)vif_reflect(i - r + k, h) * sp + j;
        const float a = ref[o], b = dis[o], fk = f[k];
        m1 = vif_tap(m1, fk, a);
        m2 = vif_tap(m2, fk, b);
        xx = vif_tap_sq(xx, fk, a);
        yy = vif_tap_sq(yy, fk, b);
        xy = vif_tap_xy(xy, fk, a, b);
    }
    const size_t o = (size_t)i * vp + j;
    v[o] = m1;
    v[vps + o] = m2;
    v[2 * vps + o] = xx;
    v[3 * vps + o] = yy;
    v[4 * vps + o] = xy;
}

/** Statistics, horizontal pass and the per-sample num / den terms. */
extern "C" __global__ void vif_stat_h(const float *v, int vp, long long vps, int w, int h,
                                      const float *f, int fw, VifStatConst c, float *nd,
                                      int np, long long nps)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    const int r = fw / 2;
    float s[5];
    for (int p = 0; p < 5; p++) {
        const float *row = v + p * vps + (size_t)i * vp;
        float acc = 0.0f;
        for (int k = 0; k < fw; k++)
            acc = vif_tap(acc, f[k], row[vif_reflect(j - r + k, w)]);
        s[p] = acc;
    }
    float num, den;
    vif_stat(s[0], s[1], s[2], s[3], s[4], &c, &num, &den);
    nd[(size_t)i * np + j] = num;
    nd[nps + (size_t)i * np + j] = den;
}

/** Row sums of num (blockIdx.z 0) and den (1): +0, then left to right in fp32. */
extern "C" __global__ void vif_row_sums(const float *nd, int np, long long nps, int w, int h,
                                        float *out)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= h) return;
    const float *p = nd + blockIdx.z * nps + (size_t)row * np;
    float s = 0.0f;
    for (int j = 0; j < w; j++)
        s = FADD(s, p[j]);
    out[(size_t)blockIdx.z * h + row] = s;
}
