/*
 * One kernel dialect for CUDA and OpenCL C 1.2: a twin written in it has
 * one kernel text, included by a two-line x_cuda.cu and a two-line
 * x_opencl.cl (which starts with the FP_CONTRACT pragma, as every OpenCL
 * source must). Its arithmetic still comes from the room's *_arith.h
 * through fp.h, so the dialect only names what the two languages spell
 * differently:
 *
 *   EV_KERNEL name(...)           a kernel
 *   EV_BUF(T, p) / EV_AT(T, p)    a VmafGpuPtr argument and its address
 *   EV_GPTR(T)                    a pointer to global memory (T *p)
 *   EV_LOCAL T a[N];              group-shared memory, declared in the kernel
 *   EV_LPTR(T)                    a pointer to it, as a function parameter
 *   EV_CONSTANT T a[N] = {...};   a table in constant memory, at file scope
 *   ev_gid(d), ev_lid(d), ev_grp(d), ev_lsize(d)   indices, d = 0, 1, 2
 *   ev_barrier()                  group barrier over local memory
 *   EV_GROUP_FN                   a helper that uses the group (barriers,
 *                                 local indices): device code only
 *   EV_DEVICE_FN                  any other helper that only kernels call
 *                                 (atomics): device code only
 *   ev_group_sum_u64(v, scratch)  integer sum over the group, wrapping
 *   ev_group_sum_u32(v, scratch)  (every item calls it; scratch: one element
 *                                 per item; groups of a multiple of 32 items)
 *   ev_group_add_u64(v, n, scratch, dst)
 *                                 dst[c] += the group's sum of v[c], c < n,
 *                                 wrapping (dst: uint64 totals as word pairs;
 *                                 scratch: EV_GROUP_ADD_SCRATCH(items, n))
 *   ev_atomic_add_u64(p, v)       *p += v, p an EV_GPTR(uint32_t) of two
 *                                 words (a uint64 total, little-endian)
 *   ev_atomic_add_u32(p, v)       *p += v (mod 2^32)
 *   ev_atomic_add_local_u32(p, v) the same on an EV_LPTR(uint32_t)
 *   ev_atomic_inc_u32(p)          *p += 1, returning the old value
 *   ev_atomic_min_u32(p, v)       *p = min(*p, v)
 *   ev_atomic_min_local_u32(p, v) the same on an EV_LPTR(uint32_t)
 *
 * Launch geometry is the device layer's (gpu/device.h): the global index
 * is group * group size + local index in both languages. fp32 row sums in
 * the reference's order are gpu/ev_row_sums.h.
 */
#ifndef EXACTVMAF_EV_KERNEL_H
#define EXACTVMAF_EV_KERNEL_H

#if defined(__OPENCL_C_VERSION__)

#include "gpu/opencl/ev_opencl.h"

#define EV_KERNEL kernel void
#define EV_GPTR(T) global T *
#define EV_LOCAL local
#define EV_LPTR(T) local T *
#define EV_CONSTANT constant
#define ev_gid(d) ((int)get_global_id(d))
#define ev_lid(d) ((int)get_local_id(d))
#define ev_grp(d) ((int)get_group_id(d))
#define ev_lsize(d) ((int)get_local_size(d))
#define ev_barrier() barrier(CLK_LOCAL_MEM_FENCE)
#define EV_GROUP_FN static inline
#define EV_DEVICE_FN static inline

static inline void ev_atomic_add_u32(global uint32_t *p, uint32_t v)
{
    atomic_add(p, v);
}

static inline void ev_atomic_add_local_u32(local uint32_t *p, uint32_t v)
{
    atomic_add(p, v);
}

static inline uint32_t ev_atomic_inc_u32(global uint32_t *p)
{
    return atomic_inc(p);
}

static inline void ev_atomic_min_u32(global uint32_t *p, uint32_t v)
{
    atomic_min(p, v);
}

static inline void ev_atomic_min_local_u32(local uint32_t *p, uint32_t v)
{
    atomic_min(p, v);
}

static inline void ev_atomic_add_u64(global uint32_t *p, uint64_t v)
{
    const uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
    const uint32_t old = atomic_add(&p[0], lo);
    const uint32_t carry = old + lo < old;
    if (hi + carry) atomic_add(&p[1], hi + carry);
}

#elif defined(__CUDACC__)

#include <stdint.h>

#define EV_KERNEL extern "C" __global__ void
#define EV_BUF(T, name) T *name
#define EV_AT(T, name) ((T *)(name))
#define EV_GPTR(T) T *
#define EV_LOCAL __shared__
#define EV_LPTR(T) T *
#define EV_CONSTANT __constant__
#define EV_IDX_(v, d) ((d) == 0 ? (int)v.x : (d) == 1 ? (int)v.y : (int)v.z)
#define ev_gid(d) (EV_IDX_(blockIdx, d) * EV_IDX_(blockDim, d) + EV_IDX_(threadIdx, d))
#define ev_lid(d) EV_IDX_(threadIdx, d)
#define ev_grp(d) EV_IDX_(blockIdx, d)
#define ev_lsize(d) EV_IDX_(blockDim, d)
#define ev_barrier() __syncthreads()
#define EV_GROUP_FN static __device__ __forceinline__
#define EV_DEVICE_FN static __device__ __forceinline__

static __device__ __forceinline__ void ev_atomic_add_u32(uint32_t *p, uint32_t v)
{
    atomicAdd(p, v);
}

static __device__ __forceinline__ void ev_atomic_add_local_u32(uint32_t *p, uint32_t v)
{
    atomicAdd(p, v);
}

static __device__ __forceinline__ uint32_t ev_atomic_inc_u32(uint32_t *p)
{
    return atomicAdd(p, 1u);
}

static __device__ __forceinline__ void ev_atomic_min_u32(uint32_t *p, uint32_t v)
{
    atomicMin(p, v);
}

static __device__ __forceinline__ void ev_atomic_min_local_u32(uint32_t *p, uint32_t v)
{
    atomicMin(p, v);
}

static __device__ __forceinline__ void ev_atomic_add_u64(uint32_t *p, uint64_t v)
{
    atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

#else
#error "gpu/ev_kernel.h is for CUDA and OpenCL kernel sources"
#endif

/** The item's number in its (at most 2-D) group, and the group's size. */
#define ev_local_item() (ev_lid(1) * ev_lsize(0) + ev_lid(0))
#define ev_local_items() (ev_lsize(0) * ev_lsize(1))

/*
 * Sum of v over the group, returned to every item (integer, wrapping at the
 * type's width, so any tree gives the same total). The first barrier lets a
 * kernel call it several times with one scratch array. CUDA adds within
 * warps by shuffles first (groups are a multiple of 32 items); OpenCL C 1.2
 * has no shuffles and adds in local memory.
 */
#if defined(__CUDACC__)
#define EV_GROUP_SUM(NAME, T)                                                       \
    static __device__ __forceinline__ T NAME(T v, T *scratch)                      \
    {                                                                               \
        const int i = ev_local_item(), n = ev_local_items();                        \
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);  \
        __syncthreads();                                                            \
        if (!(i & 31)) scratch[i >> 5] = v;                                         \
        __syncthreads();                                                            \
        if (i < 32) {                                                               \
            T t = i < (n + 31) / 32 ? scratch[i] : (T)0;                            \
            for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o); \
            if (!i) scratch[0] = t;                                                 \
        }                                                                           \
        __syncthreads();                                                            \
        return scratch[0];                                                          \
    }
#else
#define EV_GROUP_SUM(NAME, T)                                                       \
    static inline T NAME(T v, local T *scratch)                                     \
    {                                                                               \
        const int i = ev_local_item(), n = ev_local_items();                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                               \
        scratch[i] = v;                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                               \
        for (int s = 1; s < n; s <<= 1) {                                           \
            if (!(i & (2 * s - 1)) && i + s < n) scratch[i] += scratch[i + s];      \
            barrier(CLK_LOCAL_MEM_FENCE);                                           \
        }                                                                           \
        return scratch[0];                                                          \
    }
#endif
EV_GROUP_SUM(ev_group_sum_u64, uint64_t)
EV_GROUP_SUM(ev_group_sum_u32, uint32_t)

/*
 * dst[c] += the sum of v[c] over the group, for c < n: several integer
 * totals of a group at once (integer ADM's and VIF's row and scale sums),
 * wrapping, so any tree gives the CPU's total. dst holds uint64 totals as
 * pairs of words (ev_atomic_add_u64); item c adds total c with one atomic
 * when it is nonzero. Every item calls it, as the last use of scratch. CUDA
 * adds within warps by shuffles, then one partial per warp (groups of a
 * multiple of 32 items); OpenCL adds the totals one after the other through
 * ev_group_sum_u64 (one element of scratch per item).
 */
#if defined(__CUDACC__)
#define EV_GROUP_ADD_SCRATCH(items, n) (((items) + 31) / 32 * (n))
static __device__ __forceinline__ void ev_group_add_u64(uint64_t *v, int n, uint64_t *scratch,
                                                        uint32_t *dst)
{
    const int i = ev_local_item(), warps = (ev_local_items() + 31) / 32;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
#pragma unroll
        for (int c = 0; c < n; c++) v[c] += __shfl_down_sync(0xffffffffu, v[c], o);
    if (!(i & 31))
#pragma unroll
        for (int c = 0; c < n; c++) scratch[(i >> 5) * n + c] = v[c];
    __syncthreads();
    if (i < n) {
        uint64_t t = 0;
        for (int k = 0; k < warps; k++) t += scratch[k * n + i];
        if (t) ev_atomic_add_u64(dst + 2 * i, t);
    }
}
#else
#define EV_GROUP_ADD_SCRATCH(items, n) (items)
static inline void ev_group_add_u64(uint64_t *v, int n, local uint64_t *scratch,
                                    global uint32_t *dst)
{
    for (int c = 0; c < n; c++) {
        const uint64_t t = ev_group_sum_u64(v[c], scratch);
        if (ev_local_item() == c && t) ev_atomic_add_u64(dst + 2 * c, t);
    }
}
#endif

#endif
