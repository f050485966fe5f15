/*
 * OpenCL runtime plumbing (see opencl_device.h): the ICD loader through
 * dlopen, device enumeration over every platform, and the device layer's
 * operations (gpu/device.h) over one context per opened device.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "gpu/opencl/opencl_driver.h"
#include "gpu/opencl/opencl_device.h"

/* ---- Driver ---- */

static EvlDriver driver;
static int driver_err;
static char driver_why[256];
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void load_driver(void)
{
    static const char *const names[] = { "libOpenCL.so.1", "libOpenCL.so" };
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof(names) / sizeof(names[0]); i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        /* The first name's reason is the one to give; copied at once, as
         * the next dlopen may overwrite dlerror's text. */
        const char *e = lib ? NULL : dlerror();
        if (!lib && !i)
            snprintf(driver_why, sizeof(driver_why),
                     "the OpenCL ICD loader libOpenCL.so.1 cannot be opened (%s)",
                     e ? e : "not found");
    }
    if (!lib) {
        driver_err = -ENODEV;
        return;
    }
    EvlDriver d;
    memset(&d, 0, sizeof(d));
    const struct {
        void **slot;
        const char *name;
    } table[] = {
        { (void **)&d.clGetPlatformIDs, "clGetPlatformIDs" },
        { (void **)&d.clGetPlatformInfo, "clGetPlatformInfo" },
        { (void **)&d.clGetDeviceIDs, "clGetDeviceIDs" },
        { (void **)&d.clGetDeviceInfo, "clGetDeviceInfo" },
        { (void **)&d.clCreateContext, "clCreateContext" },
        { (void **)&d.clReleaseContext, "clReleaseContext" },
        { (void **)&d.clCreateCommandQueue, "clCreateCommandQueue" },
        { (void **)&d.clReleaseCommandQueue, "clReleaseCommandQueue" },
        { (void **)&d.clCreateBuffer, "clCreateBuffer" },
        { (void **)&d.clReleaseMemObject, "clReleaseMemObject" },
        { (void **)&d.clCreateProgramWithSource, "clCreateProgramWithSource" },
        { (void **)&d.clBuildProgram, "clBuildProgram" },
        { (void **)&d.clGetProgramBuildInfo, "clGetProgramBuildInfo" },
        { (void **)&d.clReleaseProgram, "clReleaseProgram" },
        { (void **)&d.clCreateKernel, "clCreateKernel" },
        { (void **)&d.clReleaseKernel, "clReleaseKernel" },
        { (void **)&d.clSetKernelArg, "clSetKernelArg" },
        { (void **)&d.clEnqueueNDRangeKernel, "clEnqueueNDRangeKernel" },
        { (void **)&d.clEnqueueFillBuffer, "clEnqueueFillBuffer" },
        { (void **)&d.clEnqueueCopyBuffer, "clEnqueueCopyBuffer" },
        { (void **)&d.clEnqueueWriteBuffer, "clEnqueueWriteBuffer" },
        { (void **)&d.clEnqueueWriteBufferRect, "clEnqueueWriteBufferRect" },
        { (void **)&d.clEnqueueReadBuffer, "clEnqueueReadBuffer" },
        { (void **)&d.clEnqueueMapBuffer, "clEnqueueMapBuffer" },
        { (void **)&d.clEnqueueUnmapMemObject, "clEnqueueUnmapMemObject" },
        { (void **)&d.clEnqueueMarkerWithWaitList, "clEnqueueMarkerWithWaitList" },
        { (void **)&d.clEnqueueBarrierWithWaitList, "clEnqueueBarrierWithWaitList" },
        { (void **)&d.clWaitForEvents, "clWaitForEvents" },
        { (void **)&d.clRetainEvent, "clRetainEvent" },
        { (void **)&d.clReleaseEvent, "clReleaseEvent" },
        { (void **)&d.clGetEventProfilingInfo, "clGetEventProfilingInfo" },
        { (void **)&d.clFlush, "clFlush" },
        { (void **)&d.clFinish, "clFinish" },
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        *table[i].slot = dlsym(lib, table[i].name);
        if (!*table[i].slot) {
            snprintf(driver_why, sizeof(driver_why),
                     "the OpenCL ICD loader lacks %s (older than OpenCL 1.2?)", table[i].name);
            driver_err = -ENODEV;
            dlclose(lib);
            return;
        }
    }
    /* The library stays open for the life of the process. */
    driver = d;
    driver_err = 0;
}

/* Format into a caller's reason buffer, which may be absent. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void set_why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || !why_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

int evl_driver_load(char *why, size_t why_len)
{
    pthread_once(&driver_once, load_driver);
    if (driver_err) set_why(why, why_len, "%s", driver_why);
    return driver_err;
}

const char *evl_error_name(int cl_err)
{
    switch (cl_err) {
#define N(x) case EVL_##x: return #x;
    N(CL_SUCCESS)
    N(CL_DEVICE_NOT_FOUND)
    N(CL_DEVICE_NOT_AVAILABLE)
    N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    N(CL_OUT_OF_RESOURCES)
    N(CL_OUT_OF_HOST_MEMORY)
    N(CL_PROFILING_INFO_NOT_AVAILABLE)
    N(CL_MEM_COPY_OVERLAP)
    N(CL_IMAGE_FORMAT_MISMATCH)
    N(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    N(CL_BUILD_PROGRAM_FAILURE)
    N(CL_MAP_FAILURE)
    N(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    N(CL_COMPILE_PROGRAM_FAILURE)
    N(CL_LINKER_NOT_AVAILABLE)
    N(CL_LINK_PROGRAM_FAILURE)
    N(CL_DEVICE_PARTITION_FAILED)
    N(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    N(CL_INVALID_VALUE)
    N(CL_INVALID_DEVICE_TYPE)
    N(CL_INVALID_PLATFORM)
    N(CL_INVALID_DEVICE)
    N(CL_INVALID_CONTEXT)
    N(CL_INVALID_QUEUE_PROPERTIES)
    N(CL_INVALID_COMMAND_QUEUE)
    N(CL_INVALID_HOST_PTR)
    N(CL_INVALID_MEM_OBJECT)
    N(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    N(CL_INVALID_IMAGE_SIZE)
    N(CL_INVALID_SAMPLER)
    N(CL_INVALID_BINARY)
    N(CL_INVALID_BUILD_OPTIONS)
    N(CL_INVALID_PROGRAM)
    N(CL_INVALID_PROGRAM_EXECUTABLE)
    N(CL_INVALID_KERNEL_NAME)
    N(CL_INVALID_KERNEL_DEFINITION)
    N(CL_INVALID_KERNEL)
    N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE)
    N(CL_INVALID_ARG_SIZE)
    N(CL_INVALID_KERNEL_ARGS)
    N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE)
    N(CL_INVALID_WORK_ITEM_SIZE)
    N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT_WAIT_LIST)
    N(CL_INVALID_EVENT)
    N(CL_INVALID_OPERATION)
    N(CL_INVALID_GL_OBJECT)
    N(CL_INVALID_BUFFER_SIZE)
    N(CL_INVALID_MIP_LEVEL)
    N(CL_INVALID_GLOBAL_WORK_SIZE)
    N(CL_INVALID_PROPERTY)
    N(CL_INVALID_IMAGE_DESCRIPTOR)
    N(CL_INVALID_COMPILER_OPTIONS)
    N(CL_INVALID_LINKER_OPTIONS)
    N(CL_INVALID_DEVICE_PARTITION_COUNT)
    N(CL_INVALID_PIPE_SIZE)
    N(CL_INVALID_DEVICE_QUEUE)
    N(CL_INVALID_SPEC_ID)
    N(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
    N(CL_PLATFORM_NOT_FOUND_KHR)
#undef N
    default: return "unknown OpenCL error";
    }
}

static int evl_errno(int r)
{
    switch (r) {
    case EVL_CL_SUCCESS: return 0;
    case EVL_CL_OUT_OF_HOST_MEMORY:
    case EVL_CL_MEM_OBJECT_ALLOCATION_FAILURE: return -ENOMEM;
    case EVL_CL_DEVICE_NOT_FOUND:
    case EVL_CL_DEVICE_NOT_AVAILABLE:
    case EVL_CL_PLATFORM_NOT_FOUND_KHR: return -ENODEV;
    case EVL_CL_COMPILER_NOT_AVAILABLE:
    case EVL_CL_LINKER_NOT_AVAILABLE: return -ENOTSUP;
    case EVL_CL_BUILD_PROGRAM_FAILURE:
    case EVL_CL_COMPILE_PROGRAM_FAILURE:
    case EVL_CL_LINK_PROGRAM_FAILURE: return -EINVAL;
    default:
        /* CL_INVALID_*: the call was wrong; anything else (CL_OUT_OF_RESOURCES
         * included, which is how NVIDIA reports a faulting kernel): the device. */
        return r <= EVL_CL_INVALID_VALUE && r >= EVL_CL_MAX_SIZE_RESTRICTION_EXCEEDED ? -EINVAL
                                                                                     : -EIO;
    }
}

/* A call that returns an object reports its error through an out parameter. */
#define EVL_CHECK_AS(r, call) evl_check((r), (call), __FILE__, __LINE__)

int evl_check(int r, const char *call, const char *file, int line)
{
    if (r == EVL_CL_SUCCESS) return 0;
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: %s failed with %s (%d) [%s:%d]", call,
             evl_error_name(r), r, file, line);
    return evl_errno(r);
}

/* ---- Enumeration ---- */

typedef struct EvlEntry {
    cl_platform_id platform;
    cl_device_id device;
    int platform_index, device_index;
} EvlEntry;

/*
 * Every platform's devices, in the loader's platform order: the flat
 * numbering. 0 with *n == 0 and `why` set when there are none.
 */
static int enumerate(EvlEntry **out, int *n, char *why, size_t why_len)
{
    *out = NULL;
    *n = 0;
    int err = evl_driver_load(why, why_len);
    if (err) return err;
    const EvlDriver *d = &driver;
    cl_uint n_plat = 0;
    const cl_int r = d->clGetPlatformIDs(0, NULL, &n_plat);
    /* No vendor driver registered: the loader's way of saying "none". */
    if (r == EVL_CL_PLATFORM_NOT_FOUND_KHR || (r == EVL_CL_SUCCESS && !n_plat)) {
        set_why(why, why_len, "no OpenCL platform is installed (the ICD loader found no "
                "vendor driver)");
        return 0;
    }
    if ((err = EVL_CHECK_AS(r, "clGetPlatformIDs(0, NULL, &n_plat)"))) {
        set_why(why, why_len, "clGetPlatformIDs failed with %s", evl_error_name(r));
        return -ENODEV;
    }
    cl_platform_id *plat = calloc(n_plat, sizeof(*plat));
    EvlEntry *list = NULL;
    cl_device_id *dev = NULL;
    int count = 0;
    if (!plat) return -ENOMEM;
    err = EVL_CHECK(d->clGetPlatformIDs(n_plat, plat, &n_plat));
    if (err) {
        set_why(why, why_len, "clGetPlatformIDs failed");
        err = -ENODEV;
        goto fail;
    }
    for (cl_uint p = 0; p < n_plat; p++) {
        cl_uint n_dev = 0;
        cl_int rd = d->clGetDeviceIDs(plat[p], EVL_CL_DEVICE_TYPE_ALL, 0, NULL, &n_dev);
        /* A platform without devices, or a broken one, must not hide the others. */
        if (rd == EVL_CL_DEVICE_NOT_FOUND ||
            EVL_CHECK_AS(rd, "clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n)") ||
            !n_dev)
            continue;
        cl_device_id *dv = realloc(dev, n_dev * sizeof(*dev));
        EvlEntry *ls = realloc(list, ((size_t)count + n_dev) * sizeof(*list));
        if (dv) dev = dv;
        if (ls) list = ls;
        if (!dv || !ls) {
            err = -ENOMEM;
            goto fail;
        }
        cl_uint got = 0;
        rd = d->clGetDeviceIDs(plat[p], EVL_CL_DEVICE_TYPE_ALL, n_dev, dev, &got);
        if (EVL_CHECK_AS(rd, "clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, dev, &got)"))
            continue;
        for (cl_uint i = 0; i < n_dev && i < got; i++)
            list[count++] = (EvlEntry){ plat[p], dev[i], (int)p, (int)i };
    }
    free(dev);
    free(plat);
    if (!count) {
        free(list);
        list = NULL;
        set_why(why, why_len, "%u OpenCL platform%s but no OpenCL device", (unsigned)n_plat,
                n_plat == 1 ? "" : "s");
    }
    *out = list;
    *n = count;
    return 0;
fail:
    free(dev);
    free(list);
    free(plat);
    return err;
}

/* Device `flat` of the numbering; -ENODEV with `why` when there is none. */
static int find_entry(int flat, EvlEntry *e, char *why, size_t why_len)
{
    EvlEntry *list;
    int n;
    const int err = enumerate(&list, &n, why, why_len);
    if (err) return err;
    if (flat < 0 || flat >= n) {
        if (n) set_why(why, why_len, "no OpenCL device %d (this machine has %d)", flat, n);
        free(list);
        return -ENODEV;
    }
    *e = list[flat];
    free(list);
    return 0;
}

/*
 * A string query (platform when `platform`, else device) into a new buffer;
 * NULL when the query is not answered. Not logged: callers ask for things
 * that older devices may not know.
 */
static char *info_string(cl_platform_id platform, cl_device_id device, cl_uint what)
{
    const EvlDriver *d = &driver;
    size_t size = 0;
    cl_int r = platform ? d->clGetPlatformInfo(platform, what, 0, NULL, &size)
                        : d->clGetDeviceInfo(device, what, 0, NULL, &size);
    if (r != EVL_CL_SUCCESS) return NULL;
    char *s = malloc(size + 1);
    if (!s) return NULL;
    r = platform ? d->clGetPlatformInfo(platform, what, size, s, NULL)
                 : d->clGetDeviceInfo(device, what, size, s, NULL);
    if (r != EVL_CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[size] = '\0';
    return s;
}

static void copy_string(char *dst, size_t len, cl_platform_id platform, cl_device_id device,
                        cl_uint what)
{
    char *s = info_string(platform, device, what);
    snprintf(dst, len, "%s", s ? s : "unknown");
    free(s);
}

static bool has_token(const char *list, const char *token)
{
    const size_t n = strlen(token);
    for (const char *p = list; p && (p = strstr(p, token)); p += n) {
        const bool start = p == list || p[-1] == ' ';
        if (start && (p[n] == ' ' || p[n] == '\0')) return true;
    }
    return false;
}

static bool device_has_fp64(cl_device_id dev)
{
    const EvlDriver *d = &driver;
    char *ext = info_string(NULL, dev, EVL_CL_DEVICE_EXTENSIONS);
    const bool khr = ext && has_token(ext, "cl_khr_fp64");
    free(ext);
    if (khr) return true;
    /* OpenCL 1.2 devices without doubles answer 0 or refuse; either means none. */
    cl_device_fp_config cfg = 0;
    if (d->clGetDeviceInfo(dev, EVL_CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(cfg), &cfg, NULL) ==
            EVL_CL_SUCCESS && cfg)
        return true;
    /* OpenCL 3.0 names the optional feature; older devices refuse the query. */
    size_t size = 0;
    if (d->clGetDeviceInfo(dev, EVL_CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) !=
            EVL_CL_SUCCESS || size < sizeof(EvlClNameVersion))
        return false;
    EvlClNameVersion *f = malloc(size);
    bool found = false;
    if (f && d->clGetDeviceInfo(dev, EVL_CL_DEVICE_OPENCL_C_FEATURES, size, f, NULL) ==
            EVL_CL_SUCCESS) {
        for (size_t i = 0; i < size / sizeof(*f) && !found; i++)
            found = !strncmp(f[i].name, "__opencl_c_fp64", sizeof(f[i].name));
    }
    free(f);
    return found;
}

static int entry_info(const EvlEntry *e, int flat, EvlDeviceInfo *out)
{
    const EvlDriver *d = &driver;
    memset(out, 0, sizeof(*out));
    copy_string(out->name, sizeof(out->name), NULL, e->device, EVL_CL_DEVICE_NAME);
    copy_string(out->platform, sizeof(out->platform), e->platform, NULL, EVL_CL_PLATFORM_NAME);
    copy_string(out->version, sizeof(out->version), NULL, e->device, EVL_CL_DEVICE_VERSION);
    out->platform_index = e->platform_index;
    out->device_index = e->device_index;
    out->flat_index = flat;
    out->fp64 = device_has_fp64(e->device);
    cl_device_type type = 0;
    cl_device_fp_config single = 0;
    cl_ulong mem = 0;
    int err = EVL_CHECK(d->clGetDeviceInfo(e->device, EVL_CL_DEVICE_TYPE, sizeof(type), &type,
                                           NULL));
    if (!err)
        err = EVL_CHECK(d->clGetDeviceInfo(e->device, EVL_CL_DEVICE_SINGLE_FP_CONFIG,
                                           sizeof(single), &single, NULL));
    if (!err)
        err = EVL_CHECK(d->clGetDeviceInfo(e->device, EVL_CL_DEVICE_GLOBAL_MEM_SIZE,
                                           sizeof(mem), &mem, NULL));
    if (err) return err;
    out->is_gpu = type & EVL_CL_DEVICE_TYPE_GPU;
    out->denorms = single & EVL_CL_FP_DENORM;
    out->global_mem = mem;
    return 0;
}

int evl_device_count(int *n, char *why, size_t why_len)
{
    EvlEntry *list;
    const int err = enumerate(&list, n, why, why_len);
    free(list);
    return err;
}

int evl_device_info(int flat_index, EvlDeviceInfo *out)
{
    char why[256] = "";
    EvlEntry e;
    const int err = find_entry(flat_index, &e, why, sizeof(why));
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: %s", why);
        return err;
    }
    return entry_info(&e, flat_index, out);
}

int evl_device_default(int *flat_index, char *why, size_t why_len)
{
    int count = 0;
    int err = evl_device_count(&count, why, why_len);
    if (!err && !count) {
        set_why(why, why_len, "no OpenCL device");
        err = -ENODEV;
    }
    *flat_index = 0;
    for (int k = 0; !err && k < count; k++) {
        EvlDeviceInfo in;
        if (!evl_device_info(k, &in) && in.is_gpu) {
            *flat_index = k;
            break;
        }
    }
    return err;
}

/* A decimal number of at most 9 digits spanning [s, end); -1 otherwise. */
static int parse_index(const char *s, const char *end)
{
    if (s == end || end - s > 9) return -1;
    int v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = 10 * v + (*s - '0');
    }
    return v;
}

int evl_device_parse(const char *spec, int *flat_index)
{
    const char *colon = spec ? strchr(spec, ':') : NULL;
    const char *end = spec ? spec + strlen(spec) : NULL;
    const int a = spec ? parse_index(spec, colon ? colon : end) : -1;
    const int b = colon ? parse_index(colon + 1, end) : 0;
    if (a < 0 || b < 0) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: device \"%s\" is neither N (a device number "
                 "over all platforms) nor P:D (platform P's device D)", spec ? spec : "");
        return -EINVAL;
    }
    char why[256] = "";
    EvlEntry *list;
    int n;
    int err = enumerate(&list, &n, why, sizeof(why));
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: %s", why);
        return err;
    }
    err = -EINVAL;
    for (int i = 0; i < n; i++) {
        if (colon ? list[i].platform_index == a && list[i].device_index == b : i == a) {
            *flat_index = i;
            err = 0;
            break;
        }
    }
    free(list);
    if (err)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: there is no device %s (%d OpenCL device%s; "
                 "--list-devices shows them)%s%s", spec, n, n == 1 ? "" : "s",
                 n ? "" : ": ", n ? "" : why);
    return err;
}

int evl_list_devices(FILE *f)
{
    char why[256] = "";
    EvlEntry *list;
    int n;
    const int err = enumerate(&list, &n, why, sizeof(why));
    if (err) {
        fprintf(f, "opencl: not available (%s)\n", why);
        return err;
    }
    if (!n) fprintf(f, "opencl: no device (%s)\n", why);
    for (int i = 0; i < n; i++) {
        EvlDeviceInfo info;
        if (entry_info(&list[i], i, &info)) continue;
        fprintf(f, "opencl %d:%d (%d): %s, %s, %s, fp64 %s, %" PRIu64 " MiB\n",
                info.platform_index, info.device_index, i, info.name, info.platform,
                info.version, info.fp64 ? "yes" : "no", info.global_mem >> 20);
    }
    free(list);
    return n;
}

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
    for (unsigned i = 0; i < sh->n_progs; i++) EVL_CHECK(driver.clReleaseProgram(sh->progs[i].p));
    free(sh->progs);
    if (sh->ctx) EVL_CHECK(driver.clReleaseContext(sh->ctx));
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
        sh->ctx = driver.clCreateContext(props, 1, &device, NULL, NULL, &r);
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
        EVL_CHECK(driver.clReleaseKernel(k->k));
        free(k);
    }
    for (unsigned i = 0; i < d->n_pins; i++) EVL_CHECK(driver.clReleaseMemObject(d->pins[i].m));
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
        set_why(why, why_len, "unknown fp64 mode %d", fp64_mode);
        return -EINVAL;
    }
    EvlEntry e;
    int err = find_entry(flat_index, &e, why, why_len);
    if (err) return err;
    EvlDeviceInfo info;
    err = entry_info(&e, flat_index, &info);
    if (err) {
        set_why(why, why_len, "OpenCL device %d does not answer queries", flat_index);
        return err;
    }
    if (fp64_mode == EVL_FP64_ON && !info.fp64) {
        set_why(why, why_len, "OpenCL device %d (%s) has no double precision (cl_khr_fp64), "
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
    d->platform = e.platform;
    d->device = e.device;
    d->fp64 = info.fp64 && fp64_mode != EVL_FP64_OFF;
    d->options = EVL_BUILD_OPTIONS(d->fp64);
    d->total = info.global_mem;
    atomic_init(&d->bytes, 0);
    snprintf(d->name, sizeof(d->name), "%s (OpenCL, %s)", info.name, info.platform);
    cl_int r = EVL_CL_SUCCESS;
    err = shared_get(e.platform, e.device, d->fp64, &d->sh, &r);
    if (!err) d->ctx = d->sh->ctx;
    if (err) {
        set_why(why, why_len, "OpenCL device %d (%s) cannot be opened: clCreateContext "
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
    const cl_mem m = driver.clCreateBuffer(d->ctx, EVL_CL_MEM_READ_WRITE, bytes ? bytes : 4,
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
    EVL_CHECK(driver.clReleaseMemObject(mem_of(*p)));
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
    *p = size >= bytes ? aligned_alloc(page, size) : NULL;
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
    free(*p);
    *p = NULL;
}

static int host_register(VmafGpuDev *dev, void *p, size_t bytes)
{
    EvlDev *d = (EvlDev *)dev;
    if (!p || !bytes) return 0;
    cl_int r = EVL_CL_SUCCESS;
    cl_mem m = driver.clCreateBuffer(d->ctx, EVL_CL_MEM_READ_ONLY | EVL_CL_MEM_USE_HOST_PTR,
                                     bytes, p, &r);
    /* Not registered: uploads from there stay staged, which is only slower. */
    if (r != EVL_CL_SUCCESS || !m) return 0;
    pthread_mutex_lock(&d->lock);
    if (d->n_pins == d->cap_pins) {
        const unsigned cap = d->cap_pins ? 2 * d->cap_pins : 16;
        EvlPinned *np = realloc(d->pins, cap * sizeof(*np));
        if (!np) {
            pthread_mutex_unlock(&d->lock);
            EVL_CHECK(driver.clReleaseMemObject(m));
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
    if (m) EVL_CHECK(driver.clReleaseMemObject(m));
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
    q->q = driver.clCreateCommandQueue(d->ctx, d->device, EVL_CL_QUEUE_PROFILING_ENABLE, &r);
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
    EVL_CHECK(driver.clFinish(q->q));
    if (q->stage_p)
        EVL_CHECK(driver.clEnqueueUnmapMemObject(q->q, q->stage, q->stage_p, 0, NULL, NULL));
    EVL_CHECK(driver.clFinish(q->q));
    EVL_CHECK(driver.clReleaseMemObject(q->stage));
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
    q->stage = driver.clCreateBuffer(q->d->ctx, EVL_CL_MEM_READ_ONLY | EVL_CL_MEM_ALLOC_HOST_PTR,
                                     cap, NULL, &r);
    if (r != EVL_CL_SUCCESS || !q->stage) {
        q->stage = NULL;
        q->stage_failed = true;
        return false;
    }
    q->stage_p = driver.clEnqueueMapBuffer(q->q, q->stage, EVL_CL_TRUE, EVL_CL_MAP_WRITE, 0, cap,
                                           0, NULL, NULL, &r);
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
    EVL_CHECK(driver.clReleaseCommandQueue(q->q));
    free(q);
}

static int queue_sync(VmafGpuQueue *q)
{
    return EVL_CHECK(driver.clFinish(q->q));
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
    if (e->ev) EVL_CHECK(driver.clReleaseEvent(e->ev));
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static int event_record(VmafGpuQueue *q, VmafGpuEvent *e)
{
    cl_event ev = NULL;
    int err = EVL_CHECK(driver.clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev));
    if (err) return err;
    /* Another queue's barrier or the host may wait for the marker only once
     * it was submitted: OpenCL asks for a flush (or blocking call) first. */
    err = EVL_CHECK(driver.clFlush(q->q));
    if (err) {
        EVL_CHECK(driver.clReleaseEvent(ev));
        return err;
    }
    pthread_mutex_lock(&e->lock);
    cl_event old = e->ev;
    e->ev = ev;
    pthread_mutex_unlock(&e->lock);
    if (old) EVL_CHECK(driver.clReleaseEvent(old));
    return 0;
}

/* The event's current marker, retained (NULL: never recorded). */
static int event_take(VmafGpuEvent *e, cl_event *ev)
{
    int err = 0;
    pthread_mutex_lock(&e->lock);
    *ev = e->ev;
    if (*ev) err = EVL_CHECK(driver.clRetainEvent(*ev));
    pthread_mutex_unlock(&e->lock);
    if (err) *ev = NULL;
    return err;
}

static int event_wait(VmafGpuQueue *q, VmafGpuEvent *e)
{
    cl_event ev;
    int err = event_take(e, &ev);
    if (err || !ev) return err;
    err = EVL_CHECK(driver.clEnqueueBarrierWithWaitList(q->q, 1, &ev, NULL));
    EVL_CHECK(driver.clReleaseEvent(ev));
    return err;
}

static int event_sync(VmafGpuEvent *e)
{
    cl_event ev;
    int err = event_take(e, &ev);
    if (err || !ev) return err;
    err = EVL_CHECK(driver.clWaitForEvents(1, &ev));
    EVL_CHECK(driver.clReleaseEvent(ev));
    return err;
}

static int event_end_ns(VmafGpuEvent *e, cl_ulong *ns)
{
    cl_event ev;
    int err = event_take(e, &ev);
    if (err) return err;
    if (!ev) return -EINVAL;
    err = EVL_CHECK(driver.clGetEventProfilingInfo(ev, EVL_CL_PROFILING_COMMAND_END,
                                                   sizeof(*ns), ns, NULL));
    EVL_CHECK(driver.clReleaseEvent(ev));
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
    if (!EVL_CHECK(driver.clGetProgramBuildInfo(p, d->device, EVL_CL_PROGRAM_BUILD_LOG, 0, NULL,
                                                &size)) && (text = malloc(size + 1)) &&
        !EVL_CHECK(driver.clGetProgramBuildInfo(p, d->device, EVL_CL_PROGRAM_BUILD_LOG, size,
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
    const char *src = prog->opencl;
    cl_int r = EVL_CL_SUCCESS;
    cl_program p = driver.clCreateProgramWithSource(d->ctx, 1, &src, NULL, &r);
    int err = EVL_CHECK_AS(r, "clCreateProgramWithSource(d->ctx, 1, &src, NULL, &r)");
    if (!err && !p) err = -EIO;
    if (err) return err;
    r = driver.clBuildProgram(p, 1, &d->device, d->options, NULL, NULL);
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
        EVL_CHECK(driver.clReleaseProgram(p));
        return err;
    }
    sh->progs[sh->n_progs++] = (EvlProgram){ prog, p };
    *out = p;
    return 0;
}

static int kernel_get(VmafGpuDev *dev, const VmafGpuProgram *prog, const char *name,
                      VmafGpuKernel **out)
{
    EvlDev *d = (EvlDev *)dev;
    *out = NULL;
    if (!prog->opencl) return -ENOSYS;
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
        k->k = driver.clCreateKernel(p, name, &r);
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
            err = EVL_CHECK(driver.clSetKernelArg(k->k, idx, sizeof(m), &m));
            if (!err) err = EVL_CHECK(driver.clSetKernelArg(k->k, idx + 1, sizeof(off), &off));
            idx += 2;
        } else {
            err = EVL_CHECK(driver.clSetKernelArg(k->k, idx, args[i].size, args[i].p));
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
    const int err = EVL_CHECK(driver.clEnqueueNDRangeKernel(q->q, k->k, 3, NULL, global, local,
                                                            0, NULL, NULL));
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
    return EVL_CHECK(driver.clEnqueueFillBuffer(q->q, mem_of(p), &zero, 1, p.off, bytes, 0,
                                                NULL, NULL));
}

static int mem_copy(VmafGpuQueue *q, VmafGpuPtr dst, VmafGpuPtr src, size_t bytes)
{
    if (!bytes) return 0;
    return EVL_CHECK(driver.clEnqueueCopyBuffer(q->q, mem_of(src), mem_of(dst), src.off,
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
    return EVL_CHECK(driver.clEnqueueWriteBuffer(q->q, mem_of(dst), EVL_CL_FALSE, dst.off,
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
        return EVL_CHECK(driver.clEnqueueWriteBuffer(q->q, mem_of(dst), EVL_CL_FALSE, dst.off,
                                                     w * h, s, 0, NULL, NULL));
    }
    /* The buffer's origin is a byte offset: x is in bytes, rows w apart. */
    const size_t buffer_origin[3] = { dst.off, 0, 0 };
    const size_t host_origin[3] = { 0, 0, 0 };
    const size_t region[3] = { w, h, 1 };
    return EVL_CHECK(driver.clEnqueueWriteBufferRect(q->q, mem_of(dst), EVL_CL_FALSE,
                                                     buffer_origin, host_origin, region, w, 0,
                                                     spitch, 0, src, 0, NULL, NULL));
}

static int download(VmafGpuQueue *q, void *dst, VmafGpuPtr src, size_t bytes)
{
    if (!bytes) return 0;
    return EVL_CHECK(driver.clEnqueueReadBuffer(q->q, mem_of(src), EVL_CL_FALSE, src.off,
                                                bytes, dst, 0, NULL, NULL));
}

static bool dev_has_fp64(const VmafGpuDev *d)
{
    return ((const EvlDev *)d)->fp64;
}

static const VmafGpuOps evl_ops = {
    .api = VMAF_GPU_API_OPENCL,
    .name = "opencl",
    .close = dev_close,
    .device_name = dev_name,
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
