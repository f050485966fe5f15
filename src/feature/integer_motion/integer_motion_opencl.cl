/*
 * Integer motion ("motion") OpenCL kernels (host side:
 * integer_motion_gpu.c). Every value comes from imotion_arith.h, the CPU
 * path's functions: the vertical pass of d = prev - cur (imotion_vert_px,
 * reflect-101 rows by imotion_mirror), the horizontal pass
 * (imotion_horz_px) and |.| (imotion_abs). A row's uint32 sum wraps as the
 * CPU's in any order (addition mod 2^32): a group adds its items and one
 * atomic adds to the row. The host adds the rows in uint64.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/ev_kernel.h"
#include "fp.h"
#include "feature/integer_motion/imotion_arith.h"

/* Groups of 256 along a row for the horizontal pass (integer_motion_gpu.c). */
#define IMOTION_GROUP 256

#define IMOTION_VERT(T)                                                                  \
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);                      \
    if (i >= h || j >= w) return;                                                        \
    global const T *p = EV_AT(const T, prev), *c = EV_AT(const T, cur);                  \
    int32_t d[IMOTION_TAPS];                                                             \
    for (int k = 0; k < IMOTION_TAPS; k++) {                                             \
        const size_t o = (size_t)imotion_mirror(i - IMOTION_RADIUS + k, h) * w + j;      \
        d[k] = (int32_t)p[o] - (int32_t)c[o];                                            \
    }                                                                                    \
    EV_AT(int, y)[(size_t)i * w + j] = imotion_vert_px(d, bpc);

kernel void imotion_vert_u8(EV_BUF(const uchar, prev), EV_BUF(const uchar, cur), int w, int h,
                            uint bpc, EV_BUF(int, y))
{
    IMOTION_VERT(uchar)
}

kernel void imotion_vert_u16(EV_BUF(const ushort, prev), EV_BUF(const ushort, cur), int w,
                             int h, uint bpc, EV_BUF(int, y))
{
    IMOTION_VERT(ushort)
}

/** rows[i] += |horizontal pass| over the columns this group covers (uint32, wrapping). */
kernel void imotion_horz(EV_BUF(const int, y), int w, int h, EV_BUF(uint, rows))
{
    local uint scratch[IMOTION_GROUP];
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    uint v = 0;
    if (j < w) {
        global const int *row = EV_AT(const int, y) + (size_t)i * w;
        int32_t t[IMOTION_TAPS];
        for (int k = 0; k < IMOTION_TAPS; k++)
            t[k] = row[imotion_mirror(j - IMOTION_RADIUS + k, w)];
        v = imotion_abs(imotion_horz_px(t));
    }
    v = ev_group_sum_u32(v, scratch);
    if (!ev_local_item() && v) atomic_add(&EV_AT(uint, rows)[i], v);
}
