/*
 * psnr's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h; psnr_cuda.cu
 * and psnr_opencl.cl include it, the host side is psnr_gpu.c): the squared
 * errors of one plane, each from psnr_arith.h's row functions (a row of one
 * sample). The sums are integer: 8-bit rows are uint32 totals that wrap as
 * the CPU's (addition mod 2^32 in any order: a group adds its items, one
 * atomic per group to the row), deeper samples add to the plane's uint64
 * total (one atomic per group).
 */
#include "fp.h"
#include "feature/psnr/psnr_arith.h"

/* The host launches groups of PSNR_GROUP along a row (psnr_gpu.c). */
#define PSNR_GROUP 256

/*
 * One sample's squared error through the row function of its depth: T the
 * sample type, R the sum's type, SUM its group sum, ADD how the group's sum
 * reaches `out` (row i's uint32 or the plane's uint64).
 */
#define PSNR_SSE(NAME, T, R, ROW, SUM, ADD)                                              \
    EV_KERNEL NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int h,             \
                   EV_BUF(uint32_t, out))                                                \
    {                                                                                    \
        EV_LOCAL R scratch[PSNR_GROUP];                                                  \
        const int j = ev_gid(0), i = ev_gid(1);                                          \
        R v = 0;                                                                         \
        if (j < w) {                                                                     \
            const size_t o = (size_t)i * (size_t)w + (size_t)j;                          \
            const T r = EV_AT(const T, ref)[o], d = EV_AT(const T, dis)[o];              \
            v = ROW(&r, &d, 1);                                                          \
        }                                                                                \
        v = SUM(v, scratch);                                                             \
        if (!ev_local_item() && v) ADD(EV_AT(uint32_t, out), i, v);                      \
        (void)h;                                                                         \
    }

/* 8-bit: out[i] += squared errors of row i (uint32, wrapping). */
#define PSNR_ROW_ADD(p, i, v) ev_atomic_add_u32((p) + (i), (v))
/* 10 to 16 bits: the plane's uint64 total += squared errors. */
#define PSNR_TOTAL_ADD(p, i, v) ev_atomic_add_u64((p), (v))

PSNR_SSE(psnr_sse_u8, uint8_t, uint32_t, psnr_sse_row_u8, ev_group_sum_u32, PSNR_ROW_ADD)
PSNR_SSE(psnr_sse_u16, uint16_t, uint64_t, psnr_sse_row_u16, ev_group_sum_u64, PSNR_TOTAL_ADD)
