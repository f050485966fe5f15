/*
 * Kernels shared by every twin: a picture plane to float, as the float
 * extractors read it (src/feature/common/picture_float.c): the sample
 * converted to float, divided by 4, 16 or 256 for 10, 12 and 16 bits (exact),
 * plus the offset (exact: |sample| < 2^16 and the offset is an integer).
 * One thread per sample; the samples arrive packed, w per row.
 */
#include <stdint.h>

#include "fp.h"

extern "C" __global__ void evc_to_float_u8(const uint8_t *src, int w, int h, float offset,
                                           float *dst, int pitch)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    dst[(size_t)i * pitch + j] = FADD((float)src[(size_t)i * w + j], offset);
}

extern "C" __global__ void evc_to_float_u16(const uint16_t *src, int w, int h, float scale,
                                            float offset, float *dst, int pitch)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    dst[(size_t)i * pitch + j] = FADD(FDIV((float)src[(size_t)i * w + j], scale), offset);
}
