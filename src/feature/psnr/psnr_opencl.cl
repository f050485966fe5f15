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

/* One sample's squared error through the row function of its depth: T the
 * sample type, R the sum's type, ADD how the group's sum reaches `out`. */
#define PSNR_SSE(NAME, T, R, ROW, ADD)                                                  \
    kernel void NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int h,          \
                     EV_BUF(uint, out))                                                 \
    {                                                                                   \
        local R scratch[PSNR_GROUP];                                                    \
        const int j = (int)get_global_id(0), i = (int)get_global_id(1);                 \
        R v = 0;                                                                        \
        if (j < w) {                                                                    \
            const size_t o = (size_t)i * w + j;                                         \
            const T r = EV_AT(const T, ref)[o], d = EV_AT(const T, dis)[o];             \
            v = ROW(&r, &d, 1);                                                         \
        }                                                                               \
        v = ADD##_sum(v, scratch);                                                      \
        if (!ev_local_index() && v) ADD(EV_AT(uint, out), i, v);                        \
    }

/* 8-bit: out[i] += squared errors of row i (uint32, wrapping). */
#define ROW_ADD(p, i, v) atomic_add(&(p)[i], (v))
#define ROW_ADD_sum ev_group_sum_u32
/* 10 to 16 bits: the plane's uint64 total += squared errors. */
#define TOTAL_ADD(p, i, v) ev_atomic_add_u64((p), (v))
#define TOTAL_ADD_sum ev_group_sum_u64

PSNR_SSE(psnr_sse_u8, uchar, uint, psnr_sse_row_u8, ROW_ADD)
PSNR_SSE(psnr_sse_u16, ushort, ulong, psnr_sse_row_u16, TOTAL_ADD)
