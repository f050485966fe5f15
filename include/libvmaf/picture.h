/**
 * @file picture.h
 * Pictures handed to the library (libvmaf 3.x compatible layout).
 */
#ifndef __VMAF_PICTURE_H__
#define __VMAF_PICTURE_H__

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Chroma layout of a picture; values match libvmaf. */
enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN,
    VMAF_PIX_FMT_YUV420P,
    VMAF_PIX_FMT_YUV422P,
    VMAF_PIX_FMT_YUV444P,
    VMAF_PIX_FMT_YUV400P,
};

typedef struct VmafRef VmafRef;

/**
 * A planar picture. Samples are uint8_t when bpc == 8, otherwise
 * little-endian uint16_t. stride is in bytes.
 * Ownership: a picture obtained from vmaf_picture_alloc() holds one
 * reference; vmaf_read_pictures() takes that reference over.
 */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    void *data[3];
    VmafRef *ref;
    void *priv;
} VmafPicture;

/**
 * Allocate a zeroed picture.
 *
 * @param pic     picture to fill.
 * @param pix_fmt chroma layout.
 * @param bpc     bits per component, 8..16.
 * @param w, h    luma dimensions, at least 1.
 * @return 0 on success, -EINVAL for bad arguments, -ENOMEM.
 */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h);

/**
 * Drop the caller's reference; the buffer is freed with the last one.
 * The struct is zeroed.
 */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_PICTURE_H__ */
