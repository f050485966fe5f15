/*
 * OpenCL backend of the GPU device layer (gpu/device.h): the ICD loader
 * opened at run time, devices of every platform under one flat numbering,
 * and the VmafGpuOps table over one OpenCL context.
 *
 * Every OpenCL call goes through evl_check(): a failure is logged with the
 * call, the error's name and code, and returned as a negative errno.
 *
 * Kernel sources are OpenCL C 1.2, built with EVL_BUILD_OPTIONS and nothing
 * else: no option that relaxes floating point, so with FP_CONTRACT OFF
 * (ev_opencl.h) + - * are the CPU reference's, operation for operation.
 * Float / and sqrt are not correctly rounded in OpenCL 1.2 by default
 * (2.5 and 3 ulp): kernels take them from fp.h / fp_exact.h instead.
 */
#ifndef EXACTVMAF_OPENCL_DEVICE_H
#define EXACTVMAF_OPENCL_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu/device.h"

/** Every program's build options; `fp64`: the opened device's evl_device_fp64(). */
#define EVL_BUILD_OPTIONS_COMMON "-cl-std=CL1.2"
#define EVL_BUILD_OPTIONS(fp64) \
    ((fp64) ? EVL_BUILD_OPTIONS_COMMON " -DEV_FP64=1" : EVL_BUILD_OPTIONS_COMMON " -DEV_FP64=0")

/**
 * Open the ICD loader (libOpenCL.so.1, else libOpenCL.so) once per process;
 * thread-safe. 0, or -ENODEV with the reason in `why` (no loader, missing
 * entry points).
 */
int evl_driver_load(char *why, size_t why_len);

/** "CL_OUT_OF_RESOURCES" style name of an OpenCL error code. */
const char *evl_error_name(int cl_err);

/**
 * Check one OpenCL call's result: 0 on success; otherwise log
 * "opencl: <call> failed with <NAME> (<code>) [file:line]" and return a
 * negative errno (-ENOMEM, -ENODEV, -EINVAL, -ENOTSUP or -EIO).
 */
int evl_check(int r, const char *call, const char *file, int line);
#define EVL_CHECK(call) evl_check((call), #call, __FILE__, __LINE__)

/**
 * How many OpenCL devices every platform has together. 0 with *n set (when
 * *n is 0, `why` says why); -ENODEV when OpenCL cannot be loaded.
 */
int evl_device_count(int *n, char *why, size_t why_len);

typedef struct EvlDeviceInfo {
    char name[256], platform[256], version[128];
    int platform_index, device_index, flat_index;
    bool fp64;              /**< the device has double precision */
    bool denorms;           /**< float subnormals kept (CL_FP_DENORM) */
    bool is_gpu;
    uint64_t global_mem;    /**< bytes */
} EvlDeviceInfo;

/** What device `flat_index` is; 0, -ENODEV (no such device) or another negative errno. */
int evl_device_info(int flat_index, EvlDeviceInfo *out);

/**
 * A device named by "N" (flat index, platforms in order, each platform's
 * devices in order) or "P:D" (platform P's device D). 0, or -EINVAL (logged)
 * for a malformed or out-of-range spec; -ENODEV when OpenCL cannot be loaded.
 */
int evl_device_parse(const char *spec, int *flat_index);

/**
 * The default device: the first GPU of any platform; a CPU device (PoCL,
 * say) only when there is nothing else. -ENODEV with `why` when none.
 */
int evl_device_default(int *flat_index, char *why, size_t why_len);

enum { EVL_FP64_AUTO, EVL_FP64_OFF, EVL_FP64_ON };

/**
 * Open device `flat_index` (a context of its own). Double precision is used
 * when the device has it and fp64_mode is not OFF; ON on a device without it
 * fails (-ENOTSUP). 0, or a negative errno with the reason in `why`. The
 * caller closes *dev with (*dev)->ops->close, after destroying its queues,
 * events and buffers; kernels and programs go with the device.
 */
int evl_device_open(VmafGpuDev **dev, int flat_index, int fp64_mode, char *why,
                    size_t why_len);

/** Whether an opened device's kernels are built with EV_FP64=1. */
bool evl_device_fp64(const VmafGpuDev *d);

/** The build options an opened device's programs get (EVL_BUILD_OPTIONS). */
const char *evl_device_build_options(const VmafGpuDev *d);

/**
 * One line per device to f: "opencl P:D (N): name, platform, version,
 * fp64 yes/no, X MiB". The number of devices, or a negative errno when
 * OpenCL cannot be enumerated (a line saying why is printed then).
 */
int evl_list_devices(FILE *f);

#endif
