#include <stdint.h>

#include "cpu.h"
#include "picture_float.h"

int vmaf_float_bpc_supported(unsigned bpc)
{
    return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

#define EV_SIMD_TEMPLATE "feature/common/picture_float_simd_tmpl.c"
#define EV_SIMD_AVX512
#include "cpu_builds.h"

typedef void (*ToFloatFn)(const VmafPicture *pic, unsigned plane, float offset, float *dst,
                          size_t dst_stride_floats);

void vmaf_picture_to_float(const VmafPicture *pic, unsigned plane, float offset,
                           float *dst, size_t dst_stride_floats)
{
    static const ToFloatFn fn[EV_ISA_COUNT] = {
        to_float_c,
#if EV_HAVE_X86_SIMD
        to_float_avx2,
        to_float_avx512,
#endif
    };
    const int isa = ev_cpu_isa();
    (isa > EV_ISA_C && isa < EV_ISA_COUNT && EV_HAVE_X86_SIMD ? fn[isa] : fn[0])(
        pic, plane, offset, dst, dst_stride_floats);
}
