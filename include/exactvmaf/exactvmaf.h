/**
 * @file exactvmaf.h
 * exactvmaf extensions to the libvmaf API.
 */
#ifndef EXACTVMAF_EXACTVMAF_H
#define EXACTVMAF_EXACTVMAF_H

#ifdef __cplusplus
extern "C" {
#endif

#include "libvmaf/libvmaf.h"

/** How float ADM divides. */
enum ExactvmafDivision {
    /** IEEE quotient: host independent (default). */
    EXACTVMAF_DIVISION_IEEE = 0,
    /**
     * The processor's RCPSS estimate refined by one Newton step, as
     * Netflix's x86 build does: equals Netflix libvmaf on the same host.
     * Only on x86; elsewhere vmaf_set_division() returns -ENOTSUP.
     */
    EXACTVMAF_DIVISION_RCP = 1,
};

/** Where the metrics are computed. The scores are the same on every backend. */
enum ExactvmafBackend {
    /** Every metric on the CPU. */
    EXACTVMAF_BACKEND_CPU = 0,
    /**
     * Metrics with a CUDA twin on the GPU, the others on the CPU, in the
     * same run; the scores equal the CPU's bit for bit. No usable device or
     * driver is an error at the first picture.
     */
    EXACTVMAF_BACKEND_CUDA = 1,
    /**
     * CUDA when a device is usable, otherwise the CPU (the default; logged
     * as a warning when asked for explicitly, as info otherwise). A GPU
     * that fails mid-run (memory, a launch, a copy, a lost device) hands
     * the rest of the run to the CPU at a frame seam, with a warning; the
     * scores stay the CPU's bit for bit. With CUDA or OpenCL named, such a
     * failure is the run's error.
     */
    EXACTVMAF_BACKEND_AUTO = 2,
    /**
     * Metrics with an OpenCL twin on an OpenCL device (any vendor's; the
     * library opens libOpenCL.so.1 at run time), the others on the CPU;
     * the scores equal the CPU's bit for bit, with or without fp64 on the
     * device. No OpenCL library or device, or a kernel the device cannot
     * build, is an error at the first picture.
     */
    EXACTVMAF_BACKEND_OPENCL = 3,
    /**
     * OpenCL as EXACTVMAF_BACKEND_OPENCL, falling back to the CPU as
     * EXACTVMAF_BACKEND_AUTO does: at the first picture when no OpenCL
     * device is usable, and mid-run when the device fails.
     */
    EXACTVMAF_BACKEND_AUTO_OPENCL = 4,
};

/**
 * A backend's name as the command line, the output files and the Python
 * package spell it: "cpu", "cuda", "auto", "opencl", "auto-opencl"; NULL
 * for a value that is no backend. The names of every backend are
 * exactvmaf_backend_name(0), (1), ... up to the first NULL.
 */
const char *exactvmaf_backend_name(enum ExactvmafBackend backend);

/** The backend called `name` (as exactvmaf_backend_name() spells it). @return it, or -EINVAL. */
int exactvmaf_backend_from_name(const char *name);

/**
 * Choose the backend and the device: for CUDA its index (0 = first), for
 * OpenCL the index over every platform's devices in platform order (as
 * exactvmaf_device_describe() lists them), where 0 is the default device:
 * the first GPU of any platform (a CPU device only when there is no GPU;
 * exactvmaf_set_opencl_device("0") names device 0 itself). Must be called
 * before the first picture. @return 0 or negative errno.
 */
int exactvmaf_set_backend(VmafContext *vmaf, enum ExactvmafBackend backend, int gpu_index);

/**
 * The OpenCL device, as "N" (index over every platform's devices) or
 * "P:D" (device D of platform P). Checked against the machine at the first
 * picture. @return 0 or -EINVAL for a malformed string.
 */
int exactvmaf_set_opencl_device(VmafContext *vmaf, const char *device);

/** Whether OpenCL kernels may use the device's native fp64. */
enum ExactvmafFp64 {
    /** Native fp64 where the device has it, the fp64-free routines elsewhere (default). */
    EXACTVMAF_FP64_AUTO = 0,
    /** Never: the fp64-free routines (exact integer and fp32 arithmetic) everywhere. */
    EXACTVMAF_FP64_OFF = 1,
    /** Always: a device without fp64 is an error. */
    EXACTVMAF_FP64_ON = 2,
};

/** Choose the OpenCL fp64 mode; the scores are the same in every mode. @return 0 or negative errno. */
int exactvmaf_set_opencl_fp64(VmafContext *vmaf, enum ExactvmafFp64 mode);

/**
 * What `backend` resolves to on this machine for device `gpu_index`, as the
 * first picture of a context set so would decide it, found without opening
 * a device: no GPU context is made or held, so a caller may still make one
 * with flags of its own (as FFmpeg's CUDA device does). A GPU backend named
 * stays itself (its failure is an error at the first picture); auto is
 * CUDA where the driver starts and the device exists, else the CPU (which
 * the library says at the info level only); auto OpenCL likewise. A device
 * that is there but fails when opened still makes auto fall back to the CPU
 * at the first picture, with a warning.
 * @param why  where auto resolves to the CPU: why, else ""; may be NULL
 * @return EXACTVMAF_BACKEND_CPU, EXACTVMAF_BACKEND_CUDA or
 *         EXACTVMAF_BACKEND_OPENCL; -EINVAL for an unknown backend or a
 *         negative index.
 */
int exactvmaf_backend_resolve(enum ExactvmafBackend backend, int gpu_index, char *why,
                              size_t len);

/**
 * A line describing device i of a GPU backend (CUDA or OpenCL), for
 * listings: its index as exactvmaf_set_backend() takes it, name, and
 * what the backend needs to know (OpenCL: platform, version, fp64).
 * @return 0; -ENOENT past the last device; -ENODEV (with the reason in
 * `line`) when the backend has no library or driver here.
 */
int exactvmaf_device_describe(enum ExactvmafBackend backend, unsigned i, char *line,
                              size_t len);

/**
 * Spread the frames over several CUDA devices: gpu_index[0..n), or every
 * device when n is 0. A device may be listed twice (two pipelines on one
 * GPU). The scores equal one device's bit for bit. Must be called before
 * the first picture. @return 0 or negative errno.
 */
int exactvmaf_set_gpus(VmafContext *vmaf, const int *gpu_index, unsigned n);

/**
 * Frames in flight per GPU (1..32): frames being copied, computed or
 * concluded at once. 0 (the default) chooses from the frame size and the
 * free device memory, and takes fewer when memory is short; a number set
 * here is kept or the run fails with a message naming the memory asked for
 * and free. Must be called before the first picture. @return 0 or negative errno.
 */
int exactvmaf_set_frames_in_flight(VmafContext *vmaf, unsigned frames);

/**
 * Choose the division mode. Must be called before the first
 * vmaf_use_feature*() call of the context. @return 0 or negative errno.
 */
int exactvmaf_set_division(VmafContext *vmaf, enum ExactvmafDivision division);

/**
 * Number format of vmaf_write_output(). The default, 6, is Netflix's:
 * "%.6f", or "%.16f" for a value whose fraction starts with more than six
 * zeros. digits in 1..16 uses digits decimals by the same rule. digits <= 0
 * (or above 16) selects "%.17g", which round-trips every double exactly.
 * fps stays "%.2f". The environment variable EXACTVMAF_PRECISION (digits,
 * or "max") sets the default of every context, for programs that write
 * through vmaf_write_output() without calling this (FFmpeg's libvmaf and
 * libvmaf_cuda filters). @return 0 or negative errno.
 */
int exactvmaf_set_output_precision(VmafContext *vmaf, int digits);

/**
 * Another reference to src's samples in dst (src from vmaf_picture_alloc()
 * or a preallocated pool). Each reference is handed over or released on its
 * own (vmaf_read_pictures() takes one, vmaf_picture_unref() drops one); the
 * buffer goes with the last. Lets a caller hand the same samples to the
 * library again without copying them. @return 0 or negative errno.
 */
int exactvmaf_picture_ref(VmafPicture *dst, const VmafPicture *src);

/**
 * A video frame in CUDA device memory, as a GPU decoder writes it (NVDEC
 * through FFmpeg's hwaccel: NV12, P010, P016, YUV444P, YUV444P16), for
 * exactvmaf_cuda_picture_wrap().
 */
typedef struct ExactvmafCudaFrame {
    /** Chroma layout of the video (NV12, P010 and P016 are VMAF_PIX_FMT_YUV420P). */
    enum VmafPixelFormat pix_fmt;
    /** Bits per sample of the video, 8..16 (P010: 10); 1-byte words up to 8, 2-byte above. */
    unsigned bpc;
    /** Luma width and height. */
    unsigned w, h;
    /** 1: Cb and Cr interleaved in data[1] (NV12, P010, P016); 0: one plane each. */
    int semi_planar;
    /** Samples are stored value << shift (P010: 6; P016 of 12-bit video: 4); else 0. */
    unsigned shift;
    /** Device address (CUdeviceptr) of each plane; data[2] unused when semi-planar. */
    unsigned long long data[3];
    /** Bytes from a row to the next, per plane. */
    size_t pitch[3];
    /**
     * The CUstream on which the writes of the frame were queued (NULL: the
     * legacy default stream): the library's reads wait for them.
     */
    void *cu_stream;
    /**
     * Called once, from any thread, when the library no longer reads the
     * frame (the caller may then reuse its memory); may be NULL.
     */
    void (*release)(void *opaque);
    void *opaque;
} ExactvmafCudaFrame;

/**
 * Make pic a picture of a caller's device frame, without copying it: hand
 * it to vmaf_read_pictures() like any picture. Metrics with a CUDA twin
 * read the frame on the GPU (semi-planar chroma is split and shifted
 * samples are shifted down by a kernel, into the lane's own planes); a
 * metric that runs on the CPU gets the samples downloaded, once per
 * picture. Scores equal those of the same frame as a host picture, bit for
 * bit. The frame must stay valid until `release` is called; the context and
 * device are those of the allocation (any CUDA context of the process).
 * On failure nothing is taken over and `release` is not called.
 * @return 0, -EINVAL (a geometry the library refuses, an address that is not
 * device memory), -ENOSYS (built without CUDA), -ENODEV, or another
 * negative errno.
 */
int exactvmaf_cuda_picture_wrap(VmafPicture *pic, const ExactvmafCudaFrame *frame);

/**
 * Which planes of the pictures the registered features read: bit p set for
 * plane p (1: luma only, 7: all three). Samples of the other planes may be
 * left unset. Call after the features are registered. @return 0 or
 * negative errno.
 */
int exactvmaf_planes_used(VmafContext *vmaf, unsigned *mask);

/**
 * Whether a registered metric is temporal: it may write outputs of a frame
 * after that frame's vmaf_read_pictures() returned (motion's motion2 and
 * motion3 wait for the next frames' scores). Without one, on the CPU with
 * no worker threads, every output of a frame is written when its
 * vmaf_read_pictures() returns. Call after the features are registered.
 * @return 1, 0, or -EINVAL.
 */
int exactvmaf_has_temporal(VmafContext *vmaf);

/**
 * Start the context for pictures of this format and size, at a point the
 * caller names: the backend's devices are opened, the GPU pipeline and its
 * twins made, the extractors' instances made and initialised and the
 * worker threads started here, not inside the first vmaf_read_pictures()
 * (which starts a context that was not started, from its pictures). The
 * registrations and settings are fixed from here on, and every picture read
 * must have this geometry. Call after the features are registered, once.
 * @return 0, -EINVAL (no feature registered, started already, a geometry
 *         vmaf_picture_alloc() refuses), or the start's error, which every
 *         later vmaf_read_pictures() returns too.
 */
int exactvmaf_start(VmafContext *vmaf, enum VmafPixelFormat pix_fmt, unsigned bpc,
                    unsigned w, unsigned h);

/**
 * How many leading frames are complete: *n such that every output of every
 * registered extractor (and so every model's score) is written for each
 * frame read with an index below *n; those values do not change any more.
 * With worker threads or a GPU the count grows as they finish frames, so
 * a caller can read a frame's scores while later frames are computed;
 * motion's motion2 and motion3 conclude one frame late (two at the start
 * with motion_five_frame_window); after the flush every frame read is
 * complete. Any thread, while no other call on the context runs.
 * @return 0, -EINVAL, or the error of a worker thread (*n is then the
 *         count before it).
 */
int exactvmaf_frames_concluded(VmafContext *vmaf, unsigned *n);

/**
 * The name of option `key` of feature extractor `extractor` ("float_adm",
 * "adm_enhn_gain_limit" or its alias "egl"), as a static string; NULL when
 * the extractor or the option is unknown. Two keys are the same option when
 * their names are the same pointer.
 */
const char *exactvmaf_option_name(const char *extractor, const char *key);

/** What a GPU backend has of an extractor (exactvmaf_extractor_twins()). */
enum ExactvmafTwin {
    /** A CUDA twin is built into this library. */
    EXACTVMAF_TWIN_CUDA = 1 << 0,
    /** An OpenCL twin is built into this library. */
    EXACTVMAF_TWIN_OPENCL = 1 << 1,
    /**
     * The OpenCL twin needs native fp64: on a device without it, or with
     * EXACTVMAF_FP64_OFF, the extractor is computed on the CPU (same scores).
     */
    EXACTVMAF_TWIN_OPENCL_NEEDS_FP64 = 1 << 2,
};

/**
 * The feature extractors of this library, in registry order: the name of
 * extractor i, as vmaf_use_feature() takes it ("float_adm"); NULL past the
 * last. The list is the library's own (made at build time from the metric
 * rooms), so tools and tests take their lists from here.
 */
const char *exactvmaf_extractor_name(unsigned i);

/**
 * Output k of extractor i under its canonical name
 * ("VMAF_feature_adm2_score"), as an option renaming outputs takes it;
 * NULL past the last output or extractor.
 */
const char *exactvmaf_extractor_output(unsigned i, unsigned k);

/**
 * Option k of extractor i: its name, its alias (NULL when none) and its
 * help text, as static strings. @return 0, or -ENOENT past the last option
 * or extractor.
 */
int exactvmaf_extractor_option(unsigned i, unsigned k, const char **name, const char **alias,
                               const char **help);

/**
 * The GPU twins of extractor i in this library: enum ExactvmafTwin bits
 * (0 when it runs on the CPU on every backend). @return the bits, or
 * -ENOENT past the last extractor.
 */
int exactvmaf_extractor_twins(unsigned i);

/**
 * Whether the model file at `path` holds a bootstrap collection ("0", "1",
 * ... members, no "model_dict"), which vmaf_model_collection_load_from_path()
 * reads, rather than a single model. @return 1, 0, or a negative errno when
 * the file cannot be read or is not JSON (a loader then says why).
 */
int exactvmaf_model_file_is_collection(const char *path);

/**
 * The outputs the context holds: per-frame features, and model scores once
 * a model was pooled, in the order the output files list them. Read each
 * frame's value with vmaf_feature_score_at_index() and the pooled ones with
 * vmaf_feature_score_pooled(), under this name.
 */
unsigned exactvmaf_output_count(VmafContext *vmaf);
/**
 * Name of output i as the output files write it ("integer_adm2", "vmaf");
 * NULL past the end. Valid until the next picture or pooling.
 */
const char *exactvmaf_output_name(VmafContext *vmaf, unsigned i);
/**
 * Which backend computed extractor i ("cpu", "cuda"), as the output files'
 * "backends" say. @return 0, or -ENOENT past the end (or before the first
 * picture).
 */
int exactvmaf_backend_at(VmafContext *vmaf, unsigned i, const char **extractor,
                         const char **backend);
/**
 * Field f of the record of device k that computed extractor i (i as in
 * exactvmaf_backend_at(); several devices when the frames were split over
 * them), as the output files' "devices" say: "backend" ("cpu", "cuda",
 * "opencl") first, then for a GPU "name", "index" (CUDA "0", OpenCL "P:D"),
 * "platform" (OpenCL), "driver", "arch" (CUDA "sm_90") and "fp64" (OpenCL:
 * "native" or "emulated"); a field that does not apply is absent, and
 * later versions may add fields. Valid until the next picture. @return 0,
 * or -ENOENT past the last extractor, device or field.
 */
int exactvmaf_device_field_at(VmafContext *vmaf, unsigned i, unsigned k, unsigned f,
                              const char **key, const char **value);

/**
 * Receives one message (no trailing newline) at `level`. Called on whichever
 * thread logged it (the caller's, a worker's, the GPU completion thread),
 * so it must be thread-safe; it must not call back into the context.
 */
typedef void (*ExactvmafLogCallback)(void *opaque, enum VmafLogLevel level, const char *message);

/**
 * Send this context's messages (from its calls and its own threads) to cb
 * instead of the default target, filtered by the context's log_level
 * (errors always pass). NULL restores the default. @return 0 or negative errno.
 */
int exactvmaf_set_logger(VmafContext *vmaf, ExactvmafLogCallback cb, void *opaque);

/**
 * The default target: messages outside every context (loading a model,
 * say) and those of contexts without a logger go to cb; NULL (the default)
 * writes them to stderr. Process-wide.
 */
void exactvmaf_set_default_logger(ExactvmafLogCallback cb, void *opaque);

/**
 * Run-level values (psnr's apsnr_y with enable_apsnr), set at the flush, as
 * the output files' "aggregate_metrics" list them: *name and *value of
 * entry i. @return 0, or -ENOENT past the end.
 */
int exactvmaf_aggregate_at(VmafContext *vmaf, unsigned i, const char **name, double *value);

/** FNV-1a-64 of the raw RCPSS estimate over every mantissa in [1,2); 0 off x86. */
unsigned long long exactvmaf_rcpss_fingerprint(void);

/**
 * How many x in [1,2) have a refined reciprocal (RCPSS + one Newton step,
 * as float ADM's rcp mode) different from the IEEE quotient 1/x.
 * A processor signature published with the goldens (AMD Zen 4/5:
 * 2562503; Intel Xeon family 6 model 207: 2607172). 0 off x86.
 */
unsigned exactvmaf_rcpss_refined_mismatches(void);

#ifdef __cplusplus
}
#endif

#endif
