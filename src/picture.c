#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"
#include "picture_internal.h"

struct VmafRef {
    atomic_int cnt;
    void *buf;
};

/* A header claiming 2e9 x 2e9 is refused here rather than attempted. */
#define VMAF_PICTURE_MAX_DIM 32768u

VMAF_EXPORT int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                                   unsigned bpc, unsigned w, unsigned h)
{
    if (!pic) return -EINVAL;
    memset(pic, 0, sizeof(*pic));
    if (bpc < 8 || bpc > 16) return -EINVAL;
    if (!w || !h || w > VMAF_PICTURE_MAX_DIM || h > VMAF_PICTURE_MAX_DIM) return -EINVAL;
    if (pix_fmt != VMAF_PIX_FMT_YUV420P && pix_fmt != VMAF_PIX_FMT_YUV422P &&
        pix_fmt != VMAF_PIX_FMT_YUV444P && pix_fmt != VMAF_PIX_FMT_YUV400P)
        return -EINVAL;

    const unsigned ss_x = pix_fmt == VMAF_PIX_FMT_YUV420P || pix_fmt == VMAF_PIX_FMT_YUV422P;
    const unsigned ss_y = pix_fmt == VMAF_PIX_FMT_YUV420P;
    const unsigned bytes = bpc > 8 ? 2 : 1;
    const unsigned planes = pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;

    pic->pix_fmt = pix_fmt;
    pic->bpc = bpc;
    size_t total = 0;
    size_t offset[3] = { 0 };
    for (unsigned p = 0; p < 3; p++) {
        if (p >= planes) break;
        /* Chroma sizes round down, as libvmaf's: chroma metrics see the
         * same samples as Netflix's on odd sizes. */
        pic->w[p] = p ? w >> ss_x : w;
        pic->h[p] = p ? h >> ss_y : h;
        if (!pic->w[p] || !pic->h[p]) return -EINVAL;
        /* 64-byte aligned rows: room for any vector width. */
        pic->stride[p] = (ptrdiff_t)((((size_t)pic->w[p] * bytes) + 63) & ~(size_t)63);
        offset[p] = total;
        total += (size_t)pic->stride[p] * pic->h[p];
    }

    VmafRef *ref = malloc(sizeof(*ref));
    if (!ref) return -ENOMEM;
    void *buf = aligned_alloc(64, (total + 63) & ~(size_t)63);
    if (!buf) {
        free(ref);
        return -ENOMEM;
    }
    memset(buf, 0, total);
    atomic_init(&ref->cnt, 1);
    ref->buf = buf;
    for (unsigned p = 0; p < planes; p++)
        pic->data[p] = (uint8_t *)buf + offset[p];
    pic->ref = ref;
    return 0;
}

int vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src)
{
    if (!dst || !src || !src->ref) return -EINVAL;
    atomic_fetch_add(&src->ref->cnt, 1);
    *dst = *src;
    return 0;
}

VMAF_EXPORT int vmaf_picture_unref(VmafPicture *pic)
{
    if (!pic) return -EINVAL;
    if (!pic->ref) return -EINVAL;
    if (atomic_fetch_sub(&pic->ref->cnt, 1) == 1) {
        free(pic->ref->buf);
        free(pic->ref);
    }
    memset(pic, 0, sizeof(*pic));
    return 0;
}
