/*
 * CUDA runtime plumbing shared by every metric's twin: the driver loaded at
 * run time, one state per context (CUDA context, stream, loaded modules),
 * checked calls, device and pinned host buffers, the pictures' planes on
 * the device, and an optional profile of where the time goes.
 *
 * Every driver call goes through evc_check(): a failure is logged with the
 * call, the driver's error name and text, and returned as a negative errno.
 * A state is used by one thread at a time (its context's calling thread).
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
 * Check one driver call's result: 0 on success; otherwise log the call
 * text, the error's name and description, and return evc_errno(r).
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

/** Make the state's context current on this thread / restore the previous one. */
int evc_push(VmafCudaState *st);
int evc_pop(VmafCudaState *st);

/** The state's stream; every twin's work is queued on it, in call order. */
CUstream evc_stream(VmafCudaState *st);

/** Kernel `name` of fatbin `fb`; the module is loaded once per state. */
int evc_function(VmafCudaState *st, const EvcFatbin *fb, const char *name,
                 CUfunction *fn);

/** Device memory, counted (evc_state_peak_bytes). *p is 0 after a failure or free. */
int evc_alloc(VmafCudaState *st, CUdeviceptr *p, size_t bytes);
void evc_free(VmafCudaState *st, CUdeviceptr *p, size_t bytes);
/** A device buffer and its size (for the accounting at free). */
typedef struct EvcBuf {
    CUdeviceptr p;
    size_t bytes;
} EvcBuf;
int evc_buf_alloc(VmafCudaState *st, EvcBuf *b, size_t bytes);
void evc_buf_free(VmafCudaState *st, EvcBuf *b);

/** Page-locked host memory, for asynchronous copies. */
int evc_host_alloc(VmafCudaState *st, void **p, size_t bytes);
void evc_host_free(VmafCudaState *st, void **p);

/** Asynchronous copies and memset on the state's stream. */
int evc_upload(VmafCudaState *st, CUdeviceptr dst, const void *src, size_t bytes);
int evc_download(VmafCudaState *st, void *dst, CUdeviceptr src, size_t bytes);
int evc_memset(VmafCudaState *st, CUdeviceptr dst, size_t bytes);
/** Wait for everything queued on the stream. */
int evc_sync(VmafCudaState *st);

/** Launch on the state's stream: grid of ceil(nx/bx) x ceil(ny/by) x nz blocks. */
int evc_launch(VmafCudaState *st, CUfunction fn, unsigned nx, unsigned ny,
               unsigned nz, unsigned bx, unsigned by, void **args);

/**
 * Plane `plane` of `pic` on the device as floats, sample / 2^(bpc-8)
 * + offset (the float extractors' conversion, exact), pitch floats per row.
 * Uploaded and converted once per (picture, frame index, plane, offset)
 * however many twins ask; valid until the next call for another frame.
 */
int evc_plane_float(VmafCudaState *st, const VmafPicture *pic, unsigned plane,
                    unsigned index, float offset, CUdeviceptr *out, size_t *pitch);

/**
 * Plane `plane` of `pic` on the device as its packed samples (uint8_t for
 * bpc 8, else uint16_t; w per row), for the integer twins. Shares the
 * float planes' cache: uploaded once per (picture, frame index, plane).
 */
int evc_plane_raw(VmafCudaState *st, const VmafPicture *pic, unsigned plane,
                  unsigned index, CUdeviceptr *out);

/** Row pitch (in floats) the backend uses for a plane of width w. */
size_t evc_pitch_floats(unsigned w);

/* ---- Options of the CPU path's private struct, for twins ---- */

struct VmafFex;
/** Read option `name` of the instance (its type must match); -EINVAL if absent. */
int evc_opt_bool(const struct VmafFex *fex, const char *name, bool *out);
int evc_opt_int(const struct VmafFex *fex, const char *name, int *out);
int evc_opt_double(const struct VmafFex *fex, const char *name, double *out);
int evc_opt_string(const struct VmafFex *fex, const char *name, const char **out);

/* ---- Profile (EXACTVMAF_CUDA_PROFILE=1 in the environment) ---- */

enum EvcPhase { EVC_PHASE_UPLOAD, EVC_PHASE_KERNELS, EVC_PHASE_READBACK, EVC_PHASE_COUNT };

/** A twin call begins / ends: wall time between them is the twin's. */
void evc_twin_begin(VmafCudaState *st, const char *twin);
void evc_twin_end(VmafCudaState *st);
/** GPU work queued from now on belongs to `phase` (timed with events). */
void evc_phase(VmafCudaState *st, enum EvcPhase phase);
/** Device memory allocated through evc_alloc: now and at most. */
size_t evc_state_bytes(const VmafCudaState *st);
size_t evc_state_peak_bytes(const VmafCudaState *st);

#endif
