/*
 * float_psnr CUDA kernel: the luma plane's squared differences in units of
 * 1/S^2, each from float_psnr_arith.h's row functions (a row of one
 * sample: integer squares, float-rounded for deep samples as the CPU's).
 * The total is an integer sum, so a block adds its lanes in any order and
 * adds to the frame's total with one atomic. The host turns the units into
 * the reference's fp64 sum and concludes (float_psnr_cuda.c).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/float_psnr/float_psnr_arith.h"

#define FPSNR_BLOCK 256

/** Add n values of every thread of the block to dst[0..n) (one atomic each). */
template <int N>
__device__ __forceinline__ void block_add(unsigned long long v[N], unsigned long long *dst)
{
    __shared__ unsigned long long part[FPSNR_BLOCK / 32][N];
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

extern "C" __global__ void __launch_bounds__(FPSNR_BLOCK)
fpsnr_units_u8(const uint8_t *ref, const uint8_t *dis, int w, int h, unsigned long long *total)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t o = (size_t)blockIdx.y * w + j;
    unsigned long long v[1] = { j < w ? fpsnr_units_row_u8(ref + o, dis + o, 1) : 0 };
    block_add<1>(v, total);
}

extern "C" __global__ void __launch_bounds__(FPSNR_BLOCK)
fpsnr_units_u16(const uint16_t *ref, const uint16_t *dis, int w, int h, unsigned long long *total)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t o = (size_t)blockIdx.y * w + j;
    unsigned long long v[1] = { j < w ? fpsnr_units_row_u16(ref + o, dis + o, 1) : 0 };
    block_add<1>(v, total);
}
