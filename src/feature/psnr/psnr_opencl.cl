/*
 * psnr OpenCL kernels (the twin's host side is psnr_gpu.c): the squared
 * errors of one plane, each from psnr_arith.h's row functions (a row of one
 * sample). The sums are integer: 8-bit rows are uint32 totals that wrap as
 * the CPU's (addition mod 2^32 in any order: a group adds its items, one
 * atomic per group to the row), deeper samples add to the plane's uint64
 * total.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
#include "gpu/opencl/ev_reduce.h"
#include "fp.h"
#include "feature/psnr/psnr_arith.h"

/* The host launches groups of 256 along a row (psnr_gpu.c). */
#define PSNR_GROUP 256

/** 8-bit: rows[i] += squared errors of row i (uint32, wrapping). */
kernel void psnr_sse_u8(EV_BUF(const uchar, ref), EV_BUF(const uchar, dis), int w, int h,
                        EV_BUF(uint, rows))
{
    local uint scratch[PSNR_GROUP];
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    uint v = 0;
    if (j < w) {
        const size_t o = (size_t)i * w + j;
        const uint8_t r = EV_AT(const uchar, ref)[o], d = EV_AT(const uchar, dis)[o];
        v = psnr_sse_row_u8(&r, &d, 1);
    }
    v = ev_group_sum_u32(v, scratch);
    if (!ev_local_index() && v) atomic_add(&EV_AT(uint, rows)[i], v);
}

/** 10 to 16 bits: *total += squared errors (uint64). */
kernel void psnr_sse_u16(EV_BUF(const ushort, ref), EV_BUF(const ushort, dis), int w, int h,
                         EV_BUF(uint, total))
{
    local ulong scratch[PSNR_GROUP];
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    ulong v = 0;
    if (j < w) {
        const size_t o = (size_t)i * w + j;
        const uint16_t r = EV_AT(const ushort, ref)[o], d = EV_AT(const ushort, dis)[o];
        v = psnr_sse_row_u16(&r, &d, 1);
    }
    v = ev_group_sum_u64(v, scratch);
    if (!ev_local_index() && v) ev_atomic_add_u64(EV_AT(uint, total), v);
}
