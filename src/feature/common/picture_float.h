/* Luma (or any plane) to float, as the reference's float extractors read it. */
#ifndef EXACTVMAF_PICTURE_FLOAT_H
#define EXACTVMAF_PICTURE_FLOAT_H

#include <stddef.h>

#include "libvmaf/picture.h"
#include "simd.h"

/**
 * dst[i*dst_stride_floats + j] = sample / S + offset, S = 1, 4, 16, 256 for
 * bpc 8, 10, 12, 16 (exact in fp32). Other depths are refused by
 * vmaf_float_bpc_supported(), checked in each extractor's init.
 */
void vmaf_picture_to_float(const VmafPicture *pic, unsigned plane, float offset,
                           float *dst, size_t dst_stride_floats);

/** The conversion above, as each instruction set's build has it (src/simd.h). */
typedef void (*VmafToFloatFn)(const VmafPicture *pic, unsigned plane, float offset, float *dst,
                              size_t dst_stride_floats);
EV_SIMD_DECLARE(VmafToFloatFn, vmaf_to_float);

/** 1 for 8, 10, 12, 16. */
int vmaf_float_bpc_supported(unsigned bpc);

#endif
