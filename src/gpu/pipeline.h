/*
 * The GPU frame pipeline: one room that owns the frames in flight for every
 * GPU twin, so that a twin only declares what it reads, allocates its
 * per-frame buffers, queues its kernels and concludes on the host.
 *
 * Lanes. A lane is one frame in flight: a device, a stream, the frame's
 * uploaded planes, and every twin's buffers for one frame (scratch and a
 * pinned readback area). There are K lanes per device (frames in flight);
 * frame after frame takes the next lane, so the copy of one frame, the
 * kernels of others and the host conclusion of an earlier one overlap, and
 * small frames fill the GPU through concurrent lanes. A lane is reused only
 * once the frame it held has been concluded.
 *
 * Queueing. A frame's twin calls (launches, copies, event waits) are
 * written to its lane's work log first; on CUDA a log equal to the lane's
 * previous one relaunches that frame's graph as one call, else the log
 * becomes the lane's new graph (work_log.c). Lanes after a
 * device's first take their buffers from one block of the first lane's
 * size.
 *
 * Frame order. The caller submits frames in index order; kernels of one
 * frame run in order on its lane; conclusions (the CPU's functions) run on
 * the pipeline's completion thread, frame after frame in submission order,
 * so emitted values and temporal state are in frame order whatever the
 * lanes do. A twin's host work that reads only its own frame (prepare)
 * runs before that on worker threads, frames in parallel. No sum is ever
 * split across lanes or reordered: parallelism comes from frames and rows.
 *
 * History. A temporal twin (motion) reads what it left on the device for
 * the previous frame(s): vmaf_gpu_prev() gives its state of that frame's
 * lane, ordered after the twin's work there. The pipeline also orders a
 * temporal twin's work on a reused lane after every frame that may still
 * read that lane's old state.
 *
 * Devices. Frames go to the devices in blocks (several GPUs, or two
 * pipelines on one GPU); at the first frame of a block the previous
 * frame(s) are not on this device, so the pipeline uploads their pictures
 * too and the temporal twin rebuilds its history from them ("priming").
 *
 * Errors. A failure stops the pipeline: frames before the failing one are
 * concluded and reported, later ones are dropped, and every later call
 * returns the error.
 *
 * Backends. The pipeline and the twins' host code talk to the GPU only
 * through the device layer (device.h), so one pipeline and one twin serve
 * CUDA and OpenCL; a twin's VmafGpuProgram holds its kernels as built by
 * each backend, and the twin runs where the pipeline's backend built them.
 *
 * Who calls whom. The extractor framework (fex.c) runs a twin's init,
 * which fills a VmafGpuNeeds (the planes it reads, its history, a shared
 * pass), and hands the instance with those needs to the pipeline
 * (vmaf_gpu_add). The pipeline then calls the twin's lane_init, enqueue and
 * prepare, and the framework's conclusion it was given (VmafGpuConfig),
 * never the framework by name. What a twin calls is in gpu/twin.h; this
 * header is the context's side. gpu/lane.h lists the files.
 */
#ifndef EXACTVMAF_GPU_PIPELINE_H
#define EXACTVMAF_GPU_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/picture.h"
#include "gpu/device.h"
#include "gpu/twin.h"

/** Most frames in flight per device. */
#define VMAF_GPU_MAX_LANES 32
/** Most devices (or pipelines on one device). */
#define VMAF_GPU_MAX_DEVICES 16

typedef struct VmafGpuConfig {
    /** Frames in flight per device; 0 chooses from the frame size and free memory. */
    unsigned frames_in_flight;
    /** The context's log target, bound by the completion thread (log.h). */
    uint64_t log_id;
    /**
     * Conclude frame fr of twin instance fex from its lane state lp (emit
     * its outputs): the framework's vmaf_fex_conclude. Called on the
     * completion thread, frame after frame in submission order. Required.
     */
    int (*conclude)(struct VmafFex *fex, const VmafGpuFrame *fr, void *lp);
} VmafGpuConfig;

/**
 * A pipeline over n_dev opened devices of one backend (taken over: closed
 * with the pipeline, also on failure; the same device may appear twice).
 * Frame geometry is fixed.
 */
int vmaf_gpu_create(VmafGpu **gpu, VmafGpuDev **dev, unsigned n_dev,
                    const VmafGpuConfig *cfg, enum VmafPixelFormat pix_fmt, unsigned bpc,
                    unsigned w, unsigned h);

/** Device 0 (the backend's name and the devices' count: gpu/twin.h). */
VmafGpuDev *vmaf_gpu_device(VmafGpu *gpu);

struct VmafPicturePool;
/**
 * The pool's picture buffers page-locked on device 0, so that the uploads
 * copy straight from them, until the pipeline is destroyed (which unpins
 * them, before its devices close). One pool per pipeline.
 */
void vmaf_gpu_pin_pool(VmafGpu *gpu, struct VmafPicturePool *pool);
/** Whether `prog` has kernels for the pipeline's backend. */
bool vmaf_gpu_runs(const VmafGpu *gpu, const VmafGpuProgram *prog);

/**
 * Take an extractor instance whose twin init succeeded, with the needs
 * that init declared (gpu/twin.h; its share key is copied). The instance
 * stays owned by the caller. 0, -EINVAL (started, too many twins, history
 * too long, another pipeline's needs) or -ENOMEM.
 */
int vmaf_gpu_add(VmafGpu *gpu, struct VmafFex *fex, const VmafGpuNeeds *needs);

/**
 * Allocate the lanes (K per device; K shrinks when device memory is short
 * and frames_in_flight was not set) and start the completion thread.
 */
int vmaf_gpu_start(VmafGpu *gpu);

/** Frames in flight per device, once started. */
unsigned vmaf_gpu_lanes(const VmafGpu *gpu);

/**
 * Submit a frame pair: the pipeline takes a reference to each picture and
 * releases it once the frame is concluded. `all` false runs only temporal
 * twins (a subsampled frame). Blocks while every lane is busy. Returns the
 * pipeline's error once one happened (on this frame or an earlier one).
 */
int vmaf_gpu_submit(VmafGpu *gpu, const VmafPicture *ref, const VmafPicture *dist,
                    unsigned index, bool all);

/** Wait until every submitted frame is concluded; the pipeline's error, if any. */
int vmaf_gpu_drain(VmafGpu *gpu);

/** Submissions 0 .. n-1 are concluded (none of them dropped after a failure). */
unsigned vmaf_gpu_concluded(VmafGpu *gpu);

/**
 * Wait as vmaf_gpu_drain(), then *seq: the first submission the pipeline
 * did not conclude (the failing frame; every later one was dropped), or
 * the number of submissions when none failed. The pipeline's error.
 */
int vmaf_gpu_dropped_from(VmafGpu *gpu, unsigned *seq);

/** Frames back the temporal twins read (0: none is temporal). */
unsigned vmaf_gpu_history(const VmafGpu *gpu);

/** Stop the thread, free every lane and device state. NULL is fine. */
void vmaf_gpu_destroy(VmafGpu *gpu);

#endif
