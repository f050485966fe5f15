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

/* One sample's units through the row function of its depth (T the sample type). */
#define FPSNR_UNITS(NAME, T, ROW)                                                       \
    kernel void NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int h,          \
                     EV_BUF(uint, total))                                               \
    {                                                                                   \
        local ulong scratch[FPSNR_GROUP];                                               \
        const int j = (int)get_global_id(0), i = (int)get_global_id(1);                 \
        ulong v = 0;                                                                    \
        if (j < w) {                                                                    \
            const size_t o = (size_t)i * w + j;                                         \
            const T r = EV_AT(const T, ref)[o], d = EV_AT(const T, dis)[o];             \
            v = ROW(&r, &d, 1);                                                         \
        }                                                                               \
        v = ev_group_sum_u64(v, scratch);                                               \
        if (!ev_local_index() && v) ev_atomic_add_u64(EV_AT(uint, total), v);           \
    }

FPSNR_UNITS(fpsnr_units_u8, uchar, fpsnr_units_row_u8)
FPSNR_UNITS(fpsnr_units_u16, ushort, fpsnr_units_row_u16)
