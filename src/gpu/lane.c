/*
 * Lanes (see pipeline.h): one frame in flight each, with its queue, its
 * events, the frame's uploaded planes, and every twin's buffers, which the
 * twins allocate here (vmaf_gpu_alloc, vmaf_gpu_alloc_host, vmaf_gpu_const)
 * and the lane frees. The memory arena: a device's later lanes carve their
 * buffers from one block of the first lane's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/lane.h"
#include "log.h"

VMAF_GPU_PROGRAM_DECLARE(common);
/* The pipeline's own kernels: samples to floats (common.cu, common.cl). */
static const VmafGpuProgram common_program = VMAF_GPU_PROGRAM(common);

VmafGpuDev *vmaf_gpu_lane_device(const VmafGpuLane *l)
{
    return l->st;
}

unsigned vmaf_gpu_lane_id(const VmafGpuLane *l)
{
    return l->id;
}

/* ---- The memory arena and the twins' buffers ---- */

/* Carving alignment: a CUDA allocation's own, and any access width. */
#define LANE_ALIGN 256u

static size_t lane_round(size_t bytes)
{
    return gpu_round_up(bytes ? bytes : 1, LANE_ALIGN);
}

static int remember_dalloc(VmafGpuLane *l, VmafGpuPtr p, size_t bytes)
{
    if (l->n_dalloc == l->cap_dalloc) {
        const unsigned cap = l->cap_dalloc ? 2 * l->cap_dalloc : 32;
        DevAlloc *n = realloc(l->dalloc, cap * sizeof(*n));
        if (!n) return -ENOMEM;
        l->dalloc = n;
        l->cap_dalloc = cap;
    }
    l->dalloc[l->n_dalloc++] = (DevAlloc){ p, bytes };
    return 0;
}

static int remember_halloc(VmafGpuLane *l, void *p)
{
    if (l->n_halloc == l->cap_halloc) {
        const unsigned cap = l->cap_halloc ? 2 * l->cap_halloc : 16;
        void **n = realloc(l->halloc, cap * sizeof(*n));
        if (!n) return -ENOMEM;
        l->halloc = n;
        l->cap_halloc = cap;
    }
    l->halloc[l->n_halloc++] = p;
    return 0;
}

/*
 * Every lane of a pipeline holds the same buffers. The first lane of a
 * device allocates them one by one and so measures them; each later lane
 * reserves that much at once (one device and one pinned allocation) and
 * carves its buffers from it, which makes setting up many frames in flight
 * cheap (an allocation is a driver call; pinned ones are slow). A buffer
 * that does not fit is allocated on its own.
 */
static int lane_reserve(VmafGpuLane *l, size_t dev_bytes, size_t host_bytes)
{
    int err = 0;
    if (dev_bytes) {
        VmafGpuPtr a;
        err = l->ops->alloc(l->st, &a, dev_bytes);
        if (err) return err;
        err = remember_dalloc(l, a, dev_bytes);
        if (err) {
            l->ops->free(l->st, &a, dev_bytes);
            return err;
        }
        l->arena = a;
        l->arena_size = dev_bytes;
        err = l->ops->memset0(l->stream, a, dev_bytes);
        if (err) return err;
    }
    if (host_bytes) {
        void *h = NULL;
        err = l->ops->host_alloc(l->st, &h, host_bytes);
        if (err) return err;
        err = remember_halloc(l, h);
        if (err) {
            l->ops->host_free(l->st, &h);
            return err;
        }
        l->harena = h;
        l->harena_size = host_bytes;
    }
    return 0;
}

int vmaf_gpu_alloc(VmafGpuLane *l, VmafGpuPtr *p, size_t bytes)
{
    *p = (VmafGpuPtr){ 0, 0 };
    const size_t r = lane_round(bytes);
    if (l->arena_size - l->arena_used >= r) {
        *p = vmaf_gpu_at(l->arena, l->arena_used);
        l->arena_used += r;
        l->bytes += r;
        return 0;
    }
    const int err = l->ops->alloc(l->st, p, r);
    if (err) return err;
    const int err2 = remember_dalloc(l, *p, r);
    if (err2) {
        l->ops->free(l->st, p, r);
        return err2;
    }
    l->bytes += r;
    return l->ops->memset0(l->stream, *p, r);
}

int vmaf_gpu_alloc_host(VmafGpuLane *l, void **p, size_t bytes)
{
    *p = NULL;
    const size_t r = lane_round(bytes);
    if (l->harena_size - l->harena_used >= r) {
        *p = l->harena + l->harena_used;
        l->harena_used += r;
        l->host_bytes += r;
        return 0;
    }
    const int err = l->ops->host_alloc(l->st, p, r);
    if (err) return err;
    const int err2 = remember_halloc(l, *p);
    if (err2) {
        l->ops->host_free(l->st, p);
        return err2;
    }
    l->host_bytes += r;
    return 0;
}

int vmaf_gpu_const(VmafGpuLane *l, VmafGpuPtr *p, const void *src, size_t bytes)
{
    int err = vmaf_gpu_alloc(l, p, bytes);
    /* Synchronous: the host table may go as soon as this returns. */
    if (!err) err = l->ops->upload(l->stream, *p, src, bytes);
    if (!err) err = l->ops->queue_sync(l->stream);
    return err;
}

int vmaf_gpu_kernel(VmafGpuLane *l, const VmafGpuProgram *prog, const char *name,
                    VmafGpuKernel **k)
{
    return l->ops->kernel(l->st, prog, name, k);
}

size_t vmaf_gpu_pitch_floats(unsigned w)
{
    /* 128-byte rows: a warp's row segment is one cache line. */
    return ((size_t)w + 31) & ~(size_t)31;
}

/* ---- A lane's life ---- */

void gpu_lane_free(VmafGpuLane *l)
{
    if (!l) return;
    for (unsigned i = 0; i < 2; i++) {
        free(l->log[i].buf);
        l->log[i] = (WorkLog){ NULL, 0, 0 };
    }
    if (!l->st) return;
    const VmafGpuOps *o = l->ops;
    if (o->enter(l->st)) return;
    /* Downloads land in host memory asynchronously (OpenCL's reads go
     * straight into it): host memory is freed only once the queue is
     * drained. A failed drain is tried once more (a fault may be passing);
     * where it fails again the device's transfers may still land, so the
     * host memory is left allocated rather than freed under them. */
    const bool drained = !l->stream || !o->queue_sync(l->stream) || !o->queue_sync(l->stream);
    if (!drained)
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "%s: the queue of GPU lane %u cannot be drained; its "
                 "%u host buffers are left allocated", o->name, l->id, l->n_halloc);
    VmafGpu *gpu = l->gpu;
    for (unsigned t = 0; t < gpu->n_twin; t++) {
        free(l->lp[t]);
        l->lp[t] = NULL;
    }
    for (unsigned i = 0; i < l->n_dalloc; i++)
        o->free(l->st, &l->dalloc[i].p, l->dalloc[i].bytes);
    for (unsigned i = 0; drained && i < l->n_halloc; i++)
        o->host_free(l->st, &l->halloc[i]);
    free(l->dalloc);
    free(l->halloc);
    l->dalloc = NULL;
    l->halloc = NULL;
    l->n_dalloc = l->n_halloc = l->cap_dalloc = l->cap_halloc = 0;
    if (l->done) o->event_destroy(l->st, l->done);
    for (unsigned t = 0; t < MAX_TWINS; t++)
        if (l->twin_ev[t]) o->event_destroy(l->st, l->twin_ev[t]);
    for (unsigned i = 0; i < PROF_TWIN0 + MAX_TWINS; i++)
        if (l->prof[i]) o->event_destroy(l->st, l->prof[i]);
    if (l->graph) o->graph_destroy(l->st, l->graph);
    l->graph = NULL;
    if (l->stream) o->queue_destroy(l->st, l->stream);
    o->leave(l->st);
    l->st = NULL;
}

int gpu_lane_create(VmafGpu *gpu, VmafGpuLane *l, unsigned id, unsigned dev,
                       const VmafGpuLane *like)
{
    memset(l, 0, sizeof(*l));
    l->gpu = gpu;
    l->id = id;
    l->dev = dev;
    l->st = gpu->dev[dev];
    l->ops = l->st->ops;
    const VmafGpuOps *o = l->ops;
    int err = o->enter(l->st);
    if (err) {
        l->st = NULL;
        return err;
    }
    err = o->queue_create(l->st, &l->stream);
    l->graphs = gpu->graphs && o->graph_ok && o->graph_ok(l->st);
    if (!err && like) err = lane_reserve(l, like->bytes, like->host_bytes);
    /* The completion thread sleeps on `done` instead of spinning. */
    if (!err) err = o->event_create(l->st, &l->done, false);
    for (unsigned t = 0; t < gpu->n_twin && !err; t++)
        if (gpu->twin[t].history) err = o->event_create(l->st, &l->twin_ev[t], false);
    for (unsigned i = 0; gpu->prof && i < PROF_TWIN0 + gpu->n_twin && !err; i++)
        err = o->event_create(l->st, &l->prof[i], true);
    if (!err && gpu->n_fl)
        err = o->kernel(l->st, &common_program,
                        gpu->bpc > 8 ? "evc_to_float_u16" : "evc_to_float_u8", &l->k_float);
    if (!err && o->copy_2d_in)
        err = o->kernel(l->st, &common_program,
                        gpu->bpc > 8 ? "evc_unpack_u16" : "evc_unpack_u8", &l->k_unpack);

    const size_t bytes = gpu_sample_bytes(gpu);
    const unsigned n_prime = gpu->n_dev > 1 ? gpu->history : 0;
    for (unsigned p = 0; p < gpu_plane_count(gpu->pix_fmt) && !err; p++) {
        unsigned pw, ph;
        gpu_plane_dims(gpu, p, &pw, &ph);
        for (unsigned k = 0; k < 2 && !err; k++) {
            if (!(gpu->planes[k] & (1u << p))) continue;
            err = vmaf_gpu_alloc(l, &l->plane[k][p], (size_t)pw * ph * bytes);
            for (unsigned b = 0; b < n_prime && !err; b++)
                err = vmaf_gpu_alloc(l, &l->prime[b][k][p], (size_t)pw * ph * bytes);
        }
    }
    unsigned n_slot = 0;
    for (unsigned i = 0; i < gpu->n_fl && !err; i++) {
        const VmafGpuFloatUse *f = &gpu->fl[i];
        unsigned pw, ph;
        gpu_plane_dims(gpu, f->plane, &pw, &ph);
        const size_t pitch = vmaf_gpu_pitch_floats(pw);
        for (unsigned k = 0; k < 2 && !err; k++) {
            if (!(f->which_mask & (1u << k))) continue;
            FloatSlot *s = &l->fl[n_slot];
            *s = (FloatSlot){ .which = k, .plane = f->plane, .offset = f->offset, .pitch = pitch };
            err = vmaf_gpu_alloc(l, &s->p, pitch * ph * sizeof(float));
            for (unsigned b = 0; b < n_prime && !err; b++) {
                FloatSlot *ps = &l->prime_fl[b][n_slot];
                *ps = *s;
                err = vmaf_gpu_alloc(l, &ps->p, pitch * ph * sizeof(float));
            }
            n_slot++;
        }
    }
    o->leave(l->st);
    if (err) return err;

    for (unsigned t = 0; t < gpu->n_twin && !err; t++) {
        VmafFex *fex = gpu->twin[t].fex;
        const size_t sz = fex->twin->lane_size;
        l->lp[t] = calloc(1, sz ? sz : 1);
        if (!l->lp[t]) return -ENOMEM;
        err = o->enter(l->st);
        if (err) return err;
        err = fex->twin->lane_init(fex, l, l->lp[t]);
        o->leave(l->st);
    }
    /* The zeroing done: where memory is short, it fails here, while the
     * lanes can still be fewer (an OpenCL driver commits a buffer's memory
     * at its first use, not at its creation). */
    if (!err) err = o->enter(l->st);
    if (!err) {
        err = o->queue_sync(l->stream);
        o->leave(l->st);
    }
    return err;
}

