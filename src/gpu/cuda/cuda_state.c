/*
 * CUDA runtime plumbing (see cuda_common.h): the driver through dlopen, the
 * per-device state, checked calls and buffers.
 */
#include <ctype.h>
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
#include "os/os.h"
#include "opt.h"
#include "cuda_common.h"

#define EVC_MAX_MODULES 16

struct VmafCudaState {
    CUdevice dev;
    CUcontext ctx;
    bool primary;           /**< ctx is the retained primary context */
    char name[160];
    struct {
        const EvcFatbin *fb;
        CUmodule mod;
    } mod[EVC_MAX_MODULES];
    unsigned n_mod;
    size_t bytes, peak;
};

/* ---- Driver ---- */

static EvcDriver driver;
static int driver_err;
static char driver_why[256];
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void *sym(void *lib, const char *a, const char *b)
{
    void *p = vmaf_os_dlsym(lib, a);
    if (!p && b) p = vmaf_os_dlsym(lib, b);
    return p;
}

static void load_driver(void)
{
    char e[160];
    void *lib = vmaf_os_dlopen(VMAF_OS_CUDA_LIB, e, sizeof(e));
    if (!lib) {
        snprintf(driver_why, sizeof(driver_why),
                 "the CUDA driver library " VMAF_OS_CUDA_LIB " cannot be opened (%s)", e);
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
        { (void **)&d.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2", NULL, false },
        { (void **)&d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL, false },
        { (void **)&d.cuMemHostRegister, "cuMemHostRegister_v2", "cuMemHostRegister", false },
        { (void **)&d.cuMemHostUnregister, "cuMemHostUnregister", NULL, false },
        { (void **)&d.cuStreamWaitEvent, "cuStreamWaitEvent", NULL, false },
        { (void **)&d.cuStreamCreate, "cuStreamCreate", NULL, false },
        { (void **)&d.cuStreamDestroy, "cuStreamDestroy_v2", NULL, false },
        { (void **)&d.cuStreamSynchronize, "cuStreamSynchronize", NULL, false },
        { (void **)&d.cuEventCreate, "cuEventCreate", NULL, false },
        { (void **)&d.cuEventDestroy, "cuEventDestroy_v2", NULL, false },
        { (void **)&d.cuEventRecord, "cuEventRecord", NULL, false },
        { (void **)&d.cuEventSynchronize, "cuEventSynchronize", NULL, false },
        { (void **)&d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime", true },
        { (void **)&d.cuLaunchKernel, "cuLaunchKernel", NULL, false },
        { (void **)&d.cuEventRecordWithFlags, "cuEventRecordWithFlags", NULL, true },
        { (void **)&d.cuStreamBeginCapture, "cuStreamBeginCapture_v2", NULL, true },
        { (void **)&d.cuStreamEndCapture, "cuStreamEndCapture", NULL, true },
        { (void **)&d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", NULL, true },
        { (void **)&d.cuGraphLaunch, "cuGraphLaunch", NULL, true },
        { (void **)&d.cuGraphDestroy, "cuGraphDestroy", NULL, true },
        { (void **)&d.cuGraphExecDestroy, "cuGraphExecDestroy", NULL, true },
        { (void **)&d.cuPointerGetAttribute, "cuPointerGetAttribute", NULL, false },
        { (void **)&d.cuGetErrorName, "cuGetErrorName", NULL, false },
        { (void **)&d.cuGetErrorString, "cuGetErrorString", NULL, false },
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        *table[i].slot = sym(lib, table[i].name, table[i].alt);
        if (!*table[i].slot && !table[i].optional) {
            snprintf(driver_why, sizeof(driver_why),
                     "the CUDA driver library lacks %s (driver too old?)", table[i].name);
            driver_err = -ENODEV;
            vmaf_os_dlclose(lib);
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
    /* The driver function's name, not our argument list or source line
     * (that is for the debug level). */
    const char *end = strchr(call, '(');
    if (!end) end = call + strlen(call);
    const char *fn = end;   /* "d->cuX(...)": cuX */
    while (fn > call && (isalnum((unsigned char)fn[-1]) || fn[-1] == '_')) fn--;
    const int fn_len = (int)(end - fn);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "cuda: %.*s failed with %s (%d): %s", fn_len, fn,
             name ? name : "unknown error", r, text ? text : "no description");
    vmaf_log(VMAF_LOG_LEVEL_DEBUG, "cuda: %s failed at %s:%d", call, file, line);
    return evc_errno(r);
}

/* ---- State ---- */

static void state_finish(VmafCudaState *st)
{
    const EvcDriver *d = &driver;
    char name[128] = "unknown device";
    int major = 0, minor = 0;
    d->cuDeviceGetName(name, sizeof(name), st->dev);
    d->cuDeviceGetAttribute(&major, EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, st->dev);
    d->cuDeviceGetAttribute(&minor, EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, st->dev);
    snprintf(st->name, sizeof(st->name), "%s (sm_%d%d)", name, major, minor);
}

int evc_device_count(int *count, char *why, size_t why_len)
{
    *count = 0;
    int err = evc_driver_load(why, why_len);
    if (err) return err;
    err = EVC_CHECK(driver.cuDeviceGetCount(count));
    if (err) {
        snprintf(why, why_len, "cuDeviceGetCount failed");
        return -ENODEV;
    }
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
    char name[128] = "";
    if (!err && d->cuDeviceGetName(name, sizeof(name) - 1, st->dev) != EVC_CUDA_SUCCESS)
        name[0] = '\0';
    if (!err) err = EVC_CHECK(d->cuDevicePrimaryCtxRetain(&st->ctx, st->dev));
    if (err) {
        snprintf(why, why_len, "CUDA device %d%s%s%s cannot be opened", gpu_index,
                 *name ? " (" : "", name, *name ? ")" : "");
        free(st);
        return err;
    }
    st->primary = true;
    state_finish(st);
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
    if (err) {
        evc_state_close(st);
        return err;
    }
    state_finish(st);
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

int evc_state_device(const VmafCudaState *st)
{
    return (int)st->dev;
}

bool evc_state_primary(const VmafCudaState *st)
{
    return st->primary;
}

CUcontext evc_state_context(const VmafCudaState *st)
{
    return st->ctx;
}

const char *evc_state_device_name(const VmafCudaState *st)
{
    return st->name;
}

void evc_state_close(VmafCudaState *st)
{
    if (!st) return;
    const EvcDriver *d = &driver;
    if (st->ctx && d->cuInit) {
        if (!EVC_CHECK(d->cuCtxPushCurrent(st->ctx))) {
            for (unsigned i = 0; i < st->n_mod; i++)
                EVC_CHECK(d->cuModuleUnload(st->mod[i].mod));
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
                     "cuda: the %s kernels have no code for %s (this build's -Dnvcc_sm "
                     "and the PTX of the newest do not cover it)", fb->name, st->name);
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

int evc_host_register(VmafCudaState *st, void *p, size_t bytes)
{
    int err = evc_push(st);
    if (err) return err;
    const CUresult r = driver.cuMemHostRegister(p, bytes, EVC_CU_MEMHOSTREGISTER_PORTABLE);
    /* Memory some other part of the process pinned already is fine as it is. */
    err = r == EVC_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED ? 0 : EVC_CHECK(r);
    evc_pop(st);
    return err;
}

void evc_host_unregister(VmafCudaState *st, void *p)
{
    if (evc_push(st)) return;
    /* Not an error to report: the buffer may never have been pinned. */
    driver.cuMemHostUnregister(p);
    evc_pop(st);
}

size_t evc_state_bytes(const VmafCudaState *st)
{
    return st->bytes;
}

size_t evc_state_peak_bytes(const VmafCudaState *st)
{
    return st->peak;
}
