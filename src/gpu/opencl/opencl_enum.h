/*
 * OpenCL devices of every platform under one flat numbering: platforms in
 * the loader's order, each platform's devices in its order. A device is
 * named by its flat index "N" or by "P:D" (platform P's device D).
 */
#ifndef EXACTVMAF_OPENCL_ENUM_H
#define EXACTVMAF_OPENCL_ENUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu/opencl/opencl_driver.h"

/**
 * How many OpenCL devices every platform has together. 0 with *n set (when
 * *n is 0, `why` says why); -ENODEV when OpenCL cannot be loaded.
 */
int evl_device_count(int *n, char *why, size_t why_len);

typedef struct EvlDeviceInfo {
    char name[256], platform[256], version[128];
    char driver[128];       /**< CL_DRIVER_VERSION */
    char platform_version[128];
    int platform_index, device_index, flat_index;
    bool fp64;              /**< the device has double precision */
    bool denorms;           /**< float subnormals kept (CL_FP_DENORM) */
    bool is_gpu;
    uint64_t global_mem;    /**< bytes */
} EvlDeviceInfo;

/** What device `flat_index` is; 0, -ENODEV (no such device) or another negative errno. */
int evl_device_info(int flat_index, EvlDeviceInfo *out);

/**
 * Device `flat_index`: its platform and device handles and what it is.
 * 0, or a negative errno with the reason in `why` (no such device, or one
 * that does not answer queries).
 */
int evl_device_find(int flat_index, cl_platform_id *platform, cl_device_id *device,
                    EvlDeviceInfo *info, char *why, size_t why_len);

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

/**
 * One line per device to f: "opencl P:D (N): name, platform, version,
 * driver D,
 * fp64 yes/no, X MiB". The number of devices, or a negative errno when
 * OpenCL cannot be enumerated (a line saying why is printed then).
 */
int evl_list_devices(FILE *f);

#endif
