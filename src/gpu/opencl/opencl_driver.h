/*
 * The few OpenCL 1.2 types, constants and entry points the backend uses,
 * declared here so that the library needs neither CL/cl.h nor libOpenCL at
 * build or link time: the ICD loader (libOpenCL.so.1) is opened with
 * dlopen() when an OpenCL backend is asked for, and a machine without
 * OpenCL still runs the CPU path.
 * Types and struct tags are the Khronos headers' (so a file that includes
 * both sees compatible declarations); values are the Khronos ABI's, under an
 * EVL_ prefix so that they never clash with CL/cl.h's macros.
 */
#ifndef EXACTVMAF_OPENCL_DRIVER_H
#define EXACTVMAF_OPENCL_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;
typedef cl_bitfield cl_device_type;
typedef cl_bitfield cl_mem_flags;
typedef cl_bitfield cl_command_queue_properties;
typedef cl_bitfield cl_device_fp_config;
typedef cl_uint cl_platform_info;
typedef cl_uint cl_device_info;
typedef cl_uint cl_program_build_info;
typedef cl_uint cl_program_info;
typedef cl_uint cl_profiling_info;
typedef intptr_t cl_context_properties;
typedef cl_uint cl_version;

typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

/** CL_DEVICE_OPENCL_C_FEATURES' elements (OpenCL 3.0 cl_name_version). */
typedef struct EvlClNameVersion {
    cl_version version;
    char name[64];
} EvlClNameVersion;

/* Error codes (cl.h; -1001 is cl_khr_icd's, returned by the ICD loader). */
enum {
    EVL_CL_SUCCESS = 0,
    EVL_CL_DEVICE_NOT_FOUND = -1,
    EVL_CL_DEVICE_NOT_AVAILABLE = -2,
    EVL_CL_COMPILER_NOT_AVAILABLE = -3,
    EVL_CL_MEM_OBJECT_ALLOCATION_FAILURE = -4,
    EVL_CL_OUT_OF_RESOURCES = -5,
    EVL_CL_OUT_OF_HOST_MEMORY = -6,
    EVL_CL_PROFILING_INFO_NOT_AVAILABLE = -7,
    EVL_CL_MEM_COPY_OVERLAP = -8,
    EVL_CL_IMAGE_FORMAT_MISMATCH = -9,
    EVL_CL_IMAGE_FORMAT_NOT_SUPPORTED = -10,
    EVL_CL_BUILD_PROGRAM_FAILURE = -11,
    EVL_CL_MAP_FAILURE = -12,
    EVL_CL_MISALIGNED_SUB_BUFFER_OFFSET = -13,
    EVL_CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST = -14,
    EVL_CL_COMPILE_PROGRAM_FAILURE = -15,
    EVL_CL_LINKER_NOT_AVAILABLE = -16,
    EVL_CL_LINK_PROGRAM_FAILURE = -17,
    EVL_CL_DEVICE_PARTITION_FAILED = -18,
    EVL_CL_KERNEL_ARG_INFO_NOT_AVAILABLE = -19,
    EVL_CL_INVALID_VALUE = -30,
    EVL_CL_INVALID_DEVICE_TYPE = -31,
    EVL_CL_INVALID_PLATFORM = -32,
    EVL_CL_INVALID_DEVICE = -33,
    EVL_CL_INVALID_CONTEXT = -34,
    EVL_CL_INVALID_QUEUE_PROPERTIES = -35,
    EVL_CL_INVALID_COMMAND_QUEUE = -36,
    EVL_CL_INVALID_HOST_PTR = -37,
    EVL_CL_INVALID_MEM_OBJECT = -38,
    EVL_CL_INVALID_IMAGE_FORMAT_DESCRIPTOR = -39,
    EVL_CL_INVALID_IMAGE_SIZE = -40,
    EVL_CL_INVALID_SAMPLER = -41,
    EVL_CL_INVALID_BINARY = -42,
    EVL_CL_INVALID_BUILD_OPTIONS = -43,
    EVL_CL_INVALID_PROGRAM = -44,
    EVL_CL_INVALID_PROGRAM_EXECUTABLE = -45,
    EVL_CL_INVALID_KERNEL_NAME = -46,
    EVL_CL_INVALID_KERNEL_DEFINITION = -47,
    EVL_CL_INVALID_KERNEL = -48,
    EVL_CL_INVALID_ARG_INDEX = -49,
    EVL_CL_INVALID_ARG_VALUE = -50,
    EVL_CL_INVALID_ARG_SIZE = -51,
    EVL_CL_INVALID_KERNEL_ARGS = -52,
    EVL_CL_INVALID_WORK_DIMENSION = -53,
    EVL_CL_INVALID_WORK_GROUP_SIZE = -54,
    EVL_CL_INVALID_WORK_ITEM_SIZE = -55,
    EVL_CL_INVALID_GLOBAL_OFFSET = -56,
    EVL_CL_INVALID_EVENT_WAIT_LIST = -57,
    EVL_CL_INVALID_EVENT = -58,
    EVL_CL_INVALID_OPERATION = -59,
    EVL_CL_INVALID_GL_OBJECT = -60,
    EVL_CL_INVALID_BUFFER_SIZE = -61,
    EVL_CL_INVALID_MIP_LEVEL = -62,
    EVL_CL_INVALID_GLOBAL_WORK_SIZE = -63,
    EVL_CL_INVALID_PROPERTY = -64,
    EVL_CL_INVALID_IMAGE_DESCRIPTOR = -65,
    EVL_CL_INVALID_COMPILER_OPTIONS = -66,
    EVL_CL_INVALID_LINKER_OPTIONS = -67,
    EVL_CL_INVALID_DEVICE_PARTITION_COUNT = -68,
    EVL_CL_INVALID_PIPE_SIZE = -69,
    EVL_CL_INVALID_DEVICE_QUEUE = -70,
    EVL_CL_INVALID_SPEC_ID = -71,
    EVL_CL_MAX_SIZE_RESTRICTION_EXCEEDED = -72,
    EVL_CL_PLATFORM_NOT_FOUND_KHR = -1001,
};

#define EVL_CL_FALSE 0u
#define EVL_CL_TRUE 1u

#define EVL_CL_DEVICE_TYPE_GPU (1ull << 2)
#define EVL_CL_DEVICE_TYPE_ALL 0xFFFFFFFFull

#define EVL_CL_FP_DENORM (1ull << 0)

#define EVL_CL_MEM_READ_WRITE (1ull << 0)
#define EVL_CL_MEM_READ_ONLY (1ull << 2)
#define EVL_CL_MEM_USE_HOST_PTR (1ull << 3)
#define EVL_CL_MEM_ALLOC_HOST_PTR (1ull << 4)
#define EVL_CL_MAP_WRITE (1ull << 1)
#define EVL_CL_QUEUE_PROFILING_ENABLE (1ull << 1)

enum {
    EVL_CL_PLATFORM_VERSION = 0x0901,
    EVL_CL_PLATFORM_NAME = 0x0902,
    EVL_CL_DEVICE_TYPE = 0x1000,
    EVL_CL_DEVICE_SINGLE_FP_CONFIG = 0x101B,
    EVL_CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F,
    EVL_CL_DEVICE_NAME = 0x102B,
    EVL_CL_DRIVER_VERSION = 0x102D,
    EVL_CL_DEVICE_VERSION = 0x102F,
    EVL_CL_DEVICE_EXTENSIONS = 0x1030,
    EVL_CL_DEVICE_DOUBLE_FP_CONFIG = 0x1032,
    EVL_CL_DEVICE_OPENCL_C_FEATURES = 0x106F,
    EVL_CL_CONTEXT_PLATFORM = 0x1084,
    EVL_CL_PROGRAM_BINARY_SIZES = 0x1165,
    EVL_CL_PROGRAM_BINARIES = 0x1166,
    EVL_CL_PROGRAM_BUILD_LOG = 0x1183,
    EVL_CL_PROFILING_COMMAND_END = 0x1283,
};

/** The entry points, filled from the ICD loader. */
typedef struct EvlDriver {
    cl_int (*clGetPlatformIDs)(cl_uint n, cl_platform_id *platforms, cl_uint *n_platforms);
    cl_int (*clGetPlatformInfo)(cl_platform_id platform, cl_platform_info what, size_t size,
                                void *value, size_t *size_ret);
    cl_int (*clGetDeviceIDs)(cl_platform_id platform, cl_device_type type, cl_uint n,
                             cl_device_id *devices, cl_uint *n_devices);
    cl_int (*clGetDeviceInfo)(cl_device_id device, cl_device_info what, size_t size,
                              void *value, size_t *size_ret);
    cl_context (*clCreateContext)(const cl_context_properties *props, cl_uint n_devices,
                                  const cl_device_id *devices,
                                  void (*notify)(const char *, const void *, size_t, void *),
                                  void *user_data, cl_int *err);
    cl_int (*clReleaseContext)(cl_context ctx);
    cl_command_queue (*clCreateCommandQueue)(cl_context ctx, cl_device_id device,
                                             cl_command_queue_properties props, cl_int *err);
    cl_int (*clReleaseCommandQueue)(cl_command_queue q);
    cl_mem (*clCreateBuffer)(cl_context ctx, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err);
    cl_int (*clReleaseMemObject)(cl_mem mem);
    cl_program (*clCreateProgramWithSource)(cl_context ctx, cl_uint n, const char **strings,
                                            const size_t *lengths, cl_int *err);
    cl_program (*clCreateProgramWithBinary)(cl_context ctx, cl_uint n_devices,
                                            const cl_device_id *devices, const size_t *lengths,
                                            const unsigned char **binaries, cl_int *status,
                                            cl_int *err);
    cl_int (*clGetProgramInfo)(cl_program prog, cl_program_info what, size_t size, void *value,
                               size_t *size_ret);
    cl_int (*clBuildProgram)(cl_program prog, cl_uint n_devices, const cl_device_id *devices,
                             const char *options, void (*notify)(cl_program, void *),
                             void *user_data);
    cl_int (*clGetProgramBuildInfo)(cl_program prog, cl_device_id device,
                                    cl_program_build_info what, size_t size, void *value,
                                    size_t *size_ret);
    cl_int (*clReleaseProgram)(cl_program prog);
    cl_kernel (*clCreateKernel)(cl_program prog, const char *name, cl_int *err);
    cl_int (*clReleaseKernel)(cl_kernel k);
    cl_int (*clSetKernelArg)(cl_kernel k, cl_uint index, size_t size, const void *value);
    cl_int (*clEnqueueNDRangeKernel)(cl_command_queue q, cl_kernel k, cl_uint dims,
                                     const size_t *global_offset, const size_t *global_size,
                                     const size_t *local_size, cl_uint n_wait,
                                     const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueFillBuffer)(cl_command_queue q, cl_mem mem, const void *pattern,
                                  size_t pattern_size, size_t off, size_t size, cl_uint n_wait,
                                  const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueCopyBuffer)(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_off,
                                  size_t dst_off, size_t size, cl_uint n_wait,
                                  const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueWriteBuffer)(cl_command_queue q, cl_mem mem, cl_bool blocking, size_t off,
                                   size_t size, const void *src, cl_uint n_wait,
                                   const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueWriteBufferRect)(cl_command_queue q, cl_mem mem, cl_bool blocking,
                                       const size_t *buffer_origin, const size_t *host_origin,
                                       const size_t *region, size_t buffer_row_pitch,
                                       size_t buffer_slice_pitch, size_t host_row_pitch,
                                       size_t host_slice_pitch, const void *src, cl_uint n_wait,
                                       const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueReadBuffer)(cl_command_queue q, cl_mem mem, cl_bool blocking, size_t off,
                                  size_t size, void *dst, cl_uint n_wait, const cl_event *wait,
                                  cl_event *ev);
    void *(*clEnqueueMapBuffer)(cl_command_queue q, cl_mem mem, cl_bool blocking,
                                cl_bitfield map_flags, size_t off, size_t size, cl_uint n_wait,
                                const cl_event *wait, cl_event *ev, cl_int *err);
    cl_int (*clEnqueueUnmapMemObject)(cl_command_queue q, cl_mem mem, void *ptr, cl_uint n_wait,
                                      const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueMarkerWithWaitList)(cl_command_queue q, cl_uint n_wait,
                                          const cl_event *wait, cl_event *ev);
    cl_int (*clEnqueueBarrierWithWaitList)(cl_command_queue q, cl_uint n_wait,
                                           const cl_event *wait, cl_event *ev);
    cl_int (*clWaitForEvents)(cl_uint n, const cl_event *events);
    cl_int (*clRetainEvent)(cl_event ev);
    cl_int (*clReleaseEvent)(cl_event ev);
    cl_int (*clGetEventProfilingInfo)(cl_event ev, cl_profiling_info what, size_t size,
                                      void *value, size_t *size_ret);
    cl_int (*clFlush)(cl_command_queue q);
    cl_int (*clFinish)(cl_command_queue q);
} EvlDriver;

#endif
