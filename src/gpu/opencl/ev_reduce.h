/*
 * Integer sums over a work-group, for OpenCL kernels whose totals are
 * integers (order-free: any tree gives the CPU's value bit for bit), and
 * the one atomic per group that adds a group's sum to a global total.
 * 64-bit totals are added with two 32-bit atomics (the carry of the low
 * word counted by whoever made it), so no 64-bit atomic extension is
 * needed.
 *
 * `scratch` is a local array of at least one element per work-item,
 * declared in the kernel (OpenCL C 1.2 has no local arrays in functions).
 */
#ifndef EXACTVMAF_EV_REDUCE_H
#define EXACTVMAF_EV_REDUCE_H

/** The work-item's number in its group, 0 .. size-1. */
static inline uint ev_local_index(void)
{
    return (uint)(get_local_id(1) * get_local_size(0) + get_local_id(0));
}

static inline uint ev_local_count(void)
{
    return (uint)(get_local_size(0) * get_local_size(1));
}

/* Sum of v over the work-group (wrapping at the type's width), in work-item 0. */
#define EV_GROUP_SUM(NAME, T)                                                  \
    static inline T NAME(T v, local T *scratch)                                \
    {                                                                          \
        const uint i = ev_local_index(), n = ev_local_count();                 \
        scratch[i] = v;                                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                          \
        for (uint s = 1; s < n; s <<= 1) {                                     \
            if (!(i & (2 * s - 1)) && i + s < n) scratch[i] += scratch[i + s]; \
            barrier(CLK_LOCAL_MEM_FENCE);                                      \
        }                                                                      \
        return scratch[0];                                                     \
    }
EV_GROUP_SUM(ev_group_sum_u32, uint)
EV_GROUP_SUM(ev_group_sum_u64, ulong)

/** *p += v (mod 2^64), p a little-endian uint64 in global memory. */
static inline void ev_atomic_add_u64(global uint *p, ulong v)
{
    const uint lo = (uint)v, hi = (uint)(v >> 32);
    const uint old = atomic_add(&p[0], lo);
    const uint carry = old + lo < old;
    if (hi + carry) atomic_add(&p[1], hi + carry);
}

#endif
