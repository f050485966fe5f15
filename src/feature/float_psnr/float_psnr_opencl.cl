/*
 * float_psnr OpenCL kernels (host side: float_psnr_gpu.c): the luma
 * plane's squared differences in units of 1/S^2, each from
 * float_psnr_arith.h's row functions (a row of one sample). The total is
 * an integer sum, so a group adds its items in any order and adds to the
 * frame's total with one atomic.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
#include "gpu/opencl/ev_reduce.h"
#include "fp.h"
#include "feature/float_psnr/float_psnr_arith.h"

/* The host launches groups of 256 along a row (float_psnr_gpu.c). */
#define FPSNR_GROUP 256

kernel void fpsnr_units_u8(EV_BUF(const uchar, ref), EV_BUF(const uchar, dis), int w, int h,
                           EV_BUF(uint, total))
{
    local ulong scratch[FPSNR_GROUP];
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    ulong v = 0;
    if (j < w) {
        const size_t o = (size_t)i * w + j;
        const uint8_t r = EV_AT(const uchar, ref)[o], d = EV_AT(const uchar, dis)[o];
        v = fpsnr_units_row_u8(&r, &d, 1);
    }
    v = ev_group_sum_u64(v, scratch);
    if (!ev_local_index() && v) ev_atomic_add_u64(EV_AT(uint, total), v);
}

kernel void fpsnr_units_u16(EV_BUF(const ushort, ref), EV_BUF(const ushort, dis), int w, int h,
                            EV_BUF(uint, total))
{
    local ulong scratch[FPSNR_GROUP];
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    ulong v = 0;
    if (j < w) {
        const size_t o = (size_t)i * w + j;
        const uint16_t r = EV_AT(const ushort, ref)[o], d = EV_AT(const ushort, dis)[o];
        v = fpsnr_units_row_u16(&r, &d, 1);
    }
    v = ev_group_sum_u64(v, scratch);
    if (!ev_local_index() && v) ev_atomic_add_u64(EV_AT(uint, total), v);
}
