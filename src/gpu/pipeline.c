/*
 * The GPU frame pipeline (see pipeline.h): lanes, submission, the
 * completion thread, history and priming, and the optional profile.
 *
 * Threads: the caller's thread submits (uploads and queues kernels); one
 * completion thread waits for each frame's lane in submission order and
 * runs the twins' conclusions there. A twin's enqueue and conclude may run
 * at the same time for different frames: enqueue touches the lane state of
 * the frame it queues, conclude that of the frame it concludes, and any
 * host state the two share must be the twin's own affair (none does).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "feature/extractor.h"
#include "fex_internal.h"
#include "gpu/dev_picture.h"
#include "log.h"
#include "opt.h"
#include "picture_internal.h"
#include "pipeline.h"

VMAF_GPU_PROGRAM_DECLARE(common);
/* The pipeline's own kernels: samples to floats (common.cu, common.cl). */
static const VmafGpuProgram common_program = { "common", VMAF_GPU_CUDA(common),
                                               VMAF_GPU_OPENCL(common) };

#define MAX_TWINS 32
/* Most prepare workers per pipeline. */
#define MAX_WORKERS 16
#define MAX_FLOATS 8
/* Frames per device block when several devices share the frames: long
 * enough that priming (re-uploading the frames before a block) is rare. */
#define BLOCK_FRAMES_PER_LANE 8

typedef struct FloatDecl {
    unsigned which_mask, plane;
    float offset;
} FloatDecl;

typedef struct TwinReg {
    VmafFex *fex;
    unsigned history;       /* frames back it reads; 0: not temporal */
    char *share_key;        /* vmaf_gpu_share's key, or NULL */
    VmafFex *leader;        /* a follower's leader: nothing to queue */
    double ms;              /* profile: GPU time of its work */
    double host_ms;         /* profile: its enqueue's time on the submitting thread */
    double prepare_ms;      /* profile: its prepare's time, all workers together */
    double conclude_ms;     /* profile: its conclude's time on the completion thread */
} TwinReg;

typedef struct FloatSlot {
    unsigned which, plane;
    float offset;
    VmafGpuPtr p;
    size_t pitch;
    unsigned valid_seq;     /* seq + 1 of the frame converted into p */
} FloatSlot;

typedef struct DevAlloc {
    VmafGpuPtr p;
    size_t bytes;
} DevAlloc;

enum { PROF_START, PROF_UPLOADED, PROF_TWIN0 };

/* The calls a frame's twins made on its lane, in order, as bytes. */
typedef struct WorkLog {
    uint8_t *buf;
    size_t len, cap;
} WorkLog;

struct VmafGpuLane {
    VmafGpu *gpu;
    unsigned id, dev;
    VmafGpuDev *st;
    const VmafGpuOps *ops;
    VmafGpuQueue *stream;
    VmafGpuEvent *done;
    VmafGpuEvent *twin_ev[MAX_TWINS];   /* after a temporal twin's work */
    VmafGpuEvent *prof[PROF_TWIN0 + MAX_TWINS];
    VmafGpuKernel *k_float;             /* common: samples to floats */
    VmafGpuKernel *k_unpack;            /* common: a device picture's component to a plane */
    VmafGpuPtr plane[2][3];
    VmafGpuPtr prime[VMAF_GPU_MAX_HISTORY][2][3];
    FloatSlot fl[2 * MAX_FLOATS];
    FloatSlot prime_fl[VMAF_GPU_MAX_HISTORY][2 * MAX_FLOATS];
    void *lp[MAX_TWINS];
    DevAlloc *dalloc;
    unsigned n_dalloc, cap_dalloc;
    void **halloc;
    unsigned n_halloc, cap_halloc;
    size_t bytes;                   /* device memory of this lane */
    size_t host_bytes;              /* pinned host memory of this lane */
    /* Lanes after the first take their memory as one device and one pinned
     * block of the first lane's size, carved (see vmaf_gpu_alloc). */
    VmafGpuPtr arena;
    size_t arena_size, arena_used;
    uint8_t *harena;
    size_t harena_size, harena_used;

    /* The lane's frame work as a graph (see "Work log"). */
    bool logging;                   /* the twins' calls go to log[cur] */
    bool graphs;                    /* the device has graphs */
    WorkLog log[2];                 /* this frame's, the graph's */
    VmafGpuGraph *graph;            /* log[1] as one launch, or NULL */

    /* The frame in the lane (while busy). */
    bool busy, all, failed;
    bool prepared;                  /* its twins' prepare ran (with workers) */
    bool waited;                    /* a worker waited for its GPU work ... */
    int wait_err;                   /* ... with this result */
    unsigned dev_seq;               /* its number among this device's frames */
    VmafGpuFrame fr;
    VmafPicture pic[2];
    VmafPicture prime_pic[VMAF_GPU_MAX_HISTORY][2];
    VmafPicture host_pic[2];        /* pic's host copies, when a twin asked */
};

struct VmafGpu {
    VmafGpuDev *dev[VMAF_GPU_MAX_DEVICES];
    unsigned n_dev;
    VmafGpuConfig cfg;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;

    TwinReg twin[MAX_TWINS];
    unsigned n_twin;
    /* Declarations of the twin whose init is running (vmaf_gpu_add). */
    TwinReg pending;
    const VmafFeatureExtractor *pending_desc;
    unsigned pending_planes[2];
    FloatDecl pending_fl[MAX_FLOATS];
    unsigned n_pending_fl;

    unsigned planes[2];             /* plane masks to upload, ref and dist */
    FloatDecl fl[MAX_FLOATS];
    unsigned n_fl;
    unsigned history;

    VmafGpuLane **lane;             /* K per device, device after device */
    unsigned k, n_lanes;
    size_t n_alloc_lanes;           /* entries of `lane` (before packing) */
    unsigned block;                 /* frames per device block */
    unsigned dev_count[VMAF_GPU_MAX_DEVICES];   /* frames submitted per device */
    VmafGpuLane **order;            /* lane of submission seq, ring of n_lanes */
    VmafPicture recent[VMAF_GPU_MAX_HISTORY][2];    /* last pictures, for priming */
    unsigned n_recent;

    pthread_mutex_t lock;
    pthread_cond_t cond_work, cond_free, cond_prepared;
    pthread_t thread;
    bool started, thread_on, stop;
    unsigned n_submitted, n_concluded;
    /* Workers for the twins' prepare, when one has it: each claims the next
     * submitted frame, waits for its lane and runs the prepares there. */
    pthread_t worker[MAX_WORKERS];
    unsigned n_workers, n_claimed;
    int err;
    unsigned err_seq;               /* frames from this seq on are dropped */

    bool graphs;                    /* lanes use graphs where the device has them */
    unsigned n_graph_launch, n_graph_build;

    /* Profile (EXACTVMAF_CUDA_PROFILE=1). */
    bool prof;
    double prof_upload_ms, prof_bytes, prof_submit_ms;
    unsigned prof_frames;
    struct timespec t_first, t_last;
};

/* ---- Small helpers ---- */

/* The threads: the twins' prepare, the conclusions in order. */
static void *worker_main(void *arg);
static void *completion_main(void *arg);

static bool any_prepare(const VmafGpu *gpu)
{
    for (unsigned t = 0; t < gpu->n_twin; t++)
        if (gpu->twin[t].fex->twin->prepare) return true;
    return false;
}

static unsigned plane_count(enum VmafPixelFormat f)
{
    return f == VMAF_PIX_FMT_YUV400P ? 1 : 3;
}

static void plane_dims(const VmafGpu *gpu, unsigned p, unsigned *w, unsigned *h)
{
    const unsigned ss_x = gpu->pix_fmt == VMAF_PIX_FMT_YUV420P ||
                          gpu->pix_fmt == VMAF_PIX_FMT_YUV422P;
    const unsigned ss_y = gpu->pix_fmt == VMAF_PIX_FMT_YUV420P;
    *w = p ? gpu->w >> ss_x : gpu->w;
    *h = p ? gpu->h >> ss_y : gpu->h;
}

static size_t sample_bytes(const VmafGpu *gpu)
{
    return gpu->bpc > 8 ? 2 : 1;
}

/* A temporal extractor sees every frame, subsampled or not. */
static bool every_frame(const TwinReg *tr)
{
    return tr->fex->desc->flags & VMAF_FEX_TEMPORAL;
}

static int twin_index(const VmafGpu *gpu, const VmafFex *fex)
{
    for (unsigned t = 0; t < gpu->n_twin; t++)
        if (gpu->twin[t].fex == fex) return (int)t;
    return -1;
}

static void set_error(VmafGpu *gpu, int err, unsigned seq)
{
    pthread_mutex_lock(&gpu->lock);
    if (!gpu->err || seq < gpu->err_seq) {
        if (!gpu->err) gpu->err = err;
        gpu->err_seq = seq;
    }
    pthread_cond_broadcast(&gpu->cond_free);
    pthread_mutex_unlock(&gpu->lock);
}

/* ---- Creation and declarations ---- */

static void close_devices(VmafGpuDev **dev, unsigned n_dev)
{
    for (unsigned d = 0; d < n_dev; d++)
        if (dev[d]) dev[d]->ops->close(dev[d]);
}

int vmaf_gpu_create(VmafGpu **out, VmafGpuDev **dev, unsigned n_dev,
                    const VmafGpuConfig *cfg, enum VmafPixelFormat pix_fmt, unsigned bpc,
                    unsigned w, unsigned h)
{
    if (!out || !dev || !n_dev || n_dev > VMAF_GPU_MAX_DEVICES) {
        if (dev) close_devices(dev, n_dev <= VMAF_GPU_MAX_DEVICES ? n_dev : 0);
        return -EINVAL;
    }
    for (unsigned d = 1; d < n_dev; d++)
        if (dev[d]->ops != dev[0]->ops) {
            close_devices(dev, n_dev);
            return -EINVAL;
        }
    VmafGpu *gpu = calloc(1, sizeof(*gpu));
    if (!gpu) goto fail;
    if (pthread_mutex_init(&gpu->lock, NULL)) goto fail;
    if (pthread_cond_init(&gpu->cond_work, NULL)) {
        pthread_mutex_destroy(&gpu->lock);
        goto fail;
    }
    if (pthread_cond_init(&gpu->cond_free, NULL)) {
        pthread_cond_destroy(&gpu->cond_work);
        pthread_mutex_destroy(&gpu->lock);
        goto fail;
    }
    if (pthread_cond_init(&gpu->cond_prepared, NULL)) {
        pthread_cond_destroy(&gpu->cond_free);
        pthread_cond_destroy(&gpu->cond_work);
        pthread_mutex_destroy(&gpu->lock);
        goto fail;
    }
    for (unsigned d = 0; d < n_dev; d++) gpu->dev[d] = dev[d];
    gpu->n_dev = n_dev;
    if (cfg) gpu->cfg = *cfg;
    gpu->pix_fmt = pix_fmt;
    gpu->bpc = bpc;
    gpu->w = w;
    gpu->h = h;
    const char *p = getenv("EXACTVMAF_GPU_PROFILE");
    if (!p) p = getenv("EXACTVMAF_CUDA_PROFILE");
    gpu->prof = p && *p && strcmp(p, "0");
    /* EXACTVMAF_GPU_GRAPHS=0 queues every call as it comes (for comparison). */
    const char *g = getenv("EXACTVMAF_GPU_GRAPHS");
    gpu->graphs = !(g && !strcmp(g, "0"));
    *out = gpu;
    return 0;

fail:
    free(gpu);
    close_devices(dev, n_dev);
    return -ENOMEM;
}

VmafGpuDev *vmaf_gpu_device(VmafGpu *gpu)
{
    return gpu->dev[0];
}

unsigned vmaf_gpu_device_count(const VmafGpu *gpu)
{
    return gpu->n_dev;
}

const char *vmaf_gpu_backend(const VmafGpu *gpu)
{
    return gpu->dev[0]->ops->name;
}

bool vmaf_gpu_fp64(const VmafGpu *gpu)
{
    for (unsigned d = 0; d < gpu->n_dev; d++)
        if (!gpu->dev[d]->ops->has_fp64(gpu->dev[d])) return false;
    return true;
}

bool vmaf_gpu_runs(const VmafGpu *gpu, const VmafGpuProgram *prog)
{
    if (!prog) return false;
    return gpu->dev[0]->ops->api == VMAF_GPU_API_CUDA ? prog->cuda != NULL
                                                      : prog->opencl != NULL;
}

void vmaf_gpu_use_plane(VmafGpu *gpu, unsigned which_mask, unsigned plane)
{
    if (plane >= plane_count(gpu->pix_fmt)) return;
    for (unsigned k = 0; k < 2; k++)
        if (which_mask & (1u << k)) gpu->pending_planes[k] |= 1u << plane;
}

int vmaf_gpu_use_float(VmafGpu *gpu, unsigned which_mask, unsigned plane, float offset)
{
    if (plane >= plane_count(gpu->pix_fmt)) return -EINVAL;
    vmaf_gpu_use_plane(gpu, which_mask, plane);
    for (unsigned i = 0; i < gpu->n_pending_fl; i++) {
        FloatDecl *f = &gpu->pending_fl[i];
        if (f->plane == plane && f->offset == offset) {
            f->which_mask |= which_mask;
            return 0;
        }
    }
    if (gpu->n_pending_fl == MAX_FLOATS) return -ENOMEM;
    gpu->pending_fl[gpu->n_pending_fl++] = (FloatDecl){ which_mask, plane, offset };
    return 0;
}

void vmaf_gpu_use_history(VmafGpu *gpu, unsigned frames)
{
    if (frames > gpu->pending.history) gpu->pending.history = frames;
}

VmafFex *vmaf_gpu_share(VmafGpu *gpu, const char *key)
{
    free(gpu->pending.share_key);
    gpu->pending.share_key = strdup(key);
    gpu->pending.leader = NULL;
    for (unsigned t = 0; gpu->pending.share_key && t < gpu->n_twin; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (tr->share_key && !tr->leader && tr->fex->desc == gpu->pending_desc &&
            !strcmp(tr->share_key, key)) {
            gpu->pending.leader = tr->fex;
            break;
        }
    }
    return gpu->pending.leader;
}

void *vmaf_gpu_state_of(VmafFex *fex, const VmafGpuFrame *fr)
{
    const int t = twin_index(fr->lane->gpu, fex);
    return t < 0 ? NULL : fr->lane->lp[t];
}

int vmaf_gpu_add(VmafGpu *gpu, VmafFex *fex)
{
    if (gpu->started || gpu->n_twin == MAX_TWINS) return -EINVAL;
    free(gpu->pending.share_key);
    memset(&gpu->pending, 0, sizeof(gpu->pending));
    memset(gpu->pending_planes, 0, sizeof(gpu->pending_planes));
    gpu->n_pending_fl = 0;
    gpu->pending_desc = fex->desc;
    int err = vmaf_fex_init(fex, gpu->pix_fmt, gpu->bpc, gpu->w, gpu->h);
    if (err) return err;
    if (!fex->twin) return VMAF_FEX_TWIN_DECLINED;  /* the CPU path took it */
    if (gpu->pending.history > VMAF_GPU_MAX_HISTORY) return -EINVAL;

    for (unsigned k = 0; k < 2; k++) gpu->planes[k] |= gpu->pending_planes[k];
    for (unsigned i = 0; i < gpu->n_pending_fl; i++) {
        const FloatDecl *f = &gpu->pending_fl[i];
        unsigned j = 0;
        while (j < gpu->n_fl && !(gpu->fl[j].plane == f->plane && gpu->fl[j].offset == f->offset))
            j++;
        if (j == gpu->n_fl) {
            if (gpu->n_fl == MAX_FLOATS) return -ENOMEM;
            gpu->fl[gpu->n_fl++] = (FloatDecl){ 0, f->plane, f->offset };
        }
        gpu->fl[j].which_mask |= f->which_mask;
    }
    if (gpu->pending.history > gpu->history) gpu->history = gpu->pending.history;
    gpu->twin[gpu->n_twin] = gpu->pending;
    gpu->twin[gpu->n_twin].fex = fex;
    gpu->n_twin++;
    memset(&gpu->pending, 0, sizeof(gpu->pending));    /* the key is the twin's now */
    return 0;
}

/* ---- Lanes ---- */

VmafGpuDev *vmaf_gpu_lane_device(const VmafGpuLane *l)
{
    return l->st;
}

unsigned vmaf_gpu_lane_id(const VmafGpuLane *l)
{
    return l->id;
}

/* n rounded up to a multiple of a (a power of two). */
static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) & ~(a - 1);
}

/* Carving alignment: a CUDA allocation's own, and any access width. */
#define LANE_ALIGN 256u

static size_t lane_round(size_t bytes)
{
    return round_up(bytes ? bytes : 1, LANE_ALIGN);
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
    return 0;
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

/* ---- Work log ----
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
    return round_up(n, LOG_ALIGN);
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
static int log_flush(VmafGpu *gpu, VmafGpuLane *l)
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
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "%s: a frame's work could not be captured as a graph "
                 "(%d); it was queued call by call", vmaf_gpu_backend(gpu), err);
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

static int lane_record(VmafGpuLane *l, VmafGpuEvent *e)
{
    if (l->logging) return log_call(l, LOG_RECORD, &e, sizeof(e), NULL, 0, NULL, 0);
    return l->ops->record(l->stream, e);
}

static int lane_wait(VmafGpuLane *l, VmafGpuEvent *e)
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

size_t vmaf_gpu_pitch_floats(unsigned w)
{
    /* 128-byte rows: a warp's row segment is one cache line. */
    return ((size_t)w + 31) & ~(size_t)31;
}

static void lane_free(VmafGpuLane *l)
{
    if (!l) return;
    for (unsigned i = 0; i < 2; i++) {
        free(l->log[i].buf);
        l->log[i] = (WorkLog){ NULL, 0, 0 };
    }
    if (!l->st) return;
    const VmafGpuOps *o = l->ops;
    if (o->enter(l->st)) return;
    if (l->stream) o->queue_sync(l->stream);
    VmafGpu *gpu = l->gpu;
    for (unsigned t = 0; t < gpu->n_twin; t++) {
        free(l->lp[t]);
        l->lp[t] = NULL;
    }
    for (unsigned i = 0; i < l->n_dalloc; i++)
        o->free(l->st, &l->dalloc[i].p, l->dalloc[i].bytes);
    for (unsigned i = 0; i < l->n_halloc; i++)
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

/* One lane on device `dev`: stream, events, planes, every twin's buffers. */
static int lane_create(VmafGpu *gpu, VmafGpuLane *l, unsigned id, unsigned dev,
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

    const size_t bytes = sample_bytes(gpu);
    const unsigned n_prime = gpu->n_dev > 1 ? gpu->history : 0;
    for (unsigned p = 0; p < plane_count(gpu->pix_fmt) && !err; p++) {
        unsigned pw, ph;
        plane_dims(gpu, p, &pw, &ph);
        for (unsigned k = 0; k < 2 && !err; k++) {
            if (!(gpu->planes[k] & (1u << p))) continue;
            err = vmaf_gpu_alloc(l, &l->plane[k][p], (size_t)pw * ph * bytes);
            for (unsigned b = 0; b < n_prime && !err; b++)
                err = vmaf_gpu_alloc(l, &l->prime[b][k][p], (size_t)pw * ph * bytes);
        }
    }
    unsigned n_slot = 0;
    for (unsigned i = 0; i < gpu->n_fl && !err; i++) {
        const FloatDecl *f = &gpu->fl[i];
        unsigned pw, ph;
        plane_dims(gpu, f->plane, &pw, &ph);
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
    return err;
}

/* Frames in flight per device, from the frame size: enough that frames'
 * kernels fill the GPU side by side (measured on an H200 with a v1.0.16
 * model, frame work as graphs: 1080p 3620 / 4958 / 5814 / 6002 fps at 8 /
 * 12 / 16 / 24 in flight; 2160p 1060 / 1553 at 4 / 8), few enough that
 * setting the lanes up stays quick: 64M pixels in flight, 4 to 16 frames. */
static unsigned default_lanes(const VmafGpu *gpu)
{
    const double px = (double)gpu->w * gpu->h;
    unsigned k = (unsigned)(64.0 * 1024 * 1024 / (px > 1 ? px : 1));
    if (k < 4) k = 4;
    if (k > 16) k = 16;
    return k;
}

static double mib(size_t b)
{
    return (double)b / (1024.0 * 1024.0);
}

static size_t free_memory(VmafGpuDev *st, size_t *total)
{
    size_t free_b = 0, total_b = 0;
    if (!st->ops->enter(st)) {
        if (st->ops->mem_info(st, &free_b, &total_b)) free_b = total_b = 0;
        st->ops->leave(st);
    }
    if (total) *total = total_b;
    return free_b;
}

int vmaf_gpu_start(VmafGpu *gpu)
{
    if (gpu->started) return -EINVAL;
    gpu->started = true;
    const bool forced = gpu->cfg.frames_in_flight != 0;
    unsigned k = forced ? gpu->cfg.frames_in_flight : default_lanes(gpu);
    if (k > VMAF_GPU_MAX_LANES) k = VMAF_GPU_MAX_LANES;
    const unsigned min_k = gpu->history + 1 > 2 ? gpu->history + 1 : 2;
    if (k < min_k) {
        vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: %u frames in flight asked; %u needed "
                 "(a temporal metric reads %u frames back)", vmaf_gpu_backend(gpu), k, min_k, gpu->history);
        k = min_k;
    }
    const unsigned stride = k;
    gpu->n_alloc_lanes = (size_t)stride * gpu->n_dev;
    gpu->lane = calloc((size_t)stride * gpu->n_dev, sizeof(*gpu->lane));
    gpu->order = calloc((size_t)stride * gpu->n_dev, sizeof(*gpu->order));
    if (!gpu->lane || !gpu->order) return -ENOMEM;

    /* Lane 0 of every device first, so that one lane's size caps K by the
     * free memory; then lane after lane, stopping early on short memory
     * unless the caller fixed K. */
    unsigned made = 0;
    for (unsigned i = 0; i < k; i++) {
        for (unsigned d = 0; d < gpu->n_dev; d++) {
            /* Stop short of an allocation failure where possible: another
             * lane needs what lane 0 took, and some room beside. */
            if (i >= min_k && !forced &&
                free_memory(gpu->dev[d], NULL) < gpu->lane[d * stride]->bytes / 8 * 9) {
                vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: device memory for %u frames in flight "
                         "per device, not %u", vmaf_gpu_backend(gpu), i, k);
                for (unsigned e = 0; e < d; e++) {
                    lane_free(gpu->lane[e * stride + i]);
                    free(gpu->lane[e * stride + i]);
                    gpu->lane[e * stride + i] = NULL;
                }
                goto shrink;
            }
            VmafGpuLane *l = calloc(1, sizeof(*l));
            if (!l) return -ENOMEM;
            gpu->lane[d * stride + i] = l;
            int err = lane_create(gpu, l, d * stride + i, d, i ? gpu->lane[d * stride] : NULL);
            if (!err && i == 0 && !forced) {
                /* At most 3/4 of the free memory for the lanes. */
                const size_t per = l->bytes ? l->bytes : 1;
                const size_t fit = 1 + free_memory(gpu->dev[d], NULL) / 4 * 3 / per;
                if (fit < k) k = fit > min_k ? (unsigned)fit : min_k;
            }
            if (!err) continue;
            size_t total_b;
            const size_t lane_bytes = l->bytes, free_b = free_memory(gpu->dev[d], &total_b);
            lane_free(l);
            free(l);
            gpu->lane[d * stride + i] = NULL;
            if (err == -ENOMEM && i >= min_k && !forced) {
                vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: device memory for %u frames in "
                         "flight per device, not %u (%.1f MiB free)", vmaf_gpu_backend(gpu), i, k, mib(free_b));
                for (unsigned e = 0; e < d; e++) {
                    lane_free(gpu->lane[e * stride + i]);
                    free(gpu->lane[e * stride + i]);
                    gpu->lane[e * stride + i] = NULL;
                }
                goto shrink;
            }
            if (err == -ENOMEM)
                vmaf_log(VMAF_LOG_LEVEL_ERROR,
                         "%s: out of device memory on %s: frame in flight %u of %u needed "
                         "more than the %.1f MiB it got (%u metrics); %.1f MiB free of "
                         "%.1f MiB. Fewer frames in flight or fewer metrics would fit",
                         vmaf_gpu_backend(gpu), gpu->dev[d]->ops->device_name(gpu->dev[d]),
                         i + 1, k, mib(lane_bytes),
                         gpu->n_twin, mib(free_b), mib(total_b));
            return err;
        }
        made = i + 1;
    }
shrink:
    /* Pack the lanes from stride `stride` to stride `made`. */
    for (unsigned d = 1; made != stride && d < gpu->n_dev; d++)
        for (unsigned i = 0; i < made; i++) {
            gpu->lane[d * made + i] = gpu->lane[d * stride + i];
            gpu->lane[d * stride + i] = NULL;
        }
    gpu->k = made;
    gpu->n_lanes = made * gpu->n_dev;
    for (unsigned i = 0; i < gpu->n_lanes; i++) gpu->lane[i]->id = i;
    gpu->block = gpu->n_dev > 1 ? made * BLOCK_FRAMES_PER_LANE : 0;

    if (any_prepare(gpu)) {
        /* As many as frames in flight, leaving a core to the caller's thread. */
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned n = gpu->n_lanes;
        if (cpus > 1 && (unsigned long)(cpus - 1) < n) n = (unsigned)(cpus - 1);
        if (n > MAX_WORKERS) n = MAX_WORKERS;
        for (unsigned i = 0; i < n; i++) {
            if (pthread_create(&gpu->worker[i], NULL, worker_main, gpu)) break;
            gpu->n_workers++;
        }
        if (!gpu->n_workers) return -ENOMEM;
    }
    if (pthread_create(&gpu->thread, NULL, completion_main, gpu)) return -ENOMEM;
    gpu->thread_on = true;
    vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: %u frames in flight per device, %.1f MiB each",
             vmaf_gpu_backend(gpu), made, mib(gpu->lane[0]->bytes));
    return 0;
}

unsigned vmaf_gpu_lanes(const VmafGpu *gpu)
{
    return gpu->k;
}

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
        plane_dims(l->gpu, plane, &w, &h);
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
        plane_dims(l->gpu, plane, &w, &h);
        err = convert(l, raw, w, h, offset, s->p, s->pitch);
        if (err) return err;
        s->valid_seq = fr->seq + 1;
    }
    *out = s->p;
    *pitch = s->pitch;
    return 0;
}

/* ---- History ---- */

void *vmaf_gpu_prev(VmafFex *fex, const VmafGpuFrame *fr, unsigned back)
{
    VmafGpu *gpu = fr->lane->gpu;
    const int t = twin_index(gpu, fex);
    if (t < 0 || !back || back > gpu->twin[t].history || back > fr->seq ||
        (fr->primed >> (back - 1) & 1))
        return NULL;
    /* The ring holds the lanes of the last n_lanes submissions; back < K. */
    VmafGpuLane *p = gpu->order[(fr->seq - back) % gpu->n_lanes];
    if (!p || p->dev != fr->lane->dev) return NULL;
    if (lane_wait(fr->lane, p->twin_ev[t])) return NULL;
    return p->lp[t];
}

/* Before a temporal twin overwrites what its lane held: every frame that
 * may still read it (the `history` frames after the lane's previous one on
 * this device) must be done with it. */
static int wait_readers(VmafGpu *gpu, VmafGpuLane *l, unsigned t)
{
    const unsigned k = gpu->k;
    for (unsigned i = 1; i <= gpu->twin[t].history; i++) {
        if (l->dev_seq + i < k) continue;
        const unsigned v = l->dev_seq + i - k;
        if (v >= l->dev_seq) continue;
        VmafGpuLane *r = gpu->lane[l->dev * k + v % k];
        const int err = lane_wait(l, r->twin_ev[t]);
        if (err) return err;
    }
    return 0;
}

/* ---- Submission ---- */

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
    plane_dims(gpu, p, &w, &h);
    const bool semi = dp->layout == VMAF_DEV_SEMIPLANAR && p > 0;
    const unsigned q = semi ? 1 : p;
    const uint64_t src = dp->addr[q] + (semi && p == 2 ? dp->bytes : 0);
    const size_t bytes = sample_bytes(gpu);
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

static int upload_planes(VmafGpu *gpu, VmafGpuLane *l, const VmafPicture *const pic[2],
                         VmafGpuPtr dst[2][3])
{
    const size_t bytes = sample_bytes(gpu);
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
        for (unsigned p = 0; p < plane_count(gpu->pix_fmt) && !err; p++) {
            if (!(gpu->planes[k] & (1u << p))) continue;
            if (dp) {
                err = device_plane(gpu, l, dp, p, dst[k][p]);
                continue;
            }
            unsigned w, h;
            plane_dims(gpu, p, &w, &h);
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

static void release_pictures(VmafGpuLane *l)
{
    for (unsigned k = 0; k < 2; k++) {
        if (l->pic[k].ref) vmaf_picture_unref(&l->pic[k]);
        if (l->host_pic[k].ref) vmaf_picture_unref(&l->host_pic[k]);
    }
    for (unsigned b = 0; b < VMAF_GPU_MAX_HISTORY; b++)
        for (unsigned k = 0; k < 2; k++)
            if (l->prime_pic[b][k].ref) vmaf_picture_unref(&l->prime_pic[b][k]);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int prof_mark(VmafGpu *gpu, VmafGpuLane *l, unsigned i)
{
    if (!gpu->prof) return 0;
    return lane_record(l, l->prof[i]);
}

/* Queue everything of frame fr on its lane. */
static int queue_frame(VmafGpu *gpu, VmafGpuLane *l)
{
    const VmafGpuFrame *fr = &l->fr;
    /* The lane's earlier frame was concluded: its uploads are done. */
    if (l->ops->upload_begin) l->ops->upload_begin(l->stream);
    int err = prof_mark(gpu, l, PROF_START);
    if (!err) err = upload_planes(gpu, l, fr->pic, l->plane);
    for (unsigned b = 0; b < VMAF_GPU_MAX_HISTORY && !err; b++) {
        if (!(fr->primed >> b & 1)) continue;
        const VmafPicture *pp[2] = { &l->prime_pic[b][0], &l->prime_pic[b][1] };
        err = upload_planes(gpu, l, pp, l->prime[b]);
    }
    /* From here the twins' calls go to the log (see "Work log"). */
    l->logging = true;
    l->log[0].len = 0;
    if (!err) err = prof_mark(gpu, l, PROF_UPLOADED);
    for (unsigned t = 0; t < gpu->n_twin && !err; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (l->all || every_frame(tr)) {
            if (tr->history) err = wait_readers(gpu, l, t);
            const double t0 = gpu->prof ? now_ms() : 0.0;
            if (!err && !tr->leader) err = tr->fex->twin->enqueue(tr->fex, fr, l->lp[t]);
            if (gpu->prof) gpu->twin[t].host_ms += now_ms() - t0;
            if (err)
                vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s (%s): cannot queue frame %u (%d)",
                         tr->fex->desc->name, vmaf_gpu_backend(gpu), fr->index, err);
            if (!err && tr->history) err = lane_record(l, l->twin_ev[t]);
        }
        if (!err) err = prof_mark(gpu, l, PROF_TWIN0 + t);
    }
    l->logging = false;
    if (!err) err = log_flush(gpu, l);
    /* The completion thread waits on this, also after a failure above. */
    const int err2 = l->ops->record(l->stream, l->done);
    return err ? err : err2;
}

int vmaf_gpu_submit(VmafGpu *gpu, const VmafPicture *ref, const VmafPicture *dist,
                    unsigned index, bool all)
{
    if (!gpu->thread_on) return -EINVAL;
    pthread_mutex_lock(&gpu->lock);
    const unsigned seq = gpu->n_submitted;
    const unsigned d = gpu->n_dev > 1 ? (seq / gpu->block) % gpu->n_dev : 0;
    VmafGpuLane *l = gpu->lane[d * gpu->k + gpu->dev_count[d] % gpu->k];
    while (l->busy && !gpu->err) pthread_cond_wait(&gpu->cond_free, &gpu->lock);
    const int err0 = gpu->err;
    pthread_mutex_unlock(&gpu->lock);
    if (err0) return err0;

    int err = vmaf_picture_ref(&l->pic[0], ref);
    if (!err) err = vmaf_picture_ref(&l->pic[1], dist);
    /* The first frames of a block get the pictures of the frames before the
     * block (computed on another device) that a temporal twin reads. */
    unsigned primed = 0;
    for (unsigned b = 1; !err && gpu->n_dev > 1 && b <= gpu->n_recent; b++) {
        if (b <= seq % gpu->block) continue;
        primed |= 1u << (b - 1);
        for (unsigned k = 0; k < 2 && !err; k++)
            err = vmaf_picture_ref(&l->prime_pic[b - 1][k], &gpu->recent[b - 1][k]);
    }
    l->fr = (VmafGpuFrame){ .index = index, .seq = seq, .lane = l,
                            .pic = { &l->pic[0], &l->pic[1] }, .primed = primed };
    l->all = all;
    l->dev_seq = gpu->dev_count[d];
    l->failed = false;
    l->prepared = l->waited = false;
    if (gpu->prof && !seq) clock_gettime(CLOCK_MONOTONIC, &gpu->t_first);

    const double t0 = gpu->prof ? now_ms() : 0.0;
    if (!err) err = l->ops->enter(l->st);
    if (!err) {
        err = queue_frame(gpu, l);
        l->ops->leave(l->st);
    }
    if (gpu->prof) gpu->prof_submit_ms += now_ms() - t0;
    /* Keep the last pictures for the next block's priming. */
    if (gpu->n_dev > 1 && gpu->history) {
        const unsigned last = gpu->history - 1;
        for (unsigned k = 0; k < 2; k++)
            if (gpu->recent[last][k].ref) vmaf_picture_unref(&gpu->recent[last][k]);
        memmove(&gpu->recent[1], &gpu->recent[0], last * sizeof(gpu->recent[0]));
        memset(&gpu->recent[0], 0, sizeof(gpu->recent[0]));
        for (unsigned k = 0; k < 2; k++)
            if (!err) err = vmaf_picture_ref(&gpu->recent[0][k], k ? dist : ref);
        if (gpu->n_recent < gpu->history) gpu->n_recent++;
    }
    if (err) {
        l->failed = true;
        set_error(gpu, err, seq);
    }
    pthread_mutex_lock(&gpu->lock);
    l->busy = true;
    gpu->order[seq % gpu->n_lanes] = l;
    gpu->dev_count[d]++;
    gpu->n_submitted++;
    /* The completion thread and the workers wait on it. */
    pthread_cond_broadcast(&gpu->cond_work);
    pthread_mutex_unlock(&gpu->lock);
    return err;
}

/* ---- Completion ---- */

static double elapsed_ms(const VmafGpuLane *l, VmafGpuEvent *a, VmafGpuEvent *b)
{
    const double ms = l->ops->elapsed_ms(a, b);
    return ms > 0 ? ms : 0.0;
}

static void prof_collect(VmafGpu *gpu, VmafGpuLane *l)
{
    gpu->prof_upload_ms += elapsed_ms(l, l->prof[PROF_START], l->prof[PROF_UPLOADED]);
    unsigned prev = PROF_UPLOADED;
    for (unsigned t = 0; t < gpu->n_twin; t++) {
        gpu->twin[t].ms += elapsed_ms(l, l->prof[prev], l->prof[PROF_TWIN0 + t]);
        prev = PROF_TWIN0 + t;
    }
    gpu->prof_frames++;
    clock_gettime(CLOCK_MONOTONIC, &gpu->t_last);
}

/* Wait until the lane's frame is done on the device, unless a prepare
 * worker already did (its result then); with `profile`, take its times. */
static int wait_frame(VmafGpu *gpu, VmafGpuLane *l, bool profile)
{
    int err = l->ops->enter(l->st);
    if (err) return l->waited ? l->wait_err : err;
    err = l->waited ? l->wait_err : l->ops->sync(l->done);
    if (!err && profile) prof_collect(gpu, l);
    l->ops->leave(l->st);
    return err;
}

static void conclude_frame(VmafGpu *gpu, VmafGpuLane *l)
{
    int err = wait_frame(gpu, l, gpu->prof);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: frame %u failed on %s", vmaf_gpu_backend(gpu),
                 l->fr.index, l->ops->device_name(l->st));
        set_error(gpu, err, l->fr.seq);
    }
    pthread_mutex_lock(&gpu->lock);
    const bool keep = !l->failed && (!gpu->err || l->fr.seq < gpu->err_seq);
    pthread_mutex_unlock(&gpu->lock);
    for (unsigned t = 0; keep && t < gpu->n_twin; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (!l->all && !every_frame(tr)) continue;
        const double t0 = gpu->prof ? now_ms() : 0.0;
        err = vmaf_fex_conclude(tr->fex, &l->fr, l->lp[t]);
        if (gpu->prof) gpu->twin[t].conclude_ms += now_ms() - t0;
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s (%s) failed on frame %u (%s)",
                     tr->fex->desc->name, vmaf_gpu_backend(gpu), l->fr.index, strerror(-err));
            set_error(gpu, err, l->fr.seq);
            break;
        }
    }
}

/* A worker: frame after frame (the next not yet claimed), wait for its
 * lane and run the twins' prepare; the completion thread concludes it once
 * it is prepared. */
static void *worker_main(void *arg)
{
    VmafGpu *gpu = arg;
    vmaf_log_bind(gpu->cfg.log_id);
    pthread_mutex_lock(&gpu->lock);
    for (;;) {
        while (gpu->n_claimed == gpu->n_submitted && !gpu->stop)
            pthread_cond_wait(&gpu->cond_work, &gpu->lock);
        if (gpu->n_claimed == gpu->n_submitted) break;
        VmafGpuLane *l = gpu->order[gpu->n_claimed++ % gpu->n_lanes];
        const bool keep = !l->failed && (!gpu->err || l->fr.seq < gpu->err_seq);
        pthread_mutex_unlock(&gpu->lock);

        /* A failed wait skips the prepares; conclude_frame reports it and
         * concludes nothing of the frame. */
        const int wait_err = keep ? wait_frame(gpu, l, false) : 0;
        int err = wait_err;
        double prep_ms[MAX_TWINS] = { 0 };
        for (unsigned t = 0; keep && !err && t < gpu->n_twin; t++) {
            const TwinReg *tr = &gpu->twin[t];
            /* A follower concludes from its leader's lane state: nothing to prepare. */
            if (!tr->fex->twin->prepare || tr->leader || (!l->all && !every_frame(tr)))
                continue;
            const double t0 = gpu->prof ? now_ms() : 0.0;
            err = tr->fex->twin->prepare(tr->fex, &l->fr, l->lp[t]);
            if (gpu->prof) prep_ms[t] = now_ms() - t0;
            if (err) {
                vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s (%s) failed on frame %u (%s)",
                         tr->fex->desc->name, vmaf_gpu_backend(gpu), l->fr.index,
                         strerror(-err));
                set_error(gpu, err, l->fr.seq);
            }
        }

        pthread_mutex_lock(&gpu->lock);
        for (unsigned t = 0; gpu->prof && t < gpu->n_twin; t++) gpu->twin[t].prepare_ms += prep_ms[t];
        l->waited = keep;
        l->wait_err = wait_err;
        l->prepared = true;
        pthread_cond_broadcast(&gpu->cond_prepared);
    }
    pthread_mutex_unlock(&gpu->lock);
    return NULL;
}

static void *completion_main(void *arg)
{
    VmafGpu *gpu = arg;
    vmaf_log_bind(gpu->cfg.log_id);
    pthread_mutex_lock(&gpu->lock);
    for (;;) {
        while (gpu->n_concluded == gpu->n_submitted && !gpu->stop)
            pthread_cond_wait(&gpu->cond_work, &gpu->lock);
        if (gpu->n_concluded == gpu->n_submitted) break;
        VmafGpuLane *l = gpu->order[gpu->n_concluded % gpu->n_lanes];
        while (gpu->n_workers && !l->prepared) pthread_cond_wait(&gpu->cond_prepared, &gpu->lock);
        pthread_mutex_unlock(&gpu->lock);

        conclude_frame(gpu, l);
        release_pictures(l);

        pthread_mutex_lock(&gpu->lock);
        l->busy = false;
        gpu->n_concluded++;
        pthread_cond_broadcast(&gpu->cond_free);
    }
    pthread_mutex_unlock(&gpu->lock);
    return NULL;
}

int vmaf_gpu_drain(VmafGpu *gpu)
{
    pthread_mutex_lock(&gpu->lock);
    while (gpu->n_concluded < gpu->n_submitted) pthread_cond_wait(&gpu->cond_free, &gpu->lock);
    const int err = gpu->err;
    pthread_mutex_unlock(&gpu->lock);
    return err;
}

/* ---- Teardown and profile ---- */

static void print_profile(const VmafGpu *gpu)
{
    if (!gpu->prof_frames) return;
    const double n = gpu->prof_frames;
    const double wall = (double)(gpu->t_last.tv_sec - gpu->t_first.tv_sec) +
                        (double)(gpu->t_last.tv_nsec - gpu->t_first.tv_nsec) * 1e-9;
    size_t lane_bytes = gpu->n_lanes ? gpu->lane[0]->bytes : 0, total = 0;
    for (unsigned i = 0; i < gpu->n_lanes; i++) total += gpu->lane[i]->bytes;
    const char *b = vmaf_gpu_backend(gpu);
    fprintf(stderr, "exactvmaf %s profile: %u frames, %u in flight per device on %u "
            "device(s) (%s), %.1f fps from the first submission to the last conclusion\n",
            b, gpu->prof_frames, gpu->k, gpu->n_dev, gpu->dev[0]->ops->device_name(gpu->dev[0]),
            wall > 0 ? n / wall : 0.0);
    const double up = gpu->prof_upload_ms / n, bytes = gpu->prof_bytes / n;
    fprintf(stderr, "exactvmaf %s profile: upload %.3f ms per frame, %.0f bytes, %.2f GB/s\n",
            b, up, bytes, up > 0 ? bytes / (up * 1e6) : 0.0);
    for (unsigned t = 0; t < gpu->n_twin; t++)
        fprintf(stderr, "exactvmaf %s profile: twin %s %.3f ms per frame on the device, "
                "%.3f ms queueing it, %.3f ms preparing (workers), %.3f ms concluding\n", b,
                gpu->twin[t].fex->desc->name, gpu->twin[t].ms / n, gpu->twin[t].host_ms / n,
                gpu->twin[t].prepare_ms / n, gpu->twin[t].conclude_ms / n);
    fprintf(stderr, "exactvmaf %s profile: queueing a frame (uploads, every twin) %.3f ms on "
            "the submitting thread\n", b, gpu->prof_submit_ms / n);
    fprintf(stderr, "exactvmaf %s profile: frame work as graphs: %u launched, %u built\n", b,
            gpu->n_graph_launch, gpu->n_graph_build);
    fprintf(stderr, "exactvmaf %s profile: device memory %.1f MiB per frame in flight, "
            "%.1f MiB in all\n", b, mib(lane_bytes), mib(total));
}

void vmaf_gpu_destroy(VmafGpu *gpu)
{
    if (!gpu) return;
    if (gpu->thread_on || gpu->n_workers) {
        pthread_mutex_lock(&gpu->lock);
        gpu->stop = true;
        pthread_cond_broadcast(&gpu->cond_work);
        pthread_mutex_unlock(&gpu->lock);
        for (unsigned i = 0; i < gpu->n_workers; i++) pthread_join(gpu->worker[i], NULL);
        if (gpu->thread_on) pthread_join(gpu->thread, NULL);
    }
    if (gpu->prof) print_profile(gpu);
    /* Lanes of an unfinished start sit at any index of the array. */
    const size_t n = gpu->n_lanes ? gpu->n_lanes : gpu->n_alloc_lanes;
    for (size_t i = 0; gpu->lane && i < n; i++) {
        if (!gpu->lane[i]) continue;
        release_pictures(gpu->lane[i]);
        lane_free(gpu->lane[i]);
        free(gpu->lane[i]);
    }
    for (unsigned b = 0; b < VMAF_GPU_MAX_HISTORY; b++)
        for (unsigned k = 0; k < 2; k++)
            if (gpu->recent[b][k].ref) vmaf_picture_unref(&gpu->recent[b][k]);
    free(gpu->lane);
    free(gpu->order);
    close_devices(gpu->dev, gpu->n_dev);
    for (unsigned t = 0; t < gpu->n_twin; t++) free(gpu->twin[t].share_key);
    free(gpu->pending.share_key);
    pthread_cond_destroy(&gpu->cond_prepared);
    pthread_cond_destroy(&gpu->cond_free);
    pthread_cond_destroy(&gpu->cond_work);
    pthread_mutex_destroy(&gpu->lock);
    free(gpu);
}

/* ---- Options of the CPU path's private struct, for twins ---- */

static const void *option(const VmafFex *fex, const char *name, enum VmafOptionType type)
{
    const VmafOption *opt = vmaf_option_find(fex->desc->options, name);
    if (!opt || opt->type != type || !fex->priv) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: the GPU twin reads option %s, which the "
                 "extractor does not have with that type", fex->desc->name, name);
        return NULL;
    }
    return (const char *)fex->priv + opt->offset;
}

int vmaf_gpu_opt_bool(const VmafFex *fex, const char *name, bool *out)
{
    const bool *p = option(fex, name, VMAF_OPT_TYPE_BOOL);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int vmaf_gpu_opt_int(const VmafFex *fex, const char *name, int *out)
{
    const int *p = option(fex, name, VMAF_OPT_TYPE_INT);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int vmaf_gpu_opt_double(const VmafFex *fex, const char *name, double *out)
{
    const double *p = option(fex, name, VMAF_OPT_TYPE_DOUBLE);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int vmaf_gpu_opt_string(const VmafFex *fex, const char *name, const char **out)
{
    const char *const *p = option(fex, name, VMAF_OPT_TYPE_STRING);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}
