#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "gpu/dev_picture.h"
#include "log.h"
#include "mem.h"
#include "picture_internal.h"
#include "exactvmaf/exactvmaf.h"
#include "os/os.h"

/*
 * A pool keeps freed buffers of one geometry for reuse: a fresh zeroed
 * buffer per frame costs page faults (about 5 ms per 1080p frame pair).
 * The pool lives until its owner closed it and every buffer came back.
 * A GPU backend may page-lock every buffer of the pool (pin), so that its
 * uploads copy straight from the pictures; the pool remembers each buffer
 * it made to undo that before the backend goes.
 */
struct VmafPicturePool {
    pthread_mutex_t lock;
    void **free_buf;
    unsigned n_free, capacity;
    void **all;                 /* every buffer made and not freed */
    unsigned n_all, cap_all;
    size_t size;                /* bytes of each buffer, page-rounded */
    VmafPinFn pin;
    VmafUnpinFn unpin;
    void *pin_arg;
    atomic_int refs;            /* the owner + one per buffer handed out */
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
};

/* Pool buffers start on a page and fill whole pages (vmaf_mem_map_size):
 * the unit of pinning. */

struct VmafRef {
    atomic_int cnt;
    void *buf;
    VmafPicturePool *pool;      /* NULL: buf is freed with the last reference */
    /* A device picture (gpu/dev_picture.h): buf is NULL, the planes are
     * dev's; `host` is its host copy once vmaf_picture_host() made one. */
    VmafDevPicture *dev;
    pthread_mutex_t host_lock;
    VmafPicture host;
};

/*
 * Pool buffers are mapped rather than allocated (mem.h): fresh anonymous
 * pages read as zero without being written, so a buffer costs nothing until
 * it is filled (a reader asked to stop halfway through a giant frame does not
 * first wait for gigabytes to be cleared), goes back to the system whole, and
 * from 2 MiB up comes in huge pages, which a frame fills at a fraction of
 * the page faults' cost.
 */
static void *pool_buf_new(size_t size)
{
    return vmaf_mem_map(size);
}

static void pool_buf_free(void *buf, size_t size)
{
    vmaf_mem_unmap(buf, size);
}

/* A header claiming 2e9 x 2e9 is refused here rather than attempted. */
#define VMAF_PICTURE_MAX_DIM 32768u

/* Fill pic's geometry; returns the buffer size, 0 for bad arguments. */
static size_t layout(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, size_t offset[3])
{
    memset(pic, 0, sizeof(*pic));
    if (bpc < 8 || bpc > 16) return 0;
    if (!w || !h || w > VMAF_PICTURE_MAX_DIM || h > VMAF_PICTURE_MAX_DIM) return 0;
    if (pix_fmt != VMAF_PIX_FMT_YUV420P && pix_fmt != VMAF_PIX_FMT_YUV422P &&
        pix_fmt != VMAF_PIX_FMT_YUV444P && pix_fmt != VMAF_PIX_FMT_YUV400P)
        return 0;

    const unsigned ss_x = pix_fmt == VMAF_PIX_FMT_YUV420P || pix_fmt == VMAF_PIX_FMT_YUV422P;
    const unsigned ss_y = pix_fmt == VMAF_PIX_FMT_YUV420P;
    const unsigned bytes = bpc > 8 ? 2 : 1;
    const unsigned planes = pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;

    pic->pix_fmt = pix_fmt;
    pic->bpc = bpc;
    size_t total = 0;
    for (unsigned p = 0; p < planes; p++) {
        /* Chroma sizes round down, as libvmaf's: chroma metrics see the
         * same samples as Netflix's on odd sizes. */
        pic->w[p] = p ? w >> ss_x : w;
        pic->h[p] = p ? h >> ss_y : h;
        if (!pic->w[p] || !pic->h[p]) return 0;
        /* 64-byte aligned rows: room for any vector width. */
        pic->stride[p] = (ptrdiff_t)((((size_t)pic->w[p] * bytes) + 63) & ~(size_t)63);
        offset[p] = total;
        total += (size_t)pic->stride[p] * pic->h[p];
    }
    return (total + 63) & ~(size_t)63;
}

static int attach(VmafPicture *pic, void *buf, const size_t offset[3], VmafPicturePool *pool)
{
    VmafRef *ref = calloc(1, sizeof(*ref));
    if (!ref) return -ENOMEM;
    atomic_init(&ref->cnt, 1);
    ref->buf = buf;
    ref->pool = pool;
    const unsigned planes = pic->pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
    for (unsigned p = 0; p < planes; p++)
        pic->data[p] = (uint8_t *)buf + offset[p];
    pic->ref = ref;
    return 0;
}

VMAF_EXPORT int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                                   unsigned bpc, unsigned w, unsigned h)
{
    if (!pic) return -EINVAL;
    size_t offset[3] = { 0 };
    const size_t size = layout(pic, pix_fmt, bpc, w, h, offset);
    if (!size) {
        memset(pic, 0, sizeof(*pic));
        return -EINVAL;
    }
    void *buf = vmaf_os_aligned_alloc(64, size);
    if (!buf) return -ENOMEM;
    memset(buf, 0, size);
    int err = attach(pic, buf, offset, NULL);
    if (err) vmaf_os_aligned_free(buf);
    return err;
}

/* Forget a buffer that is about to be freed (pool lock held). */
static void pool_forget(VmafPicturePool *pool, void *buf)
{
    for (unsigned i = 0; i < pool->n_all; i++) {
        if (pool->all[i] != buf) continue;
        if (pool->unpin) pool->unpin(pool->pin_arg, buf);
        pool->all[i] = pool->all[--pool->n_all];
        return;
    }
}

static void pool_release(VmafPicturePool *pool)
{
    if (atomic_fetch_sub(&pool->refs, 1) != 1) return;
    for (unsigned i = 0; i < pool->n_free; i++) {
        pool_forget(pool, pool->free_buf[i]);
        pool_buf_free(pool->free_buf[i], pool->size);
    }
    free(pool->free_buf);
    free(pool->all);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

void vmaf_picture_pool_pin(VmafPicturePool *pool, VmafPinFn pin, VmafUnpinFn unpin,
                           void *arg)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    if (pool->unpin)
        for (unsigned i = 0; i < pool->n_all; i++) pool->unpin(pool->pin_arg, pool->all[i]);
    pool->pin = pin;
    pool->unpin = pin ? unpin : NULL;
    pool->pin_arg = arg;
    for (unsigned i = 0; pin && i < pool->n_all; i++) {
        if (!pin(arg, pool->all[i], pool->size)) continue;
        /* Still correct, only slower: copies then go through the driver's staging. */
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "pictures cannot be page-locked; "
                 "GPU uploads will be staged");
        pool->pin = NULL;
        break;
    }
    pthread_mutex_unlock(&pool->lock);
}

int vmaf_picture_pool_create(VmafPicturePool **out, enum VmafPixelFormat pix_fmt,
                             unsigned bpc, unsigned w, unsigned h)
{
    VmafPicture probe;
    size_t offset[3];
    if (!out || !layout(&probe, pix_fmt, bpc, w, h, offset)) return -EINVAL;
    VmafPicturePool *pool = calloc(1, sizeof(*pool));
    if (!pool) return -ENOMEM;
    if (pthread_mutex_init(&pool->lock, NULL)) {
        free(pool);
        return -ENOMEM;
    }
    atomic_init(&pool->refs, 1);
    pool->size = vmaf_mem_map_size(layout(&probe, pix_fmt, bpc, w, h, offset));
    pool->pix_fmt = pix_fmt;
    pool->bpc = bpc;
    pool->w = w;
    pool->h = h;
    *out = pool;
    return 0;
}

int vmaf_picture_pool_fetch(VmafPicturePool *pool, VmafPicture *pic)
{
    if (!pool || !pic) return -EINVAL;
    size_t offset[3] = { 0 };
    const size_t size = layout(pic, pool->pix_fmt, pool->bpc, pool->w, pool->h, offset);
    void *buf = NULL;
    pthread_mutex_lock(&pool->lock);
    if (pool->n_free) buf = pool->free_buf[--pool->n_free];
    pthread_mutex_unlock(&pool->lock);
    if (!buf) {
        /* A new buffer is zeroed like vmaf_picture_alloc's; a reused one
         * holds the previous frame's samples, which the caller overwrites. */
        (void)size;
        buf = pool_buf_new(pool->size);
        if (!buf) return -ENOMEM;
        pthread_mutex_lock(&pool->lock);
        if (pool->n_all == pool->cap_all) {
            const unsigned cap = pool->cap_all ? 2 * pool->cap_all : 16;
            void **n = realloc(pool->all, cap * sizeof(*n));
            if (!n) {
                pthread_mutex_unlock(&pool->lock);
                pool_buf_free(buf, pool->size);
                return -ENOMEM;
            }
            pool->all = n;
            pool->cap_all = cap;
        }
        pool->all[pool->n_all++] = buf;
        if (pool->pin && pool->pin(pool->pin_arg, buf, pool->size)) {
            vmaf_log(VMAF_LOG_LEVEL_WARNING, "a picture cannot be page-locked; "
                     "GPU uploads will be staged");
            pool->pin = NULL;
        }
        pthread_mutex_unlock(&pool->lock);
    }
    int err = attach(pic, buf, offset, pool);
    if (err) {
        pthread_mutex_lock(&pool->lock);
        pool_forget(pool, buf);
        pthread_mutex_unlock(&pool->lock);
        pool_buf_free(buf, pool->size);
        return err;
    }
    atomic_fetch_add(&pool->refs, 1);
    return 0;
}

void vmaf_picture_pool_usage(VmafPicturePool *pool, unsigned *buffers, size_t *bytes)
{
    pthread_mutex_lock(&pool->lock);
    *buffers = pool->n_all;
    *bytes = pool->size;
    pthread_mutex_unlock(&pool->lock);
}

void vmaf_picture_pool_close(VmafPicturePool *pool)
{
    if (pool) pool_release(pool);
}

int vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src)
{
    if (!dst || !src || !src->ref) return -EINVAL;
    atomic_fetch_add(&src->ref->cnt, 1);
    *dst = *src;
    return 0;
}

VMAF_EXPORT int exactvmaf_picture_ref(VmafPicture *dst, const VmafPicture *src)
{
    return vmaf_picture_ref(dst, src);
}

int vmaf_picture_wrap_device(VmafPicture *pic, VmafDevPicture *dp,
                             enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h)
{
    size_t offset[3];
    if (!pic || !dp || !layout(pic, pix_fmt, bpc, w, h, offset)) {
        if (pic) memset(pic, 0, sizeof(*pic));
        return -EINVAL;
    }
    VmafRef *ref = calloc(1, sizeof(*ref));
    if (!ref) return -ENOMEM;
    if (pthread_mutex_init(&ref->host_lock, NULL)) {
        free(ref);
        return -ENOMEM;
    }
    atomic_init(&ref->cnt, 1);
    ref->dev = dp;
    const unsigned planes = pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
    for (unsigned p = 0; p < planes; p++) {
        pic->data[p] = (void *)(uintptr_t)dp->addr[p];
        pic->stride[p] = (ptrdiff_t)dp->pitch[p];
    }
    pic->ref = ref;
    return 0;
}

int vmaf_picture_geometry(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                          unsigned w, unsigned h)
{
    size_t offset[3];
    return pic && layout(pic, pix_fmt, bpc, w, h, offset) ? 0 : -EINVAL;
}

VmafDevPicture *vmaf_picture_device(const VmafPicture *pic)
{
    return pic && pic->ref ? pic->ref->dev : NULL;
}

int vmaf_picture_host(const VmafPicture *pic, VmafPicture *host)
{
    if (!pic || !pic->ref || !host) return -EINVAL;
    VmafRef *ref = pic->ref;
    if (!ref->dev) return vmaf_picture_ref(host, pic);
    pthread_mutex_lock(&ref->host_lock);
    int err = 0;
    if (!ref->host.ref) {
        VmafPicture h;
        err = vmaf_picture_alloc(&h, pic->pix_fmt, pic->bpc, pic->w[0], pic->h[0]);
        if (!err) err = ref->dev->ops->download(ref->dev, &h);
        if (!err) ref->host = h;
        else if (h.ref) vmaf_picture_unref(&h);
    }
    if (!err) err = vmaf_picture_ref(host, &ref->host);
    pthread_mutex_unlock(&ref->host_lock);
    return err;
}

int vmaf_picture_to_host(VmafPicture *pic)
{
    if (!vmaf_picture_device(pic)) return 0;
    VmafPicture host;
    const int err = vmaf_picture_host(pic, &host);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "a device picture cannot be read back (%d)", err);
        return err;
    }
    vmaf_picture_unref(pic);
    *pic = host;
    return 0;
}

VMAF_EXPORT int vmaf_picture_unref(VmafPicture *pic)
{
    if (!pic) return -EINVAL;
    if (!pic->ref) return -EINVAL;
    VmafRef *ref = pic->ref;
    if (atomic_fetch_sub(&ref->cnt, 1) == 1) {
        VmafPicturePool *pool = ref->pool;
        if (ref->dev) {
            if (ref->host.ref) vmaf_picture_unref(&ref->host);
            pthread_mutex_destroy(&ref->host_lock);
            ref->dev->ops->release(ref->dev);
        } else if (pool) {
            int kept = 0;
            pthread_mutex_lock(&pool->lock);
            if (pool->n_free == pool->capacity) {
                unsigned cap = pool->capacity ? pool->capacity * 2 : 8;
                void **n = realloc(pool->free_buf, cap * sizeof(*n));
                if (n) {
                    pool->free_buf = n;
                    pool->capacity = cap;
                }
            }
            if (pool->n_free < pool->capacity) {
                pool->free_buf[pool->n_free++] = ref->buf;
                kept = 1;
            } else {
                pool_forget(pool, ref->buf);
            }
            pthread_mutex_unlock(&pool->lock);
            if (!kept) pool_buf_free(ref->buf, pool->size);
            pool_release(pool);
        } else {
            vmaf_os_aligned_free(ref->buf);
        }
        free(ref);
    }
    memset(pic, 0, sizeof(*pic));
    return 0;
}
