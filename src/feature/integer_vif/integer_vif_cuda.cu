/*
 * Integer VIF ("vif") CUDA kernels. Every value comes from ivif_arith.h, the
 * CPU path's functions: the vertical and horizontal roundings (ivif_vert_mu,
 * ivif_vert_sq, ivif_horz_sq), reflect-101 (ivif_reflect) and the per-pixel
 * statistic with its double sites (ivif_stat_common, ivif_stat_num_log).
 *
 * One launch per scale does the whole statistic: a block loads a tile of
 * both pictures with its reflected border into shared memory, runs the
 * vertical taps of every column there (uint32 means, uint32 or uint64
 * moments as the CPU), the horizontal taps over those, and the statistic of
 * each pixel; no filtered plane goes to device memory. The statistic's sums
 * are integer, so a block adds its pixels in any order and adds its totals
 * to the scale's with one atomic each. Several gain limits
 * (vif_enhn_gain_limit of instances that differ only there, e.g. VMAF and
 * VMAF NEG) share the pass: only the num_log term depends on the limit.
 * The host concludes with ivif_conclude(), the CPU's (integer_vif_cuda.c).
 *
 * Decimation (scale s from scale s-1 with scale s's filter) is one launch
 * for both pictures, tiled the same way.
 */
#include <stdint.h>
#include <type_traits>

#include "fp.h"
#include "feature/integer_vif/ivif_arith.h"
#include "feature/integer_vif/ivif_cuda.h"
#include "gpu/cuda/block_add.cuh"

#define THREADS 256
/* Statistic tile: TW x TH outputs per block. */
#define TW 32
#define TH 32
/* Decimation tile: DTW x DTH outputs per block. */
#define DTW 32
#define DTH 16

__constant__ uint32_t c_filter[IVIF_NUM_SCALES][IVIF_MAX_TAPS] = IVIF_FILTER_TABLE;

__host__ __device__ constexpr int scale_of(int fw)
{
    return fw == 17 ? 0 : fw == 9 ? 1 : fw == 5 ? 2 : 3;
}

/* reflect-101, then clamped: positions only a partial tile reads, which no
 * output uses, stay inside the plane. */
__device__ __forceinline__ int edge(int i, int n)
{
    const int r = ivif_reflect(i, n);
    return r < 0 ? 0 : (r >= n ? n - 1 : r);
}

/*
 * The statistic of one scale (filter width FW) over a w x h pair of type T.
 * WIDE: the vertical moments in uint64 (samples above 8 bits); 8-bit sums
 * of f*x*y stay below 2^32 (the filter sums to 2^16), so uint32 is exact.
 */
template <typename T, int FW, bool WIDE>
__device__ __forceinline__ void stat(const T *ref, const T *dis, int w, int h,
                                     uint32_t mu_round, int mu_shift, uint32_t sq_round,
                                     int sq_shift, const IvifGainLimits &egl,
                                     const uint16_t *table, unsigned long long *acc)
{
    constexpr int R = FW / 2, S = scale_of(FW);
    constexpr int IW = TW + 2 * R, IH = TH + 2 * R;
    __shared__ uint16_t s_ref[IH][IW], s_dis[IH][IW];
    __shared__ uint32_t s_v[5][TH][IW];
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, tid = threadIdx.x;

    for (int k = tid; k < IH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        const size_t o = (size_t)edge(y0 - R + ty, h) * w + edge(x0 - R + tx, w);
        s_ref[ty][tx] = ref[o];
        s_dis[ty][tx] = dis[o];
    }
    __syncthreads();

    /* Vertical taps of every tile column at the tile's rows. */
    for (int k = tid; k < TH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        uint32_t m1 = 0, m2 = 0;
        typedef typename std::conditional<WIDE, uint64_t, uint32_t>::type Acc;
        Acc xx = 0, yy = 0, xy = 0;
#pragma unroll
        for (int t = 0; t < FW; t++) {
            const uint32_t f = c_filter[S][t], a = s_ref[ty + t][tx], b = s_dis[ty + t][tx];
            const uint32_t fa = f * a, fb = f * b;
            m1 += fa;
            m2 += fb;
            xx += (Acc)fa * a;
            yy += (Acc)fb * b;
            xy += (Acc)fa * b;
        }
        s_v[0][ty][tx] = ivif_vert_mu(m1, mu_round, mu_shift);
        s_v[1][ty][tx] = ivif_vert_mu(m2, mu_round, mu_shift);
        s_v[2][ty][tx] = ivif_vert_sq(xx, sq_round, sq_shift);
        s_v[3][ty][tx] = ivif_vert_sq(yy, sq_round, sq_shift);
        s_v[4][ty][tx] = ivif_vert_sq(xy, sq_round, sq_shift);
    }
    __syncthreads();

    /* Horizontal taps and the statistic of every output of the tile. */
    IvifAccum a = { 0, 0, 0, 0 };
    int64_t num_log[IVIF_MAX_GAIN_LIMITS] = { 0 };
    for (int k = tid; k < TH * TW; k += THREADS) {
        const int ty = k / TW, tx = k % TW;
        if (x0 + tx >= w || y0 + ty >= h) continue;
        uint32_t m1 = 0, m2 = 0;
        uint64_t xx = 0, yy = 0, xy = 0;
#pragma unroll
        for (int t = 0; t < FW; t++) {
            const uint32_t f = c_filter[S][t];
            m1 += f * s_v[0][ty][tx + t];
            m2 += f * s_v[1][ty][tx + t];
            xx += (uint64_t)f * s_v[2][ty][tx + t];
            yy += (uint64_t)f * s_v[3][ty][tx + t];
            xy += (uint64_t)f * s_v[4][ty][tx + t];
        }
        IvifGain gain;
        if (ivif_stat_common(m1, m2, ivif_horz_sq(xx), ivif_horz_sq(yy), ivif_horz_sq(xy),
                             table, &a, &gain))
            for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
                if (e < egl.n) num_log[e] += ivif_stat_num_log(&gain, egl.v[e], table);
    }
    /* Two's complement: unsigned sums add the signed values exactly. */
    unsigned long long sums[IVIF_ACC];
    sums[IVIF_ACC_DEN_LOG] = (unsigned long long)a.den_log;
    sums[IVIF_ACC_NUM_NON_LOG] = (unsigned long long)a.num_non_log;
    sums[IVIF_ACC_DEN_NON_LOG] = (unsigned long long)a.den_non_log;
    for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
        sums[IVIF_ACC_NUM_LOG + e] = (unsigned long long)num_log[e];
    block_add<THREADS, IVIF_ACC>(sums, acc);
}

#define STAT_KERNEL(name, T, FW, WIDE)                                                      \
    extern "C" __global__ void __launch_bounds__(THREADS)                                  \
    name(const T *ref, const T *dis, int w, int h, uint32_t mu_round, int mu_shift,        \
         uint32_t sq_round, int sq_shift, IvifGainLimits egl, const uint16_t *table,        \
         unsigned long long *acc)                                                           \
    {                                                                                       \
        stat<T, FW, WIDE>(ref, dis, w, h, mu_round, mu_shift, sq_round, sq_shift, egl,      \
                          table, acc);                                                      \
    }

STAT_KERNEL(ivif_stat_u8_17, uint8_t, 17, false)
STAT_KERNEL(ivif_stat_u16_17, uint16_t, 17, true)
STAT_KERNEL(ivif_stat_u16_9, uint16_t, 9, true)
STAT_KERNEL(ivif_stat_u16_5, uint16_t, 5, true)
STAT_KERNEL(ivif_stat_u16_3, uint16_t, 3, true)

/*
 * Decimation to scale S (filter width FW) from the w x h scale below, for
 * picture blockIdx.z (0 ref, 1 dis): the vertical taps at the even rows
 * (rounded by the pass that reads the scale below: mu_round, mu_shift),
 * then the horizontal taps at the even columns, rounded to 16 bits.
 */
template <typename T, int FW>
__device__ __forceinline__ void decimate(const T *src0, const T *src1, int w, int h,
                                         uint32_t mu_round, int mu_shift, uint16_t *dst0,
                                         uint16_t *dst1)
{
    constexpr int R = FW / 2, S = scale_of(FW);
    constexpr int IW = 2 * DTW + 2 * R, IH = 2 * DTH + 2 * R;
    __shared__ uint16_t s_in[IH][IW];
    __shared__ uint32_t s_t[DTH][IW];
    const T *src = blockIdx.z ? src1 : src0;
    uint16_t *dst = blockIdx.z ? dst1 : dst0;
    const int ow = w / 2, oh = h / 2;
    const int x0 = blockIdx.x * DTW, y0 = blockIdx.y * DTH, tid = threadIdx.x;

    for (int k = tid; k < IH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        s_in[ty][tx] = src[(size_t)edge(2 * y0 - R + ty, h) * w + edge(2 * x0 - R + tx, w)];
    }
    __syncthreads();
    for (int k = tid; k < DTH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        uint32_t m = 0;
#pragma unroll
        for (int t = 0; t < FW; t++)
            m += c_filter[S][t] * (uint32_t)s_in[2 * ty + t][tx];
        s_t[ty][tx] = ivif_vert_mu(m, mu_round, mu_shift);
    }
    __syncthreads();
    for (int k = tid; k < DTH * DTW; k += THREADS) {
        const int ty = k / DTW, tx = k % DTW;
        if (x0 + tx >= ow || y0 + ty >= oh) continue;
        uint32_t m = 0;
#pragma unroll
        for (int t = 0; t < FW; t++)
            m += c_filter[S][t] * s_t[ty][2 * tx + t];
        dst[(size_t)(y0 + ty) * ow + x0 + tx] = (uint16_t)((m + 32768) >> 16);
    }
}

#define DEC_KERNEL(name, T, FW)                                                             \
    extern "C" __global__ void __launch_bounds__(THREADS)                                  \
    name(const T *src0, const T *src1, int w, int h, uint32_t mu_round, int mu_shift,       \
         uint16_t *dst0, uint16_t *dst1)                                                    \
    {                                                                                       \
        decimate<T, FW>(src0, src1, w, h, mu_round, mu_shift, dst0, dst1);                  \
    }

DEC_KERNEL(ivif_dec_u8_9, uint8_t, 9)
DEC_KERNEL(ivif_dec_u16_9, uint16_t, 9)
DEC_KERNEL(ivif_dec_u16_5, uint16_t, 5)
DEC_KERNEL(ivif_dec_u16_3, uint16_t, 3)
