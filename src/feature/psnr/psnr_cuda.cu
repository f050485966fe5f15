/*
 * psnr CUDA kernel: the squared errors of one plane, each from
 * psnr_arith.h's row functions (a row of one sample). The sums are integer:
 * 8-bit rows are uint32 totals that wrap as the CPU's (addition mod 2^32 in
 * any order: warps add their lanes, one atomic per warp to the row), deeper
 * samples add to the plane's uint64 total (a block adds its lanes, one
 * atomic per block). The host adds the rows and concludes (psnr_cuda.c).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/psnr/psnr_arith.h"

#define PSNR_BLOCK 256

/** *dst += the sum of v over the warp (uint32, wrapping): one atomic per warp. */
__device__ __forceinline__ void warp_add(uint32_t v, uint32_t *dst)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(dst, v);
}

/** Add n values of every thread of the block to dst[0..n) (one atomic each). */
template <int N>
__device__ __forceinline__ void block_add(unsigned long long v[N], unsigned long long *dst)
{
    __shared__ unsigned long long part[PSNR_BLOCK / 32][N];
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

/** 8-bit: rows[i] += squared errors of row i (uint32, wrapping). */
extern "C" __global__ void psnr_sse_u8(const uint8_t *ref, const uint8_t *dis, int w, int h,
                                       uint32_t *rows)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y;
    const size_t o = (size_t)i * w + j;
    warp_add(j < w ? psnr_sse_row_u8(ref + o, dis + o, 1) : 0u, &rows[i]);
}

/** 10 to 16 bits: *total += squared errors (uint64). */
extern "C" __global__ void __launch_bounds__(PSNR_BLOCK)
psnr_sse_u16(const uint16_t *ref, const uint16_t *dis, int w, int h, unsigned long long *total)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y;
    const size_t o = (size_t)i * w + j;
    unsigned long long v[1] = { j < w ? psnr_sse_row_u16(ref + o, dis + o, 1) : 0 };
    block_add<1>(v, total);
}
