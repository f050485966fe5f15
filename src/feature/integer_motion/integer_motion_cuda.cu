/*
 * Integer motion ("motion") CUDA kernels. Every value comes from
 * imotion_arith.h, the CPU path's functions: the vertical pass of
 * d = prev - cur (imotion_vert_px, reflect-101 rows by imotion_mirror), the
 * horizontal pass (imotion_horz_px) and |.| (imotion_abs). The sums are
 * integer: a row's uint32 sum wraps exactly as the CPU's does in any order
 * (addition mod 2^32), so warps add their lanes and one atomic per warp adds
 * to the row. The host adds the rows in uint64 (integer_motion_cuda.c).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/integer_motion/imotion_arith.h"

template <typename T>
__device__ __forceinline__ void vert(const T *prev, const T *cur, int w, int h, unsigned bpc,
                                     int32_t *y)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    int32_t d[IMOTION_TAPS];
    for (int k = 0; k < IMOTION_TAPS; k++) {
        const size_t o = (size_t)imotion_mirror(i - IMOTION_RADIUS + k, h) * w + j;
        d[k] = (int32_t)prev[o] - (int32_t)cur[o];
    }
    y[(size_t)i * w + j] = imotion_vert_px(d, bpc);
}

extern "C" __global__ void imotion_vert_u8(const uint8_t *prev, const uint8_t *cur, int w,
                                           int h, unsigned bpc, int32_t *y)
{
    vert(prev, cur, w, h, bpc, y);
}

extern "C" __global__ void imotion_vert_u16(const uint16_t *prev, const uint16_t *cur, int w,
                                            int h, unsigned bpc, int32_t *y)
{
    vert(prev, cur, w, h, bpc, y);
}

/** *dst += the sum of v over the warp (uint32, wrapping): one atomic per warp. */
__device__ __forceinline__ void warp_add(uint32_t v, uint32_t *dst)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(dst, v);
}

/** rows[i] += |horizontal pass| over the columns this block covers (uint32, wrapping). */
extern "C" __global__ void imotion_horz(const int32_t *y, int w, int h, uint32_t *rows)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y;
    uint32_t v = 0;
    if (j < w) {
        const int32_t *row = y + (size_t)i * w;
        int32_t t[IMOTION_TAPS];
        for (int k = 0; k < IMOTION_TAPS; k++)
            t[k] = row[imotion_mirror(j - IMOTION_RADIUS + k, w)];
        v = imotion_abs(imotion_horz_px(t));
    }
    warp_add(v, &rows[i]);
}
