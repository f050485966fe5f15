/*
 * CUDA runtime plumbing (see cuda_common.h): the driver through dlopen, the
 * per-context state, checked calls, buffers, the plane cache and the profile.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/extractor.h"
#include "log.h"
#include "opt.h"
#include "cuda_common.h"

extern const EvcFatbin evc_fatbin_common;

#define EVC_MAX_MODULES 16
#define EVC_PLANE_SLOTS 6
#define EVC_MAX_MARKS 64
#define EVC_MAX_TWINS 16

typedef struct PlaneSlot {
    bool valid;
    const void *data;       /**< the picture plane's address: the key with index, plane, offset */
    unsigned index, plane;
    float offset;
    unsigned stamp;         /**< last use, for eviction */
    size_t staging_bytes, raw_bytes, float_bytes;
    void *staging;          /**< pinned copy of the packed samples */
    CUdeviceptr raw, f;
} PlaneSlot;

typedef struct TwinProfile {
    const char *name;
    unsigned calls;
    double wall_ms;
    double phase_ms[EVC_PHASE_COUNT];
} TwinProfile;

struct VmafCudaState {
    CUdevice dev;
    CUcontext ctx;
    bool primary;           /**< ctx is the retained primary context */
    CUstream stream;
    char name[160];
    struct {
        const EvcFatbin *fb;
        CUmodule mod;
    } mod[EVC_MAX_MODULES];
    unsigned n_mod;
    size_t bytes, peak;
    PlaneSlot slot[EVC_PLANE_SLOTS];
    unsigned stamp;

    /* Profile: events marking phase starts on the stream since the last sync. */
    bool prof;
    CUevent ev[EVC_MAX_MARKS + 1];
    enum EvcPhase ev_phase[EVC_MAX_MARKS];
    unsigned n_ev;
    TwinProfile twin[EVC_MAX_TWINS];
    int cur_twin;
};

/* ---- Driver ---- */

static EvcDriver driver;
static int driver_err;
static char driver_why[256];
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void *sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    if (!p && b) p = dlsym(lib, b);
    return p;
}

static void load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(driver_why, sizeof(driver_why),
                 "the CUDA driver library libcuda.so.1 cannot be opened (%s)",
                 e ? e : "not found");
        driver_err = -ENODEV;
        return;
    }
    EvcDriver d;
    memset(&d, 0, sizeof(d));
    const struct {
        void **slot;
        const char *name, *alt;
        bool optional;
    } table[] = {
        { (void **)&d.cuInit, "cuInit", NULL, false },
        { (void **)&d.cuDriverGetVersion, "cuDriverGetVersion", NULL, false },
        { (void **)&d.cuDeviceGetCount, "cuDeviceGetCount", NULL, false },
        { (void **)&d.cuDeviceGet, "cuDeviceGet", NULL, false },
        { (void **)&d.cuDeviceGetName, "cuDeviceGetName", NULL, false },
        { (void **)&d.cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL, false },
        { (void **)&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, false },
        { (void **)&d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
          "cuDevicePrimaryCtxRelease", false },
        { (void **)&d.cuCtxPushCurrent, "cuCtxPushCurrent_v2", NULL, false },
        { (void **)&d.cuCtxPopCurrent, "cuCtxPopCurrent_v2", NULL, false },
        { (void **)&d.cuCtxGetDevice, "cuCtxGetDevice", NULL, false },
        { (void **)&d.cuModuleLoadData, "cuModuleLoadData", NULL, false },
        { (void **)&d.cuModuleUnload, "cuModuleUnload", NULL, false },
        { (void **)&d.cuModuleGetFunction, "cuModuleGetFunction", NULL, false },
        { (void **)&d.cuMemAlloc, "cuMemAlloc_v2", NULL, false },
        { (void **)&d.cuMemFree, "cuMemFree_v2", NULL, false },
        { (void **)&d.cuMemAllocHost, "cuMemAllocHost_v2", NULL, false },
        { (void **)&d.cuMemFreeHost, "cuMemFreeHost", NULL, false },
        { (void **)&d.cuMemGetInfo, "cuMemGetInfo_v2", NULL, false },
        { (void **)&d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL, false },
        { (void **)&d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL, false },
        { (void **)&d.cuMemsetD8Async, "cuMemsetD8Async", NULL, false },
        { (void **)&d.cuStreamCreate, "cuStreamCreate", NULL, false },
        { (void **)&d.cuStreamDestroy, "cuStreamDestroy_v2", NULL, false },
        { (void **)&d.cuStreamSynchronize, "cuStreamSynchronize", NULL, false },
        { (void **)&d.cuEventCreate, "cuEventCreate", NULL, false },
        { (void **)&d.cuEventDestroy, "cuEventDestroy_v2", NULL, false },
        { (void **)&d.cuEventRecord, "cuEventRecord", NULL, false },
        { (void **)&d.cuEventSynchronize, "cuEventSynchronize", NULL, false },
        { (void **)&d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime", true },
        { (void **)&d.cuLaunchKernel, "cuLaunchKernel", NULL, false },
        { (void **)&d.cuGetErrorName, "cuGetErrorName", NULL, false },
        { (void **)&d.cuGetErrorString, "cuGetErrorString", NULL, false },
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        *table[i].slot = sym(lib, table[i].name, table[i].alt);
        if (!*table[i].slot && !table[i].optional) {
            snprintf(driver_why, sizeof(driver_why),
                     "the CUDA driver library lacks %s (driver too old?)", table[i].name);
            driver_err = -ENODEV;
            dlclose(lib);
            return;
        }
    }
    const CUresult r = d.cuInit(0);
    if (r != EVC_CUDA_SUCCESS) {
        const char *name = NULL, *text = NULL;
        d.cuGetErrorName(r, &name);
        d.cuGetErrorString(r, &text);
        snprintf(driver_why, sizeof(driver_why), "cuInit failed: %s (%s)",
                 name ? name : "?", text ? text : "?");
        driver_err = -ENODEV;
        return;
    }
    /* The library stays open for the life of the process. */
    driver = d;
    driver_err = 0;
}

int evc_driver_load(char *why, size_t why_len)
{
    pthread_once(&driver_once, load_driver);
    if (driver_err && why && why_len)
        snprintf(why, why_len, "%s", driver_why);
    return driver_err;
}

const EvcDriver *evc_driver(void)
{
    return driver.cuInit ? &driver : NULL;
}

int evc_errno(CUresult r)
{
    switch (r) {
    case EVC_CUDA_SUCCESS: return 0;
    case EVC_CUDA_ERROR_INVALID_VALUE: return -EINVAL;
    case EVC_CUDA_ERROR_OUT_OF_MEMORY: return -ENOMEM;
    case EVC_CUDA_ERROR_NO_DEVICE:
    case EVC_CUDA_ERROR_INVALID_DEVICE:
    case EVC_CUDA_ERROR_NOT_INITIALIZED: return -ENODEV;
    case EVC_CUDA_ERROR_NO_BINARY_FOR_GPU:
    case EVC_CUDA_ERROR_NOT_SUPPORTED: return -ENOTSUP;
    default: return -EIO;
    }
}

int evc_check(CUresult r, const char *call, const char *file, int line)
{
    if (r == EVC_CUDA_SUCCESS) return 0;
    const char *name = NULL, *text = NULL;
    if (driver.cuGetErrorName) driver.cuGetErrorName(r, &name);
    if (driver.cuGetErrorString) driver.cuGetErrorString(r, &text);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: %s failed with %s (%d): %s [%s:%d]", call,
             name ? name : "unknown error", r, text ? text : "no description", file, line);
    return evc_errno(r);
}

/* ---- State ---- */

static int state_finish(VmafCudaState *st)
{
    const EvcDriver *d = &driver;
    int err = EVC_CHECK(d->cuCtxPushCurrent(st->ctx));
    if (err) return err;
    err = EVC_CHECK(d->cuStreamCreate(&st->stream, EVC_CU_STREAM_NON_BLOCKING));
    CUcontext prev;
    const int err2 = EVC_CHECK(d->cuCtxPopCurrent(&prev));
    if (err) return err;
    if (err2) return err2;

    char name[128] = "unknown device";
    int major = 0, minor = 0;
    d->cuDeviceGetName(name, sizeof(name), st->dev);
    d->cuDeviceGetAttribute(&major, EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, st->dev);
    d->cuDeviceGetAttribute(&minor, EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, st->dev);
    snprintf(st->name, sizeof(st->name), "%s (sm_%d%d)", name, major, minor);

    const char *p = getenv("EXACTVMAF_CUDA_PROFILE");
    st->prof = p && *p && strcmp(p, "0");
    st->cur_twin = -1;
    return 0;
}

int evc_state_open(VmafCudaState **out, int gpu_index, char *why, size_t why_len)
{
    int err = evc_driver_load(why, why_len);
    if (err) return err;
    const EvcDriver *d = &driver;
    int count = 0;
    err = EVC_CHECK(d->cuDeviceGetCount(&count));
    if (err) {
        snprintf(why, why_len, "cuDeviceGetCount failed");
        return -ENODEV;
    }
    if (gpu_index < 0 || gpu_index >= count) {
        snprintf(why, why_len, "no CUDA device %d (this machine has %d)", gpu_index, count);
        return -ENODEV;
    }
    VmafCudaState *st = calloc(1, sizeof(*st));
    if (!st) return -ENOMEM;
    err = EVC_CHECK(d->cuDeviceGet(&st->dev, gpu_index));
    if (!err) err = EVC_CHECK(d->cuDevicePrimaryCtxRetain(&st->ctx, st->dev));
    if (err) {
        snprintf(why, why_len, "CUDA device %d cannot be opened", gpu_index);
        free(st);
        return err;
    }
    st->primary = true;
    err = state_finish(st);
    if (err) {
        snprintf(why, why_len, "CUDA device %d: no stream", gpu_index);
        evc_state_close(st);
        return err;
    }
    *out = st;
    return 0;
}

int evc_state_wrap(VmafCudaState **out, CUcontext ctx)
{
    int err = evc_driver_load(NULL, 0);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: %s", driver_why);
        return err;
    }
    const EvcDriver *d = &driver;
    VmafCudaState *st = calloc(1, sizeof(*st));
    if (!st) return -ENOMEM;
    st->ctx = ctx;
    CUcontext prev;
    err = EVC_CHECK(d->cuCtxPushCurrent(ctx));
    if (!err) {
        err = EVC_CHECK(d->cuCtxGetDevice(&st->dev));
        const int err2 = EVC_CHECK(d->cuCtxPopCurrent(&prev));
        if (!err) err = err2;
    }
    if (!err) err = state_finish(st);
    if (err) {
        evc_state_close(st);
        return err;
    }
    *out = st;
    return 0;
}

int evc_state_take(VmafCudaState **dst, VmafCudaState *src)
{
    VmafCudaState *st = malloc(sizeof(*st));
    if (!st) return -ENOMEM;
    *st = *src;
    memset(src, 0, sizeof(*src));
    *dst = st;
    return 0;
}

const char *evc_state_device_name(const VmafCudaState *st)
{
    return st->name;
}

static void print_profile(VmafCudaState *st)
{
    for (int t = 0; t < EVC_MAX_TWINS && st->twin[t].name; t++) {
        const TwinProfile *p = &st->twin[t];
        const double gpu = p->phase_ms[EVC_PHASE_UPLOAD] + p->phase_ms[EVC_PHASE_KERNELS] +
                           p->phase_ms[EVC_PHASE_READBACK];
        fprintf(stderr,
                "exactvmaf cuda profile: %s on %s: %u calls, wall %.3f ms: upload %.3f ms, "
                "kernels %.3f ms, readback %.3f ms, host %.3f ms\n",
                p->name, st->name, p->calls, p->wall_ms, p->phase_ms[EVC_PHASE_UPLOAD],
                p->phase_ms[EVC_PHASE_KERNELS], p->phase_ms[EVC_PHASE_READBACK],
                p->wall_ms > gpu ? p->wall_ms - gpu : 0.0);
    }
    fprintf(stderr, "exactvmaf cuda profile: device memory peak %.1f MiB\n",
            (double)st->peak / (1024.0 * 1024.0));
}

void evc_state_close(VmafCudaState *st)
{
    if (!st) return;
    const EvcDriver *d = &driver;
    if (st->ctx && d->cuInit) {
        if (st->prof && st->twin[0].name) print_profile(st);
        if (!EVC_CHECK(d->cuCtxPushCurrent(st->ctx))) {
            if (st->stream) EVC_CHECK(d->cuStreamSynchronize(st->stream));
            for (unsigned i = 0; i < EVC_PLANE_SLOTS; i++) {
                PlaneSlot *s = &st->slot[i];
                evc_free(st, &s->raw, s->raw_bytes);
                evc_free(st, &s->f, s->float_bytes);
                evc_host_free(st, &s->staging);
            }
            for (unsigned i = 0; i <= EVC_MAX_MARKS; i++)
                if (st->ev[i]) EVC_CHECK(d->cuEventDestroy(st->ev[i]));
            for (unsigned i = 0; i < st->n_mod; i++)
                EVC_CHECK(d->cuModuleUnload(st->mod[i].mod));
            if (st->stream) EVC_CHECK(d->cuStreamDestroy(st->stream));
            CUcontext prev;
            EVC_CHECK(d->cuCtxPopCurrent(&prev));
        }
        if (st->primary) EVC_CHECK(d->cuDevicePrimaryCtxRelease(st->dev));
    }
    free(st);
}

int evc_push(VmafCudaState *st)
{
    return EVC_CHECK(driver.cuCtxPushCurrent(st->ctx));
}

int evc_pop(VmafCudaState *st)
{
    CUcontext prev;
    (void)st;
    return EVC_CHECK(driver.cuCtxPopCurrent(&prev));
}

CUstream evc_stream(VmafCudaState *st)
{
    return st->stream;
}

int evc_function(VmafCudaState *st, const EvcFatbin *fb, const char *name, CUfunction *fn)
{
    const EvcDriver *d = &driver;
    CUmodule mod = NULL;
    for (unsigned i = 0; i < st->n_mod; i++)
        if (st->mod[i].fb == fb) mod = st->mod[i].mod;
    if (!mod) {
        if (st->n_mod == EVC_MAX_MODULES) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: more than %d kernel modules", EVC_MAX_MODULES);
            return -ENOMEM;
        }
        const CUresult r = d->cuModuleLoadData(&mod, fb->data);
        if (r == EVC_CUDA_ERROR_NO_BINARY_FOR_GPU)
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "cuda: the %s kernels have no code for %s (built for sm_80, sm_90, "
                     "sm_100, sm_120 and PTX)", fb->name, st->name);
        const int err = EVC_CHECK(r);
        if (err) return err;
        st->mod[st->n_mod].fb = fb;
        st->mod[st->n_mod].mod = mod;
        st->n_mod++;
    }
    return EVC_CHECK(d->cuModuleGetFunction(fn, mod, name));
}

int evc_alloc(VmafCudaState *st, CUdeviceptr *p, size_t bytes)
{
    *p = 0;
    const int err = EVC_CHECK(driver.cuMemAlloc(p, bytes ? bytes : 4));
    if (err) {
        *p = 0;
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: cannot allocate %zu bytes on %s", bytes, st->name);
        return err;
    }
    st->bytes += bytes;
    if (st->bytes > st->peak) st->peak = st->bytes;
    return 0;
}

void evc_free(VmafCudaState *st, CUdeviceptr *p, size_t bytes)
{
    if (!*p) return;
    EVC_CHECK(driver.cuMemFree(*p));
    *p = 0;
    st->bytes -= bytes < st->bytes ? bytes : st->bytes;
}

int evc_buf_alloc(VmafCudaState *st, EvcBuf *b, size_t bytes)
{
    b->bytes = 0;
    const int err = evc_alloc(st, &b->p, bytes);
    if (!err) b->bytes = bytes;
    return err;
}

void evc_buf_free(VmafCudaState *st, EvcBuf *b)
{
    evc_free(st, &b->p, b->bytes);
    b->bytes = 0;
}

int evc_host_alloc(VmafCudaState *st, void **p, size_t bytes)
{
    *p = NULL;
    const int err = EVC_CHECK(driver.cuMemAllocHost(p, bytes ? bytes : 4));
    if (err) {
        *p = NULL;
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: cannot allocate %zu bytes of pinned host memory "
                 "for %s", bytes, st->name);
    }
    return err;
}

void evc_host_free(VmafCudaState *st, void **p)
{
    (void)st;
    if (!*p) return;
    EVC_CHECK(driver.cuMemFreeHost(*p));
    *p = NULL;
}

int evc_upload(VmafCudaState *st, CUdeviceptr dst, const void *src, size_t bytes)
{
    return EVC_CHECK(driver.cuMemcpyHtoDAsync(dst, src, bytes, st->stream));
}

int evc_download(VmafCudaState *st, void *dst, CUdeviceptr src, size_t bytes)
{
    return EVC_CHECK(driver.cuMemcpyDtoHAsync(dst, src, bytes, st->stream));
}

int evc_memset(VmafCudaState *st, CUdeviceptr dst, size_t bytes)
{
    return EVC_CHECK(driver.cuMemsetD8Async(dst, 0, bytes, st->stream));
}

static void profile_collect(VmafCudaState *st);

int evc_sync(VmafCudaState *st)
{
    if (st->prof && st->n_ev && st->n_ev <= EVC_MAX_MARKS) {
        if (!st->ev[st->n_ev])
            EVC_CHECK(driver.cuEventCreate(&st->ev[st->n_ev], EVC_CU_EVENT_DEFAULT));
        if (st->ev[st->n_ev]) EVC_CHECK(driver.cuEventRecord(st->ev[st->n_ev], st->stream));
    }
    const int err = EVC_CHECK(driver.cuStreamSynchronize(st->stream));
    if (!err && st->prof) profile_collect(st);
    st->n_ev = 0;
    return err;
}

int evc_launch(VmafCudaState *st, CUfunction fn, unsigned nx, unsigned ny, unsigned nz,
               unsigned bx, unsigned by, void **args)
{
    if (!nx || !ny || !nz) return 0;
    const unsigned gx = (nx + bx - 1) / bx, gy = (ny + by - 1) / by;
    return EVC_CHECK(driver.cuLaunchKernel(fn, gx, gy, nz, bx, by, 1, 0, st->stream, args, NULL));
}

size_t evc_pitch_floats(unsigned w)
{
    /* 128-byte rows: a warp's row segment is one cache line. */
    return ((size_t)w + 31) & ~(size_t)31;
}

/* ---- Plane cache ---- */

static int slot_reserve(VmafCudaState *st, PlaneSlot *s, size_t staging, size_t raw,
                        size_t fl)
{
    int err = 0;
    if (s->staging_bytes < staging) {
        evc_host_free(st, &s->staging);
        s->staging_bytes = 0;
        err = evc_host_alloc(st, &s->staging, staging);
        if (err) return err;
        s->staging_bytes = staging;
    }
    if (s->raw_bytes < raw) {
        evc_free(st, &s->raw, s->raw_bytes);
        s->raw_bytes = 0;
        err = evc_alloc(st, &s->raw, raw);
        if (err) return err;
        s->raw_bytes = raw;
    }
    if (s->float_bytes < fl) {
        evc_free(st, &s->f, s->float_bytes);
        s->float_bytes = 0;
        err = evc_alloc(st, &s->f, fl);
        if (err) return err;
        s->float_bytes = fl;
    }
    return 0;
}

int evc_plane_float(VmafCudaState *st, const VmafPicture *pic, unsigned plane,
                    unsigned index, float offset, CUdeviceptr *out, size_t *pitch)
{
    const unsigned w = pic->w[plane], h = pic->h[plane];
    const size_t bytes = pic->bpc > 8 ? 2 : 1;
    *pitch = evc_pitch_floats(w);
    st->stamp++;

    PlaneSlot *s = NULL, *victim = &st->slot[0];
    for (unsigned i = 0; i < EVC_PLANE_SLOTS; i++) {
        PlaneSlot *c = &st->slot[i];
        if (c->valid && c->data == pic->data[plane] && c->index == index &&
            c->plane == plane && c->offset == offset) {
            s = c;
            break;
        }
        if (!c->valid || (victim->valid && c->stamp < victim->stamp)) victim = c;
    }
    if (s) {
        s->stamp = st->stamp;
        *out = s->f;
        return 0;
    }
    s = victim;
    s->valid = false;
    const size_t row = (size_t)w * bytes;
    int err = slot_reserve(st, s, row * h, row * h, *pitch * h * sizeof(float));
    if (err) return err;

    /* Pack the rows into pinned memory, one asynchronous copy, then the
     * conversion kernel. The staging buffer is reused only after a sync. */
    const uint8_t *src = pic->data[plane];
    uint8_t *dst = s->staging;
    for (unsigned i = 0; i < h; i++)
        memcpy(dst + i * row, src + (size_t)i * pic->stride[plane], row);

    evc_phase(st, EVC_PHASE_UPLOAD);
    err = evc_upload(st, s->raw, s->staging, row * h);
    if (err) return err;
    CUfunction fn;
    err = evc_function(st, &evc_fatbin_common,
                       pic->bpc > 8 ? "evc_to_float_u16" : "evc_to_float_u8", &fn);
    if (err) return err;
    int iw = (int)w, ih = (int)h, ip = (int)*pitch;
    float scale = pic->bpc == 10 ? 4.0f : pic->bpc == 12 ? 16.0f : 256.0f;
    if (pic->bpc > 8) {
        void *args[] = { &s->raw, &iw, &ih, &scale, &offset, &s->f, &ip };
        err = evc_launch(st, fn, w, h, 1, 32, 8, args);
    } else {
        void *args[] = { &s->raw, &iw, &ih, &offset, &s->f, &ip };
        err = evc_launch(st, fn, w, h, 1, 32, 8, args);
    }
    if (err) return err;

    s->valid = true;
    s->data = pic->data[plane];
    s->index = index;
    s->plane = plane;
    s->offset = offset;
    s->stamp = st->stamp;
    *out = s->f;
    return 0;
}

int evc_plane_raw(VmafCudaState *st, const VmafPicture *pic, unsigned plane,
                  unsigned index, CUdeviceptr *out)
{
    const unsigned w = pic->w[plane], h = pic->h[plane];
    const size_t bytes = pic->bpc > 8 ? 2 : 1;
    st->stamp++;

    /* Any slot holding this plane has its packed samples, whatever its offset. */
    PlaneSlot *victim = &st->slot[0];
    for (unsigned i = 0; i < EVC_PLANE_SLOTS; i++) {
        PlaneSlot *c = &st->slot[i];
        if (c->valid && c->data == pic->data[plane] && c->index == index &&
            c->plane == plane) {
            c->stamp = st->stamp;
            *out = c->raw;
            return 0;
        }
        if (!c->valid || (victim->valid && c->stamp < victim->stamp)) victim = c;
    }
    PlaneSlot *s = victim;
    s->valid = false;
    const size_t row = (size_t)w * bytes;
    int err = slot_reserve(st, s, row * h, row * h, 0);
    if (err) return err;
    const uint8_t *src = pic->data[plane];
    uint8_t *dst = s->staging;
    for (unsigned i = 0; i < h; i++)
        memcpy(dst + i * row, src + (size_t)i * pic->stride[plane], row);
    evc_phase(st, EVC_PHASE_UPLOAD);
    err = evc_upload(st, s->raw, s->staging, row * h);
    if (err) return err;

    /* No float conversion was made: a NaN offset matches no float request. */
    s->valid = true;
    s->data = pic->data[plane];
    s->index = index;
    s->plane = plane;
    s->offset = NAN;
    s->stamp = st->stamp;
    *out = s->raw;
    return 0;
}

/* ---- Profile ---- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void evc_twin_begin(VmafCudaState *st, const char *twin)
{
    if (!st->prof) return;
    int t = 0;
    while (t < EVC_MAX_TWINS && st->twin[t].name && strcmp(st->twin[t].name, twin)) t++;
    if (t == EVC_MAX_TWINS) {
        st->cur_twin = -1;
        return;
    }
    st->twin[t].name = twin;
    st->cur_twin = t;
    st->n_ev = 0;
    st->twin[t].wall_ms -= now_ms();
}

void evc_twin_end(VmafCudaState *st)
{
    if (!st->prof || st->cur_twin < 0) return;
    st->twin[st->cur_twin].wall_ms += now_ms();
    st->twin[st->cur_twin].calls++;
    st->cur_twin = -1;
}

void evc_phase(VmafCudaState *st, enum EvcPhase phase)
{
    if (!st->prof || st->n_ev >= EVC_MAX_MARKS) return;
    if (st->n_ev && st->ev_phase[st->n_ev - 1] == phase) return;
    if (!st->ev[st->n_ev] &&
        EVC_CHECK(driver.cuEventCreate(&st->ev[st->n_ev], EVC_CU_EVENT_DEFAULT)))
        return;
    if (EVC_CHECK(driver.cuEventRecord(st->ev[st->n_ev], st->stream))) return;
    st->ev_phase[st->n_ev++] = phase;
}

static void profile_collect(VmafCudaState *st)
{
    if (st->cur_twin < 0 || !driver.cuEventElapsedTime || st->n_ev > EVC_MAX_MARKS) return;
    for (unsigned i = 0; i < st->n_ev; i++) {
        float ms = 0.0f;
        if (driver.cuEventElapsedTime(&ms, st->ev[i], st->ev[i + 1]) == EVC_CUDA_SUCCESS)
            st->twin[st->cur_twin].phase_ms[st->ev_phase[i]] += ms;
    }
}

size_t evc_state_bytes(const VmafCudaState *st)
{
    return st->bytes;
}

size_t evc_state_peak_bytes(const VmafCudaState *st)
{
    return st->peak;
}

/* ---- Options ---- */

static const void *option(const VmafFex *fex, const char *name, enum VmafOptionType type)
{
    const VmafOption *opt = vmaf_option_find(fex->desc->options, name);
    if (!opt || opt->type != type || !fex->priv) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: the cuda twin reads option %s, which the "
                 "extractor does not have with that type", fex->desc->name, name);
        return NULL;
    }
    return (const char *)fex->priv + opt->offset;
}

int evc_opt_bool(const VmafFex *fex, const char *name, bool *out)
{
    const bool *p = option(fex, name, VMAF_OPT_TYPE_BOOL);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int evc_opt_int(const VmafFex *fex, const char *name, int *out)
{
    const int *p = option(fex, name, VMAF_OPT_TYPE_INT);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int evc_opt_double(const VmafFex *fex, const char *name, double *out)
{
    const double *p = option(fex, name, VMAF_OPT_TYPE_DOUBLE);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}

int evc_opt_string(const VmafFex *fex, const char *name, const char **out)
{
    const char *const *p = option(fex, name, VMAF_OPT_TYPE_STRING);
    if (!p) return -EINVAL;
    *out = *p;
    return 0;
}
