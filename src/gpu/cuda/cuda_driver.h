/*
 * The few CUDA driver API types and entry points the backend uses, declared
 * here so that the library needs neither cuda.h nor libcuda at build or link
 * time: libcuda.so.1 is opened with dlopen() when a CUDA backend is asked for,
 * and a machine without a driver still runs the CPU path.
 * Values are the driver ABI's (cuda.h); the versioned symbol names (_v2) are
 * those cuda.h maps the plain names to.
 */
#ifndef EXACTVMAF_CUDA_DRIVER_H
#define EXACTVMAF_CUDA_DRIVER_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUarray_st *CUarray;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

/** cuda.h's CUDA_MEMCPY2D (the _v2 layout, size_t fields). */
typedef struct EvcMemcpy2D {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} EvcMemcpy2D;

enum { EVC_CU_MEMORYTYPE_HOST = 1, EVC_CU_MEMORYTYPE_DEVICE = 2 };

enum {
    EVC_CUDA_SUCCESS = 0,
    EVC_CUDA_ERROR_INVALID_VALUE = 1,
    EVC_CUDA_ERROR_OUT_OF_MEMORY = 2,
    EVC_CUDA_ERROR_NOT_INITIALIZED = 3,
    EVC_CUDA_ERROR_NOT_READY = 600,
    EVC_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    EVC_CUDA_ERROR_NO_DEVICE = 100,
    EVC_CUDA_ERROR_INVALID_DEVICE = 101,
    EVC_CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    EVC_CUDA_ERROR_NOT_SUPPORTED = 801,
};

enum {
    EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    EVC_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

/* cuPointerGetAttribute: the allocation's context. */
#define EVC_CU_POINTER_ATTRIBUTE_CONTEXT 1

#define EVC_CU_STREAM_NON_BLOCKING 0x1u
#define EVC_CU_EVENT_DEFAULT 0x0u
#define EVC_CU_EVENT_BLOCKING_SYNC 0x1u
#define EVC_CU_EVENT_DISABLE_TIMING 0x2u
#define EVC_CU_MEMHOSTREGISTER_PORTABLE 0x1u
/* In a stream capture: a record or wait of an event outside the graph. */
#define EVC_CU_EVENT_RECORD_EXTERNAL 0x1u
#define EVC_CU_EVENT_WAIT_EXTERNAL 0x1u
/* Only the capturing thread's own unsafe calls are refused during a capture. */
#define EVC_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/** The driver entry points, filled from libcuda.so.1. */
typedef struct EvcDriver {
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuDriverGetVersion)(int *version);
    CUresult (*cuDeviceGetCount)(int *count);
    CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
    CUresult (*cuCtxPushCurrent)(CUcontext ctx);
    CUresult (*cuCtxPopCurrent)(CUcontext *ctx);
    CUresult (*cuCtxGetDevice)(CUdevice *dev);
    CUresult (*cuModuleLoadData)(CUmodule *mod, const void *image);
    CUresult (*cuModuleUnload)(CUmodule mod);
    CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
    CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*cuMemFree)(CUdeviceptr ptr);
    CUresult (*cuMemAllocHost)(void **ptr, size_t bytes);
    CUresult (*cuMemFreeHost)(void *ptr);
    CUresult (*cuMemGetInfo)(size_t *free_bytes, size_t *total_bytes);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                  CUstream stream);
    CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                  CUstream stream);
    CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n,
                                CUstream stream);
    CUresult (*cuMemcpy2DAsync)(const EvcMemcpy2D *copy, CUstream stream);
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                  CUstream stream);
    CUresult (*cuMemHostRegister)(void *p, size_t bytes, unsigned flags);
    CUresult (*cuMemHostUnregister)(void *p);
    CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
    CUresult (*cuStreamDestroy)(CUstream stream);
    CUresult (*cuStreamSynchronize)(CUstream stream);
    CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
    CUresult (*cuEventDestroy)(CUevent event);
    CUresult (*cuEventRecord)(CUevent event, CUstream stream);
    CUresult (*cuEventSynchronize)(CUevent event);
    CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
    CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
    CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz,
                               unsigned shared_bytes, CUstream stream,
                               void **params, void **extra);
    /* Graphs (optional: without them the frames are queued call by call). */
    CUresult (*cuEventRecordWithFlags)(CUevent event, CUstream stream, unsigned flags);
    CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
    CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph);
    CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                            unsigned long long flags);
    CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
    CUresult (*cuGraphDestroy)(CUgraph graph);
    CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
    /* Device pictures (cuda_picture.c). */
    CUresult (*cuPointerGetAttribute)(void *data, int attribute, CUdeviceptr ptr);
    CUresult (*cuGetErrorName)(CUresult err, const char **name);
    CUresult (*cuGetErrorString)(CUresult err, const char **text);
} EvcDriver;

#endif
