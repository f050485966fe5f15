/*
 * The OpenCL ICD loader, opened at run time (nothing OpenCL is needed to
 * build or link: opencl_driver.h declares what the backend calls), and the
 * check every OpenCL call goes through: a failure is logged with the call,
 * the error's name and code, and returned as a negative errno.
 */
#ifndef EXACTVMAF_OPENCL_LOADER_H
#define EXACTVMAF_OPENCL_LOADER_H

#include <stddef.h>

#include "os/os.h"
#include "gpu/opencl/opencl_driver.h"

/**
 * Open the ICD loader (libOpenCL.so.1, else libOpenCL.so) once per process;
 * thread-safe. 0, or -ENODEV with the reason in `why` (no loader, missing
 * entry points).
 */
int evl_driver_load(char *why, size_t why_len);

/** The loader's entry points; NULL until evl_driver_load() succeeded. */
const EvlDriver *evl_driver(void);

/** "CL_OUT_OF_RESOURCES" style name of an OpenCL error code. */
const char *evl_error_name(int cl_err);

/**
 * Check one OpenCL call's result: 0 on success; otherwise log
 * "opencl: <function> failed with <NAME> (<code>)" (the call's text and
 * our source line at the debug level) and return a negative errno
 * (-ENOMEM, -ENODEV, -EINVAL, -ENOTSUP or -EIO).
 */
int evl_check(int r, const char *call, const char *file, int line);
#define EVL_CHECK(call) evl_check((call), #call, __FILE__, __LINE__)
/** A call that returns an object reports its error through an out parameter. */
#define EVL_CHECK_AS(r, call) evl_check((r), (call), __FILE__, __LINE__)

/** Format into a caller's reason buffer, which may be absent (NULL or 0 bytes). */
#if defined(__GNUC__)
VMAF_OS_PRINTF(3, 4)
#endif
void evl_set_why(char *why, size_t why_len, const char *fmt, ...);

#endif
