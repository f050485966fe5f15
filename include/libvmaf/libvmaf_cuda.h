/**
 * @file libvmaf_cuda.h
 * CUDA entry points, source-compatible with libvmaf 3.x's libvmaf_cuda.h.
 *
 * exactvmaf loads the CUDA driver (libcuda.so.1) at run time, so these
 * functions exist in every build: without a driver, a device, or a build
 * with CUDA kernels they return a negative errno and log why. Scores
 * computed on the GPU equal the CPU's bit for bit.
 */
#ifndef __VMAF_CUDA_H__
#define __VMAF_CUDA_H__

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A CUDA context, its stream and its loaded kernels. */
typedef struct VmafCudaState VmafCudaState;

typedef struct VmafCudaConfiguration {
    /** A CUcontext of the caller's to work in, or NULL for device 0's primary context. */
    void *cu_ctx;
} VmafCudaConfiguration;

/**
 * Open a CUDA state.
 *
 * @param cu_state receives the state; free it with free() once it has been
 *                 handed to vmaf_cuda_import_state(), which takes over what
 *                 it holds (the context releases it in vmaf_close()).
 * @param cfg      optional configuration (cu_ctx).
 * @return 0, -ENOSYS (built without CUDA kernels), -ENODEV (no driver or no
 *         device), -ENOMEM, or another negative errno (the driver's error is logged).
 */
int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/**
 * Use cu_state for this context's feature extraction: every registered
 * metric that has a CUDA twin runs on it, the others on the CPU.
 * Call before the first picture. @return 0 or a negative errno.
 */
int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
};

typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method;
} VmafCudaPictureConfiguration;

/**
 * Configure the pictures that vmaf_cuda_fetch_preallocated_picture() hands
 * out. NONE, HOST and HOST_PINNED give host pictures from the context's
 * pool, page-locked while the GPU computes, so that they are copied to the
 * device straight from where the caller wrote them. DEVICE gives pictures
 * whose data[] are device addresses (CUdeviceptr) in the imported state's
 * context (device 0's primary context when none was imported), rows
 * stride[] bytes apart, zeroed when first made: the caller fills them on
 * the GPU (FFmpeg's libvmaf_cuda copies each frame's luma device to
 * device) and they enter the frame pipeline with no copy through the host.
 * Work the caller queued on the legacy default stream (or did
 * synchronously) before vmaf_read_pictures() is complete before the
 * library reads them. Extractors without a CUDA twin get the samples
 * downloaded, once per picture. Without CUDA in the build or a device,
 * DEVICE fails with the reason logged.
 * @return 0 or a negative errno.
 */
int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                   VmafCudaPictureConfiguration cfg);

/**
 * A picture of the configured geometry, owned by the caller until handed
 * to vmaf_read_pictures(). @return 0 or a negative errno.
 */
int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_CUDA_H__ */
