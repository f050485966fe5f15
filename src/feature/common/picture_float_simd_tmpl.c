/*
 * The conversion of picture_float.c, built once per instruction set
 * (src/simd.h). One conversion and one addition per sample, each rounded;
 * only the vector width differs between builds.
 */
#include <stddef.h>
#include <stdint.h>

#include "picture_float.h"
static void to_float(const VmafPicture *pic, unsigned plane, float offset, float *dst,
                          size_t dst_stride_floats)
{
    const unsigned w = pic->w[plane], h = pic->h[plane];
    if (pic->bpc == 8) {
        for (unsigned i = 0; i < h; i++) {
            const uint8_t *src = (const uint8_t *)pic->data[plane] + i * pic->stride[plane];
            float *restrict d = dst + i * dst_stride_floats;
            for (unsigned j = 0; j < w; j++)
                d[j] = (float)src[j] + offset;
        }
        return;
    }
    /* The reference divides by 4, 16 or 256; all exact, so a power-of-two
     * divide is the same float whatever the order. */
    const float scale = pic->bpc == 10 ? 4.0f : pic->bpc == 12 ? 16.0f : 256.0f;
    for (unsigned i = 0; i < h; i++) {
        const uint16_t *src =
            (const uint16_t *)((const uint8_t *)pic->data[plane] + i * pic->stride[plane]);
        float *restrict d = dst + i * dst_stride_floats;
        for (unsigned j = 0; j < w; j++)
            d[j] = (float)src[j] / scale + offset;
    }
}

const VmafToFloatFn EV_SIMD_NAME(vmaf_to_float) = to_float;
