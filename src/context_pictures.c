/*
 * The context's preallocated pictures: the host pool (page-locked while a
 * GPU runs) and, through libvmaf's CUDA API, the pool of device pictures
 * (src/gpu/cuda/cuda_picture.c), fetched by the caller to fill.
 */
#include <errno.h>
#include <stdlib.h>

#include "context_internal.h"
#include "export.h"
#include "libvmaf/libvmaf_cuda.h"
#include "log.h"

VMAF_EXPORT int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !cfg.pic_cnt || vmaf->pool) return -EINVAL;
    int err = vmaf_picture_pool_create(&vmaf->pool, cfg.pic_params.pix_fmt, cfg.pic_params.bpc,
                                       cfg.pic_params.w, cfg.pic_params.h);
    if (err) return err;
    vmaf_ctx_pin_pool(vmaf);
    /* Fill the pool up front: its buffers exist (and are page-locked for a
     * GPU) before the first frame. Their pages come as the frames fill them. */
    VmafPicture *pics = calloc(cfg.pic_cnt, sizeof(*pics));
    if (!pics) return -ENOMEM;
    for (unsigned i = 0; i < cfg.pic_cnt && !err; i++)
        err = vmaf_picture_pool_fetch(vmaf->pool, &pics[i]);
    for (unsigned i = 0; i < cfg.pic_cnt; i++)
        if (pics[i].ref) vmaf_picture_unref(&pics[i]);
    free(pics);
    return err;
}

/* Pictures in device memory (METHOD_DEVICE), in the imported state's
 * context (the caller's, say FFmpeg's), else device 0's. */
static int preallocate_device(VmafContext *vmaf, enum VmafPixelFormat pix_fmt, unsigned bpc,
                              unsigned w, unsigned h)
{
    if (vmaf->pool || vmaf->dev_pool || vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, vmaf->started ?
                 "device pictures must be preallocated before the first picture" :
                 "pictures were preallocated already");
        return -EINVAL;
    }
    return evc_picture_pool_create(&vmaf->dev_pool, vmaf->cuda, pix_fmt, bpc, w, h);
}

VMAF_EXPORT int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !pic || !vmaf->pool) return -EINVAL;
    return vmaf_picture_pool_fetch(vmaf->pool, pic);
}

VMAF_EXPORT int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                               VmafCudaPictureConfiguration cfg)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    switch (cfg.pic_prealloc_method) {
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED:
        break;
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE:
        return preallocate_device(vmaf, cfg.pic_params.pix_fmt, cfg.pic_params.bpc,
                                  cfg.pic_params.w, cfg.pic_params.h);
    default:
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: unknown picture preallocation method %d",
                 (int)cfg.pic_prealloc_method);
        return -EINVAL;
    }
    /* Host pictures are reference counted and freed when the library is done
     * with them, so the pool needs no fixed size. */
    VmafPictureConfiguration pc = { .pic_cnt = 1 };
    pc.pic_params.w = cfg.pic_params.w;
    pc.pic_params.h = cfg.pic_params.h;
    pc.pic_params.bpc = cfg.pic_params.bpc;
    pc.pic_params.pix_fmt = cfg.pic_params.pix_fmt;
    return vmaf_preallocate_pictures(vmaf, pc);
}

VMAF_EXPORT int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !pic) return -EINVAL;
    if (vmaf->dev_pool) return evc_picture_pool_fetch(vmaf->dev_pool, pic);
    return vmaf_fetch_preallocated_picture(vmaf, pic);
}
