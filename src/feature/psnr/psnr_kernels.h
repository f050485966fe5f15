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

/** 8-bit: rows[i] += squared errors of row i (uint32, wrapping). */
EV_KERNEL psnr_sse_u8(EV_BUF(const uint8_t, ref), EV_BUF(const uint8_t, dis), int w, int h,
                      EV_BUF(uint32_t, rows))
{
    EV_LOCAL uint32_t scratch[PSNR_GROUP];
    const int j = ev_gid(0), i = ev_gid(1);
    uint32_t v = 0;
    if (j < w) {
        const size_t o = (size_t)i * (size_t)w + (size_t)j;
        const uint8_t r = EV_AT(const uint8_t, ref)[o], d = EV_AT(const uint8_t, dis)[o];
        v = psnr_sse_row_u8(&r, &d, 1);
    }
    v = ev_group_sum_u32(v, scratch);
    if (!ev_local_item() && v) ev_atomic_add_u32(EV_AT(uint32_t, rows) + i, v);
    (void)h;
}

/** 10 to 16 bits: *total += squared errors (uint64). */
EV_KERNEL psnr_sse_u16(EV_BUF(const uint16_t, ref), EV_BUF(const uint16_t, dis), int w, int h,
                       EV_BUF(uint32_t, total))
{
    EV_LOCAL uint64_t scratch[PSNR_GROUP];
    const int j = ev_gid(0), i = ev_gid(1);
    uint64_t v = 0;
    if (j < w) {
        const size_t o = (size_t)i * (size_t)w + (size_t)j;
        const uint16_t r = EV_AT(const uint16_t, ref)[o], d = EV_AT(const uint16_t, dis)[o];
        v = psnr_sse_row_u16(&r, &d, 1);
    }
    v = ev_group_sum_u64(v, scratch);
    if (!ev_local_item() && v) ev_atomic_add_u64(EV_AT(uint32_t, total), v);
    (void)h;
}
