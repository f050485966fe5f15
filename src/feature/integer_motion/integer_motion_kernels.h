/*
 * Integer motion's ("motion") kernels, one text for CUDA and OpenCL
 * (gpu/ev_kernel.h; the host side is integer_motion_gpu.c). Every value
 * comes from imotion_arith.h, the CPU path's functions: the vertical pass of
 * d = prev - cur (imotion_vert_px, reflect-101 rows by imotion_mirror), the
 * horizontal pass (imotion_horz_px) and |.| (imotion_abs). A row's uint32
 * sum wraps as the CPU's does in any order (addition mod 2^32): a group adds
 * its items and one atomic adds to the row. The host adds the rows in uint64.
 */
#include "fp.h"
#include "feature/integer_motion/imotion_arith.h"

/* Groups of 256 along a row for the horizontal pass (integer_motion_gpu.c). */
#define IMOTION_GROUP 256

#define IMOTION_VERT(NAME, T)                                                            \
    EV_KERNEL NAME(EV_BUF(const T, prev), EV_BUF(const T, cur), int w, int h,            \
                   unsigned bpc, EV_BUF(int32_t, y))                                     \
    {                                                                                    \
        const int j = ev_gid(0), i = ev_gid(1);                                          \
        if (i >= h || j >= w) return;                                                    \
        int32_t d[IMOTION_TAPS];                                                         \
        for (int k = 0; k < IMOTION_TAPS; k++) {                                         \
            const size_t o = (size_t)imotion_mirror(i - IMOTION_RADIUS + k, h) * w + j;  \
            d[k] = (int32_t)EV_AT(const T, prev)[o] - (int32_t)EV_AT(const T, cur)[o];   \
        }                                                                                \
        EV_AT(int32_t, y)[(size_t)i * w + j] = imotion_vert_px(d, bpc);                  \
    }

IMOTION_VERT(imotion_vert_u8, uint8_t)
IMOTION_VERT(imotion_vert_u16, uint16_t)

/** rows[i] += |horizontal pass| over the columns this group covers (uint32, wrapping). */
EV_KERNEL imotion_horz(EV_BUF(const int32_t, y), int w, int h, EV_BUF(uint32_t, rows))
{
    EV_LOCAL uint32_t scratch[IMOTION_GROUP];
    const int j = ev_gid(0), i = ev_gid(1);
    uint32_t v = 0;
    if (j < w) {
        EV_GPTR(const int32_t) row = EV_AT(const int32_t, y) + (size_t)i * w;
        int32_t t[IMOTION_TAPS];
        for (int k = 0; k < IMOTION_TAPS; k++)
            t[k] = row[imotion_mirror(j - IMOTION_RADIUS + k, w)];
        v = imotion_abs(imotion_horz_px(t));
    }
    v = ev_group_sum_u32(v, scratch);
    if (!ev_local_item() && v) ev_atomic_add_u32(&EV_AT(uint32_t, rows)[i], v);
    (void)h;
}
