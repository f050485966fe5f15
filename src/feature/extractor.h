/*
 * The feature-extractor interface. One `const VmafFeatureExtractor
 * vmaf_fex_<symbol>` per extractor, in its metric's own folder, whose
 * meson.build names the symbol (the registry is made from those lists:
 * src/feature/meson.build).
 * Instance state lives in the private struct (priv_size bytes, zeroed, option
 * defaults written, then the user's options applied) that the framework
 * allocates per instance; the descriptor is never written.
 */
#ifndef EXACTVMAF_FEATURE_EXTRACTOR_H
#define EXACTVMAF_FEATURE_EXTRACTOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/picture.h"
#include "exactvmaf/exactvmaf.h"
#include "opt.h"

enum VmafFexFlags {
    /** extract() must see frames in index order, on one instance. */
    VMAF_FEX_TEMPORAL = 1 << 0,
};

typedef struct VmafFex VmafFex;
typedef struct VmafFeatureCollector VmafFeatureCollector;

struct VmafGpu;
struct VmafGpuLane;
struct VmafGpuFrame;
struct VmafGpuNeeds;

/** What every extractor may read from its context at init. */
typedef struct VmafFexEnv {
    enum ExactvmafDivision division;
    /** The context's GPU frame pipeline when it computes on a GPU, else NULL. */
    struct VmafGpu *gpu;
    /**
     * CPU instances made before this one in the same set (one worker's, or
     * the calling thread's), for vmaf_fex_share_find(); none elsewhere.
     */
    VmafFex *const *siblings;
    unsigned n_siblings;
} VmafFexEnv;

/** A twin's init returns this (> 0) to leave an instance to the CPU path. */
#define VMAF_FEX_TWIN_DECLINED 1

/**
 * One GPU backend's compute functions for an extractor ("one extractor, many
 * backends"): the same descriptor, option table and private struct
 * (fex->priv) as the CPU path, plugged into the GPU frame pipeline
 * (src/gpu/pipeline.h), which owns the frames in flight.
 *
 * - init: runs after the CPU path's init (validation, options, messages),
 *   with fex->twin_priv zeroed (priv_size bytes); reads the options, and
 *   what the CPU path's init derived from them, in fex->priv (the metric's
 *   state struct, <metric>_state.h), fills the host state and declares in
 *   `needs` what it reads (planes, history, a shared pass: gpu/twin.h),
 *   which the framework hands to the pipeline fex->env.gpu with the
 *   instance. VMAF_FEX_TWIN_DECLINED leaves the instance to the CPU path.
 * - lane_init: one frame in flight's device buffers and pinned readback
 *   area, in `lp` (lane_size bytes, zeroed); the pipeline frees what was
 *   allocated through the lane.
 * - enqueue: queue frame fr's work on its lane (copies, kernels, the
 *   readback into lp); runs on the submitting thread.
 * - prepare (may be NULL): the host work of frame fr that needs only its
 *   readback and the twin's state from init (linear algebra, a host
 *   pooling), on one of the pipeline's worker threads: after the frame's
 *   GPU work and before its conclude, frames in parallel and in any order.
 *   It writes only lp (what conclude then emits) and reads fex read-only.
 * - conclude: from the readback in lp, the CPU's conclusion and the
 *   emission of frame fr's outputs; runs on the completion thread, frame
 *   after frame in order. fr->pic stays valid here.
 * - close (may be NULL): what init allocated besides twin_priv; the
 *   framework then frees twin_priv and runs the CPU path's close.
 * - handover (temporal twins; NULL: the instance cannot leave the GPU):
 *   when the GPU fails mid-run under backend auto, move what the twin
 *   accumulated over the frames it concluded (scores kept for the flush,
 *   running totals, the emission schedule) into the CPU path's state in
 *   fex->priv, so that the CPU continues as if it had computed those
 *   frames; the CPU path's prime then takes the pictures of the last of
 *   them. twin close runs after it.
 * Every output must equal the CPU's bit for bit.
 */
typedef struct VmafFexTwin {
    /** Its kernels per backend; the twin runs where the pipeline's backend has a part. */
    const struct VmafGpuProgram *program;
    size_t priv_size;       /**< host state, fex->twin_priv */
    /**
     * Every step is binary64: on a device or mode without native fp64
     * (OpenCL's fp64-free mode) the framework leaves the instance to the
     * CPU path without calling init.
     */
    bool needs_fp64;
    size_t lane_size;       /**< per frame in flight */
    int (*init)(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h, struct VmafGpuNeeds *needs);
    int (*lane_init)(VmafFex *fex, struct VmafGpuLane *lane, void *lp);
    int (*enqueue)(VmafFex *fex, const struct VmafGpuFrame *fr, void *lp);
    int (*prepare)(VmafFex *fex, const struct VmafGpuFrame *fr, void *lp);   /**< may be NULL */
    int (*conclude)(VmafFex *fex, const struct VmafGpuFrame *fr, void *lp);
    int (*flush)(VmafFex *fex);     /**< may be NULL */
    void (*close)(VmafFex *fex);    /**< may be NULL */
    int (*handover)(VmafFex *fex);  /**< temporal twins; may be NULL */
} VmafFexTwin;

/* The GPU twins, defined beside their metrics' CPU code (*_gpu.c), one
 * host side for every backend, listed by the rooms' meson.build files. A
 * descriptor names its twin with VMAF_FEX_GPU_TWIN(), NULL in a build
 * without any GPU backend. */
#define VMAF_FEX_TWIN(s) extern const VmafFexTwin vmaf_fex_##s##_gpu;
#include "feature/registry_list.h"
#if (defined(EXACTVMAF_HAVE_CUDA) && EXACTVMAF_HAVE_CUDA) || \
    (defined(EXACTVMAF_HAVE_OPENCL) && EXACTVMAF_HAVE_OPENCL)
#define VMAF_FEX_GPU_TWIN(sym) (&(sym))
#else
#define VMAF_FEX_GPU_TWIN(sym) NULL
#endif

typedef struct VmafFeatureExtractor {
    const char *name;
    /** Validate geometry (error + log for unsupported sizes/depths) and allocate. */
    int (*init)(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h);
    /** Compute one frame pair; emit outputs with vmaf_fex_emit(). */
    int (*extract)(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index);
    /** Temporal extractors only: emit what is still pending. May be NULL. */
    int (*flush)(VmafFex *fex);
    /**
     * Temporal extractors that keep pictures across frames: take frame
     * `index`'s pictures into that history as extract would, without
     * computing or emitting anything (a GPU twin's frames continue on the
     * CPU, VmafFexTwin.handover). NULL: the extractor keeps no pictures.
     */
    int (*prime)(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                 unsigned index);
    /** Free what init allocated. May be NULL. Called even when init failed. */
    void (*close)(VmafFex *fex);
    const VmafOption *options;  /**< NULL-name terminated; may be NULL */
    size_t priv_size;
    uint64_t flags;             /**< VmafFexFlags */
    /** Outputs renamed by feature-parameter options; NULL terminated. */
    const char *const *provided_features;
    /** GPU twin, or NULL: the metric then runs on the CPU in a GPU run. */
    const VmafFexTwin *gpu;
    /**
     * The picture planes an instance reads (bit p: plane p), from its
     * options; NULL means every plane. Lets a reader skip the others.
     */
    unsigned (*planes)(const VmafFex *fex);
} VmafFeatureExtractor;

#define VMAF_FEX(s) extern const VmafFeatureExtractor vmaf_fex_##s;
#include "feature/registry_list.h"

/** One instance of an extractor, owned by the framework. */
struct VmafFex {
    const VmafFeatureExtractor *desc;
    void *priv;
    VmafFexEnv env;
    VmafFeatureCollector *fc;
    unsigned ordinal;       /**< registration order; fixes output order */
    VmafDict *names;        /**< provided feature -> output name */
    unsigned call_index;    /**< index of the frame whose call is running */
    unsigned emit_seq;      /**< emissions so far in this call */
    const VmafFexTwin *twin; /**< the backend computing this instance; NULL: CPU */
    void *twin_priv;        /**< the twin's own state */
    char *share_key;        /**< vmaf_fex_share_lead()'s key, or NULL */
    /** The geometry init was given; every frame's pictures must have it. */
    unsigned w, h, bpc;
    /** Index after the last frame its twin concluded (a failover's seam). */
    unsigned twin_next;
    /** vmaf_fex_hold() of the running call; UINT_MAX: nothing held back. */
    unsigned hold;
    /**
     * Frames [0, written) have every output of this instance that a frame
     * call writes, after the last call that returned (a twin's on the
     * pipeline's completion thread; read by exactvmaf_frames_concluded).
     */
    atomic_uint written;
};

/**
 * The call_index of the flush: after every frame call, the same for every
 * instance, so that what a flush emits first is listed after what frames
 * emitted, in registration order. An extractor that emits a value ahead of
 * its flush under this call index lists it where the flush would.
 */
#define VMAF_FEX_CALL_END 0xffffffffu

/**
 * A temporal extractor's frame call (extract, or its twin's conclude)
 * holds back the outputs of frames from `from` on (written by a later call
 * or the flush). Without it a call completes every frame up to its own.
 */
void vmaf_fex_hold(VmafFex *fex, unsigned from);

/*
 * Sharing a pass on the CPU. Instances of one extractor whose options differ
 * only in what one pass can compute for several at once (the gain limits of
 * VMAF and VMAF NEG) share it: `key` names everything else. In its init an
 * instance looks for a leader among the instances made before it in its
 * set; it then follows it (keeps the leader, tells it what to compute, and
 * emits from what the leader left for the frame: instances run in
 * registration order, so the leader's extract has run), or leads itself.
 */
/** The instance of this set leading a pass under `key`, or NULL. */
VmafFex *vmaf_fex_share_find(const VmafFex *fex, const char *key);
/** This instance leads a pass under `key` (found by later instances). @return 0 or -ENOMEM. */
int vmaf_fex_share_lead(VmafFex *fex, const char *key);

/**
 * Store one output value for frame `index`. `name` is the extractor's
 * canonical name (e.g. "VMAF_feature_adm2_score"); provided features are
 * renamed for non-default feature-parameter options, other names are kept.
 */
int vmaf_fex_emit(VmafFex *fex, const char *name, double value, unsigned index);

/** vmaf_fex_emit() of values[k] under names[k], k < n, in order; the first error. */
int vmaf_fex_emit_list(VmafFex *fex, const char *const *names, const double *values,
                       unsigned n, unsigned index);

/** VmafFeatureExtractor.planes of the metrics that read the luma plane alone. */
unsigned vmaf_fex_planes_luma(const VmafFex *fex);

/** "cpu", or the twin's backend name. */
const char *vmaf_fex_backend(const VmafFex *fex);

/** Registry lookup by extractor name ("float_adm"); NULL when unknown. */
const VmafFeatureExtractor *vmaf_fex_find(const char *name);
/** 1 when `name` is a known extractor, built or not. */
int vmaf_fex_declared(const char *name);
/** Extractor that provides output `feature_name` (canonical); NULL when none. */
const VmafFeatureExtractor *vmaf_fex_find_by_feature(const char *feature_name);
/** NULL-terminated list of every registered extractor. */
const VmafFeatureExtractor *const *vmaf_fex_list(void);

#endif
