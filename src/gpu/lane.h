/*
 * The GPU frame pipeline's state, below every file of it: the pipeline
 * (VmafGpu), its lanes (VmafGpuLane), the twins it runs, and a lane's
 * making (lane.c). Seen by no one outside src/gpu/. The files, from the
 * bottom up; each includes the headers of those below it, none above:
 *
 *   lane.c       one lane: its queue, events, planes and buffers, the
 *                memory arena its buffers are carved from (this header)
 *   twin_init.c  what a twin's init declares, shared passes, its options
 *   work_log.c   a lane's queued calls: the work log, graph replay
 *                (work_log.h)
 *   planes.c     a frame's planes on its lane: uploads, float conversion,
 *                device pictures, priming (planes.h)
 *   workers.c    the completion thread, the prepare workers, the
 *                pipeline's error (workers.h)
 *   pipeline.c   on top: creation, the twins handed over, start,
 *                submission, history, teardown and the profile
 *
 * Threads: the caller's thread submits (uploads and queues kernels); one
 * completion thread waits for each frame's lane in submission order and
 * runs the twins' conclusions there. A twin's enqueue and conclude may run
 * at the same time for different frames: enqueue touches the lane state of
 * the frame it queues, conclude that of the frame it concludes, and any
 * host state the two share must be the twin's own affair (none does).
 */
#ifndef EXACTVMAF_GPU_LANE_H
#define EXACTVMAF_GPU_LANE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "feature/extractor.h"
#include "gpu/pipeline.h"
#include "gpu/twin.h"
#include "picture_internal.h"

#define MAX_TWINS 32
/* Most prepare workers per pipeline. */
#define MAX_WORKERS 16
#define MAX_FLOATS VMAF_GPU_MAX_FLOATS

typedef struct TwinReg {
    VmafFex *fex;
    unsigned history;       /* frames back it reads; 0: not temporal */
    char *share_key;        /* its VmafGpuNeeds' share key, or NULL */
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

    /* The lane's frame work as a graph (see work_log.c). */
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

    unsigned planes[2];             /* plane masks to upload, ref and dist */
    VmafGpuFloatUse fl[MAX_FLOATS];
    unsigned n_fl;
    unsigned history;

    VmafGpuLane **lane;             /* K per device, device after device */
    unsigned k, n_lanes;
    size_t n_alloc_lanes;           /* entries of `lane` (before packing) */
    unsigned block;                 /* frames per device block */
    unsigned dev_count[VMAF_GPU_MAX_DEVICES];   /* frames submitted per device */
    VmafGpuLane **order;            /* lane of submission seq, ring of n_lanes */
    VmafPicture recent[VMAF_GPU_MAX_HISTORY][2];    /* last pictures, for priming */
    VmafPicturePool *pinned;        /* a pool page-locked on device 0 (vmaf_gpu_pin_pool) */
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
    unsigned n_graph_launch, n_graph_build, n_graph_replayed;

    /* Profile (EXACTVMAF_CUDA_PROFILE=1). */
    bool prof;
    double prof_upload_ms, prof_bytes, prof_submit_ms;
    unsigned prof_frames;
    struct timespec t_first, t_last;
};

/* ---- Small helpers ---- */

static inline unsigned gpu_plane_count(enum VmafPixelFormat f)
{
    return f == VMAF_PIX_FMT_YUV400P ? 1 : 3;
}

static inline void gpu_plane_dims(const VmafGpu *gpu, unsigned p, unsigned *w, unsigned *h)
{
    const unsigned ss_x = gpu->pix_fmt == VMAF_PIX_FMT_YUV420P ||
                          gpu->pix_fmt == VMAF_PIX_FMT_YUV422P;
    const unsigned ss_y = gpu->pix_fmt == VMAF_PIX_FMT_YUV420P;
    *w = p ? gpu->w >> ss_x : gpu->w;
    *h = p ? gpu->h >> ss_y : gpu->h;
}

static inline size_t gpu_sample_bytes(const VmafGpu *gpu)
{
    return gpu->bpc > 8 ? 2 : 1;
}

/* n rounded up to a multiple of a (a power of two). */
static inline size_t gpu_round_up(size_t n, size_t a)
{
    return (n + a - 1) & ~(a - 1);
}

/* A temporal extractor sees every frame, subsampled or not. */
static inline bool gpu_every_frame(const TwinReg *tr)
{
    return tr->fex->desc->flags & VMAF_FEX_TEMPORAL;
}

static inline int gpu_twin_index(const VmafGpu *gpu, const VmafFex *fex)
{
    for (unsigned t = 0; t < gpu->n_twin; t++)
        if (gpu->twin[t].fex == fex) return (int)t;
    return -1;
}

static inline double gpu_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The backend's name ("cuda", "opencl"): vmaf_gpu_backend() below the pipeline. */
static inline const char *gpu_backend_name(const VmafGpu *gpu)
{
    return gpu->dev[0]->ops->name;
}

/* ---- lane.c ---- */

/* One lane on device `dev` (stream, events, planes, every twin's buffers);
 * `like`, a lane made before, sizes its arena. */
int gpu_lane_create(VmafGpu *gpu, VmafGpuLane *l, unsigned id, unsigned dev,
                    const VmafGpuLane *like);
void gpu_lane_free(VmafGpuLane *l);

#endif
