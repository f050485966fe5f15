/*
 * OpenCL twin of gpu/cuda/common.cu: a picture plane to float, as the float
 * extractors read it (src/feature/common/picture_float.c): the sample
 * converted to float, divided by 4, 16 or 256 for 10, 12 and 16 bits
 * (exact), plus the offset (exact). One work-item per sample.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
#include "fp.h"

kernel void evc_to_float_u8(EV_BUF(const uchar, src), int w, int h, float offset,
                            EV_BUF(float, dst), int pitch)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h || j >= w) return;
    global const uchar *s = EV_AT(const uchar, src);
    EV_AT(float, dst)[(size_t)i * pitch + j] = FADD((float)s[(size_t)i * w + j], offset);
}

kernel void evc_to_float_u16(EV_BUF(const ushort, src), int w, int h, float scale,
                             float offset, EV_BUF(float, dst), int pitch)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h || j >= w) return;
    global const ushort *s = EV_AT(const ushort, src);
    EV_AT(float, dst)[(size_t)i * pitch + j] =
        FADD(FDIV((float)s[(size_t)i * w + j], scale), offset);
}
