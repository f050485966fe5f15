/*
 * libvmaf's CUDA API (include/libvmaf/libvmaf_cuda.h) on exactvmaf's CUDA
 * plumbing: the CUDA state and caller's frames. Built in every
 * configuration; without CUDA kernels the state functions fail with
 * -ENOSYS and say why. The calls that take a context are the context's
 * (vmaf_cuda_import_state in src/context_settings.c, the preallocated
 * pictures in src/context_pictures.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "export.h"
#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "exactvmaf/exactvmaf.h"
#include "log.h"
#include "cuda_backend.h"

#if defined(EXACTVMAF_HAVE_CUDA) && EXACTVMAF_HAVE_CUDA

#include "cuda_common.h"

VMAF_EXPORT int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    vmaf_log_bind(0);
    if (!cu_state) return -EINVAL;
    *cu_state = NULL;
    if (cfg.cu_ctx) return evc_state_wrap(cu_state, (CUcontext)cfg.cu_ctx);
    char why[256] = "";
    const int err = evc_state_open(cu_state, 0, why, sizeof(why));
    if (err) vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: %s", why);
    return err;
}

#else

#include <stdio.h>
#include <string.h>


#define NO_CUDA "this exactvmaf was built without CUDA kernels (nvcc was not found, " \
                "or -Dcuda=disabled)"

int evc_device_count(int *count, char *why, size_t why_len)
{
    *count = 0;
    if (why && why_len) snprintf(why, why_len, "%s", NO_CUDA);
    return -ENOSYS;
}

int evc_host_register(VmafCudaState *st, void *p, size_t bytes)
{
    (void)st, (void)p, (void)bytes;
    return -ENOSYS;
}

void evc_host_unregister(VmafCudaState *st, void *p)
{
    (void)st, (void)p;
}

int evc_device_open(VmafGpuDev **dev, int gpu_index, char *why, size_t why_len)
{
    (void)gpu_index;
    *dev = NULL;
    if (why && why_len) snprintf(why, why_len, "%s", NO_CUDA);
    return -ENOSYS;
}

int evc_device_wrap(VmafGpuDev **dev, VmafCudaState *st)
{
    (void)st;
    *dev = NULL;
    return -ENOSYS;
}

int evc_state_open(VmafCudaState **st, int gpu_index, char *why, size_t why_len)
{
    (void)gpu_index;
    *st = NULL;
    if (why && why_len) snprintf(why, why_len, "%s", NO_CUDA);
    return -ENOSYS;
}

void evc_state_close(VmafCudaState *st)
{
    (void)st;
}

int evc_state_take(VmafCudaState **dst, VmafCudaState *src)
{
    (void)src;
    *dst = NULL;
    return -ENOSYS;
}

const char *evc_state_device_name(const VmafCudaState *st)
{
    (void)st;
    return "no CUDA device";
}

int evc_picture_pool_create(EvcPicturePool **pool, VmafCudaState *st,
                            enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h)
{
    (void)st, (void)pix_fmt, (void)bpc, (void)w, (void)h;
    *pool = NULL;
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: pictures in device memory need CUDA: %s", NO_CUDA);
    return -ENOSYS;
}

int evc_picture_pool_fetch(EvcPicturePool *pool, VmafPicture *pic)
{
    (void)pool, (void)pic;
    return -ENOSYS;
}

void evc_picture_pool_close(EvcPicturePool *pool)
{
    (void)pool;
}

VMAF_EXPORT int exactvmaf_cuda_picture_wrap(VmafPicture *pic, const ExactvmafCudaFrame *frame)
{
    vmaf_log_bind(0);
    (void)frame;
    if (pic) memset(pic, 0, sizeof(*pic));
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: %s", NO_CUDA);
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    vmaf_log_bind(0);
    (void)cfg;
    if (!cu_state) return -EINVAL;
    *cu_state = NULL;
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: %s", NO_CUDA);
    return -ENOSYS;
}

#endif
