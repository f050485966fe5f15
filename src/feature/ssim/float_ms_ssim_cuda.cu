/*
 * float_ms_ssim CUDA kernels. Every value comes from ssim_arith.h, the CPU
 * path's functions: the taps (ssim_tap: an fp32 product added to an fp64
 * sum), their rounding (ssim_round), the per-tap products (ssim_prod) and
 * the statistic (ssim_pixel). Each output has its own fp64 sum with the
 * taps in the CPU's order: the 9x9 decimation rows outer, columns inner;
 * the 11x11 window as the CPU's separable passes (horizontal taps of each
 * row, then vertical taps over those). The l, c and s terms of every pixel
 * go back to the host, which adds them in raster order as the CPU does
 * (float_ms_ssim_cuda.c).
 */
#include <stddef.h>

#include "fp.h"
#include "feature/ssim/ssim_arith.h"
/* float_ssim's box decimation, in the kernel dialect. */
#include "gpu/ev_kernel.h"
#include "feature/ssim/float_ssim_kernels.h"

__constant__ float mss_lpf[MS_SSIM_LPF][MS_SSIM_LPF] = MS_SSIM_LPF_INIT;
__constant__ float mss_win[SSIM_WIN] = SSIM_WIN_TAPS_INIT;

/** Half-sample symmetric index (-1 -> 0, n -> n-1), mirrored once (ssim_cpu.c). */
__device__ __forceinline__ int mss_mirror(int i, int n)
{
    return i < 0 ? -1 - i : (i >= n ? n - (i - n) - 1 : i);
}

/** One MS-SSIM decimation: the 9x9 table around (2x, 2y), mirrored at the edges. */
extern "C" __global__ void mss_decimate(const float *src, int sp, int w, int h, float *dst,
                                        int dp)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int sw = w / 2 + (w & 1), sh = h / 2 + (h & 1);
    if (x >= sw || y >= sh) return;
    const int r = MS_SSIM_LPF / 2;
    double acc = 0.0;
    for (int v = 0; v < MS_SSIM_LPF; v++) {
        const float *row = src + (size_t)mss_mirror(2 * y + v - r, h) * sp;
        for (int u = 0; u < MS_SSIM_LPF; u++)
            acc = ssim_tap(acc, row[mss_mirror(2 * x + u - r, w)], mss_lpf[v][u]);
    }
    dst[(size_t)y * dp + x] = ssim_round(acc);
}

/** Horizontal window pass of row y: mu1, mu2, xx, yy, xy at columns x < w - 10. */
extern "C" __global__ void mss_hpass(const float *a, const float *b, int sp, int w, int h,
                                     float *out, int op, size_t plane)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w - (SSIM_WIN - 1) || y >= h) return;
    const float *ra = a + (size_t)y * sp + x, *rb = b + (size_t)y * sp + x;
    double m1 = 0.0, m2 = 0.0, xx = 0.0, yy = 0.0, xy = 0.0;
    for (int u = 0; u < SSIM_WIN; u++) {
        const float k = mss_win[u];
        m1 = ssim_tap(m1, ra[u], k);
        m2 = ssim_tap(m2, rb[u], k);
        xx = ssim_tap(xx, ssim_prod(ra[u], ra[u]), k);
        yy = ssim_tap(yy, ssim_prod(rb[u], rb[u]), k);
        xy = ssim_tap(xy, ssim_prod(ra[u], rb[u]), k);
    }
    const size_t o = (size_t)y * op + x;
    out[o] = ssim_round(m1);
    out[plane + o] = ssim_round(m2);
    out[2 * plane + o] = ssim_round(xx);
    out[3 * plane + o] = ssim_round(yy);
    out[4 * plane + o] = ssim_round(xy);
}

/** Vertical window pass and the statistic of valid pixel (x, y): its l, c, s terms. */
extern "C" __global__ void mss_stat(const float *hp, int op, size_t plane, int wv, int hv,
                                    double *terms)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= wv || y >= hv) return;
    float q[5];
    for (int c = 0; c < 5; c++) {
        const float *col = hp + c * plane + (size_t)y * op + x;
        double acc = 0.0;
        for (int v = 0; v < SSIM_WIN; v++)
            acc = ssim_tap(acc, col[(size_t)v * op], mss_win[v]);
        q[c] = ssim_round(acc);
    }
    const SsimConst k = ssim_const();
    double l, c, s;
    ssim_pixel(q[0], q[1], q[2], q[3], q[4], &k, &l, &c, &s);
    const size_t o = (size_t)y * wv + x, n = (size_t)wv * hv;
    terms[o] = l;
    terms[n + o] = c;
    terms[2 * n + o] = s;
}
