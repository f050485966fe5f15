/*
 * Kernels the pipeline runs for every twin, in the kernel dialect
 * (gpu/ev_kernel.h), included by gpu/cuda/common.cu and
 * gpu/opencl/common.cl.
 *
 * evc_to_float_*: a picture plane to float, as the float extractors read it
 * (src/feature/common/picture_float.c): the sample converted to float,
 * divided by 4, 16 or 256 for 10, 12 and 16 bits (exact), plus the offset
 * (exact: |sample| < 2^16 and the offset is an integer). One item per
 * sample; the samples arrive packed, w per row.
 *
 * evc_unpack_*: one component of a device picture (gpu/dev_picture.h) to a
 * packed plane: the sample at column j is the one `step` samples apart from
 * the row's first (1: planar, 2: NV12/P010's interleaved Cb and Cr, whose
 * Cr the caller reaches by offsetting src one sample), shifted down by
 * `shift` (P010's 6, P016's 16 - depth). Integer moves only: the plane
 * equals the same frame's host picture bit for bit.
 */
#include "fp.h"

EV_KERNEL evc_to_float_u8(EV_BUF(const uint8_t, src), int w, int h, float offset,
                          EV_BUF(float, dst), int pitch)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_AT(float, dst)[(size_t)i * pitch + j] =
        FADD((float)EV_AT(const uint8_t, src)[(size_t)i * w + j], offset);
}

EV_KERNEL evc_to_float_u16(EV_BUF(const uint16_t, src), int w, int h, float scale,
                           float offset, EV_BUF(float, dst), int pitch)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_AT(float, dst)[(size_t)i * pitch + j] =
        FADD(FDIV((float)EV_AT(const uint16_t, src)[(size_t)i * w + j], scale), offset);
}

/* spitch: bytes between the source's rows. */
EV_KERNEL evc_unpack_u8(EV_BUF(const uint8_t, src), int spitch, int step, int w, int h,
                        int shift, EV_BUF(uint8_t, dst))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    const uint8_t v = EV_AT(const uint8_t, src)[(size_t)i * spitch + (size_t)j * step];
    EV_AT(uint8_t, dst)[(size_t)i * w + j] = (uint8_t)(v >> shift);
}

EV_KERNEL evc_unpack_u16(EV_BUF(const uint8_t, src), int spitch, int step, int w, int h,
                         int shift, EV_BUF(uint16_t, dst))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_GPTR(const uint16_t) row =
        (EV_GPTR(const uint16_t))(EV_AT(const uint8_t, src) + (size_t)i * spitch);
    EV_AT(uint16_t, dst)[(size_t)i * w + j] = (uint16_t)(row[(size_t)j * step] >> shift);
}
