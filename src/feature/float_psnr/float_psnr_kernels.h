/*
 * float_psnr's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * float_psnr_cuda.cu and float_psnr_opencl.cl include it, the host side is
 * float_psnr_gpu.c): the luma plane's squared differences in units of
 * 1/S^2, each from float_psnr_arith.h's row functions (a row of one sample:
 * integer squares, float-rounded for deep samples as the CPU's). The total
 * is an integer sum, so a group adds its items in any order and adds to the
 * frame's total with one atomic.
 */
#include "fp.h"
#include "feature/float_psnr/float_psnr_arith.h"

/* The host launches groups of FPSNR_GROUP along a row (float_psnr_gpu.c). */
#define FPSNR_GROUP 256

/* One sample's units through the row function of its depth (T the sample type). */
#define FPSNR_UNITS(NAME, T, ROW)                                                        \
    EV_KERNEL NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int h,             \
                   EV_BUF(uint32_t, total))                                              \
    {                                                                                    \
        EV_LOCAL uint64_t scratch[FPSNR_GROUP];                                          \
        const int j = ev_gid(0), i = ev_gid(1);                                          \
        uint64_t v = 0;                                                                  \
        if (j < w) {                                                                     \
            const size_t o = (size_t)i * (size_t)w + (size_t)j;                          \
            const T r = EV_AT(const T, ref)[o], d = EV_AT(const T, dis)[o];              \
            v = ROW(&r, &d, 1);                                                          \
        }                                                                                \
        v = ev_group_sum_u64(v, scratch);                                                \
        if (!ev_local_item() && v) ev_atomic_add_u64(EV_AT(uint32_t, total), v);         \
        (void)h;                                                                         \
    }

FPSNR_UNITS(fpsnr_units_u8, uint8_t, fpsnr_units_row_u8)
FPSNR_UNITS(fpsnr_units_u16, uint16_t, fpsnr_units_row_u16)
