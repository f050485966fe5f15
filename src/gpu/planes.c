/*
 * A frame's planes on its lane: the pictures' planes uploaded (or copied
 * from device pictures, split and shifted on the GPU), the float planes
 * converted once per frame however many twins read them, the primed
 * planes of the frames before a block, and the host copies of device
 * pictures a twin's host work asks for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dev_picture.h"
#include "gpu/planes.h"
#include "gpu/work_log.h"
#include "log.h"
#include "picture_internal.h"

/* ---- Planes ---- */

int vmaf_gpu_plane(const VmafGpuFrame *fr, unsigned which, unsigned plane, VmafGpuPtr *out)
{
    if (which > 1 || plane > 2 || !fr->lane->plane[which][plane].mem) return -EINVAL;
    *out = fr->lane->plane[which][plane];
    return 0;
}

int vmaf_gpu_primed_plane(const VmafGpuFrame *fr, unsigned back, unsigned which,
                          unsigned plane, VmafGpuPtr *out)
{
    if (!back || back > VMAF_GPU_MAX_HISTORY || !(fr->primed >> (back - 1) & 1) ||
        which > 1 || plane > 2 || !fr->lane->prime[back - 1][which][plane].mem)
        return -EINVAL;
    *out = fr->lane->prime[back - 1][which][plane];
    return 0;
}

/* Convert raw samples to floats on the lane's stream (common.cu). */
static int convert(VmafGpuLane *l, VmafGpuPtr raw, unsigned w, unsigned h, float offset,
                   VmafGpuPtr dst, size_t pitch)
{
    const VmafGpu *gpu = l->gpu;
    int iw = (int)w, ih = (int)h, ip = (int)pitch;
    float scale = gpu->bpc == 10 ? 4.0f : gpu->bpc == 12 ? 16.0f : 256.0f;
    if (gpu->bpc > 8) {
        VmafGpuArg args[] = { VMAF_GPU_ARG(raw), VMAF_GPU_ARG(iw), VMAF_GPU_ARG(ih),
                              VMAF_GPU_ARG(scale), VMAF_GPU_ARG(offset), VMAF_GPU_ARG(dst),
                              VMAF_GPU_ARG(ip) };
        return vmaf_gpu_launch(l, l->k_float, w, h, 1, 32, 8, args);
    }
    VmafGpuArg args[] = { VMAF_GPU_ARG(raw), VMAF_GPU_ARG(iw), VMAF_GPU_ARG(ih),
                          VMAF_GPU_ARG(offset), VMAF_GPU_ARG(dst), VMAF_GPU_ARG(ip) };
    return vmaf_gpu_launch(l, l->k_float, w, h, 1, 32, 8, args);
}

static FloatSlot *find_slot(FloatSlot *slots, unsigned which, unsigned plane, float offset)
{
    for (unsigned i = 0; i < 2 * MAX_FLOATS; i++) {
        FloatSlot *s = &slots[i];
        if (s->p.mem && s->which == which && s->plane == plane && s->offset == offset) return s;
    }
    return NULL;
}

int vmaf_gpu_plane_float(const VmafGpuFrame *fr, unsigned which, unsigned plane,
                         float offset, VmafGpuPtr *out, size_t *pitch)
{
    VmafGpuLane *l = fr->lane;
    if (which > 1 || plane > 2) return -EINVAL;
    FloatSlot *s = find_slot(l->fl, which, plane, offset);
    if (!s || !l->plane[which][plane].mem) return -EINVAL;
    if (s->valid_seq != fr->seq + 1) {
        unsigned w, h;
        gpu_plane_dims(l->gpu, plane, &w, &h);
        const int err = convert(l, l->plane[which][plane], w, h, offset, s->p, s->pitch);
        if (err) return err;
        s->valid_seq = fr->seq + 1;
    }
    *out = s->p;
    *pitch = s->pitch;
    return 0;
}

int vmaf_gpu_primed_float(const VmafGpuFrame *fr, unsigned back, unsigned which,
                          unsigned plane, float offset, VmafGpuPtr *out, size_t *pitch)
{
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr raw;
    int err = vmaf_gpu_primed_plane(fr, back, which, plane, &raw);
    if (err) return err;
    FloatSlot *s = find_slot(l->prime_fl[back - 1], which, plane, offset);
    if (!s) return -EINVAL;
    if (s->valid_seq != fr->seq + 1) {
        unsigned w, h;
        gpu_plane_dims(l->gpu, plane, &w, &h);
        err = convert(l, raw, w, h, offset, s->p, s->pitch);
        if (err) return err;
        s->valid_seq = fr->seq + 1;
    }
    *out = s->p;
    *pitch = s->pitch;
    return 0;
}

/* ---- Uploads ---- */

/*
 * Component p of device picture dp to the packed plane dst, on the GPU: a
 * copy where the samples are planar and unshifted, else the unpack kernel
 * (gpu/common_kernels.h), which picks every step-th sample and shifts it
 * down. Semi-planar chroma is plane 1 of dp, Cr one sample after Cb.
 */
static int device_plane(VmafGpu *gpu, VmafGpuLane *l, const VmafDevPicture *dp, unsigned p,
                        VmafGpuPtr dst)
{
    unsigned w, h;
    gpu_plane_dims(gpu, p, &w, &h);
    const bool semi = dp->layout == VMAF_DEV_SEMIPLANAR && p > 0;
    const unsigned q = semi ? 1 : p;
    const uint64_t src = dp->addr[q] + (semi && p == 2 ? dp->bytes : 0);
    const size_t bytes = gpu_sample_bytes(gpu);
    gpu->prof_bytes += (double)w * h * bytes;
    if (!semi && !dp->shift)
        return l->ops->copy_2d_in(l->stream, dst, src, dp->pitch[q], (size_t)w * bytes, h);
    VmafGpuPtr s = { src, 0 };
    int spitch = (int)dp->pitch[q], step = semi ? 2 : 1, iw = (int)w, ih = (int)h;
    int shift = (int)dp->shift;
    VmafGpuArg args[] = { VMAF_GPU_ARG(s), VMAF_GPU_ARG(spitch), VMAF_GPU_ARG(step),
                          VMAF_GPU_ARG(iw), VMAF_GPU_ARG(ih), VMAF_GPU_ARG(shift),
                          VMAF_GPU_ARG(dst) };
    return vmaf_gpu_launch(l, l->k_unpack, w, h, 1, 32, 8, args);
}

/* Whether the lane reads dp's memory itself: its own context (memory of
 * another context, or another device's, would fault in the lane's
 * kernels). Else its host copy is uploaded. */
static bool reads_device_picture(const VmafGpuLane *l, const VmafDevPicture *dp)
{
    return dp && l->ops->copy_2d_in && l->k_unpack &&
           l->ops->native_context(l->st) == dp->context;
}

int gpu_upload_planes(VmafGpu *gpu, VmafGpuLane *l, const VmafPicture *const pic[2],
                         VmafGpuPtr dst[2][3])
{
    const size_t bytes = gpu_sample_bytes(gpu);
    for (unsigned k = 0; k < 2; k++) {
        const VmafPicture *src = pic[k];
        VmafPicture host = { 0 };
        const VmafDevPicture *dp = vmaf_picture_device(src);
        int err = 0;
        if (dp && !reads_device_picture(l, dp)) {
            /* Another context's or another API's memory: through the host
             * (downloaded once per picture, kept with it). */
            err = vmaf_picture_host(src, &host);
            src = &host;
            dp = NULL;
        } else if (dp && dp->ready) {
            err = l->ops->wait_native(l->stream, dp->ready);
        }
        for (unsigned p = 0; p < gpu_plane_count(gpu->pix_fmt) && !err; p++) {
            if (!(gpu->planes[k] & (1u << p))) continue;
            if (dp) {
                err = device_plane(gpu, l, dp, p, dst[k][p]);
                continue;
            }
            unsigned w, h;
            gpu_plane_dims(gpu, p, &w, &h);
            err = l->ops->upload_2d(l->stream, dst[k][p], src->data[p],
                                    (size_t)src->stride[p], (size_t)w * bytes, h);
            gpu->prof_bytes += (double)w * h * bytes;
        }
        /* A host copy lives with its device picture, which the lane holds. */
        if (host.ref) vmaf_picture_unref(&host);
        if (err) return err;
    }
    return 0;
}

int vmaf_gpu_host_pictures(const VmafGpuFrame *fr, const VmafPicture *pic[2])
{
    VmafGpuLane *l = fr->lane;
    for (unsigned k = 0; k < 2; k++) {
        pic[k] = fr->pic[k];
        if (!vmaf_picture_device(fr->pic[k])) continue;
        /* A frame's twins run one after another: no two threads at once. */
        if (!l->host_pic[k].ref) {
            const int err = vmaf_picture_host(fr->pic[k], &l->host_pic[k]);
            if (err) {
                vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame %u: the device picture cannot be "
                         "read back (%d)", fr->index, err);
                return err;
            }
        }
        pic[k] = &l->host_pic[k];
    }
    return 0;
}

void gpu_release_pictures(VmafGpuLane *l)
{
    for (unsigned k = 0; k < 2; k++) {
        if (l->pic[k].ref) vmaf_picture_unref(&l->pic[k]);
        if (l->host_pic[k].ref) vmaf_picture_unref(&l->host_pic[k]);
    }
    for (unsigned b = 0; b < VMAF_GPU_MAX_HISTORY; b++)
        for (unsigned k = 0; k < 2; k++)
            if (l->prime_pic[b][k].ref) vmaf_picture_unref(&l->prime_pic[b][k]);
}

