/*
 * The context's state, shared by the files that schedule its frames:
 * libvmaf.c (registrations, start, the worker threads, the API) and
 * failover.c (the move of a failed GPU's metrics to the CPU).
 */
#ifndef EXACTVMAF_CONTEXT_INTERNAL_H
#define EXACTVMAF_CONTEXT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "context.h"
#include "device_record.h"
#include "exactvmaf/exactvmaf.h"
#include "feature/extractor.h"
#include "gpu/cuda/cuda_backend.h"
#include "gpu/dev_picture.h"
#include "gpu/pipeline.h"
#include "picture_internal.h"

struct VmafFailover;

typedef struct Registration {
    const VmafFeatureExtractor *desc;
    VmafDict *opts;
    char *identity;
    bool on_caller;     /* CPU instance on the calling thread (temporal) */
    bool gpu;           /* computed by its twin in the GPU pipeline */
    bool moved;         /* was on the GPU, moved to the CPU by a failover ... */
    unsigned cpu_from;  /* ... from this frame on */
} Registration;

typedef struct Job {
    VmafPicture ref, dist;
    unsigned index;
    bool moved_only;    /* a frame the GPU dropped: only the moved metrics compute it */
} Job;

typedef struct Worker {
    VmafContext *vmaf;
    VmafFex **inst;     /* one per registration; NULL for temporal ones */
    pthread_t thread;
    bool started;
    bool working;       /* on frame `index` (under the context's lock) */
    unsigned index;
} Worker;

struct VmafContext {
    VmafConfiguration cfg;
    enum ExactvmafDivision division;
    int output_precision;
    VmafFeatureCollector *fc;

    Registration *reg;
    unsigned n_reg;

    /* Instances used on the calling thread: temporal ones, and all of them
     * when there are no workers. */
    VmafFex **inst;

    Worker *worker;
    unsigned n_workers;
    Job *queue;
    unsigned q_cap, q_head, q_len, busy;
    unsigned n_ready;       /* workers whose instances are made (or failed) */
    bool stop;
    int worker_err;
    pthread_mutex_t lock;
    pthread_cond_t cond_job, cond_space, cond_idle;
    bool sync_ok;

    bool started, flushed;
    int start_err;      /* sticky: extractors could not start (or continue, failover.c) */
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    unsigned pic_cnt;
    long long last_index;
    struct timespec t_start, t_end;

    VmafPicturePool *pool;
    EvcPicturePool *dev_pool;   /* pictures in device memory (METHOD_DEVICE) */

    enum ExactvmafBackend backend;
    bool backend_chosen;    /* set by the caller rather than the default */
    int gpu_list[VMAF_GPU_MAX_DEVICES];
    unsigned n_gpu;         /* 0: every device */
    bool gpu_named;         /* devices named by the caller (not the default device 0) */
    unsigned frames_in_flight;
    char opencl_device[32]; /* "N" or "P:D" (exactvmaf_set_opencl_device); "" from gpu_list */
    int opencl_fp64;        /* enum ExactvmafFp64 */
    VmafCudaState *cuda;    /* imported (vmaf_cuda_import_state) until start; owned */
    VmafGpu *gpu;           /* the GPU frame pipeline, from start */
    VmafFex **gpu_inst;     /* per registration: its instance in the pipeline, or NULL */
    VmafDict *backends;     /* extractor name -> backend that computed it */
    VmafDeviceRecords *devices; /* extractor name -> the devices that computed it */
    VmafDict *gpu_rec[VMAF_GPU_MAX_DEVICES];   /* the opened devices' records, once each */
    unsigned n_gpu_rec;
    uint64_t log_id;        /* this context's log target (log.h) */
    struct VmafFailover *failover;  /* under backend auto with a pipeline: failover.c */
};

/* libvmaf.c, for failover.c. */
bool vmaf_ctx_is_temporal(const VmafContext *vmaf, unsigned i);
/** Fill inst's empty slots for the registrations on the CPU (see create_instances). */
int vmaf_ctx_fill_instances(VmafContext *vmaf, VmafFex **inst, bool temporal, bool non_temporal);
/** The worker threads, as start() makes them when a non-temporal metric is on the CPU. */
int vmaf_ctx_start_workers(VmafContext *vmaf);
/** Wait until the workers are idle; their first error. */
int vmaf_ctx_workers_idle(VmafContext *vmaf);
/** Compute job on the calling thread (temporal) or queue it for the workers. */
int vmaf_ctx_compute(VmafContext *vmaf, Job *job);
/** Replace a device picture by its host copy. */
int vmaf_ctx_to_host(VmafPicture *pic);

/* context_gpu.c: the GPU side of start() (devices, pipeline, twins; under
 * auto the CPU where the GPU cannot start). 0 also when the run is on the CPU. */
int vmaf_ctx_start_gpu(VmafContext *vmaf);
/** Whether the CPU takes over where the GPU cannot start or fails mid-run. */
bool vmaf_ctx_falls_back(const VmafContext *vmaf);
/** The outputs' backends and devices per extractor, from the registrations. */
int vmaf_ctx_record_backends(VmafContext *vmaf);
/** The pool's pictures page-locked for the pipeline (where both exist). */
void vmaf_ctx_pin_pool(VmafContext *vmaf);
/** The pipeline and the twins' instances gone; the pool unpinned. */
void vmaf_ctx_destroy_gpu(VmafContext *vmaf);
void vmaf_ctx_free_gpu_records(VmafContext *vmaf);

#endif
