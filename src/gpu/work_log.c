/*
 * A lane's queued calls: what a twin queues (vmaf_gpu_launch, _memset,
 * _copy, _upload, _download; the pipeline's events) and the work log they
 * go to while a frame's twins queue.
 *
 * Queueing a frame's kernels call by call costs the submitting thread some
 * microseconds per call, which bounds small frames (a 1080p frame of a
 * v1.0.16 model makes some sixty calls). So while a frame's twins queue
 * their work, their calls are written to the lane's log instead of the
 * device; the log then goes to the device as a graph (CUDA). A lane's
 * frames make the same calls frame after frame (the same kernels on the
 * same lane buffers, the same events), so when this frame's log equals the
 * one the lane's graph was made from, that graph is launched again as it
 * is: one call per frame. Otherwise (the first frames, a changed frame) the
 * log is captured into a new graph. The calls are compared byte for byte
 * (kernel, grid, every argument's bytes, copy sizes and host addresses,
 * events), so a relaunched graph does exactly what the calls would do.
 * Without graphs (OpenCL) the log is replayed call by call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/work_log.h"
#include "log.h"

enum { LOG_LAUNCH = 1, LOG_MEMSET, LOG_COPY, LOG_UPLOAD, LOG_DOWNLOAD, LOG_RECORD, LOG_WAIT };

#define LOG_ALIGN 8u

static int log_reserve(WorkLog *g, size_t more)
{
    if (g->len + more <= g->cap) return 0;
    size_t cap = g->cap ? g->cap : 4096;
    while (cap < g->len + more) cap *= 2;
    uint8_t *n = realloc(g->buf, cap);
    if (!n) return -ENOMEM;
    g->buf = n;
    g->cap = cap;
    return 0;
}

/* Bytes a field of n bytes takes in the log. */
static size_t log_size(size_t n)
{
    return gpu_round_up(n, LOG_ALIGN);
}

/* Append n bytes, zero-padded to LOG_ALIGN (reserved by the caller). */
static void log_put(WorkLog *g, const void *p, size_t n)
{
    if (n) memcpy(g->buf + g->len, p, n);
    memset(g->buf + g->len + n, 0, log_size(n) - n);
    g->len += log_size(n);
}

/* One call: its kind, then its fields, each padded. */
static int log_call(VmafGpuLane *l, uint32_t op, const void *a, size_t na, const void *b,
                    size_t nb, const void *c, size_t nc)
{
    WorkLog *g = &l->log[0];
    const int err = log_reserve(g, log_size(sizeof(op)) + log_size(na) + log_size(nb) +
                                   log_size(nc));
    if (err) return err;
    log_put(g, &op, sizeof(op));
    log_put(g, a, na);
    log_put(g, b, nb);
    log_put(g, c, nc);
    return 0;
}

typedef struct LogLaunch {
    VmafGpuKernel *k;
    uint32_t gx, gy, gz, bx, by, n_args;
} LogLaunch;

typedef struct LogArg {
    uint64_t size;
    uint64_t ptr;
} LogArg;

static int log_launch(VmafGpuLane *l, VmafGpuKernel *k, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, const VmafGpuArg *args, unsigned n_args)
{
    WorkLog *g = &l->log[0];
    LogLaunch h;
    memset(&h, 0, sizeof(h));
    h.k = k;
    h.gx = gx, h.gy = gy, h.gz = gz, h.bx = bx, h.by = by, h.n_args = n_args;
    size_t need = log_size(sizeof(uint32_t)) + log_size(sizeof(h));
    for (unsigned i = 0; i < n_args; i++)
        need += log_size(sizeof(LogArg)) + log_size(args[i].size);
    const int err = log_reserve(g, need);
    if (err) return err;
    const uint32_t op = LOG_LAUNCH;
    log_put(g, &op, sizeof(op));
    log_put(g, &h, sizeof(h));
    for (unsigned i = 0; i < n_args; i++) {
        const LogArg a = { args[i].size, args[i].ptr };
        log_put(g, &a, sizeof(a));
        log_put(g, args[i].p, args[i].size);
    }
    return 0;
}

#define LOG_ARGS_MAX 64

/* Queue the calls of log g on the lane's queue. */
static int log_replay(VmafGpuLane *l, const WorkLog *g)
{
    const VmafGpuOps *o = l->ops;
    const uint8_t *p = g->buf, *end = g->buf + g->len;
    int err = 0;
#define TAKE(dst) (memcpy(&(dst), p, sizeof(dst)), p += log_size(sizeof(dst)))
    while (p < end && !err) {
        uint32_t op;
        TAKE(op);
        switch (op) {
        case LOG_LAUNCH: {
            LogLaunch h;
            TAKE(h);
            if (h.n_args > LOG_ARGS_MAX) return -EINVAL;
            VmafGpuArg args[LOG_ARGS_MAX];
            for (unsigned i = 0; i < h.n_args; i++) {
                LogArg a;
                TAKE(a);
                /* The bytes stay in the log, 8-aligned: a VmafGpuPtr is read in place. */
                args[i] = (VmafGpuArg){ p, (size_t)a.size, a.ptr != 0 };
                p += log_size((size_t)a.size);
            }
            err = o->launch(l->stream, h.k, h.gx, h.gy, h.gz, h.bx, h.by, args, h.n_args);
            break;
        }
        case LOG_MEMSET: {
            VmafGpuPtr d;
            size_t n;
            TAKE(d);
            TAKE(n);
            err = o->memset0(l->stream, d, n);
            break;
        }
        case LOG_COPY: {
            VmafGpuPtr d, sp;
            size_t n;
            TAKE(d);
            TAKE(sp);
            TAKE(n);
            err = o->copy(l->stream, d, sp, n);
            break;
        }
        case LOG_UPLOAD: {
            VmafGpuPtr d;
            const void *src;
            size_t n;
            TAKE(d);
            TAKE(src);
            TAKE(n);
            err = o->upload(l->stream, d, src, n);
            break;
        }
        case LOG_DOWNLOAD: {
            void *d;
            VmafGpuPtr src;
            size_t n;
            TAKE(d);
            TAKE(src);
            TAKE(n);
            err = o->download(l->stream, d, src, n);
            break;
        }
        case LOG_RECORD:
        case LOG_WAIT: {
            VmafGpuEvent *e;
            TAKE(e);
            err = op == LOG_RECORD ? o->record(l->stream, e) : o->wait(l->stream, e);
            break;
        }
        default:
            return -EINVAL;
        }
    }
#undef TAKE
    return err;
}

/* The twins' part of a frame is queued: run this frame's log. */
int gpu_log_flush(VmafGpu *gpu, VmafGpuLane *l)
{
    WorkLog *cur = &l->log[0], *last = &l->log[1];
    if (!l->graphs) return log_replay(l, cur);
    if (l->graph && cur->len == last->len &&
        (!cur->len || !memcmp(cur->buf, last->buf, cur->len))) {
        gpu->n_graph_launch++;
        return l->ops->graph_launch(l->stream, l->graph);
    }
    int err = l->ops->graph_begin(l->stream);
    if (err) return err;
    err = log_replay(l, cur);
    /* End the capture also after a failed call, leaving the queue usable. */
    VmafGpuGraph *g = NULL;
    const int err_end = l->ops->graph_end(l->st, l->stream, &g);
    if (!err) err = err_end;
    if (err) {
        l->ops->graph_destroy(l->st, g);
        /* A capture another thread's call invalidated (a device-wide
         * synchronisation: a decoder freeing memory, say) ran nothing: the
         * log queues the same work call by call, and the lane keeps its
         * previous graph. */
        if (log_replay(l, cur)) return err;
        /* Handled, the bits unchanged: no warning for the user (NVDEC's
         * decoders in the same process do this now and then), a count in
         * the profile (EXACTVMAF_GPU_PROFILE=1). */
        gpu->n_graph_replayed++;
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "%s: a frame's work could not be captured as a graph "
                 "(%d); it was queued call by call", gpu_backend_name(gpu), err);
        return 0;
    }
    l->ops->graph_destroy(l->st, l->graph);
    l->graph = g;
    const WorkLog t = *last;
    *last = *cur;
    *cur = t;
    gpu->n_graph_build++;
    gpu->n_graph_launch++;
    return l->ops->graph_launch(l->stream, l->graph);
}

/* ---- The calls: to the log while logging, else to the queue ---- */

int gpu_lane_record(VmafGpuLane *l, VmafGpuEvent *e)
{
    if (l->logging) return log_call(l, LOG_RECORD, &e, sizeof(e), NULL, 0, NULL, 0);
    return l->ops->record(l->stream, e);
}

int gpu_lane_wait(VmafGpuLane *l, VmafGpuEvent *e)
{
    if (l->logging) return log_call(l, LOG_WAIT, &e, sizeof(e), NULL, 0, NULL, 0);
    return l->ops->wait(l->stream, e);
}

int vmaf_gpu_launch_args(VmafGpuLane *l, VmafGpuKernel *k, unsigned nx, unsigned ny,
                         unsigned nz, unsigned bx, unsigned by, const VmafGpuArg *args,
                         unsigned n_args)
{
    if (!nx || !ny || !nz) return 0;
    const unsigned gx = (nx + bx - 1) / bx, gy = (ny + by - 1) / by;
    if (l->logging) return log_launch(l, k, gx, gy, nz, bx, by, args, n_args);
    return l->ops->launch(l->stream, k, gx, gy, nz, bx, by, args, n_args);
}

int vmaf_gpu_memset(VmafGpuLane *l, VmafGpuPtr p, size_t bytes)
{
    if (!bytes) return 0;
    if (l->logging) return log_call(l, LOG_MEMSET, &p, sizeof(p), &bytes, sizeof(bytes), NULL, 0);
    return l->ops->memset0(l->stream, p, bytes);
}

int vmaf_gpu_copy(VmafGpuLane *l, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes)
{
    if (!bytes) return 0;
    if (l->logging)
        return log_call(l, LOG_COPY, &dst, sizeof(dst), &src, sizeof(src), &bytes, sizeof(bytes));
    return l->ops->copy(l->stream, dst, src, bytes);
}

int vmaf_gpu_upload(VmafGpuLane *l, VmafGpuPtr dst, const void *src, size_t bytes)
{
    if (!bytes) return 0;
    if (l->logging)
        return log_call(l, LOG_UPLOAD, &dst, sizeof(dst), &src, sizeof(src), &bytes, sizeof(bytes));
    return l->ops->upload(l->stream, dst, src, bytes);
}

int vmaf_gpu_download(VmafGpuLane *l, void *dst, VmafGpuPtr src, size_t bytes)
{
    if (!bytes) return 0;
    if (l->logging)
        return log_call(l, LOG_DOWNLOAD, &dst, sizeof(dst), &src, sizeof(src), &bytes,
                        sizeof(bytes));
    return l->ops->download(l->stream, dst, src, bytes);
}

int vmaf_gpu_read(const VmafGpuFrame *fr, void *dst, VmafGpuPtr src, size_t bytes)
{
    VmafGpuLane *l = fr->lane;
    if (!bytes) return 0;
    /* In prepare or conclude: the lane's queue is idle (its frame is done)
     * and nothing else queues there until the frame is concluded. */
    int err = l->ops->enter(l->st);
    if (err) return err;
    err = l->ops->download(l->stream, dst, src, bytes);
    if (!err) err = l->ops->queue_sync(l->stream);
    l->ops->leave(l->st);
    return err;
}

