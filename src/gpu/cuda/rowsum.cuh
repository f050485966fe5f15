/*
 * fp32 row sums in the reference's order, for every twin that reduces a
 * plane row by row: out[r] = (((+0 + v(r,0)) + v(r,1)) + ...) + v(r,w-1),
 * one rounding per add, left to right. The order is the CPU's, so the adds
 * of a row stay one serial chain on one lane; what this makes fast is the
 * loading. A warp owns RS_ROWS rows: its 32 lanes load each chunk of
 * RS_ROWS x RS_CHUNK values with coalesced loads into shared memory, and
 * lane r then adds row r's values of the chunk in order, while the next
 * chunk's loads are already in flight.
 *
 * Load is a functor: `float operator()(int row, int col) const`, the value
 * the reference adds at (row, col) (a plane's sample, or |a - b|).
 */
#ifndef EXACTVMAF_CUDA_ROWSUM_CUH
#define EXACTVMAF_CUDA_ROWSUM_CUH

#include "fp.h"

#define RS_ROWS 8
#define RS_CHUNK 128
/* Warps per block: RS_ROWS * RS_WARPS = 32 rows per block of 128 threads,
 * as the host launches them (RS_BLOCK, RS_THREADS in src/gpu/pipeline.h). */
#define RS_WARPS 4

/** Rows [blockIdx.x * RS_ROWS * RS_WARPS, ...) of an h x w source; launch RS_WARPS * 32 threads. */
template <class Load>
__device__ __forceinline__ void row_sums(const Load &ld, int w, int h, float *out)
{
    /* One column of padding: lane r reading tile[r][k] hits bank (r + k) % 32. */
    __shared__ float tile[RS_WARPS][RS_ROWS][RS_CHUNK + 1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row0 = (blockIdx.x * RS_WARPS + warp) * RS_ROWS;
    if (row0 >= h) return;
    float (*t)[RS_CHUNK + 1] = tile[warp];
    float v[RS_ROWS][RS_CHUNK / 32];
    int c0 = 0;
#define RS_LOAD(c)                                                                  \
    for (int rr = 0; rr < RS_ROWS; rr++)                                            \
        for (int q = 0; q < RS_CHUNK / 32; q++) {                                   \
            const int col = (c) + lane + 32 * q;                                    \
            v[rr][q] = row0 + rr < h && col < w ? ld(row0 + rr, col) : 0.0f;       \
        }
    RS_LOAD(0);
    float acc = 0.0f;
    for (; c0 < w; c0 += RS_CHUNK) {
        for (int rr = 0; rr < RS_ROWS; rr++)
            for (int q = 0; q < RS_CHUNK / 32; q++)
                t[rr][lane + 32 * q] = v[rr][q];
        __syncwarp();
        if (c0 + RS_CHUNK < w) RS_LOAD(c0 + RS_CHUNK);
        if (lane < RS_ROWS) {
            const int n = w - c0 < RS_CHUNK ? w - c0 : RS_CHUNK;
            for (int k = 0; k < n; k++)
                acc = FADD(acc, t[lane][k]);
        }
        __syncwarp();
    }
#undef RS_LOAD
    if (lane < RS_ROWS && row0 + lane < h) out[row0 + lane] = acc;
}

/** Blocks to launch for h rows. */
#define RS_BLOCKS(h) (((h) + RS_ROWS * RS_WARPS - 1) / (RS_ROWS * RS_WARPS))

/** A plane of floats, pitch p. */
struct RsPlane {
    const float *p;
    int pitch;
    __device__ float operator()(int r, int c) const { return p[(size_t)r * pitch + c]; }
};

#endif
