/*
 * OpenCL backend of the GPU device layer (gpu/device.h): the ICD loader
 * opened at run time (opencl_loader.h), devices of every platform under one
 * flat numbering (opencl_enum.h), and the VmafGpuOps table over one OpenCL
 * context (here); including this header brings all three.
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

#include "gpu/device.h"
#include "gpu/opencl/opencl_enum.h"
#include "gpu/opencl/opencl_loader.h"

/** Every program's build options; `fp64`: the opened device's evl_device_fp64(). */
#define EVL_BUILD_OPTIONS_COMMON "-cl-std=CL1.2"
#define EVL_BUILD_OPTIONS(fp64) \
    ((fp64) ? EVL_BUILD_OPTIONS_COMMON " -DEV_FP64=1" : EVL_BUILD_OPTIONS_COMMON " -DEV_FP64=0")

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

#endif
