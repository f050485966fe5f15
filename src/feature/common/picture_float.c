#include <stdint.h>

#include "cpu.h"
#include "picture_float.h"

int vmaf_float_bpc_supported(unsigned bpc)
{
    return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

void vmaf_picture_to_float(const VmafPicture *pic, unsigned plane, float offset,
                           float *dst, size_t dst_stride_floats)
{
    static const VmafToFloatFn *const fn[EV_ISA_COUNT] = EV_SIMD_TABLE(vmaf_to_float);
    (*fn[ev_cpu_isa()])(pic, plane, offset, dst, dst_stride_floats);
}
