/*
 * The context's state, shared by its files: libvmaf.c (registrations, the
 * start, each frame handed to the GPU pipeline and the CPU's scheduler,
 * the flush), context_gpu.c (the GPU side of the start), failover.c (the
 * move of a failed GPU's metrics to the CPU), context_settings.c and
 * context_concluded.c. libvmaf.c is the top: at its start it makes the GPU
 * side (context_gpu.c), the failover and the CPU's scheduler, and hands
 * each frame to the GPU side and the scheduler. The GPU side calls down
 * into the failover, the failover into the scheduler; none calls up.
 */
#ifndef EXACTVMAF_CONTEXT_INTERNAL_H
#define EXACTVMAF_CONTEXT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "context.h"
#include "device_record.h"
#include "fex_internal.h"
#include "gpu/cuda/cuda_backend.h"
#include "gpu/dev_picture.h"
#include "gpu/pipeline.h"
#include "picture_internal.h"
#include "scheduler.h"

struct VmafFailover;

typedef struct Registration {
    const VmafFeatureExtractor *desc;
    VmafDict *opts;
    char *identity;
    bool gpu;           /* computed by its twin in the GPU pipeline, else by the scheduler */
    bool moved;         /* was on the GPU, moved to the CPU by a failover ... */
    unsigned cpu_from;  /* ... from this frame on */
} Registration;

struct VmafContext {
    VmafConfiguration cfg;
    enum ExactvmafDivision division;
    int output_precision;
    VmafFeatureCollector *fc;

    Registration *reg;
    unsigned n_reg;

    VmafScheduler *cpu;     /* the CPU's metrics, instances and threads, from start */

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

/* context_gpu.c: the GPU side of the start (devices, pipeline, twins; under
 * auto the CPU where the GPU cannot start). 0 also when the run is on the CPU. */
int vmaf_ctx_start_gpu(VmafContext *vmaf);
/** Whether the CPU takes over where the GPU cannot start or fails mid-run. */
bool vmaf_ctx_falls_back(const VmafContext *vmaf);
/** The outputs' backends and devices per extractor, from the registrations. */
int vmaf_ctx_record_backends(VmafContext *vmaf);
/** The pool's pictures page-locked for the pipeline (where both exist). */
void vmaf_ctx_pin_pool(VmafContext *vmaf);
/**
 * The GPU's part of frame `index`: device pictures handed over (the GPU
 * waits for the caller's writes), the frame submitted to the pipeline
 * where a twin computes it; under backend auto a pipeline that failed
 * hands its metrics to the CPU (failover.c). The pictures stay the
 * caller's (the pipeline takes references).
 */
int vmaf_ctx_gpu_frame(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index);
/** The pipeline drained (under backend auto, what it dropped to the CPU). */
int vmaf_ctx_gpu_drain(VmafContext *vmaf);
/** The twins' instances flushed, after the pipeline is drained; the first error. */
int vmaf_ctx_flush_gpu(VmafContext *vmaf);
/** The pipeline and the twins' instances gone; the pool unpinned. */
void vmaf_ctx_destroy_gpu(VmafContext *vmaf);
void vmaf_ctx_free_gpu_records(VmafContext *vmaf);

#endif
