/*
 * CUDA device pictures (gpu/dev_picture.h): the pool behind
 * VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, the wrapping of a caller's
 * device frame (exactvmaf_cuda_picture_wrap), and the copy back to the host
 * for the few readers that need samples there.
 *
 * Ordering. A picture's `ready` event marks the end of the producer's
 * writes; the pipeline's streams (non-blocking) wait for it before reading.
 * A wrapped frame records it on the stream the caller names, at the wrap.
 * A pool picture is filled by the caller after the fetch with work the
 * library does not see (FFmpeg's filter copies with cuMemcpy2D, which for a
 * device-to-device copy may return before the copy is done); the event is
 * recorded on the legacy default stream when the picture is handed to
 * vmaf_read_pictures(), which orders it after every such copy.
 *
 * Lifetime. A picture's memory is given back (to the pool, or through the
 * caller's release callback) with its last reference, which the pipeline
 * drops once the frame's GPU work is done. The pool lives until its owner
 * closed it and every picture came back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"
#include "picture_internal.h"
#include "exactvmaf/exactvmaf.h"
#include "gpu/dev_picture.h"
#include "cuda_backend.h"
#include "cuda_common.h"

typedef struct DevPic DevPic;

struct EvcPicturePool {
    pthread_mutex_t lock;
    atomic_int refs;            /* the owner + one per picture handed out */
    CUcontext ctx;
    CUdevice dev;
    bool primary;               /* ctx is the device's primary context, retained here */
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    size_t size, off[3], pitch[3];
    DevPic **free_pic;          /* room for every picture made */
    unsigned n_free, n_made, cap;
};

struct DevPic {
    VmafDevPicture base;
    CUcontext ctx;
    CUevent ev;                 /* base.ready once recorded */
    EvcPicturePool *pool;       /* pooled: buf goes back there */
    CUdeviceptr buf;
    void (*release)(void *opaque);  /* wrapped: the caller's */
    void *opaque;
};

static unsigned plane_count(enum VmafPixelFormat f)
{
    return f == VMAF_PIX_FMT_YUV400P ? 1 : 3;
}

/* ---- Host copy ---- */

static int download(VmafDevPicture *dp, VmafPicture *host)
{
    DevPic *d = (DevPic *)dp;
    const EvcDriver *drv = evc_driver();
    int err = EVC_CHECK(drv->cuCtxPushCurrent(d->ctx));
    if (err) return err;
    if (dp->ready) err = EVC_CHECK(drv->cuEventSynchronize(dp->ready));
    uint8_t *row = NULL;
    for (unsigned p = 0; p < plane_count(host->pix_fmt) && !err; p++) {
        const bool semi = dp->layout == VMAF_DEV_SEMIPLANAR && p > 0;
        if (semi && p == 2) continue;           /* split with plane 1 */
        const unsigned w = host->w[p], h = host->h[p], b = dp->bytes;
        const size_t row_bytes = (size_t)w * b * (semi ? 2 : 1);
        EvcMemcpy2D c = { 0 };
        c.srcMemoryType = EVC_CU_MEMORYTYPE_DEVICE;
        c.srcDevice = dp->addr[p];
        c.srcPitch = dp->pitch[p];
        c.dstMemoryType = EVC_CU_MEMORYTYPE_HOST;
        c.WidthInBytes = row_bytes;
        c.Height = h;
        if (!semi && !dp->shift) {
            c.dstHost = host->data[p];
            c.dstPitch = (size_t)host->stride[p];
            err = EVC_CHECK(drv->cuMemcpy2DAsync(&c, NULL));
            if (!err) err = EVC_CHECK(drv->cuStreamSynchronize(NULL));
            continue;
        }
        /* Whole rows to a staging area, then split and shifted down here. */
        free(row);
        row = malloc(row_bytes * h);
        if (!row) {
            err = -ENOMEM;
            break;
        }
        c.dstHost = row;
        c.dstPitch = row_bytes;
        err = EVC_CHECK(drv->cuMemcpy2DAsync(&c, NULL));
        if (!err) err = EVC_CHECK(drv->cuStreamSynchronize(NULL));
        const unsigned step = semi ? 2 : 1;
        for (unsigned y = 0; y < h && !err; y++) {
            const uint8_t *src = row + (size_t)y * row_bytes;
            for (unsigned k = 0; k < step; k++) {
                uint8_t *dst = (uint8_t *)host->data[p + k] + (size_t)y * host->stride[p + k];
                if (b == 1) {
                    for (unsigned x = 0; x < w; x++)
                        dst[x] = (uint8_t)(src[(size_t)x * step + k] >> dp->shift);
                } else {
                    const uint16_t *s = (const uint16_t *)src;
                    for (unsigned x = 0; x < w; x++)
                        ((uint16_t *)dst)[x] = (uint16_t)(s[(size_t)x * step + k] >> dp->shift);
                }
            }
        }
    }
    free(row);
    CUcontext prev;
    drv->cuCtxPopCurrent(&prev);
    return err;
}

/* ---- Pool pictures ---- */

static void pool_release(EvcPicturePool *pool)
{
    if (atomic_fetch_sub(&pool->refs, 1) != 1) return;
    const EvcDriver *drv = evc_driver();
    if (!EVC_CHECK(drv->cuCtxPushCurrent(pool->ctx))) {
        for (unsigned i = 0; i < pool->n_free; i++) {
            DevPic *d = pool->free_pic[i];
            if (d->ev) EVC_CHECK(drv->cuEventDestroy(d->ev));
            EVC_CHECK(drv->cuMemFree(d->buf));
            free(d);
        }
        CUcontext prev;
        drv->cuCtxPopCurrent(&prev);
    }
    if (pool->primary) EVC_CHECK(drv->cuDevicePrimaryCtxRelease(pool->dev));
    free(pool->free_pic);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

static int pool_handed_over(VmafDevPicture *dp)
{
    DevPic *d = (DevPic *)dp;
    const EvcDriver *drv = evc_driver();
    int err = EVC_CHECK(drv->cuCtxPushCurrent(d->ctx));
    if (err) return err;
    /* The legacy default stream: after whatever the caller queued to fill it. */
    err = EVC_CHECK(drv->cuEventRecord(d->ev, NULL));
    CUcontext prev;
    drv->cuCtxPopCurrent(&prev);
    if (!err) dp->ready = d->ev;
    return err;
}

static void pool_pic_release(VmafDevPicture *dp)
{
    DevPic *d = (DevPic *)dp;
    EvcPicturePool *pool = d->pool;
    d->base.ready = NULL;
    pthread_mutex_lock(&pool->lock);
    /* The free list has room for every picture the pool made. */
    pool->free_pic[pool->n_free++] = d;
    pthread_mutex_unlock(&pool->lock);
    pool_release(pool);
}

static const VmafDevPictureOps pool_ops = {
    .download = download,
    .handed_over = pool_handed_over,
    .release = pool_pic_release,
};

int evc_picture_pool_create(EvcPicturePool **out, VmafCudaState *st,
                            enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h)
{
    *out = NULL;
    VmafPicture probe;
    /* The host pictures' checks; the device layout packs rows (pitch = row). */
    int err = vmaf_picture_geometry(&probe, pix_fmt, bpc, w, h);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: device pictures of %ux%u, %u bits, layout %d "
                 "cannot be made", w, h, bpc, (int)pix_fmt);
        return err;
    }
    EvcPicturePool *pool = calloc(1, sizeof(*pool));
    if (!pool || pthread_mutex_init(&pool->lock, NULL)) {
        free(pool);
        return -ENOMEM;
    }
    atomic_init(&pool->refs, 1);
    pool->pix_fmt = pix_fmt;
    pool->bpc = bpc;
    pool->w = w;
    pool->h = h;
    const size_t b = bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < plane_count(pix_fmt); p++) {
        pool->off[p] = pool->size;
        pool->pitch[p] = probe.w[p] * b;
        /* Planes start on 256 bytes, as the copy engines like. */
        pool->size += (pool->pitch[p] * probe.h[p] + 255) & ~(size_t)255;
    }
    if (st && !evc_state_primary(st)) {
        /* The caller's context: the caller keeps it for the pool's life. */
        pool->ctx = evc_state_context(st);
        pool->dev = evc_state_device(st);
    } else if (st) {
        /* A primary context: retained here too, for pictures that outlive the state. */
        pool->dev = evc_state_device(st);
        err = EVC_CHECK(evc_driver()->cuDevicePrimaryCtxRetain(&pool->ctx, pool->dev));
        if (err) {
            pthread_mutex_destroy(&pool->lock);
            free(pool);
            return err;
        }
        pool->primary = true;
    } else {
        char why[256] = "";
        err = evc_driver_load(why, sizeof(why));
        if (!err) err = EVC_CHECK(evc_driver()->cuDeviceGet(&pool->dev, 0));
        if (!err) err = EVC_CHECK(evc_driver()->cuDevicePrimaryCtxRetain(&pool->ctx, pool->dev));
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: device pictures need a CUDA device: %s",
                     why[0] ? why : "device 0 cannot be opened");
            pthread_mutex_destroy(&pool->lock);
            free(pool);
            return err;
        }
        pool->primary = true;
    }
    *out = pool;
    return 0;
}

/* A new picture buffer, zeroed: planes the caller leaves unwritten (FFmpeg's
 * filter copies luma only) read the same in every run. */
static int pool_new(EvcPicturePool *pool, DevPic **out)
{
    const EvcDriver *drv = evc_driver();
    DevPic *d = calloc(1, sizeof(*d));
    if (!d) return -ENOMEM;
    int err = EVC_CHECK(drv->cuMemAlloc(&d->buf, pool->size));
    if (!err) err = EVC_CHECK(drv->cuMemsetD8Async(d->buf, 0, pool->size, NULL));
    if (!err) err = EVC_CHECK(drv->cuEventCreate(&d->ev, EVC_CU_EVENT_DISABLE_TIMING));
    if (!err) err = EVC_CHECK(drv->cuStreamSynchronize(NULL));
    if (!err) {
        pthread_mutex_lock(&pool->lock);
        if (pool->n_made == pool->cap) {
            const unsigned cap = pool->cap ? 2 * pool->cap : 16;
            DevPic **n = realloc(pool->free_pic, cap * sizeof(*n));
            if (n) {
                pool->free_pic = n;
                pool->cap = cap;
            } else {
                err = -ENOMEM;
            }
        }
        if (!err) pool->n_made++;
        pthread_mutex_unlock(&pool->lock);
    }
    if (err) {
        if (d->ev) drv->cuEventDestroy(d->ev);
        if (d->buf) drv->cuMemFree(d->buf);
        free(d);
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: cannot allocate a device picture of %zu bytes",
                 pool->size);
        return err;
    }
    d->ctx = pool->ctx;
    d->pool = pool;
    d->base.ops = &pool_ops;
    d->base.context = pool->ctx;
    d->base.layout = VMAF_DEV_PLANAR;
    d->base.bytes = pool->bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < plane_count(pool->pix_fmt); p++) {
        d->base.addr[p] = d->buf + pool->off[p];
        d->base.pitch[p] = pool->pitch[p];
    }
    *out = d;
    return 0;
}

int evc_picture_pool_fetch(EvcPicturePool *pool, VmafPicture *pic)
{
    DevPic *d = NULL;
    pthread_mutex_lock(&pool->lock);
    if (pool->n_free) d = pool->free_pic[--pool->n_free];
    pthread_mutex_unlock(&pool->lock);
    int err = 0;
    if (!d) {
        const EvcDriver *drv = evc_driver();
        err = EVC_CHECK(drv->cuCtxPushCurrent(pool->ctx));
        if (err) return err;
        err = pool_new(pool, &d);
        CUcontext prev;
        drv->cuCtxPopCurrent(&prev);
        if (err) return err;
    }
    atomic_fetch_add(&pool->refs, 1);
    err = vmaf_picture_wrap_device(pic, &d->base, pool->pix_fmt, pool->bpc, pool->w, pool->h);
    if (err) pool_pic_release(&d->base);
    return err;
}

void evc_picture_pool_close(EvcPicturePool *pool)
{
    if (pool) pool_release(pool);
}

/* ---- Wrapped frames ---- */

static void wrap_release(VmafDevPicture *dp)
{
    DevPic *d = (DevPic *)dp;
    if (d->ev && !EVC_CHECK(evc_driver()->cuCtxPushCurrent(d->ctx))) {
        EVC_CHECK(evc_driver()->cuEventDestroy(d->ev));
        CUcontext prev;
        evc_driver()->cuCtxPopCurrent(&prev);
    }
    if (d->release) d->release(d->opaque);
    free(d);
}

static const VmafDevPictureOps wrap_ops = {
    .download = download,
    .release = wrap_release,
};

static int check_frame(const ExactvmafCudaFrame *f)
{
    const unsigned b = f->bpc > 8 ? 2 : 1;
    const bool semi = f->semi_planar != 0;
    if (f->bpc < 8 || f->bpc > 16 || f->shift > 16 - f->bpc || (b == 1 && f->shift)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: %u-bit samples shifted by %u do not fit "
                 "their %u-bit words", f->bpc, f->shift, 8 * b);
        return -EINVAL;
    }
    if (semi && (f->pix_fmt == VMAF_PIX_FMT_YUV400P || f->pix_fmt == VMAF_PIX_FMT_UNKNOWN)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: a semi-planar frame needs chroma");
        return -EINVAL;
    }
    /* The geometry alone: nothing is allocated on the decoder's hot path. */
    VmafPicture probe;
    if (vmaf_picture_geometry(&probe, f->pix_fmt, f->bpc, f->w, f->h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: %ux%u, %u bits, layout %d is not a "
                 "picture the library takes", f->w, f->h, f->bpc, (int)f->pix_fmt);
        return -EINVAL;
    }
    const unsigned planes = semi ? 2 : plane_count(f->pix_fmt);
    for (unsigned p = 0; p < planes; p++) {
        const size_t row = (size_t)probe.w[p] * b * (semi && p ? 2 : 1);
        if (!f->data[p] || f->pitch[p] < row || f->data[p] % b || f->pitch[p] % b) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: plane %u has %s (rows of %zu bytes; "
                     "%u-byte samples need their address and pitch aligned to %u)", p,
                     !f->data[p] ? "no address" : f->pitch[p] < row ? "a pitch too small" :
                     "a misaligned address or pitch", row, b, b);
            return -EINVAL;
        }
    }
    return 0;
}

/* The context of the allocation holding `addr`; NULL when it is not device memory. */
static CUcontext context_of(unsigned long long addr)
{
    CUcontext ctx = NULL;
    if (evc_driver()->cuPointerGetAttribute(&ctx, EVC_CU_POINTER_ATTRIBUTE_CONTEXT,
                                            (CUdeviceptr)addr))
        return NULL;
    return ctx;
}

VMAF_EXPORT int exactvmaf_cuda_picture_wrap(VmafPicture *pic, const ExactvmafCudaFrame *frame)
{
    if (!pic || !frame) return -EINVAL;
    memset(pic, 0, sizeof(*pic));
    int err = check_frame(frame);
    if (err) return err;
    char why[256] = "";
    err = evc_driver_load(why, sizeof(why));
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: %s", why);
        return err;
    }
    const EvcDriver *drv = evc_driver();
    DevPic *d = calloc(1, sizeof(*d));
    if (!d) return -ENOMEM;
    /* The allocations say which context and device they belong to; an
     * address that is not device memory, or planes of two contexts, are
     * refused here rather than faulting on the GPU later. */
    d->ctx = context_of(frame->data[0]);
    for (unsigned p = 1; d->ctx && p < (frame->semi_planar ? 2u : plane_count(frame->pix_fmt));
         p++) {
        if (context_of(frame->data[p]) != d->ctx) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: plane %u (0x%llx) is not device memory "
                     "of plane 0's context", p, frame->data[p]);
            free(d);
            return -EINVAL;
        }
    }
    if (!d->ctx) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda frame: plane 0 (0x%llx) is not CUDA device "
                 "memory", frame->data[0]);
        free(d);
        return -EINVAL;
    }
    err = EVC_CHECK(drv->cuCtxPushCurrent(d->ctx));
    if (err) {
        free(d);
        return err;
    }
    err = EVC_CHECK(drv->cuEventCreate(&d->ev, EVC_CU_EVENT_DISABLE_TIMING));
    if (!err) err = EVC_CHECK(drv->cuEventRecord(d->ev, (CUstream)frame->cu_stream));
    if (err && d->ev) drv->cuEventDestroy(d->ev);
    CUcontext prev;
    drv->cuCtxPopCurrent(&prev);
    if (err) {
        free(d);
        return err;
    }
    const bool semi = frame->semi_planar != 0;
    d->base.ops = &wrap_ops;
    d->base.context = d->ctx;
    d->base.layout = semi ? VMAF_DEV_SEMIPLANAR : VMAF_DEV_PLANAR;
    d->base.shift = frame->shift;
    d->base.bytes = frame->bpc > 8 ? 2 : 1;
    d->base.ready = d->ev;
    for (unsigned p = 0; p < plane_count(frame->pix_fmt); p++) {
        /* Semi-planar: Cr is the second sample of plane 1's pairs. */
        d->base.addr[p] = semi && p == 2 ? frame->data[1] + d->base.bytes : frame->data[p];
        d->base.pitch[p] = semi && p == 2 ? frame->pitch[1] : frame->pitch[p];
    }
    err = vmaf_picture_wrap_device(pic, &d->base, frame->pix_fmt, frame->bpc, frame->w,
                                   frame->h);
    if (err) {
        /* Nothing taken over: the caller keeps its frame. */
        d->release = NULL;
        wrap_release(&d->base);
        return err;
    }
    d->release = frame->release;
    d->opaque = frame->opaque;
    return 0;
}
