/*
 * float_vif CUDA kernels. Every value comes from vif_arith.h, the CPU path's
 * functions: the taps (vif_tap, vif_tap_sq, vif_tap_xy), the reflect-101
 * border (vif_reflect) and the statistic (vif_stat, with its log2
 * polynomial). Separable filters run as the CPU runs them: the vertical
 * taps of a sample into an fp32 sum from +0, taps ascending, then the
 * horizontal taps over those sums. A row's terms are added left to right
 * on one lane (rowsum.cuh); the host adds the rows (float_vif_cuda.c).
 *
 * The filter widths of the default kernel scale (17, 9, 5, 3) have tiled
 * kernels: a block loads its tile and border into shared memory and runs
 * both passes (and the statistic, or the decimation) there, so no filtered
 * plane goes through device memory. Other widths use the plain kernels.
 */
#include <stdint.h>

#include "fp.h"
#include "feature/float_vif/vif_arith.h"
#include "gpu/cuda/rowsum.cuh"
#include "feature/float_vif/vif_cuda.h"

#define THREADS 256
/* Statistic tile: TW x TH outputs; decimation tile: DTW x DTH outputs. */
#define TW 32
#define TH 16
#define DTW 32
#define DTH 16

/* reflect-101, then clamped: positions only a partial tile reads, which no
 * output uses, stay inside the plane. */
__device__ __forceinline__ int edge(int i, int n)
{
    const int r = vif_reflect(i, n);
    return r < 0 ? 0 : (r >= n ? n - 1 : r);
}

/*
 * The statistic of one scale with a FW-tap filter: num and den of every
 * pixel of the w x h pair (pitch sp) into nd (pitch np, den nps further).
 */
template <int FW>
__device__ __forceinline__ void stat_tiled(const float *ref, const float *dis, int sp, int w,
                                           int h, const VifTaps &f, const VifStatConst &c,
                                           float *nd, int np, long long nps)
{
    constexpr int R = FW / 2, IW = TW + 2 * R, IH = TH + 2 * R;
    __shared__ float s_ref[IH][IW], s_dis[IH][IW];
    __shared__ float s_v[5][TH][IW];
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, tid = threadIdx.x;
    for (int k = tid; k < IH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        const size_t o = (size_t)edge(y0 - R + ty, h) * sp + edge(x0 - R + tx, w);
        s_ref[ty][tx] = ref[o];
        s_dis[ty][tx] = dis[o];
    }
    __syncthreads();
    for (int k = tid; k < TH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        float m1 = 0.0f, m2 = 0.0f, xx = 0.0f, yy = 0.0f, xy = 0.0f;
#pragma unroll
        for (int t = 0; t < FW; t++) {
            const float a = s_ref[ty + t][tx], b = s_dis[ty + t][tx], ft = f.f[t];
            m1 = vif_tap(m1, ft, a);
            m2 = vif_tap(m2, ft, b);
            xx = vif_tap_sq(xx, ft, a);
            yy = vif_tap_sq(yy, ft, b);
            xy = vif_tap_xy(xy, ft, a, b);
        }
        s_v[0][ty][tx] = m1;
        s_v[1][ty][tx] = m2;
        s_v[2][ty][tx] = xx;
        s_v[3][ty][tx] = yy;
        s_v[4][ty][tx] = xy;
    }
    __syncthreads();
    for (int k = tid; k < TH * TW; k += THREADS) {
        const int ty = k / TW, tx = k % TW, i = y0 + ty, j = x0 + tx;
        if (i >= h || j >= w) continue;
        float v[5];
#pragma unroll
        for (int p = 0; p < 5; p++) {
            float acc = 0.0f;
#pragma unroll
            for (int t = 0; t < FW; t++)
                acc = vif_tap(acc, f.f[t], s_v[p][ty][tx + t]);
            v[p] = acc;
        }
        float num, den;
        vif_stat(v[0], v[1], v[2], v[3], v[4], &c, &num, &den);
        nd[(size_t)i * np + j] = num;
        nd[nps + (size_t)i * np + j] = den;
    }
}

#define STAT_KERNEL(fw)                                                                      \
    extern "C" __global__ void __launch_bounds__(THREADS)                                   \
    vif_stat_tiled_##fw(const float *ref, const float *dis, int sp, int w, int h, VifTaps f, \
                        VifStatConst c, float *nd, int np, long long nps)                   \
    {                                                                                        \
        stat_tiled<fw>(ref, dis, sp, w, h, f, c, nd, np, nps);                               \
    }

STAT_KERNEL(17)
STAT_KERNEL(9)
STAT_KERNEL(5)
STAT_KERNEL(3)

/*
 * Decimation with a FW-tap filter of picture blockIdx.z (0: src0 -> dst0,
 * 1: src1 -> dst1), w x h (pitch sp) to w/2 x h/2 (pitch dp): the vertical
 * taps at the even rows, then the horizontal taps at the even columns.
 */
template <int FW>
__device__ __forceinline__ void dec_tiled(const float *src0, const float *src1, int sp, int w,
                                          int h, const VifTaps &f, float *dst0, float *dst1,
                                          int dp)
{
    constexpr int R = FW / 2, IW = 2 * DTW + 2 * R, IH = 2 * DTH + 2 * R;
    __shared__ float s_in[IH][IW];
    __shared__ float s_t[DTH][IW];
    const float *src = blockIdx.z ? src1 : src0;
    float *dst = blockIdx.z ? dst1 : dst0;
    const int ow = w / 2, oh = h / 2;
    const int x0 = blockIdx.x * DTW, y0 = blockIdx.y * DTH, tid = threadIdx.x;
    for (int k = tid; k < IH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        s_in[ty][tx] = src[(size_t)edge(2 * y0 - R + ty, h) * sp + edge(2 * x0 - R + tx, w)];
    }
    __syncthreads();
    for (int k = tid; k < DTH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        float acc = 0.0f;
#pragma unroll
        for (int t = 0; t < FW; t++)
            acc = vif_tap(acc, f.f[t], s_in[2 * ty + t][tx]);
        s_t[ty][tx] = acc;
    }
    __syncthreads();
    for (int k = tid; k < DTH * DTW; k += THREADS) {
        const int ty = k / DTW, tx = k % DTW;
        if (x0 + tx >= ow || y0 + ty >= oh) continue;
        float acc = 0.0f;
#pragma unroll
        for (int t = 0; t < FW; t++)
            acc = vif_tap(acc, f.f[t], s_t[ty][2 * tx + t]);
        dst[(size_t)(y0 + ty) * dp + x0 + tx] = acc;
    }
}

#define DEC_KERNEL(fw)                                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS)                                   \
    vif_dec_tiled_##fw(const float *src0, const float *src1, int sp, int w, int h, VifTaps f,\
                       float *dst0, float *dst1, int dp)                                    \
    {                                                                                        \
        dec_tiled<fw>(src0, src1, sp, w, h, f, dst0, dst1, dp);                              \
    }

DEC_KERNEL(9)
DEC_KERNEL(5)
DEC_KERNEL(3)

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
extern "C" __global__ void __launch_bounds__(RS_WARPS * 32)
vif_row_sums(const float *nd, int np, long long nps, int w, int h, float *out)
{
    row_sums(RsPlane{ nd + blockIdx.z * nps, np }, w, h, out + (size_t)blockIdx.z * h);
}
