/*
 * The OpenCL ICD loader (libOpenCL.so.1) opened with dlopen() once per
 * process, its entry points looked up, and every OpenCL call's check: the
 * error's name, its errno, the log line.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "os/os.h"
#include "gpu/opencl/opencl_loader.h"

static EvlDriver driver;
static int driver_err;
static char driver_why[256];
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void load_driver(void)
{
    static const char *const names[] = { VMAF_OS_OPENCL_LIB, VMAF_OS_OPENCL_LIB_ALT };
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof(names) / sizeof(names[0]) && names[i]; i++) {
        char e[160];
        lib = vmaf_os_dlopen(names[i], e, sizeof(e));
        /* The first name's reason is the one to give. */
        if (!lib && !i)
            snprintf(driver_why, sizeof(driver_why),
                     "the OpenCL ICD loader " VMAF_OS_OPENCL_LIB " cannot be opened (%s)", e);
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
        { (void **)&d.clCreateProgramWithBinary, "clCreateProgramWithBinary" },
        { (void **)&d.clGetProgramInfo, "clGetProgramInfo" },
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
        *table[i].slot = vmaf_os_dlsym(lib, table[i].name);
        if (!*table[i].slot) {
            snprintf(driver_why, sizeof(driver_why),
                     "the OpenCL ICD loader lacks %s (older than OpenCL 1.2?)", table[i].name);
            driver_err = -ENODEV;
            vmaf_os_dlclose(lib);
            return;
        }
    }
    /* The library stays open for the life of the process. */
    driver = d;
    driver_err = 0;
}

void evl_set_why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || !why_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

const EvlDriver *evl_driver(void)
{
    return driver.clGetPlatformIDs ? &driver : NULL;
}

int evl_driver_load(char *why, size_t why_len)
{
    pthread_once(&driver_once, load_driver);
    if (driver_err) evl_set_why(why, why_len, "%s", driver_why);
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

int evl_check(int r, const char *call, const char *file, int line)
{
    if (r == EVL_CL_SUCCESS) return 0;
    /* The OpenCL function's name, not our argument list or source line
     * (that is for the debug level). */
    const char *end = strchr(call, '(');
    if (!end) end = call + strlen(call);
    const char *fn = end;   /* "d->cuX(...)": cuX */
    while (fn > call && (isalnum((unsigned char)fn[-1]) || fn[-1] == '_')) fn--;
    const int fn_len = (int)(end - fn);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: %.*s failed with %s (%d)", fn_len, fn,
             evl_error_name(r), r);
    vmaf_log(VMAF_LOG_LEVEL_DEBUG, "opencl: %s failed at %s:%d", call, file, line);
    return evl_errno(r);
}
