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
 * CUDA and OpenCL; a twin brings its kernels for each backend in a
 * VmafGpuProgram, and runs where that backend's part is present.
 *
 * The files: pipeline_internal.h.
 */
#ifndef EXACTVMAF_GPU_PIPELINE_H
#define EXACTVMAF_GPU_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/picture.h"
#include "gpu/device.h"

typedef struct VmafGpu VmafGpu;
typedef struct VmafGpuLane VmafGpuLane;
struct VmafFex;

/** Most frames back a temporal twin may read (motion's five-frame window). */
#define VMAF_GPU_MAX_HISTORY 2
/** Most frames in flight per device. */
#define VMAF_GPU_MAX_LANES 32
/** Most devices (or pipelines on one device). */
#define VMAF_GPU_MAX_DEVICES 16

/** Which picture of the pair. */
enum { VMAF_GPU_REF = 0, VMAF_GPU_DIST = 1 };

/** One frame as a twin sees it while queueing or concluding it. */
typedef struct VmafGpuFrame {
    unsigned index;             /**< the caller's frame index */
    unsigned seq;               /**< submission number: 0, 1, 2, ... */
    VmafGpuLane *lane;
    /**
     * The pictures (ref, dist), held until the frame is concluded; device
     * pictures where the caller gave those: read samples on the host only
     * through vmaf_gpu_host_pictures().
     */
    const VmafPicture *pic[2];
    /**
     * Bit b-1 set: the pictures of the frame b submissions back were
     * uploaded to this lane, because that frame was computed on another
     * device (only near the start of a device's block of frames).
     */
    unsigned primed;
} VmafGpuFrame;

/* ---- Pipeline (the context's side) ---- */

typedef struct VmafGpuConfig {
    /** Frames in flight per device; 0 chooses from the frame size and free memory. */
    unsigned frames_in_flight;
    /** The context's log target, bound by the completion thread (log.h). */
    uint64_t log_id;
} VmafGpuConfig;

/**
 * A pipeline over n_dev opened devices of one backend (taken over: closed
 * with the pipeline, also on failure; the same device may appear twice).
 * Frame geometry is fixed.
 */
int vmaf_gpu_create(VmafGpu **gpu, VmafGpuDev **dev, unsigned n_dev,
                    const VmafGpuConfig *cfg, enum VmafPixelFormat pix_fmt, unsigned bpc,
                    unsigned w, unsigned h);

/** Device 0. */
VmafGpuDev *vmaf_gpu_device(VmafGpu *gpu);
/** How many devices (or pipelines on one device) share the frames. */
unsigned vmaf_gpu_device_count(const VmafGpu *gpu);
/** The backend's name: "cuda", "opencl" (the outputs' "backends"). */
const char *vmaf_gpu_backend(const VmafGpu *gpu);
/** Whether the pipeline's kernels compute binary64 natively (not so in OpenCL's fp64-free mode). */
bool vmaf_gpu_fp64(const VmafGpu *gpu);
/** Whether `prog` has kernels for the pipeline's backend. */
bool vmaf_gpu_runs(const VmafGpu *gpu, const VmafGpuProgram *prog);

/**
 * Hand an extractor instance whose twin init succeeded to the pipeline
 * (call after vmaf_fex_init). The twin's declarations (planes, history) were
 * made during that init. The instance stays owned by the caller.
 */
int vmaf_gpu_add(VmafGpu *gpu, struct VmafFex *fex);

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

/** Stop the thread, free every lane and device state. NULL is fine. */
void vmaf_gpu_destroy(VmafGpu *gpu);

/* ---- What a twin declares in its init ---- */

/** The twin reads plane `plane` of the pictures in `which_mask` (1 ref, 2 dist) as samples. */
void vmaf_gpu_use_plane(VmafGpu *gpu, unsigned which_mask, unsigned plane);
/** ... and as floats: sample / 2^(bpc-8) + offset (the float extractors' conversion). */
int vmaf_gpu_use_float(VmafGpu *gpu, unsigned which_mask, unsigned plane, float offset);
/** The twin reads what it left for the `frames` previous frames (1 or 2). */
void vmaf_gpu_use_history(VmafGpu *gpu, unsigned frames);

/**
 * Share one pass between instances of a metric whose options differ only
 * in what that pass can compute for several at once (the gain limits of
 * VMAF and VMAF NEG, say): `key` names everything else. The first instance
 * with this descriptor and key leads and gets NULL back; a later one gets
 * the leader, queues nothing (its enqueue is not called) and concludes from
 * the leader's lane state (vmaf_gpu_state_of). The leader learns of its
 * followers in their init, before any lane exists.
 */
struct VmafFex *vmaf_gpu_share(VmafGpu *gpu, const char *key);
/** The lane state of twin `fex` for frame fr (a follower reads its leader's). */
void *vmaf_gpu_state_of(struct VmafFex *fex, const VmafGpuFrame *fr);

/* ---- A twin's lane: buffers, kernels, queued work ---- */

/** The lane's device, and its number among all lanes. */
VmafGpuDev *vmaf_gpu_lane_device(const VmafGpuLane *l);
unsigned vmaf_gpu_lane_id(const VmafGpuLane *l);

/** Device memory for the lane's life (freed with the lane). */
int vmaf_gpu_alloc(VmafGpuLane *l, VmafGpuPtr *p, size_t bytes);
/** Pinned host memory for the lane's life, for readbacks. */
int vmaf_gpu_alloc_host(VmafGpuLane *l, void **p, size_t bytes);
/** A device copy of a host table, complete on return (freed with the lane). */
int vmaf_gpu_const(VmafGpuLane *l, VmafGpuPtr *p, const void *src, size_t bytes);
/** Kernel `name` of the backend's part of `prog`, on the lane's device. */
int vmaf_gpu_kernel(VmafGpuLane *l, const VmafGpuProgram *prog, const char *name,
                    VmafGpuKernel **k);
/**
 * The device address of p where the backend has addresses (CUDA), for
 * tables of buffers passed in a struct; 0 elsewhere (such a twin has no
 * OpenCL part).
 */
uint64_t vmaf_gpu_address(const VmafGpuLane *l, VmafGpuPtr p);

/**
 * Queued on the lane's queue, in order. A launch covers nx x ny x nz
 * threads in blocks of bx x by (the grid rounded up); `args` is an array
 * of VMAF_GPU_ARG()s, counted by the macro.
 */
int vmaf_gpu_launch_args(VmafGpuLane *l, VmafGpuKernel *k, unsigned nx, unsigned ny,
                         unsigned nz, unsigned bx, unsigned by, const VmafGpuArg *args,
                         unsigned n_args);
#define vmaf_gpu_launch(l, k, nx, ny, nz, bx, by, args) \
    vmaf_gpu_launch_args(l, k, nx, ny, nz, bx, by, args, sizeof(args) / sizeof((args)[0]))
int vmaf_gpu_memset(VmafGpuLane *l, VmafGpuPtr p, size_t bytes);
int vmaf_gpu_copy(VmafGpuLane *l, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes);
/** src must be pinned (vmaf_gpu_alloc_host) and unchanged until the frame is concluded. */
int vmaf_gpu_upload(VmafGpuLane *l, VmafGpuPtr dst, const void *src, size_t bytes);
/** dst must be pinned; valid in the twin's conclude of the same frame. */
int vmaf_gpu_download(VmafGpuLane *l, void *dst, VmafGpuPtr src, size_t bytes);
/**
 * In a twin's prepare or conclude: copy src, on frame fr's lane, to dst
 * (any host memory) and wait for it. For what a frame needs back only
 * sometimes (a conclusion that falls back to the host), so that the other
 * frames do not pay for the copy.
 */
int vmaf_gpu_read(const VmafGpuFrame *fr, void *dst, VmafGpuPtr src, size_t bytes);

/**
 * fr's pictures with their samples in host memory, for a twin's host work
 * that reads samples (a fallback to the CPU's function): fr->pic itself for
 * host pictures; for device pictures (gpu/dev_picture.h) their host copies,
 * downloaded at the first call and held with the frame. 0 or a negative errno.
 */
int vmaf_gpu_host_pictures(const VmafGpuFrame *fr, const VmafPicture *pic[2]);

/** Row pitch, in floats, of the float planes (128-byte rows). */
size_t vmaf_gpu_pitch_floats(unsigned w);

/* Option readers for a twin's init (the CPU path's values, by name). */
int vmaf_gpu_opt_bool(const struct VmafFex *fex, const char *name, bool *out);
int vmaf_gpu_opt_int(const struct VmafFex *fex, const char *name, int *out);
int vmaf_gpu_opt_double(const struct VmafFex *fex, const char *name, double *out);
int vmaf_gpu_opt_string(const struct VmafFex *fex, const char *name, const char **out);

/*
 * A twin's program: VMAF_GPU_PROGRAM_DECLARE(x) at file scope, then
 * `static const VmafGpuProgram prog = { "x", VMAF_GPU_CUDA(x), VMAF_GPU_OPENCL(x) };`
 * (or NULL for a backend the twin has no kernels for). The CUDA part is
 * the fatbin evc_fatbin_x (src/gpu/cuda/meson.build), the OpenCL part the
 * source evl_source_x (src/gpu/opencl/meson.build).
 */
#define VMAF_GPU_PROGRAM_DECLARE(x) \
    extern const struct EvcFatbin evc_fatbin_##x; \
    extern const char evl_source_##x[]
#if defined(EXACTVMAF_HAVE_CUDA) && EXACTVMAF_HAVE_CUDA
#define VMAF_GPU_CUDA(x) (&evc_fatbin_##x)
#else
#define VMAF_GPU_CUDA(x) NULL
#endif
#if defined(EXACTVMAF_HAVE_OPENCL) && EXACTVMAF_HAVE_OPENCL
#define VMAF_GPU_OPENCL(x) (evl_source_##x)
#else
#define VMAF_GPU_OPENCL(x) NULL
#endif

/**
 * Launch geometry of a row-sum kernel (src/gpu/cuda/rowsum.cuh) over h
 * rows: nx = RS_THREADS(h), bx = RS_BLOCK.
 */
#define RS_BLOCK 128u
#define RS_THREADS(h) ((((unsigned)(h) + 31u) / 32u) * RS_BLOCK)

/* ---- A frame's planes on its lane ---- */

/**
 * Plane `plane` of picture `which` as packed samples (uint8_t at 8 bits,
 * else uint16_t; pic->w[plane] per row), declared with vmaf_gpu_use_plane.
 */
int vmaf_gpu_plane(const VmafGpuFrame *fr, unsigned which, unsigned plane, VmafGpuPtr *out);
/**
 * The same plane as floats, declared with vmaf_gpu_use_float; `pitch` is in
 * floats (vmaf_gpu_pitch_floats). Converted once per frame however many twins ask.
 */
int vmaf_gpu_plane_float(const VmafGpuFrame *fr, unsigned which, unsigned plane,
                         float offset, VmafGpuPtr *out, size_t *pitch);
/**
 * The same for the picture `back` frames before fr (bit back-1 of
 * fr->primed set): what a temporal twin rebuilds its history from at the
 * start of a block.
 */
int vmaf_gpu_primed_plane(const VmafGpuFrame *fr, unsigned back, unsigned which,
                          unsigned plane, VmafGpuPtr *out);
int vmaf_gpu_primed_float(const VmafGpuFrame *fr, unsigned back, unsigned which,
                          unsigned plane, float offset, VmafGpuPtr *out, size_t *pitch);

/**
 * A temporal twin's lane state of the frame `back` submissions before fr,
 * with fr's stream ordered after the twin's work for that frame; NULL when
 * that frame does not exist or was computed on another device (then bit
 * back-1 of fr->primed is set and its pictures are on fr's lane).
 */
void *vmaf_gpu_prev(struct VmafFex *fex, const VmafGpuFrame *fr, unsigned back);

#endif
