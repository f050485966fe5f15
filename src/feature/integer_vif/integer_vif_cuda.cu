/*
 * Integer VIF ("vif") CUDA kernels. Every value comes from ivif_arith.h, the
 * CPU path's functions: the vertical and horizontal roundings (ivif_vert_mu,
 * ivif_vert_sq, ivif_horz_sq), reflect-101 (ivif_reflect) and the per-pixel
 * statistic with its double sites (ivif_stat_pixel). The filters run as the
 * CPU's: the vertical taps of a column in uint32 (means) and uint64
 * (moments), then the horizontal taps over those. The statistic's four sums
 * are integer, so a block adds its pixels in any order and adds its totals
 * to the scale's with one atomic each; the host concludes with
 * ivif_conclude(), the CPU's (integer_vif_cuda.c).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/integer_vif/ivif_arith.h"

#define IVIF_BLOCK_THREADS 256

/** Add n values of every thread of the block to dst[0..n) (one atomic each). */
template <int N>
__device__ __forceinline__ void block_add(unsigned long long v[N], unsigned long long *dst)
{
    __shared__ unsigned long long part[IVIF_BLOCK_THREADS / 32][N];
    for (int o = 16; o > 0; o >>= 1)
        for (int c = 0; c < N; c++)
            v[c] += __shfl_down_sync(0xffffffffu, v[c], o);
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0)
        for (int c = 0; c < N; c++) part[warp][c] = v[c];
    __syncthreads();
    if (threadIdx.x < N) {
        unsigned long long t = 0;
        for (int k = 0; k < (int)(blockDim.x >> 5); k++) t += part[k][threadIdx.x];
        if (t) atomicAdd(&dst[threadIdx.x], t);
    }
}

/** Vertical pass of one scale at (i, j): the two means and three moments. */
template <typename T>
__device__ __forceinline__ void vert(const T *ref, const T *dis, int w, int h,
                                     const uint32_t *f, int fw, uint32_t mu_round,
                                     int mu_shift, uint32_t sq_round, int sq_shift,
                                     uint32_t *out, size_t plane)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    const int r = fw / 2;
    uint32_t m1 = 0, m2 = 0;
    uint64_t xx = 0, yy = 0, xy = 0;
    for (int k = 0; k < fw; k++) {
        const size_t o = (size_t)ivif_reflect(i - r + k, h) * w + j;
        const uint32_t a = ref[o], b = dis[o];
        const uint32_t fa = f[k] * a, fb = f[k] * b;
        m1 += fa;
        m2 += fb;
        xx += (uint64_t)fa * a;
        yy += (uint64_t)fb * b;
        xy += (uint64_t)fa * b;
    }
    const size_t o = (size_t)i * w + j;
    out[o] = ivif_vert_mu(m1, mu_round, mu_shift);
    out[plane + o] = ivif_vert_mu(m2, mu_round, mu_shift);
    out[2 * plane + o] = ivif_vert_sq(xx, sq_round, sq_shift);
    out[3 * plane + o] = ivif_vert_sq(yy, sq_round, sq_shift);
    out[4 * plane + o] = ivif_vert_sq(xy, sq_round, sq_shift);
}

extern "C" __global__ void ivif_vert_u8(const uint8_t *ref, const uint8_t *dis, int w, int h,
                                        const uint32_t *f, int fw, uint32_t mu_round,
                                        int mu_shift, uint32_t sq_round, int sq_shift,
                                        uint32_t *out, size_t plane)
{
    vert(ref, dis, w, h, f, fw, mu_round, mu_shift, sq_round, sq_shift, out, plane);
}

extern "C" __global__ void ivif_vert_u16(const uint16_t *ref, const uint16_t *dis, int w,
                                         int h, const uint32_t *f, int fw, uint32_t mu_round,
                                         int mu_shift, uint32_t sq_round, int sq_shift,
                                         uint32_t *out, size_t plane)
{
    vert(ref, dis, w, h, f, fw, mu_round, mu_shift, sq_round, sq_shift, out, plane);
}

/**
 * Horizontal pass and statistic of one scale; each block adds its pixels'
 * four sums to acc[0..3] (num_log, den_log, num_non_log, den_non_log).
 */
extern "C" __global__ void __launch_bounds__(IVIF_BLOCK_THREADS)
ivif_horz_stat(const uint32_t *v, size_t plane, int w, int h, const uint32_t *f, int fw,
               double egl, const uint16_t *table, unsigned long long *acc)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y;
    IvifAccum a = { 0, 0, 0, 0 };
    if (j < w) {
        const int r = fw / 2;
        const uint32_t *row = v + (size_t)i * w;
        uint32_t m1 = 0, m2 = 0;
        uint64_t xx = 0, yy = 0, xy = 0;
        for (int k = 0; k < fw; k++) {
            const int jj = ivif_reflect(j - r + k, w);
            const uint32_t fk = f[k];
            m1 += fk * row[jj];
            m2 += fk * row[plane + jj];
            xx += (uint64_t)fk * row[2 * plane + jj];
            yy += (uint64_t)fk * row[3 * plane + jj];
            xy += (uint64_t)fk * row[4 * plane + jj];
        }
        ivif_stat_pixel(m1, m2, ivif_horz_sq(xx), ivif_horz_sq(yy), ivif_horz_sq(xy), egl,
                        table, &a);
    }
    /* Two's complement: unsigned sums add the signed values exactly. */
    unsigned long long sums[4] = { (unsigned long long)a.num_log, (unsigned long long)a.den_log,
                                   (unsigned long long)a.num_non_log,
                                   (unsigned long long)a.den_non_log };
    block_add<4>(sums, acc);
}

/** Decimation, vertical pass: tmp row i = rounded means at source rows 2i - r + k. */
template <typename T>
__device__ __forceinline__ void dec_v(const T *src, int w, int h, const uint32_t *f, int fw,
                                      uint32_t mu_round, int mu_shift, uint32_t *tmp)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h / 2 || j >= w) return;
    const int r = fw / 2;
    uint32_t m = 0;
    for (int k = 0; k < fw; k++)
        m += f[k] * (uint32_t)src[(size_t)ivif_reflect(2 * i - r + k, h) * w + j];
    tmp[(size_t)i * w + j] = ivif_vert_mu(m, mu_round, mu_shift);
}

extern "C" __global__ void ivif_dec_v_u8(const uint8_t *src, int w, int h, const uint32_t *f,
                                         int fw, uint32_t mu_round, int mu_shift,
                                         uint32_t *tmp)
{
    dec_v(src, w, h, f, fw, mu_round, mu_shift, tmp);
}

extern "C" __global__ void ivif_dec_v_u16(const uint16_t *src, int w, int h, const uint32_t *f,
                                          int fw, uint32_t mu_round, int mu_shift,
                                          uint32_t *tmp)
{
    dec_v(src, w, h, f, fw, mu_round, mu_shift, tmp);
}

/** Decimation, horizontal pass at the even columns, rounded to 16 bits. */
extern "C" __global__ void ivif_dec_h(const uint32_t *tmp, int w, int oh, const uint32_t *f,
                                      int fw, uint16_t *dst)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= oh || j >= w / 2) return;
    const int r = fw / 2;
    const uint32_t *row = tmp + (size_t)i * w;
    uint32_t m = 0;
    for (int k = 0; k < fw; k++)
        m += f[k] * row[ivif_reflect(2 * j - r + k, w)];
    dst[(size_t)i * (w / 2) + j] = (uint16_t)((m + 32768) >> 16);
}
