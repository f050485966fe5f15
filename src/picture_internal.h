#ifndef EXACTVMAF_PICTURE_INTERNAL_H
#define EXACTVMAF_PICTURE_INTERNAL_H

#include <stddef.h>

#include "libvmaf/picture.h"

/** Take another reference to src's buffer into dst. */
int vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src);

typedef struct VmafDevPicture VmafDevPicture;

/**
 * Make pic a device picture (gpu/dev_picture.h) of the given geometry whose
 * one reference owns dp: data[] and stride[] become dp's addresses and
 * pitches, and dp->ops->release runs when the last reference goes.
 * On failure nothing is taken over. @return 0 or a negative errno.
 */
int vmaf_picture_wrap_device(VmafPicture *pic, VmafDevPicture *dp,
                             enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h);
/**
 * pic's geometry (plane sizes, host strides) for a picture of these
 * parameters, nothing allocated: 0, or -EINVAL where vmaf_picture_alloc()
 * would refuse them.
 */
int vmaf_picture_geometry(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                          unsigned w, unsigned h);
/** The device side of pic; NULL for a host picture. */
VmafDevPicture *vmaf_picture_device(const VmafPicture *pic);
/**
 * A reference to a host picture with pic's samples in *host: pic itself
 * when it is a host picture; for a device picture its host copy, downloaded
 * at the first call (from any thread) and shared by later ones.
 */
int vmaf_picture_host(const VmafPicture *pic, VmafPicture *host);
/**
 * A device picture replaced by its host copy (vmaf_picture_host; the
 * device picture's reference released); a host picture stays as it is.
 */
int vmaf_picture_to_host(VmafPicture *pic);

typedef struct VmafPicturePool VmafPicturePool;

/** A pool of picture buffers of one geometry (checked like vmaf_picture_alloc). */
int vmaf_picture_pool_create(VmafPicturePool **pool, enum VmafPixelFormat pix_fmt,
                             unsigned bpc, unsigned w, unsigned h);
/** A picture from the pool; unref returns its buffer to the pool. */
int vmaf_picture_pool_fetch(VmafPicturePool *pool, VmafPicture *pic);
/** Page-lock a buffer (0 on success) / undo it; arg is the backend's. */
typedef int (*VmafPinFn)(void *arg, void *buf, size_t bytes);
typedef void (*VmafUnpinFn)(void *arg, void *buf);
/**
 * Pin every buffer the pool made, given out or not, and each new one; with
 * pin NULL, unpin them all. Failing to pin is logged once and leaves the
 * rest unpinned (uploads are then staged by the driver).
 */
void vmaf_picture_pool_pin(VmafPicturePool *pool, VmafPinFn pin, VmafUnpinFn unpin,
                           void *arg);
/** Buffers made so far (the most pictures out at once) and their size in bytes. */
void vmaf_picture_pool_usage(VmafPicturePool *pool, unsigned *buffers, size_t *bytes);
/** The owner lets go; the pool is freed once every buffer came back. */
void vmaf_picture_pool_close(VmafPicturePool *pool);

#endif
