/*
 * The device layer's operations (gpu/device.h) over OpenCL (see
 * opencl_device.h): one context per opened device, shared by every open of
 * it in one fp64 mode with its built programs, queues with a staging area
 * for uploads, events, kernels and copies. The loader is opencl_loader.c's,
 * the numbering of the devices opencl_enum.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "gpu/opencl/opencl_cache.h"
#include "gpu/opencl/opencl_device.h"
#include "os/os.h"

/* ---- Device ---- */

typedef struct EvlProgram {
    const VmafGpuProgram *prog;
    cl_program p;
} EvlProgram;

struct VmafGpuKernel {
    cl_kernel k;
    const char *prog_name;  /**< the program's, static */
    char name[64];
    VmafGpuKernel *next;    /**< the device's list: released at close */
};

/*
 * What every open of one device in one fp64 mode shares in the process: the
 * context and the built programs (NVIDIA's driver takes about a second per
 * program build). Opens of the same device and mode take a reference; the
 * last close releases it. A caller that opens and closes many times (a test,
 * a batch) keeps one open to keep the builds.
 */
typedef struct EvlShared {
    struct EvlShared *next;
    cl_device_id device;
    bool fp64;
    cl_context ctx;
    unsigned refs;          /* under shared_lock */
    pthread_mutex_t lock;   /* the program cache: one build per program */
    EvlProgram *progs;
    unsigned n_progs, cap_progs;
} EvlShared;

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static EvlShared *shared_list;

/*
 * Caller memory registered for uploads (the picture pool's buffers): a
 * buffer made over it with CL_MEM_USE_HOST_PTR, which lets a driver
 * page-lock it. Uploads from inside such a range are queued straight from
 * it, without the staging copy; the buffer object itself is never used in
 * a command.
 */
typedef struct EvlPinned {
    const unsigned char *p;
    size_t bytes;
    cl_mem m;
} EvlPinned;

typedef struct EvlDev {
    VmafGpuDev base;        /* first: a VmafGpuDev * is an EvlDev * */
    cl_platform_id platform;
    cl_device_id device;
    EvlShared *sh;
    cl_context ctx;         /* sh->ctx */
    bool fp64;
    const char *options;
    char name[600];
    EvlDeviceInfo info;
    uint64_t total;
    atomic_size_t bytes;    /* allocated through alloc, for mem_info */
    pthread_mutex_t lock;   /* the kernel list and the registered ranges */
    VmafGpuKernel *kernels;
    EvlPinned *pins;
    unsigned n_pins, cap_pins;
} EvlDev;

static void shared_release(EvlShared *sh)
{
    if (!sh) return;
    pthread_mutex_lock(&shared_lock);
    const bool last = !--sh->refs;
    if (last) {
        EvlShared **pp = &shared_list;
        while (*pp != sh) pp = &(*pp)->next;
        *pp = sh->next;
    }
    pthread_mutex_unlock(&shared_lock);
    if (!last) return;
    for (unsigned i = 0; i < sh->n_progs; i++)
        EVL_CHECK(evl_driver()->clReleaseProgram(sh->progs[i].p));
    free(sh->progs);
    if (sh->ctx) EVL_CHECK(evl_driver()->clReleaseContext(sh->ctx));
    pthread_mutex_destroy(&sh->lock);
    free(sh);
}

/* The shared state of (device, fp64): a new reference, made on first use. */
static int shared_get(cl_platform_id platform, cl_device_id device, bool fp64,
                      EvlShared **out, cl_int *cl_err)
{
    *out = NULL;
    *cl_err = EVL_CL_SUCCESS;
    pthread_mutex_lock(&shared_lock);
    EvlShared *sh = shared_list;
    while (sh && !(sh->device == device && sh->fp64 == fp64)) sh = sh->next;
    if (sh) {
        sh->refs++;
        pthread_mutex_unlock(&shared_lock);
        *out = sh;
        return 0;
    }
    int err = -ENOMEM;
    sh = calloc(1, sizeof(*sh));
    if (sh && pthread_mutex_init(&sh->lock, NULL)) {
        free(sh);
        sh = NULL;
    }
    if (sh) {
        sh->device = device;
        sh->fp64 = fp64;
        sh->refs = 1;
        const cl_context_properties props[] = {
            EVL_CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0
        };
        cl_int r = EVL_CL_SUCCESS;
        sh->ctx = evl_driver()->clCreateContext(props, 1, &device, NULL, NULL, &r);
        err = EVL_CHECK_AS(r, "clCreateContext(props, 1, &device, NULL, NULL, &r)");
        if (!err && !sh->ctx) err = -EIO;
        *cl_err = r;
        if (err) {
            pthread_mutex_destroy(&sh->lock);
            free(sh);
            sh = NULL;
        } else {
            sh->next = shared_list;
            shared_list = sh;
        }
    }
    pthread_mutex_unlock(&shared_lock);
    *out = sh;
    return err;
}

/*
 * Uploads go through a staging area per queue: a buffer made with
 * CL_MEM_ALLOC_HOST_PTR and mapped, which drivers back with page-locked
 * memory, so the copy to the device is a DMA instead of the driver's own
 * staging of pageable memory (1.6 GB/s on NVIDIA's, measured). The host
 * copies each upload into the next free part and queues the write from
 * there; upload_begin() (called when the queue's earlier work is done)
 * frees the whole area for the next frame.
 */
struct VmafGpuQueue {
    EvlDev *d;
    cl_command_queue q;
    cl_mem stage;
    unsigned char *stage_p;     /* mapped; NULL: uploads straight from the caller's memory */
    size_t stage_cap, stage_used;
    bool stage_failed;          /* a staging area could not be had: no more tries */
};

struct VmafGpuEvent {
    pthread_mutex_t lock;   /* guards ev: a record's swap against a reader */
    cl_event ev;            /* the last record's marker; NULL before the first */
};

static const VmafGpuOps evl_ops;

static cl_mem mem_of(VmafGpuPtr p)
{
    return (cl_mem)(uintptr_t)p.mem;
}

static void dev_close(VmafGpuDev *dev)
{
    EvlDev *d = (EvlDev *)dev;
    if (!d) return;
    while (d->kernels) {
        VmafGpuKernel *k = d->kernels;
        d->kernels = k->next;
        EVL_CHECK(evl_driver()->clReleaseKernel(k->k));
        free(k);
    }
    for (unsigned i = 0; i < d->n_pins; i++)
        EVL_CHECK(evl_driver()->clReleaseMemObject(d->pins[i].m));
    free(d->pins);
    shared_release(d->sh);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

int evl_device_open(VmafGpuDev **out, int flat_index, int fp64_mode, char *why,
                    size_t why_len)
{
    *out = NULL;
    if (fp64_mode != EVL_FP64_AUTO && fp64_mode != EVL_FP64_OFF && fp64_mode != EVL_FP64_ON) {
        evl_set_why(why, why_len, "unknown fp64 mode %d", fp64_mode);
        return -EINVAL;
    }
    cl_platform_id platform;
    cl_device_id device;
    EvlDeviceInfo info;
    int err = evl_device_find(flat_index, &platform, &device, &info, why, why_len);
    if (err) return err;
    if (fp64_mode == EVL_FP64_ON && !info.fp64) {
        evl_set_why(why, why_len, "OpenCL device %d (%s) has no double precision (cl_khr_fp64), "
                "which fp64 on asks for", flat_index, info.name);
        return -ENOTSUP;
    }
    if (!info.denorms)
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "opencl: %s flushes float subnormals to zero; "
                 "scores may differ from the CPU's where they occur", info.name);

    EvlDev *d = calloc(1, sizeof(*d));
    if (!d) return -ENOMEM;
    if (pthread_mutex_init(&d->lock, NULL)) {
        free(d);
        return -ENOMEM;
    }
    d->base.ops = &evl_ops;
    d->platform = platform;
    d->device = device;
    d->fp64 = info.fp64 && fp64_mode != EVL_FP64_OFF;
    d->options = EVL_BUILD_OPTIONS(d->fp64);
    d->total = info.global_mem;
    atomic_init(&d->bytes, 0);
    snprintf(d->name, sizeof(d->name), "%s (OpenCL, %s)", info.name, info.platform);
    d->info = info;
    cl_int r = EVL_CL_SUCCESS;
    err = shared_get(platform, device, d->fp64, &d->sh, &r);
    if (!err) d->ctx = d->sh->ctx;
    if (err) {
        evl_set_why(why, why_len, "OpenCL device %d (%s) cannot be opened: clCreateContext "
                "failed with %s", flat_index, info.name, evl_error_name(r));
        dev_close(&d->base);
        return err;
    }
    *out = &d->base;
    return 0;
}

bool evl_device_fp64(const VmafGpuDev *dev)
{
    return dev && dev->ops == &evl_ops && ((const EvlDev *)dev)->fp64;
}

const char *evl_device_build_options(const VmafGpuDev *dev)
{
    return dev && dev->ops == &evl_ops ? ((const EvlDev *)dev)->options : NULL;
}

static const char *dev_name(const VmafGpuDev *dev)
{
    return ((const EvlDev *)dev)->name;
}

static void dev_describe(const VmafGpuDev *dev, VmafGpuDeviceInfo *out)
{
    const EvlDev *d = (const EvlDev *)dev;
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", d->info.name);
    snprintf(out->index, sizeof(out->index), "%d:%d", d->info.platform_index,
             d->info.device_index);
    snprintf(out->platform, sizeof(out->platform), "%s", d->info.platform);
    snprintf(out->driver, sizeof(out->driver), "%s", d->info.driver);
    /* Without native binary64 the kernels compute it from float pairs (EV_FP64=0). */
    snprintf(out->fp64, sizeof(out->fp64), "%s", d->fp64 ? "native" : "emulated");
}

static int dev_mem_info(VmafGpuDev *dev, size_t *free_bytes, size_t *total_bytes)
{
    EvlDev *d = (EvlDev *)dev;
    /* OpenCL cannot say what is free: the total less what this device holds. */
    const size_t used = atomic_load(&d->bytes);
    const size_t total = d->total > SIZE_MAX ? SIZE_MAX : (size_t)d->total;
    *total_bytes = total;
    *free_bytes = used < total ? total - used : 0;
    return 0;
}

static int dev_enter(VmafGpuDev *dev)
{
    (void)dev;
    return 0;
}

static void dev_leave(VmafGpuDev *dev)
{
    (void)dev;
}

/* ---- Memory ---- */

static int mem_alloc(VmafGpuDev *dev, VmafGpuPtr *p, size_t bytes)
{
    EvlDev *d = (EvlDev *)dev;
    *p = (VmafGpuPtr){ 0, 0 };
    cl_int r = EVL_CL_SUCCESS;
    /* A 0-byte buffer is invalid in OpenCL; callers may ask for one. */
    const cl_mem m = evl_driver()->clCreateBuffer(d->ctx, EVL_CL_MEM_READ_WRITE, bytes ? bytes : 4,
                                                  NULL, &r);
    int err = EVL_CHECK_AS(r, "clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, ...)");
    if (!err && !m) err = -EIO;
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: cannot allocate %zu bytes on %s", bytes,
                 d->name);
        return err;
    }
    p->mem = (uint64_t)(uintptr_t)m;
    atomic_fetch_add(&d->bytes, bytes);
    return 0;
}

static void mem_free(VmafGpuDev *dev, VmafGpuPtr *p, size_t bytes)
{
    EvlDev *d = (EvlDev *)dev;
    if (!p->mem) return;
    EVL_CHECK(evl_driver()->clReleaseMemObject(mem_of(*p)));
    *p = (VmafGpuPtr){ 0, 0 };
    size_t used = atomic_load(&d->bytes);
    while (!atomic_compare_exchange_weak(&d->bytes, &used, used - (bytes < used ? bytes : used)))
        ;
}

static int host_alloc(VmafGpuDev *dev, void **p, size_t bytes)
{
    /* Plain page-aligned memory: OpenCL has no portable pinned allocation
     * outside a mapped buffer, and copies from it are correct either way. */
    const size_t page = 4096;
    const size_t size = bytes ? (bytes + page - 1) / page * page : page;
    *p = size >= bytes ? vmaf_os_aligned_alloc(page, size) : NULL;
    if (!*p) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: cannot allocate %zu bytes of host memory for "
                 "%s", bytes, dev_name(dev));
        return -ENOMEM;
    }
    return 0;
}

static void host_free(VmafGpuDev *dev, void **p)
{
    (void)dev;
    vmaf_os_aligned_free(*p);
    *p = NULL;
}

static int host_register(VmafGpuDev *dev, void *p, size_t bytes)
{
    EvlDev *d = (EvlDev *)dev;
    if (!p || !bytes) return 0;
    cl_int r = EVL_CL_SUCCESS;
    cl_mem m = evl_driver()->clCreateBuffer(d->ctx, EVL_CL_MEM_READ_ONLY | EVL_CL_MEM_USE_HOST_PTR,
                                            bytes, p, &r);
    /* Not registered: uploads from there stay staged, which is only slower. */
    if (r != EVL_CL_SUCCESS || !m) return 0;
    pthread_mutex_lock(&d->lock);
    if (d->n_pins == d->cap_pins) {
        const unsigned cap = d->cap_pins ? 2 * d->cap_pins : 16;
        EvlPinned *np = realloc(d->pins, cap * sizeof(*np));
        if (!np) {
            pthread_mutex_unlock(&d->lock);
            EVL_CHECK(evl_driver()->clReleaseMemObject(m));
            return 0;
        }
        d->pins = np;
        d->cap_pins = cap;
    }
    d->pins[d->n_pins++] = (EvlPinned){ p, bytes, m };
    pthread_mutex_unlock(&d->lock);
    return 0;
}

static void host_unregister(VmafGpuDev *dev, void *p)
{
    EvlDev *d = (EvlDev *)dev;
    cl_mem m = NULL;
    pthread_mutex_lock(&d->lock);
    for (unsigned i = 0; i < d->n_pins; i++) {
        if (d->pins[i].p != p) continue;
        m = d->pins[i].m;
        d->pins[i] = d->pins[--d->n_pins];
        break;
    }
    pthread_mutex_unlock(&d->lock);
    if (m) EVL_CHECK(evl_driver()->clReleaseMemObject(m));
}

/* Whether [src, src + bytes) lies in a registered range. */
static bool registered(EvlDev *d, const void *src, size_t bytes)
{
    const unsigned char *s = src;
    bool in = false;
    pthread_mutex_lock(&d->lock);
    for (unsigned i = 0; i < d->n_pins && !in; i++)
        in = s >= d->pins[i].p && bytes <= d->pins[i].bytes &&
             (size_t)(s - d->pins[i].p) <= d->pins[i].bytes - bytes;
    pthread_mutex_unlock(&d->lock);
    return in;
}

/* ---- Queues and events ---- */

static int queue_create(VmafGpuDev *dev, VmafGpuQueue **out)
{
    EvlDev *d = (EvlDev *)dev;
    *out = NULL;
    VmafGpuQueue *q = calloc(1, sizeof(*q));
    if (!q) return -ENOMEM;
    q->d = d;
    cl_int r = EVL_CL_SUCCESS;
    /* In order (no out-of-order flag), profiled so that elapsed_ms can answer. */
    q->q = evl_driver()->clCreateCommandQueue(d->ctx, d->device, EVL_CL_QUEUE_PROFILING_ENABLE, &r);
    int err = EVL_CHECK_AS(r, "clCreateCommandQueue(d->ctx, d->device, ...)");
    if (!err && !q->q) err = -EIO;
    if (err) {
        free(q);
        return err;
    }
    *out = q;
    return 0;
}

static void stage_release(VmafGpuQueue *q)
{
    if (!q->stage) return;
    EVL_CHECK(evl_driver()->clFinish(q->q));
    if (q->stage_p)
        EVL_CHECK(evl_driver()->clEnqueueUnmapMemObject(q->q, q->stage, q->stage_p, 0, NULL, NULL));
    EVL_CHECK(evl_driver()->clFinish(q->q));
    EVL_CHECK(evl_driver()->clReleaseMemObject(q->stage));
    q->stage = NULL;
    q->stage_p = NULL;
    q->stage_cap = q->stage_used = 0;
}

/* Room for `bytes` more in the staging area; false: upload from the caller's memory. */
static bool stage_reserve(VmafGpuQueue *q, size_t bytes)
{
    if (q->stage_failed) return false;
    if (q->stage_p && q->stage_used + bytes <= q->stage_cap) return true;
    /* Grown to hold a whole frame's uploads, so that this wait (earlier
     * copies still read the area) happens on the first frames only. */
    const size_t need = q->stage_used + bytes;
    const size_t cap = need > 2 * q->stage_cap ? need : 2 * q->stage_cap;
    stage_release(q);   /* waits for the queue first */
    cl_int r = EVL_CL_SUCCESS;
    q->stage = evl_driver()->clCreateBuffer(q->d->ctx,
                                            EVL_CL_MEM_READ_ONLY | EVL_CL_MEM_ALLOC_HOST_PTR, cap,
                                            NULL, &r);
    if (r != EVL_CL_SUCCESS || !q->stage) {
        q->stage = NULL;
        q->stage_failed = true;
        return false;
    }
    q->stage_p = evl_driver()->clEnqueueMapBuffer(q->q, q->stage, EVL_CL_TRUE, EVL_CL_MAP_WRITE, 0,
                                                  cap, 0, NULL, NULL, &r);
    if (r != EVL_CL_SUCCESS || !q->stage_p) {
        q->stage_p = NULL;
        stage_release(q);
        q->stage_failed = true;
        return false;
    }
    q->stage_cap = cap;
    q->stage_used = 0;
    return true;
}

static void upload_begin(VmafGpuQueue *q)
{
    q->stage_used = 0;
}

static void queue_destroy(VmafGpuDev *dev, VmafGpuQueue *q)
{
    (void)dev;
    if (!q) return;
    stage_release(q);
    EVL_CHECK(evl_driver()->clReleaseCommandQueue(q->q));
    free(q);
}

static int queue_sync(VmafGpuQueue *q)
{
    return EVL_CHECK(evl_driver()->clFinish(q->q));
}

static int event_create(VmafGpuDev *dev, VmafGpuEvent **out, bool timing)
{
    (void)dev;
    (void)timing;   /* every queue is profiled */
    *out = NULL;
    VmafGpuEvent *e = calloc(1, sizeof(*e));
    if (!e) return -ENOMEM;
    if (pthread_mutex_init(&e->lock, NULL)) {
        free(e);
        return -ENOMEM;
    }
    *out = e;
    return 0;
}

static void event_destroy(VmafGpuDev *dev, VmafGpuEvent *e)
{
    (void)dev;
    if (!e) return;
    if (e->ev) EVL_CHECK(evl_driver()->clReleaseEvent(e->ev));
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static int event_record(VmafGpuQueue *q, VmafGpuEvent *e)
{
    cl_event ev = NULL;
    int err = EVL_CHECK(evl_driver()->clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev));
    if (err) return err;
    /* Another queue's barrier or the host may wait for the marker only once
     * it was submitted: OpenCL asks for a flush (or blocking call) first. */
    err = EVL_CHECK(evl_driver()->clFlush(q->q));
    if (err) {
        EVL_CHECK(evl_driver()->clReleaseEvent(ev));
        return err;
    }
    pthread_mutex_lock(&e->lock);
    cl_event old = e->ev;
    e->ev = ev;
    pthread_mutex_unlock(&e->lock);
    if (old) EVL_CHECK(evl_driver()->clReleaseEvent(old));
    return 0;
}

/* The event's current marker, retained (NULL: never recorded). */
static int event_take(VmafGpuEvent *e, cl_event *ev)
{
    int err = 0;
    pthread_mutex_lock(&e->lock);
    *ev = e->ev;
    if (*ev) err = EVL_CHECK(evl_driver()->clRetainEvent(*ev));
    pthread_mutex_unlock(&e->lock);
    if (err) *ev = NULL;
    return err;
}

static int event_wait(VmafGpuQueue *q, VmafGpuEvent *e)
{
    cl_event ev;
    int err = event_take(e, &ev);
    if (err || !ev) return err;
    err = EVL_CHECK(evl_driver()->clEnqueueBarrierWithWaitList(q->q, 1, &ev, NULL));
    EVL_CHECK(evl_driver()->clReleaseEvent(ev));
    return err;
}

static int event_sync(VmafGpuEvent *e)
{
    cl_event ev;
    int err = event_take(e, &ev);
    if (err || !ev) return err;
    err = EVL_CHECK(evl_driver()->clWaitForEvents(1, &ev));
    EVL_CHECK(evl_driver()->clReleaseEvent(ev));
    return err;
}

static int event_end_ns(VmafGpuEvent *e, cl_ulong *ns)
{
    cl_event ev;
    int err = event_take(e, &ev);
    if (err) return err;
    if (!ev) return -EINVAL;
    err = EVL_CHECK(evl_driver()->clGetEventProfilingInfo(ev, EVL_CL_PROFILING_COMMAND_END,
                                                          sizeof(*ns), ns, NULL));
    EVL_CHECK(evl_driver()->clReleaseEvent(ev));
    return err;
}

static double event_elapsed_ms(VmafGpuEvent *a, VmafGpuEvent *b)
{
    cl_ulong ta = 0, tb = 0;
    if (event_end_ns(a, &ta) || event_end_ns(b, &tb)) return -1.0;
    return ((double)tb - (double)ta) / 1e6;
}

/* ---- Programs and kernels ---- */

/* Log the build log line by line: vmaf_log's messages are short. */
static void log_build_log(const EvlDev *d, cl_program p, const char *prog_name)
{
    size_t size = 0;
    char *text = NULL;
    const EvlDriver *cl = evl_driver();
    if (!EVL_CHECK(cl->clGetProgramBuildInfo(p, d->device, EVL_CL_PROGRAM_BUILD_LOG, 0, NULL,
                                             &size)) && (text = malloc(size + 1)) &&
        !EVL_CHECK(cl->clGetProgramBuildInfo(p, d->device, EVL_CL_PROGRAM_BUILD_LOG, size,
                                             text, NULL))) {
        text[size] = '\0';
    } else {
        free(text);
        text = NULL;
    }
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: the %s kernels do not build for %s (options %s)%s",
             prog_name, d->name, d->options, text ? "; build log:" : "; no build log");
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        else next = line + strlen(line);
        if (*line) vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl:   %.900s", line);
    }
    free(text);
}

/*
 * The built program for `prog` on d's device and mode: built on first use
 * in the process (EvlShared). Call under d->sh->lock.
 */
static int program_get(EvlDev *d, const VmafGpuProgram *prog, cl_program *out)
{
    EvlShared *sh = d->sh;
    for (unsigned i = 0; i < sh->n_progs; i++) {
        if (sh->progs[i].prog == prog) {
            *out = sh->progs[i].p;
            return 0;
        }
    }
    if (sh->n_progs == sh->cap_progs) {
        const unsigned cap = sh->cap_progs ? 2 * sh->cap_progs : 16;
        EvlProgram *np = realloc(sh->progs, cap * sizeof(*np));
        if (!np) return -ENOMEM;
        sh->progs = np;
        sh->cap_progs = cap;
    }
    const char *name = prog->name ? prog->name : "unnamed";
    const char *src = vmaf_gpu_blob(prog, d->base.ops);
    const EvlCacheId id = { d->info.name, d->info.platform, d->info.platform_version,
                            d->info.version, d->info.driver, d->options };
    EvlCacheKey key;
    evl_cache_key(&id, src, &key);
    cl_program p = evl_cache_load(d->ctx, d->device, d->options, &key, name);
    if (p) {
        sh->progs[sh->n_progs++] = (EvlProgram){ prog, p };
        *out = p;
        return 0;
    }
    cl_int r = EVL_CL_SUCCESS;
    p = evl_driver()->clCreateProgramWithSource(d->ctx, 1, &src, NULL, &r);
    int err = EVL_CHECK_AS(r, "clCreateProgramWithSource(d->ctx, 1, &src, NULL, &r)");
    if (!err && !p) err = -EIO;
    if (err) return err;
    r = evl_driver()->clBuildProgram(p, 1, &d->device, d->options, NULL, NULL);
    if (r == EVL_CL_BUILD_PROGRAM_FAILURE) {
        log_build_log(d, p, name);
        err = -EINVAL;
    } else {
        err = EVL_CHECK_AS(r, "clBuildProgram(p, 1, &d->device, d->options, NULL, NULL)");
        if (err)
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: the %s kernels cannot be built for %s",
                     name, d->name);
    }
    if (err) {
        EVL_CHECK(evl_driver()->clReleaseProgram(p));
        return err;
    }
    evl_cache_store(p, &key, name);
    sh->progs[sh->n_progs++] = (EvlProgram){ prog, p };
    *out = p;
    return 0;
}

static int kernel_get(VmafGpuDev *dev, const VmafGpuProgram *prog, const char *name,
                      VmafGpuKernel **out)
{
    EvlDev *d = (EvlDev *)dev;
    *out = NULL;
    if (!vmaf_gpu_blob(prog, dev->ops)) return -ENOSYS;
    VmafGpuKernel *k = calloc(1, sizeof(*k));
    if (!k) return -ENOMEM;
    k->prog_name = prog->name ? prog->name : "unnamed";
    snprintf(k->name, sizeof(k->name), "%s", name);
    /* Held while building: a second thread asking for the same program
     * waits for the first build instead of building it again. */
    pthread_mutex_lock(&d->sh->lock);
    cl_program p = NULL;
    int err = program_get(d, prog, &p);
    pthread_mutex_unlock(&d->sh->lock);
    pthread_mutex_lock(&d->lock);
    if (!err) {
        cl_int r = EVL_CL_SUCCESS;
        k->k = evl_driver()->clCreateKernel(p, name, &r);
        err = EVL_CHECK_AS(r, "clCreateKernel(p, name, &r)");
        if (!err && !k->k) err = -EIO;
        if (err)
            vmaf_log(VMAF_LOG_LEVEL_ERROR, r == EVL_CL_INVALID_KERNEL_NAME
                     ? "opencl: program %s has no kernel %s"
                     : "opencl: program %s: kernel %s cannot be made", k->prog_name, name);
    }
    if (!err) {
        k->next = d->kernels;
        d->kernels = k;
    }
    pthread_mutex_unlock(&d->lock);
    if (err) {
        free(k);
        return err;
    }
    *out = k;
    return 0;
}

static int launch(VmafGpuQueue *q, VmafGpuKernel *k, unsigned gx, unsigned gy, unsigned gz,
                  unsigned bx, unsigned by, const VmafGpuArg *args, unsigned n_args)
{
    if (!gx || !gy || !gz || !bx || !by) {
        /* As CUDA: an empty grid or block is a caller's error, not a no-op. */
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: kernel %s of %s launched with an empty grid "
                 "(%ux%ux%u blocks of %ux%u)", k->name, k->prog_name, gx, gy, gz, bx, by);
        return -EINVAL;
    }
    cl_uint idx = 0;
    for (unsigned i = 0; i < n_args; i++) {
        int err;
        if (args[i].ptr) {
            /* Two parameters: the buffer, then the byte offset (EV_BUF). */
            const VmafGpuPtr *p = args[i].p;
            const cl_mem m = mem_of(*p);
            const cl_ulong off = p->off;
            err = EVL_CHECK(evl_driver()->clSetKernelArg(k->k, idx, sizeof(m), &m));
            if (!err)
                err = EVL_CHECK(evl_driver()->clSetKernelArg(k->k, idx + 1, sizeof(off), &off));
            idx += 2;
        } else {
            err = EVL_CHECK(evl_driver()->clSetKernelArg(k->k, idx, args[i].size, args[i].p));
            idx++;
        }
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: argument %u of kernel %s of %s", i,
                     k->name, k->prog_name);
            return err;
        }
    }
    const size_t global[3] = { (size_t)gx * bx, (size_t)gy * by, gz };
    const size_t local[3] = { bx, by, 1 };
    const int err = EVL_CHECK(evl_driver()->clEnqueueNDRangeKernel(q->q, k->k, 3, NULL, global,
                                                                   local, 0, NULL, NULL));
    if (err)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: kernel %s of %s (%ux%ux%u blocks of %ux%u) "
                 "on %s", k->name, k->prog_name, gx, gy, gz, bx, by, q->d->name);
    return err;
}

/* ---- Copies ---- */

/* Zero-byte transfers are invalid in OpenCL 1.2; callers may ask for them. */

static int mem_zero(VmafGpuQueue *q, VmafGpuPtr p, size_t bytes)
{
    static const unsigned char zero = 0;
    if (!bytes) return 0;
    return EVL_CHECK(evl_driver()->clEnqueueFillBuffer(q->q, mem_of(p), &zero, 1, p.off, bytes, 0,
                                                       NULL, NULL));
}

static int mem_copy(VmafGpuQueue *q, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes)
{
    if (!bytes) return 0;
    return EVL_CHECK(evl_driver()->clEnqueueCopyBuffer(q->q, mem_of(src), mem_of(dst), src.off,
                                                       dst.off, bytes, 0, NULL, NULL));
}

static int upload(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t bytes)
{
    if (!bytes) return 0;
    if (!registered(q->d, src, bytes) && stage_reserve(q, bytes)) {
        unsigned char *s = q->stage_p + q->stage_used;
        memcpy(s, src, bytes);
        q->stage_used += (bytes + 63) & ~(size_t)63;
        src = s;
    }
    return EVL_CHECK(evl_driver()->clEnqueueWriteBuffer(q->q, mem_of(dst), EVL_CL_FALSE, dst.off,
                                                        bytes, src, 0, NULL, NULL));
}

static int upload_2d(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t spitch,
                     size_t w, size_t h)
{
    if (!w || !h) return 0;
    if (!registered(q->d, src, spitch * (h - 1) + w) && stage_reserve(q, w * h)) {
        /* Packed into the staging area, then one plain write. */
        unsigned char *s = q->stage_p + q->stage_used;
        for (size_t i = 0; i < h; i++)
            memcpy(s + i * w, (const unsigned char *)src + i * spitch, w);
        q->stage_used += (w * h + 63) & ~(size_t)63;
        return EVL_CHECK(evl_driver()->clEnqueueWriteBuffer(q->q, mem_of(dst), EVL_CL_FALSE,
                                                            dst.off, w * h, s, 0, NULL, NULL));
    }
    /* The buffer's origin is a byte offset: x is in bytes, rows w apart. */
    const size_t buffer_origin[3] = { dst.off, 0, 0 };
    const size_t host_origin[3] = { 0, 0, 0 };
    const size_t region[3] = { w, h, 1 };
    return EVL_CHECK(evl_driver()->clEnqueueWriteBufferRect(q->q, mem_of(dst), EVL_CL_FALSE,
                                                            buffer_origin, host_origin, region,
                                                            w, 0, spitch, 0, src, 0, NULL, NULL));
}

static int download(VmafGpuQueue *q, void *dst, VmafGpuPtr src, size_t bytes)
{
    if (!bytes) return 0;
    return EVL_CHECK(evl_driver()->clEnqueueReadBuffer(q->q, mem_of(src), EVL_CL_FALSE, src.off,
                                                       bytes, dst, 0, NULL, NULL));
}

static bool dev_has_fp64(const VmafGpuDev *d)
{
    return ((const EvlDev *)d)->fp64;
}

static const VmafGpuOps evl_ops = {
    .name = "opencl",
    .close = dev_close,
    .device_name = dev_name,
    .describe = dev_describe,
    .has_fp64 = dev_has_fp64,
    .mem_info = dev_mem_info,
    .enter = dev_enter,
    .leave = dev_leave,
    .alloc = mem_alloc,
    .free = mem_free,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .queue_create = queue_create,
    .queue_destroy = queue_destroy,
    .queue_sync = queue_sync,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .record = event_record,
    .wait = event_wait,
    .sync = event_sync,
    .elapsed_ms = event_elapsed_ms,
    .kernel = kernel_get,
    .launch = launch,
    .memset0 = mem_zero,
    .copy = mem_copy,
    .upload = upload,
    .upload_2d = upload_2d,
    .download = download,
    .host_register = host_register,
    .host_unregister = host_unregister,
    .upload_begin = upload_begin,
};
