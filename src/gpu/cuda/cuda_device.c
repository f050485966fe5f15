/*
 * The CUDA backend of the device layer (gpu/device.h): its operations on a
 * VmafCudaState (a device's primary context and loaded modules). Queues are
 * non-blocking streams; events are CUDA events (with blocking sync, so the
 * completion thread sleeps rather than spins); device memory is a
 * CUdeviceptr with the offset added when it becomes a kernel argument.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "gpu/device.h"
#include "cuda_backend.h"
#include "cuda_common.h"

typedef struct CudaDev {
    VmafGpuDev base;
    VmafCudaState *st;
} CudaDev;

/* Queues and events are the driver's streams and events, cast. */
static VmafCudaState *st_of(const VmafGpuDev *d)
{
    return ((const CudaDev *)d)->st;
}

static CUstream stream_of(VmafGpuQueue *q)
{
    return (CUstream)q;
}

static CUevent event_of(VmafGpuEvent *e)
{
    return (CUevent)e;
}

static void dev_close(VmafGpuDev *d)
{
    if (!d) return;
    evc_state_close(st_of(d));
    free(d);
}

static const char *dev_name(const VmafGpuDev *d)
{
    return evc_state_device_name(st_of(d));
}

/* Queries that fail leave their field empty: a description never fails a run. */
static void dev_describe(const VmafGpuDev *d, VmafGpuDeviceInfo *out)
{
    const EvcDriver *drv = evc_driver();
    const CUdevice dev = (CUdevice)evc_state_device(st_of(d));
    memset(out, 0, sizeof(*out));
    snprintf(out->index, sizeof(out->index), "%d", (int)dev);
    char name[sizeof(out->name)];
    if (drv->cuDeviceGetName(name, (int)sizeof(name), dev) == EVC_CUDA_SUCCESS) {
        name[sizeof(name) - 1] = '\0';
        snprintf(out->name, sizeof(out->name), "%s", name);
    }
    int v = 0;
    if (drv->cuDriverGetVersion && drv->cuDriverGetVersion(&v) == EVC_CUDA_SUCCESS && v > 0)
        snprintf(out->driver, sizeof(out->driver), "%d.%d", v / 1000, v % 1000 / 10);
    int major = 0, minor = 0;
    if (drv->cuDeviceGetAttribute(&major, EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  dev) == EVC_CUDA_SUCCESS &&
        drv->cuDeviceGetAttribute(&minor, EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  dev) == EVC_CUDA_SUCCESS)
        snprintf(out->arch, sizeof(out->arch), "sm_%d%d", major, minor);
}

static int dev_mem_info(VmafGpuDev *d, size_t *free_b, size_t *total_b)
{
    return EVC_CHECK(evc_driver()->cuMemGetInfo(free_b, total_b));
}

static bool dev_has_fp64(const VmafGpuDev *d)
{
    return true;
}

static int dev_enter(VmafGpuDev *d)
{
    return evc_push(st_of(d));
}

static void dev_leave(VmafGpuDev *d)
{
    evc_pop(st_of(d));
}

static int dev_alloc(VmafGpuDev *d, VmafGpuPtr *p, size_t bytes)
{
    CUdeviceptr a = 0;
    const int err = evc_alloc(st_of(d), &a, bytes);
    *p = (VmafGpuPtr){ a, 0 };
    return err;
}

static void dev_free(VmafGpuDev *d, VmafGpuPtr *p, size_t bytes)
{
    CUdeviceptr a = p->mem;
    evc_free(st_of(d), &a, bytes);
    *p = (VmafGpuPtr){ 0, 0 };
}

static int dev_host_alloc(VmafGpuDev *d, void **p, size_t bytes)
{
    return evc_host_alloc(st_of(d), p, bytes);
}

static void dev_host_free(VmafGpuDev *d, void **p)
{
    evc_host_free(st_of(d), p);
}

static int queue_create(VmafGpuDev *d, VmafGpuQueue **q)
{
    CUstream s = NULL;
    const int err = EVC_CHECK(evc_driver()->cuStreamCreate(&s, EVC_CU_STREAM_NON_BLOCKING));
    *q = (VmafGpuQueue *)s;
    return err;
}

static void queue_destroy(VmafGpuDev *d, VmafGpuQueue *q)
{
    if (q) EVC_CHECK(evc_driver()->cuStreamDestroy(stream_of(q)));
}

static int queue_sync(VmafGpuQueue *q)
{
    return EVC_CHECK(evc_driver()->cuStreamSynchronize(stream_of(q)));
}

static int event_create(VmafGpuDev *d, VmafGpuEvent **e, bool timing)
{
    CUevent ev = NULL;
    const unsigned flags = timing ? EVC_CU_EVENT_DEFAULT
                                  : EVC_CU_EVENT_BLOCKING_SYNC | EVC_CU_EVENT_DISABLE_TIMING;
    const int err = EVC_CHECK(evc_driver()->cuEventCreate(&ev, flags));
    *e = (VmafGpuEvent *)ev;
    return err;
}

static void event_destroy(VmafGpuDev *d, VmafGpuEvent *e)
{
    if (e) EVC_CHECK(evc_driver()->cuEventDestroy(event_of(e)));
}

/* Whether the driver has every graph entry point the backend uses. */
static bool have_graphs(const EvcDriver *drv)
{
    return drv->cuEventRecordWithFlags && drv->cuStreamBeginCapture &&
           drv->cuStreamEndCapture && drv->cuGraphInstantiateWithFlags && drv->cuGraphLaunch &&
           drv->cuGraphDestroy && drv->cuGraphExecDestroy;
}

/* The stream this thread is capturing into a graph (captures are per thread). */
static _Thread_local CUstream capturing;

/* In a capture, records and waits are marked external, so that the graph
 * still signals and waits for the events that other lanes and the host
 * use (the flags are refused outside a capture). */
static int record(VmafGpuQueue *q, VmafGpuEvent *e)
{
    const EvcDriver *drv = evc_driver();
    if (capturing && capturing == stream_of(q))
        return EVC_CHECK(drv->cuEventRecordWithFlags(event_of(e), stream_of(q),
                                                     EVC_CU_EVENT_RECORD_EXTERNAL));
    return EVC_CHECK(drv->cuEventRecord(event_of(e), stream_of(q)));
}

static int wait(VmafGpuQueue *q, VmafGpuEvent *e)
{
    const unsigned flags =
        capturing && capturing == stream_of(q) ? EVC_CU_EVENT_WAIT_EXTERNAL : 0;
    return EVC_CHECK(evc_driver()->cuStreamWaitEvent(stream_of(q), event_of(e), flags));
}

static int sync(VmafGpuEvent *e)
{
    return EVC_CHECK(evc_driver()->cuEventSynchronize(event_of(e)));
}

static double elapsed_ms(VmafGpuEvent *a, VmafGpuEvent *b)
{
    float ms = 0.0f;
    const EvcDriver *drv = evc_driver();
    if (!drv->cuEventElapsedTime || drv->cuEventElapsedTime(&ms, event_of(a), event_of(b)))
        return -1.0;
    return ms;
}

static int kernel(VmafGpuDev *d, const VmafGpuProgram *prog, const char *name,
                  VmafGpuKernel **k)
{
    const EvcFatbin *fb = vmaf_gpu_blob(prog, d->ops);
    if (!fb) return -ENOSYS;
    CUfunction fn = NULL;
    const int err = evc_function(st_of(d), fb, name, &fn);
    *k = (VmafGpuKernel *)fn;
    return err;
}

#define MAX_ARGS 48

static int launch(VmafGpuQueue *q, VmafGpuKernel *k, unsigned gx, unsigned gy, unsigned gz,
                  unsigned bx, unsigned by, const VmafGpuArg *args, unsigned n_args)
{
    if (n_args > MAX_ARGS) return -EINVAL;
    CUdeviceptr addr[MAX_ARGS];
    void *p[MAX_ARGS];
    for (unsigned i = 0; i < n_args; i++) {
        if (args[i].ptr) {
            const VmafGpuPtr *b = args[i].p;
            addr[i] = b->mem + b->off;
            p[i] = &addr[i];
        } else {
            p[i] = (void *)args[i].p;
        }
    }
    return EVC_CHECK(evc_driver()->cuLaunchKernel((CUfunction)k, gx, gy, gz, bx, by, 1, 0,
                                                  stream_of(q), p, NULL));
}

static int memset0(VmafGpuQueue *q, VmafGpuPtr p, size_t bytes)
{
    return EVC_CHECK(evc_driver()->cuMemsetD8Async(p.mem + p.off, 0, bytes, stream_of(q)));
}

static int copy(VmafGpuQueue *q, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes)
{
    return EVC_CHECK(evc_driver()->cuMemcpyDtoDAsync(dst.mem + dst.off, src.mem + src.off,
                                                     bytes, stream_of(q)));
}

static int upload(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t bytes)
{
    return EVC_CHECK(evc_driver()->cuMemcpyHtoDAsync(dst.mem + dst.off, src, bytes,
                                                     stream_of(q)));
}

/* h rows of w bytes from the source c names, spitch apart there, packed at dst. */
static int copy_rows(VmafGpuQueue *q, EvcMemcpy2D *c, VmafGpuPtr dst, size_t spitch, size_t w,
                     size_t h)
{
    c->srcPitch = spitch;
    c->dstMemoryType = EVC_CU_MEMORYTYPE_DEVICE;
    c->dstDevice = dst.mem + dst.off;
    c->dstPitch = w;
    c->WidthInBytes = w;
    c->Height = h;
    return EVC_CHECK(evc_driver()->cuMemcpy2DAsync(c, stream_of(q)));
}

static int upload_2d(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t spitch,
                     size_t w, size_t h)
{
    /* Rows without padding between them: one linear copy, which the copy
     * engine moves faster than the same bytes as h rows. */
    if (spitch == w) return upload(q, dst, src, w * h);
    EvcMemcpy2D c = { 0 };
    c.srcMemoryType = EVC_CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    return copy_rows(q, &c, dst, spitch, w, h);
}

static int download(VmafGpuQueue *q, void *dst, VmafGpuPtr src, size_t bytes)
{
    return EVC_CHECK(evc_driver()->cuMemcpyDtoHAsync(dst, src.mem + src.off, bytes,
                                                     stream_of(q)));
}

static void *native_context(const VmafGpuDev *d)
{
    return evc_state_context(st_of(d));
}

static int copy_2d_in(VmafGpuQueue *q, VmafGpuPtr dst, uint64_t src, size_t spitch, size_t w,
                      size_t h)
{
    if (spitch == w)
        return EVC_CHECK(evc_driver()->cuMemcpyDtoDAsync(dst.mem + dst.off, src, w * h,
                                                         stream_of(q)));
    EvcMemcpy2D c = { 0 };
    c.srcMemoryType = EVC_CU_MEMORYTYPE_DEVICE;
    c.srcDevice = src;
    return copy_rows(q, &c, dst, spitch, w, h);
}

static int wait_native(VmafGpuQueue *q, void *ev)
{
    return EVC_CHECK(evc_driver()->cuStreamWaitEvent(stream_of(q), (CUevent)ev, 0));
}

static int host_register(VmafGpuDev *d, void *p, size_t bytes)
{
    return evc_host_register(st_of(d), p, bytes);
}

static void host_unregister(VmafGpuDev *d, void *p)
{
    evc_host_unregister(st_of(d), p);
}

static bool graph_ok(VmafGpuDev *d)
{
    return have_graphs(evc_driver());
}

static int graph_begin(VmafGpuQueue *q)
{
    const int err = EVC_CHECK(evc_driver()->cuStreamBeginCapture(
        stream_of(q), EVC_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    if (!err) capturing = stream_of(q);
    return err;
}

static void graph_destroy(VmafGpuDev *d, VmafGpuGraph *g)
{
    if (g) EVC_CHECK(evc_driver()->cuGraphExecDestroy((CUgraphExec)g));
}

static int graph_end(VmafGpuDev *d, VmafGpuQueue *q, VmafGpuGraph **g)
{
    const EvcDriver *drv = evc_driver();
    CUgraph graph = NULL;
    capturing = NULL;
    int err = EVC_CHECK(drv->cuStreamEndCapture(stream_of(q), &graph));
    CUgraphExec exec = NULL;
    if (!err) err = EVC_CHECK(drv->cuGraphInstantiateWithFlags(&exec, graph, 0));
    if (graph) EVC_CHECK(drv->cuGraphDestroy(graph));
    if (err) return err;
    graph_destroy(d, *g);
    *g = (VmafGpuGraph *)exec;
    return 0;
}

static int graph_launch(VmafGpuQueue *q, VmafGpuGraph *g)
{
    return EVC_CHECK(evc_driver()->cuGraphLaunch((CUgraphExec)g, stream_of(q)));
}

static const VmafGpuOps cuda_ops = {
    .name = "cuda",
    .close = dev_close,
    .device_name = dev_name,
    .describe = dev_describe,
    .mem_info = dev_mem_info,
    .has_fp64 = dev_has_fp64,
    .enter = dev_enter,
    .leave = dev_leave,
    .alloc = dev_alloc,
    .free = dev_free,
    .host_alloc = dev_host_alloc,
    .host_free = dev_host_free,
    .queue_create = queue_create,
    .queue_destroy = queue_destroy,
    .queue_sync = queue_sync,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .record = record,
    .wait = wait,
    .sync = sync,
    .elapsed_ms = elapsed_ms,
    .kernel = kernel,
    .launch = launch,
    .memset0 = memset0,
    .copy = copy,
    .upload = upload,
    .upload_2d = upload_2d,
    .download = download,
    .host_register = host_register,
    .host_unregister = host_unregister,
    .native_context = native_context,
    .copy_2d_in = copy_2d_in,
    .wait_native = wait_native,
    .graph_ok = graph_ok,
    .graph_begin = graph_begin,
    .graph_end = graph_end,
    .graph_launch = graph_launch,
    .graph_destroy = graph_destroy,
};

int evc_device_wrap(VmafGpuDev **out, VmafCudaState *st)
{
    *out = NULL;
    CudaDev *d = calloc(1, sizeof(*d));
    if (!d) {
        evc_state_close(st);
        return -ENOMEM;
    }
    d->base.ops = &cuda_ops;
    d->st = st;
    *out = &d->base;
    return 0;
}

int evc_device_open(VmafGpuDev **out, int gpu_index, char *why, size_t why_len)
{
    VmafCudaState *st = NULL;
    *out = NULL;
    const int err = evc_state_open(&st, gpu_index, why, why_len);
    if (err) return err;
    return evc_device_wrap(out, st);
}
