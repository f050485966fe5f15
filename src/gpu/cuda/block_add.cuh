/*
 * Integer totals of a CUDA block, for the kernels that are not in the
 * dialect (gpu/ev_kernel.h) yet: every thread's N values are added over the
 * block (warp shuffles, then one partial per warp in shared memory) and
 * thread c adds total c to dst[c] with one atomic. Integer sums wrap, so
 * any order gives the CPU's total. BLOCK is the most threads a block is
 * launched with (a multiple of 32).
 */
#ifndef EXACTVMAF_CUDA_BLOCK_ADD_CUH
#define EXACTVMAF_CUDA_BLOCK_ADD_CUH

template <int BLOCK, int N>
__device__ __forceinline__ void block_add(unsigned long long v[N], unsigned long long *dst)
{
    __shared__ unsigned long long part[BLOCK / 32][N];
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

#endif
