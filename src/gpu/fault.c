/* The fault injector (fault.h): a copy of the backend's table of
 * operations whose calls count and fail as EXACTVMAF_GPU_FAULT says. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/fault.h"
#include "log.h"

enum FaultKind { FAULT_ALLOC, FAULT_LAUNCH, FAULT_COPY, FAULT_DOWNLOAD, FAULT_SYNC, FAULT_LOST,
                 FAULT_KINDS };

static const char *const kind_name[FAULT_KINDS] = { "alloc", "launch", "copy", "download",
                                                    "sync", "lost" };

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static const VmafGpuOps *real;      /* the backend's table (one backend per process) */
static VmafGpuOps faulty;
static int fault_kind = -1;
static bool counting;       /* "count": nothing fails, the calls are counted */
static unsigned fault_at;
static atomic_uint n_calls[FAULT_KINDS];

/* 0, or the injected error of this call of `kind`. */
static int hit(int kind)
{
    const unsigned n = kind == FAULT_LOST ? 0 : atomic_fetch_add(&n_calls[kind], 1) + 1;
    const unsigned any = atomic_fetch_add(&n_calls[FAULT_LOST], 1) + 1;
    if (counting) return 0;
    const bool fail = fault_kind == FAULT_LOST ? any >= fault_at
                                               : kind == fault_kind && n == fault_at;
    if (!fail) return 0;
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s %s call %u failed (EXACTVMAF_GPU_FAULT=%s:%u)",
             real->name, kind_name[kind], fault_kind == FAULT_LOST ? any : n,
             kind_name[fault_kind], fault_at);
    return kind == FAULT_ALLOC ? -ENOMEM : -EIO;
}

static int f_enter(VmafGpuDev *d) { return hit(FAULT_LOST) ? -EIO : real->enter(d); }

static int f_alloc(VmafGpuDev *d, VmafGpuPtr *p, size_t bytes)
{
    const int err = hit(FAULT_ALLOC);
    return err ? err : real->alloc(d, p, bytes);
}

static int f_host_alloc(VmafGpuDev *d, void **p, size_t bytes)
{
    const int err = hit(FAULT_ALLOC);
    return err ? err : real->host_alloc(d, p, bytes);
}

static int f_queue_sync(VmafGpuQueue *q)
{
    const int err = hit(FAULT_SYNC);
    return err ? err : real->queue_sync(q);
}

static int f_sync(VmafGpuEvent *e)
{
    const int err = hit(FAULT_SYNC);
    return err ? err : real->sync(e);
}

static int f_record(VmafGpuQueue *q, VmafGpuEvent *e)
{
    const int err = hit(FAULT_LOST);
    return err ? err : real->record(q, e);
}

static int f_wait(VmafGpuQueue *q, VmafGpuEvent *e)
{
    const int err = hit(FAULT_LOST);
    return err ? err : real->wait(q, e);
}

static int f_launch(VmafGpuQueue *q, VmafGpuKernel *k, unsigned gx, unsigned gy, unsigned gz,
                    unsigned bx, unsigned by, const VmafGpuArg *args, unsigned n_args)
{
    const int err = hit(FAULT_LAUNCH);
    return err ? err : real->launch(q, k, gx, gy, gz, bx, by, args, n_args);
}

static int f_memset0(VmafGpuQueue *q, VmafGpuPtr p, size_t bytes)
{
    const int err = hit(FAULT_COPY);
    return err ? err : real->memset0(q, p, bytes);
}

static int f_copy(VmafGpuQueue *q, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes)
{
    const int err = hit(FAULT_COPY);
    return err ? err : real->copy(q, dst, src, bytes);
}

static int f_upload(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t bytes)
{
    const int err = hit(FAULT_COPY);
    return err ? err : real->upload(q, dst, src, bytes);
}

static int f_upload_2d(VmafGpuQueue *q, VmafGpuPtr dst, const void *src, size_t spitch,
                       size_t w, size_t h)
{
    const int err = hit(FAULT_COPY);
    return err ? err : real->upload_2d(q, dst, src, spitch, w, h);
}

static int f_copy_2d_in(VmafGpuQueue *q, VmafGpuPtr dst, uint64_t src, size_t spitch, size_t w,
                        size_t h)
{
    const int err = hit(FAULT_COPY);
    return err ? err : real->copy_2d_in(q, dst, src, spitch, w, h);
}

static int f_download(VmafGpuQueue *q, void *dst, VmafGpuPtr src, size_t bytes)
{
    const int err = hit(FAULT_DOWNLOAD);
    return err ? err : real->download(q, dst, src, bytes);
}

static bool f_graph_ok(VmafGpuDev *d)
{
    (void)d;
    return false;
}

/* EXACTVMAF_GPU_FAULT's kind and count; false when unset or malformed (said once). */
static bool parse(void)
{
    const char *s = getenv("EXACTVMAF_GPU_FAULT");
    if (!s || !*s) return false;
    if (!strcmp(s, "count")) return counting = true;
    const char *colon = strchr(s, ':');
    char *end = NULL;
    const unsigned long n = colon ? strtoul(colon + 1, &end, 10) : 0;
    for (int k = 0; colon && k < FAULT_KINDS; k++) {
        if (strlen(kind_name[k]) == (size_t)(colon - s) && !strncmp(s, kind_name[k], colon - s))
            fault_kind = k;
    }
    if (!strncmp(s, "upload:", 7)) fault_kind = FAULT_COPY;
    if (fault_kind < 0 || !end || *end || !n || n > UINT32_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "EXACTVMAF_GPU_FAULT=%s ignored: expected KIND:N, "
                 "KIND one of alloc, launch, copy, download, sync, lost, N from 1; "
                 "or count", s);
        fault_kind = -1;
        return false;
    }
    fault_at = (unsigned)n;
    return true;
}

void vmaf_gpu_fault_arm(VmafGpuDev *d)
{
    pthread_mutex_lock(&fault_lock);
    static bool parsed, armed;
    if (!parsed) {
        parsed = true;
        armed = parse();
    }
    if (armed && !real) {
        real = d->ops;
        faulty = *real;
        faulty.enter = f_enter;
        faulty.alloc = f_alloc;
        faulty.host_alloc = f_host_alloc;
        faulty.queue_sync = f_queue_sync;
        faulty.sync = f_sync;
        faulty.record = f_record;
        faulty.wait = f_wait;
        faulty.launch = f_launch;
        faulty.memset0 = f_memset0;
        faulty.copy = f_copy;
        faulty.upload = f_upload;
        faulty.upload_2d = f_upload_2d;
        if (real->copy_2d_in) faulty.copy_2d_in = f_copy_2d_in;
        faulty.download = f_download;
        if (real->graph_ok) faulty.graph_ok = f_graph_ok;
    }
    /* A second backend in the same process keeps its own table. */
    if (armed && (d->ops == real || d->ops == &faulty)) d->ops = &faulty;
    pthread_mutex_unlock(&fault_lock);
}

void vmaf_gpu_fault_report(const char *when)
{
    if (!counting) return;
    vmaf_log(VMAF_LOG_LEVEL_WARNING, "EXACTVMAF_GPU_FAULT=count %s: alloc %u launch %u copy %u "
             "download %u sync %u, %u calls in all", when, atomic_load(&n_calls[FAULT_ALLOC]),
             atomic_load(&n_calls[FAULT_LAUNCH]), atomic_load(&n_calls[FAULT_COPY]),
             atomic_load(&n_calls[FAULT_DOWNLOAD]), atomic_load(&n_calls[FAULT_SYNC]),
             atomic_load(&n_calls[FAULT_LOST]));
}
