/*
 * float_motion CUDA kernels. Every value comes from motion_arith.h, the CPU
 * path's functions: the blur taps and reflect-101 border (motion_blur_v_px,
 * motion_blur_h_px), the bilinear downscale (motion_bilinear_px) and the SAD
 * of a row (motion_sad_step's terms, added left to right on one lane in
 * fp32: rowsum.cuh).
 * The host adds the rows and concludes (float_motion_cuda.c).
 */
#include <stddef.h>

#include "fp.h"
#include "feature/float_motion/motion_arith.h"
#include "gpu/cuda/rowsum.cuh"

/** The blur kernel, passed by value. */
typedef struct MotionTaps {
    float f[MOTION_MAX_TAPS];
    int n;
} MotionTaps;

extern "C" __global__ void motion_blur_v(const float *src, int sp, int w, int h, MotionTaps t,
                                         float *tmp, int tp)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    tmp[(size_t)i * tp + j] = motion_blur_v_px(src, sp, h, t.f, t.n, i, j);
}

extern "C" __global__ void motion_blur_h(const float *tmp, int tp, int w, int h, MotionTaps t,
                                         float *dst, int dp)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    dst[(size_t)i * dp + j] = motion_blur_h_px(tmp + (size_t)i * tp, w, t.f, t.n, j);
}

/** The SAD term at (r, c): |prev - cur| as motion_sad_step adds it. */
struct SadLoad {
    const float *prev, *cur;
    int pitch;
    __device__ float operator()(int r, int c) const
    {
        const size_t o = (size_t)r * pitch + c;
        return fabsf(FSUB(prev[o], cur[o]));
    }
};

/** out[i] = SAD of row i of (prev, cur): motion_sad_row's fp32 sum from +0, left to right. */
extern "C" __global__ void __launch_bounds__(RS_WARPS * 32)
motion_sad_rows(const float *prev, const float *cur, int p, int w, int h, float *out)
{
    row_sums(SadLoad{ prev, cur, p }, w, h, out);
}

/** motion_add_scale1's half-size bilinear downscale, the positions from the host. */
extern "C" __global__ void motion_downscale(const float *src, int sp, int ow, int oh,
                                            const int *x1, const int *x2, const float *dx,
                                            const int *y1, const int *y2, const float *dy,
                                            float *dst, int dp)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y >= oh || x >= ow) return;
    const float *r1 = src + (size_t)y1[y] * sp;
    const float *r2 = src + (size_t)y2[y] * sp;
    dst[(size_t)y * dp + x] = motion_bilinear_px(r1[x1[x]], r1[x2[x]], r2[x1[x]], r2[x2[x]],
                                                 dx[x], dy[y]);
}
