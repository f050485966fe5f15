/*
 * What the core (context, public API) needs from the CUDA backend. Built in
 * every configuration: without CUDA kernels (cuda_api.c's stubs) opening a
 * state fails with -ENOSYS and says why.
 */
#ifndef EXACTVMAF_CUDA_BACKEND_H
#define EXACTVMAF_CUDA_BACKEND_H

#include <stddef.h>

#include "libvmaf/picture.h"

typedef struct VmafCudaState VmafCudaState;
typedef struct VmafContext VmafContext;
typedef struct VmafGpuDev VmafGpuDev;

/** How many CUDA devices this machine has; on failure `why` says why. */
int evc_device_count(int *count, char *why, size_t why_len);
/** Open device gpu_index; on failure `why` says why (no driver, no device, no kernels). */
int evc_state_open(VmafCudaState **st, int gpu_index, char *why, size_t why_len);
void evc_state_close(VmafCudaState *st);
/** Move what src holds into a new state (the context's), leaving src empty. */
int evc_state_take(VmafCudaState **dst, VmafCudaState *src);
const char *evc_state_device_name(const VmafCudaState *st);

/**
 * Page-lock host memory for every context (asynchronous copies straight
 * from it); st names the device whose context makes the call. The unlock
 * tolerates memory that was never locked.
 */
int evc_host_register(VmafCudaState *st, void *p, size_t bytes);
void evc_host_unregister(VmafCudaState *st, void *p);

/** Device `gpu_index` as a device of the GPU layer (gpu/device.h). */
int evc_device_open(VmafGpuDev **dev, int gpu_index, char *why, size_t why_len);
/** A state as a device of the GPU layer; takes the state over (closed on failure too). */
int evc_device_wrap(VmafGpuDev **dev, VmafCudaState *st);

/**
 * Pictures in device memory (VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
 * cuda_picture.c): a pool of one geometry in st's context (NULL: device 0's
 * primary context). Pictures fetched from it are device pictures
 * (gpu/dev_picture.h); the pool is freed once closed and every picture is
 * back. Without CUDA kernels in the build, creating one fails with -ENOSYS.
 */
typedef struct EvcPicturePool EvcPicturePool;
int evc_picture_pool_create(EvcPicturePool **pool, VmafCudaState *st,
                            enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h);
int evc_picture_pool_fetch(EvcPicturePool *pool, VmafPicture *pic);
void evc_picture_pool_close(EvcPicturePool *pool);

#endif
