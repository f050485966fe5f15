/*
 * What a GPU twin uses of the frame pipeline (gpu/pipeline.h says what the
 * pipeline is): the needs its init declares, its lane's buffers, kernels
 * and queued work, its frame's planes, and the history a temporal twin
 * reads. One interface for every backend: a twin talks to the GPU only
 * through this and the device layer (gpu/device.h).
 */
#ifndef EXACTVMAF_GPU_TWIN_H
#define EXACTVMAF_GPU_TWIN_H

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
/** Most float planes (plane, offset) the twins of one pipeline declare together. */
#define VMAF_GPU_MAX_FLOATS 8
/** Room for a share key (vmaf_gpu_share), its terminating zero included. */
#define VMAF_GPU_SHARE_KEY_SIZE 512

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

/* ---- What a twin's init declares ---- */

/** A float plane a twin reads (vmaf_gpu_use_float). */
typedef struct VmafGpuFloatUse {
    unsigned which_mask, plane;
    float offset;
} VmafGpuFloatUse;

/**
 * What a twin needs of the pipeline, filled by its init through the
 * functions below and handed to the pipeline with the instance
 * (vmaf_gpu_add). Made by vmaf_gpu_needs_init(); a twin writes it only
 * through these functions.
 */
typedef struct VmafGpuNeeds {
    VmafGpu *gpu;                   /**< the pipeline the twin is for */
    const struct VmafFex *fex;      /**< the instance (sharing matches its descriptor) */
    unsigned planes[2];             /**< plane masks read as samples, ref and dist */
    VmafGpuFloatUse fl[VMAF_GPU_MAX_FLOATS];
    unsigned n_fl;
    unsigned history;               /**< frames back it reads; 0: not temporal */
    char share_key[VMAF_GPU_SHARE_KEY_SIZE];    /**< "": no shared pass */
    struct VmafFex *leader;         /**< the pass it follows, or NULL */
} VmafGpuNeeds;

/** Empty needs of instance `fex` for pipeline `gpu`, before the twin's init. */
void vmaf_gpu_needs_init(VmafGpuNeeds *n, VmafGpu *gpu, const struct VmafFex *fex);

/** The twin reads plane `plane` of the pictures in `which_mask` (1 ref, 2 dist) as samples. */
void vmaf_gpu_use_plane(VmafGpuNeeds *n, unsigned which_mask, unsigned plane);
/** ... and as floats: sample / 2^(bpc-8) + offset (the float extractors' conversion). */
int vmaf_gpu_use_float(VmafGpuNeeds *n, unsigned which_mask, unsigned plane, float offset);
/** The twin reads what it left for the `frames` previous frames (1 or 2). */
void vmaf_gpu_use_history(VmafGpuNeeds *n, unsigned frames);

/**
 * Share one pass between instances of a metric whose options differ only
 * in what that pass can compute for several at once (the gain limits of
 * VMAF and VMAF NEG, say): `key` names everything else. The first instance
 * with this descriptor and key leads and gets NULL back; a later one gets
 * the leader, queues nothing (its enqueue is not called) and concludes from
 * the leader's lane state (vmaf_gpu_state_of). The leader learns of its
 * followers in their init, before any lane exists. A key longer than
 * VMAF_GPU_SHARE_KEY_SIZE - 1 shares nothing.
 */
struct VmafFex *vmaf_gpu_share(VmafGpuNeeds *n, const char *key);
/** The lane state of twin `fex` for frame fr (a follower reads its leader's). */
void *vmaf_gpu_state_of(struct VmafFex *fex, const VmafGpuFrame *fr);

/* The pipeline's backend and devices, for a twin's init. */
/** How many devices (or pipelines on one device) share the frames. */
unsigned vmaf_gpu_device_count(const VmafGpu *gpu);
/** The backend's name: "cuda", "opencl" (the outputs' "backends"). */
const char *vmaf_gpu_backend(const VmafGpu *gpu);
/** Whether the pipeline's kernels compute binary64 natively (not so in OpenCL's fp64-free mode). */
bool vmaf_gpu_fp64(const VmafGpu *gpu);

/* ---- A twin's lane: buffers, kernels, queued work ---- */

/** The lane's device, and its number among all lanes. */
VmafGpuDev *vmaf_gpu_lane_device(const VmafGpuLane *l);
unsigned vmaf_gpu_lane_id(const VmafGpuLane *l);

/**
 * Device memory for the lane's life (freed with the lane), zeroed: bytes
 * no kernel writes (a pitched row's padding) read 0 in every run, also
 * where a readback copies them.
 */
int vmaf_gpu_alloc(VmafGpuLane *l, VmafGpuPtr *p, size_t bytes);
/** Pinned host memory for the lane's life, for readbacks. */
int vmaf_gpu_alloc_host(VmafGpuLane *l, void **p, size_t bytes);
/** A device copy of a host table, complete on return (freed with the lane). */
int vmaf_gpu_const(VmafGpuLane *l, VmafGpuPtr *p, const void *src, size_t bytes);
/** Kernel `name` of the backend's part of `prog`, on the lane's device. */
int vmaf_gpu_kernel(VmafGpuLane *l, const VmafGpuProgram *prog, const char *name,
                    VmafGpuKernel **k);

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

/*
 * A twin's program: VMAF_GPU_PROGRAM_DECLARE(x) at file scope, then
 * `static const VmafGpuProgram prog = VMAF_GPU_PROGRAM(x);`, x being the
 * program named in the room's meson.build (gpu_programs). Its blobs,
 * vmaf_gpu_blobs_x, are what the backends built of the room's kernel files
 * (src/gpu/meson.build).
 */
#define VMAF_GPU_PROGRAM_DECLARE(x) extern const VmafGpuBlob vmaf_gpu_blobs_##x[]
#define VMAF_GPU_PROGRAM(x) { #x, vmaf_gpu_blobs_##x }

/**
 * Launch geometry of a row-sum kernel (src/gpu/ev_row_sums.h) over h
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

/* ---- History ---- */

/**
 * A temporal twin's lane state of the frame `back` submissions before fr,
 * with fr's stream ordered after the twin's work for that frame; NULL when
 * that frame does not exist or was computed on another device (then bit
 * back-1 of fr->primed is set and its pictures are on fr's lane).
 */
void *vmaf_gpu_prev(struct VmafFex *fex, const VmafGpuFrame *fr, unsigned back);

#endif
