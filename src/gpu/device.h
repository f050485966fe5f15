/*
 * The GPU device layer: what the frame pipeline (pipeline.h) and the twins
 * need from a GPU API, behind one table of operations per backend (CUDA in
 * gpu/cuda/cuda_device.c, OpenCL in gpu/opencl/opencl_device.c). Nothing
 * above this layer names a CUDA or OpenCL type, so a twin's host code and
 * the pipeline serve every backend; a twin's program holds one build of its
 * kernels per backend (a CUDA fatbin, an OpenCL C text) with the same kernel
 * names and the same arguments.
 *
 * Device memory is a VmafGpuPtr: an allocation and a byte offset into it
 * (OpenCL has no device addresses, CUDA does). A kernel argument made from
 * one (VMAF_GPU_ARG) becomes the address base + off in CUDA, and two
 * arguments, the buffer and its byte offset as a ulong, in OpenCL (the
 * kernels' EV_BUF / EV_AT macros, gpu/opencl/ev_opencl.h).
 *
 * Queues run their work in order; events order one queue after another's
 * work and let the host wait. Every operation is checked: it returns 0 or a
 * negative errno, having logged the API call and the API's error name.
 */
#ifndef EXACTVMAF_GPU_DEVICE_H
#define EXACTVMAF_GPU_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct VmafGpuDev VmafGpuDev;
typedef struct VmafGpuQueue VmafGpuQueue;
typedef struct VmafGpuEvent VmafGpuEvent;
typedef struct VmafGpuKernel VmafGpuKernel;
typedef struct VmafGpuGraph VmafGpuGraph;

/** Device memory: an allocation (CUdeviceptr or cl_mem) and a byte offset into it. */
typedef struct VmafGpuPtr {
    uint64_t mem;
    size_t off;
} VmafGpuPtr;

/** p advanced by `bytes`. */
static inline VmafGpuPtr vmaf_gpu_at(VmafGpuPtr p, size_t bytes)
{
    p.off += bytes;
    return p;
}

/** One kernel argument: a value of `size` bytes at p, or (ptr) a VmafGpuPtr at p. */
typedef struct VmafGpuArg {
    const void *p;
    size_t size;
    bool ptr;
} VmafGpuArg;

static inline VmafGpuArg vmaf_gpu_arg_ptr_(const VmafGpuPtr *p, size_t size)
{
    return (VmafGpuArg){ p, size, true };
}

static inline VmafGpuArg vmaf_gpu_arg_val_(const void *p, size_t size)
{
    return (VmafGpuArg){ p, size, false };
}

/** The argument for lvalue x: device memory when x is a VmafGpuPtr, else x's bytes. */
#define VMAF_GPU_ARG(x)                                                                  \
    _Generic((x), VmafGpuPtr: vmaf_gpu_arg_ptr_, const VmafGpuPtr: vmaf_gpu_arg_ptr_,    \
             default: vmaf_gpu_arg_val_)(&(x), sizeof(x))

/** One backend's build of a program. */
typedef struct VmafGpuBlob {
    const char *api;                    /**< the backend's VmafGpuOps.name */
    const void *blob;                   /**< CUDA: a fatbin; OpenCL: C text, includes inlined */
} VmafGpuBlob;

/**
 * A program: the kernels of a twin (or the pipeline's own), with one blob
 * per backend that built them (src/gpu/meson.build makes the tables from
 * the backends' build lists). The twin runs where its blobs have the
 * pipeline's backend.
 */
typedef struct VmafGpuProgram {
    const char *name;                   /**< for messages: the twin's room */
    const VmafGpuBlob *blobs;           /**< NULL-api terminated */
} VmafGpuProgram;

/**
 * What a run's outputs say of a device (their "devices" records): the
 * strings the driver gives, so that an operator can match them with the
 * driver's own tools. Empty where a field does not apply to the backend.
 */
typedef struct VmafGpuDeviceInfo {
    char name[256];         /**< the driver's name: "NVIDIA H200" */
    char index[32];         /**< as the CLI takes it: CUDA "0", OpenCL "P:D" */
    char platform[256];     /**< OpenCL platform name; "" on CUDA */
    char driver[128];       /**< the driver's version */
    char arch[32];          /**< CUDA "sm_90"; "" on OpenCL */
    char fp64[16];          /**< OpenCL: binary64 "native" or "emulated"; "" on CUDA */
} VmafGpuDeviceInfo;

typedef struct VmafGpuOps {
    /** "cuda", "opencl": the outputs' backend, and its blobs' key (VmafGpuBlob.api) */
    const char *name;
    void (*close)(VmafGpuDev *d);
    /** "NVIDIA H200 (sm_90)" style, for messages. */
    const char *(*device_name)(const VmafGpuDev *d);
    /** Fill *info (every field, "" where unknown). */
    void (*describe)(const VmafGpuDev *d, VmafGpuDeviceInfo *info);
    int (*mem_info)(VmafGpuDev *d, size_t *free_bytes, size_t *total_bytes);
    /** Whether kernels compute binary64 natively (EV_FP64 in OpenCL sources). */
    bool (*has_fp64)(const VmafGpuDev *d);
    /** Make the device current on the calling thread (CUDA's context); may be a no-op. */
    int (*enter)(VmafGpuDev *d);
    void (*leave)(VmafGpuDev *d);

    int (*alloc)(VmafGpuDev *d, VmafGpuPtr *p, size_t bytes);
    void (*free)(VmafGpuDev *d, VmafGpuPtr *p, size_t bytes);
    /** Page-locked host memory (for readbacks). */
    int (*host_alloc)(VmafGpuDev *d, void **p, size_t bytes);
    void (*host_free)(VmafGpuDev *d, void **p);

    int (*queue_create)(VmafGpuDev *d, VmafGpuQueue **q);
    void (*queue_destroy)(VmafGpuDev *d, VmafGpuQueue *q);
    int (*queue_sync)(VmafGpuQueue *q);
    /** `timing`: elapsed_ms may be asked between two such events. */
    int (*event_create)(VmafGpuDev *d, VmafGpuEvent **e, bool timing);
    void (*event_destroy)(VmafGpuDev *d, VmafGpuEvent *e);
    /** e marks the end of everything queued on q so far (replacing what it marked). */
    int (*record)(VmafGpuQueue *q, VmafGpuEvent *e);
    /** Work queued on q from now on waits for e. */
    int (*wait)(VmafGpuQueue *q, VmafGpuEvent *e);
    /** The host waits for e. */
    int (*sync)(VmafGpuEvent *e);
    /** Milliseconds between two recorded timing events; -1 when unknown. */
    double (*elapsed_ms)(VmafGpuEvent *a, VmafGpuEvent *b);

    /** Kernel `name` of the backend's part of `prog` (built once per device). */
    int (*kernel)(VmafGpuDev *d, const VmafGpuProgram *prog, const char *name,
                  VmafGpuKernel **k);
    /** A grid of gx x gy x gz blocks of bx x by threads. */
    int (*launch)(VmafGpuQueue *q, VmafGpuKernel *k, unsigned gx, unsigned gy, unsigned gz,
                  unsigned bx, unsigned by, const VmafGpuArg *args, unsigned n_args);
    int (*memset0)(VmafGpuQueue *q, VmafGpuPtr p, size_t bytes);
    int (*copy)(VmafGpuQueue *q, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes);
    /** Host to device: src stays valid and unchanged until the queue passes the copy. */
    int (*upload)(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t bytes);
    /** Rows: h rows of w bytes, src rows spitch apart, packed on the device. */
    int (*upload_2d)(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t spitch,
                     size_t w, size_t h);
    int (*download)(VmafGpuQueue *q, void *dst, VmafGpuPtr src, size_t bytes);
    /**
     * Page-lock host memory the caller owns for faster uploads (a picture
     * pool); 0 and nothing done where the backend has no such thing.
     */
    int (*host_register)(VmafGpuDev *d, void *p, size_t bytes);
    void (*host_unregister)(VmafGpuDev *d, void *p);
    /*
     * Device pictures (gpu/dev_picture.h): NULL where the backend cannot
     * read another API's device memory (then the pipeline reads their host
     * copies). native_context: the context d works in; copy_2d_in: h rows of
     * w bytes from the device address src (rows spitch apart) to dst,
     * packed; wait_native: work queued on q from now on waits for the
     * backend's own event `ev` (a CUevent, of any context).
     */
    void *(*native_context)(const VmafGpuDev *d);
    int (*copy_2d_in)(VmafGpuQueue *q, VmafGpuPtr dst, uint64_t src, size_t spitch, size_t w,
                      size_t h);
    int (*wait_native)(VmafGpuQueue *q, void *ev);
    /**
     * May be NULL. A frame's uploads start on q and everything queued on q
     * before is done (the caller waited for it): a backend that stages
     * uploads may reuse its staging memory.
     */
    void (*upload_begin)(VmafGpuQueue *q);

    /*
     * Graphs: work queued once and launched again as one call (CUDA
     * graphs). NULL where the backend has none; graph_ok says whether the
     * driver at hand has them. Between graph_begin(q) and graph_end(q) the
     * work queued on q (launches, copies, memsets, event records and waits)
     * is not run but captured; graph_end replaces *g with an executable
     * graph of it, and graph_launch queues all of it on q. Event waits and
     * records in a graph take effect when the graph is launched.
     */
    bool (*graph_ok)(VmafGpuDev *d);
    int (*graph_begin)(VmafGpuQueue *q);
    int (*graph_end)(VmafGpuDev *d, VmafGpuQueue *q, VmafGpuGraph **g);
    int (*graph_launch)(VmafGpuQueue *q, VmafGpuGraph *g);
    void (*graph_destroy)(VmafGpuDev *d, VmafGpuGraph *g);
} VmafGpuOps;

/** The blob of prog for the backend of ops; NULL when none. */
static inline const void *vmaf_gpu_blob(const VmafGpuProgram *prog, const VmafGpuOps *ops)
{
    for (const VmafGpuBlob *b = prog ? prog->blobs : NULL; b && b->api; b++)
        if (!strcmp(b->api, ops->name)) return b->blob;
    return NULL;
}

/** Every backend's device struct starts with its table. */
struct VmafGpuDev {
    const VmafGpuOps *ops;
};

#endif
