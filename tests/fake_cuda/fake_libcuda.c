/*
 * A stand-in for NVIDIA's libcuda.so.1 whose one device cannot be opened:
 * its context creation fails with CUDA_ERROR_OUT_OF_MEMORY, as when another
 * process holds the GPU's memory. Loaded through LD_LIBRARY_PATH by
 * messages_test.py, it lets a machine without a GPU check what a run says
 * when a GPU is there but unusable. Every other entry point the backend
 * looks up exists and fails with CUDA_ERROR_NOT_SUPPORTED.
 */
#include <string.h>

#define OUT_OF_MEMORY 2
#define NOT_SUPPORTED 801

#if defined(__GNUC__)
#define EXPORT __attribute__((visibility("default")))
#else
#define EXPORT
#endif

EXPORT int cuInit(unsigned flags);
EXPORT int cuDriverGetVersion(int *v);
EXPORT int cuDeviceGetCount(int *n);
EXPORT int cuDeviceGet(int *dev, int ordinal);
EXPORT int cuDeviceGetName(char *name, int len, int dev);
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int dev);
EXPORT int cuGetErrorName(int r, const char **s);
EXPORT int cuGetErrorString(int r, const char **s);

int cuInit(unsigned flags)
{
    (void)flags;
    return 0;
}

int cuDriverGetVersion(int *v)
{
    *v = 12080;
    return 0;
}

int cuDeviceGetCount(int *n)
{
    *n = 1;
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    *dev = ordinal;
    return ordinal == 0 ? 0 : 101;  /* CUDA_ERROR_INVALID_DEVICE */
}

int cuDeviceGetName(char *name, int len, int dev)
{
    (void)dev;
    if (len > 0) {
        strncpy(name, "Fake GPU without memory", (size_t)len - 1);
        name[len - 1] = '\0';
    }
    return 0;
}

int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    (void)dev;
    *ctx = NULL;
    return OUT_OF_MEMORY;
}

int cuGetErrorName(int r, const char **s)
{
    *s = r == OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_NOT_SUPPORTED";
    return 0;
}

int cuGetErrorString(int r, const char **s)
{
    *s = r == OUT_OF_MEMORY ? "out of memory" : "operation not supported";
    return 0;
}

/* Looked up by the backend, never reached before the context: all fail. */
#define UNSUPPORTED(name) EXPORT int name(void); int name(void) { return NOT_SUPPORTED; }
UNSUPPORTED(cuDeviceGetAttribute)
UNSUPPORTED(cuDevicePrimaryCtxRelease_v2)
UNSUPPORTED(cuCtxPushCurrent_v2)
UNSUPPORTED(cuCtxPopCurrent_v2)
UNSUPPORTED(cuCtxGetDevice)
UNSUPPORTED(cuModuleLoadData)
UNSUPPORTED(cuModuleUnload)
UNSUPPORTED(cuModuleGetFunction)
UNSUPPORTED(cuMemAlloc_v2)
UNSUPPORTED(cuMemFree_v2)
UNSUPPORTED(cuMemAllocHost_v2)
UNSUPPORTED(cuMemFreeHost)
UNSUPPORTED(cuMemGetInfo_v2)
UNSUPPORTED(cuMemcpyHtoDAsync_v2)
UNSUPPORTED(cuMemcpyDtoHAsync_v2)
UNSUPPORTED(cuMemsetD8Async)
UNSUPPORTED(cuMemcpy2DAsync_v2)
UNSUPPORTED(cuMemcpyDtoDAsync_v2)
UNSUPPORTED(cuMemHostRegister_v2)
UNSUPPORTED(cuMemHostUnregister)
UNSUPPORTED(cuStreamWaitEvent)
UNSUPPORTED(cuStreamCreate)
UNSUPPORTED(cuStreamDestroy_v2)
UNSUPPORTED(cuStreamSynchronize)
UNSUPPORTED(cuEventCreate)
UNSUPPORTED(cuEventDestroy_v2)
UNSUPPORTED(cuEventRecord)
UNSUPPORTED(cuEventSynchronize)
UNSUPPORTED(cuLaunchKernel)
UNSUPPORTED(cuPointerGetAttribute)
