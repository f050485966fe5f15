/*
 * CUDA runtime plumbing shared by every metric's twin: the driver loaded at
 * run time, one state per device (CUDA context and loaded modules),
 * checked calls and counted buffers. Streams, frames in flight and the
 * pictures' planes on the device belong to the GPU frame pipeline
 * (src/gpu/pipeline.h), which twins use for everything per frame.
 *
 * Every driver call goes through evc_check(): a failure is logged with the
 * call, the driver's error name and text, and returned as a negative errno.
 */
#ifndef EXACTVMAF_CUDA_COMMON_H
#define EXACTVMAF_CUDA_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/picture.h"
#include "cuda_driver.h"

typedef struct VmafCudaState VmafCudaState;

/** A fatbin embedded by bin2c.py: sm_80/90/100/120 machine code + PTX. */
typedef struct EvcFatbin {
    const char *name;
    const unsigned char *data;
    size_t size;
} EvcFatbin;

/** The driver's entry points; NULL until evc_driver_load() succeeded. */
const EvcDriver *evc_driver(void);

/**
 * Open libcuda.so.1 and cuInit() once per process. 0, or -ENODEV with the
 * reason in `why` (no driver library, missing symbols, cuInit failed).
 */
int evc_driver_load(char *why, size_t why_len);

/** Map a driver error to a negative errno. */
int evc_errno(CUresult r);

/**
 * Check one driver call's result: 0 on success; otherwise log the driver
 * function, the error's name and description (the call's text and our
 * source line at the debug level), and return evc_errno(r).
 */
int evc_check(CUresult r, const char *call, const char *file, int line);
#define EVC_CHECK(call) evc_check((call), #call, __FILE__, __LINE__)

/**
 * Open a state on device `gpu_index` (its primary context). 0, -ENODEV
 * (no driver, no such device; `why` says which), or another negative errno.
 */
int evc_state_open(VmafCudaState **st, int gpu_index, char *why, size_t why_len);
/** Open a state on the caller's CUDA context (not released at close). */
int evc_state_wrap(VmafCudaState **st, CUcontext ctx);
/** Release what the state holds and free it; NULL is fine. */
void evc_state_close(VmafCudaState *st);
/** Move what `src` holds into a new state, leaving `src` empty. */
int evc_state_take(VmafCudaState **dst, VmafCudaState *src);
/** "NVIDIA H200 (sm_90)" style description for messages. */
const char *evc_state_device_name(const VmafCudaState *st);
/** How many CUDA devices there are; on failure `why` says why. */
int evc_device_count(int *count, char *why, size_t why_len);

/** The state's device (CUdevice) and context. */
int evc_state_device(const VmafCudaState *st);
CUcontext evc_state_context(const VmafCudaState *st);
/** Whether the state's context is its device's primary context (retained by the state). */
bool evc_state_primary(const VmafCudaState *st);

/** Make the state's context current on this thread / restore the previous one. */
int evc_push(VmafCudaState *st);
int evc_pop(VmafCudaState *st);

/** Kernel `name` of fatbin `fb`; the module is loaded once per state. */
int evc_function(VmafCudaState *st, const EvcFatbin *fb, const char *name,
                 CUfunction *fn);

/** Device memory, counted (evc_state_peak_bytes). *p is 0 after a failure or free. */
int evc_alloc(VmafCudaState *st, CUdeviceptr *p, size_t bytes);
void evc_free(VmafCudaState *st, CUdeviceptr *p, size_t bytes);

/** Page-locked host memory, for asynchronous copies. */
int evc_host_alloc(VmafCudaState *st, void **p, size_t bytes);
void evc_host_free(VmafCudaState *st, void **p);
/** Page-lock existing host memory for every context / undo it (see cuda_backend.h). */
int evc_host_register(VmafCudaState *st, void *p, size_t bytes);
void evc_host_unregister(VmafCudaState *st, void *p);

/** Device memory allocated through evc_alloc: now and at most. */
size_t evc_state_bytes(const VmafCudaState *st);
size_t evc_state_peak_bytes(const VmafCudaState *st);

#endif
