/*
 * What a caller sets on a context before its first picture: the logger,
 * the backend and its devices (CUDA indices, an OpenCL device, the fp64
 * mode), frames in flight, the division mode, and a CUDA state handed over
 * by libvmaf's CUDA API (vmaf_cuda_import_state). Each but the logger is
 * refused once the context has started.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_internal.h"
#include "export.h"
#include "gpu/cuda/cuda_backend.h"
#include "libvmaf/libvmaf_cuda.h"
#include "log.h"

VMAF_EXPORT int exactvmaf_set_logger(VmafContext *vmaf, ExactvmafLogCallback cb, void *opaque)
{
    if (!vmaf) return -EINVAL;
    vmaf_log_bind(vmaf->log_id);
    return vmaf_log_set_callback(vmaf->log_id, cb, opaque);
}

VMAF_EXPORT int exactvmaf_set_backend(VmafContext *vmaf, enum ExactvmafBackend backend,
                                      int gpu_index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    if (backend != EXACTVMAF_BACKEND_CPU && backend != EXACTVMAF_BACKEND_CUDA &&
        backend != EXACTVMAF_BACKEND_AUTO && backend != EXACTVMAF_BACKEND_OPENCL &&
        backend != EXACTVMAF_BACKEND_AUTO_OPENCL) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "unknown backend %d", (int)backend);
        return -EINVAL;
    }
    if (gpu_index < 0) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "gpu index %d is negative", gpu_index);
        return -EINVAL;
    }
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the backend must be chosen before the first picture");
        return -EINVAL;
    }
    vmaf->backend = backend;
    vmaf->backend_chosen = true;
    vmaf->gpu_list[0] = gpu_index;
    vmaf->n_gpu = 1;
    vmaf->gpu_named = gpu_index != 0;
    vmaf->opencl_device[0] = '\0';
    return 0;
}

VMAF_EXPORT int exactvmaf_set_opencl_device(VmafContext *vmaf, const char *device)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !device) return -EINVAL;
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the OpenCL device must be chosen before the first "
                 "picture");
        return -EINVAL;
    }
    /* Only the form here; whether the device exists is known at the first picture. */
    const char *c = device;
    unsigned digits = 0, colons = 0;
    for (; *c; c++) {
        if (*c >= '0' && *c <= '9') digits++;
        else if (*c == ':' && digits && !colons) colons++, digits = 0;
        else break;
    }
    if (*c || !digits || strlen(device) >= sizeof(vmaf->opencl_device)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "OpenCL device \"%s\": expected an index N or "
                 "platform:device P:D", device);
        return -EINVAL;
    }
    snprintf(vmaf->opencl_device, sizeof(vmaf->opencl_device), "%s", device);
    return 0;
}

VMAF_EXPORT int exactvmaf_set_opencl_fp64(VmafContext *vmaf, enum ExactvmafFp64 mode)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    if (mode != EXACTVMAF_FP64_AUTO && mode != EXACTVMAF_FP64_OFF && mode != EXACTVMAF_FP64_ON) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "unknown fp64 mode %d", (int)mode);
        return -EINVAL;
    }
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the fp64 mode must be chosen before the first picture");
        return -EINVAL;
    }
    vmaf->opencl_fp64 = mode;
    return 0;
}

VMAF_EXPORT int exactvmaf_set_gpus(VmafContext *vmaf, const int *gpu_index, unsigned n)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || (n && !gpu_index)) return -EINVAL;
    if (n > VMAF_GPU_MAX_DEVICES) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%u GPUs listed; at most %d", n, VMAF_GPU_MAX_DEVICES);
        return -EINVAL;
    }
    for (unsigned i = 0; i < n; i++) {
        if (gpu_index[i] < 0) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "gpu index %d is negative", gpu_index[i]);
            return -EINVAL;
        }
    }
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the GPUs must be chosen before the first picture");
        return -EINVAL;
    }
    for (unsigned i = 0; i < n; i++) vmaf->gpu_list[i] = gpu_index[i];
    vmaf->n_gpu = n;
    vmaf->gpu_named = true;
    vmaf->opencl_device[0] = '\0';
    return 0;
}

VMAF_EXPORT int exactvmaf_set_frames_in_flight(VmafContext *vmaf, unsigned frames)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    if (frames > VMAF_GPU_MAX_LANES) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%u frames in flight asked; at most %d", frames,
                 VMAF_GPU_MAX_LANES);
        return -EINVAL;
    }
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frames in flight must be set before the first picture");
        return -EINVAL;
    }
    vmaf->frames_in_flight = frames;
    return 0;
}

/* libvmaf's CUDA API: the caller's CUDA state, for the metrics to run on CUDA. */
VMAF_EXPORT int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *state)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !state) return -EINVAL;
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "a CUDA state must be imported before the first picture");
        return -EINVAL;
    }
    VmafCudaState *own = NULL;
    const int err = evc_state_take(&own, state);
    if (err) return err;
    evc_state_close(vmaf->cuda);
    vmaf->cuda = own;
    /* As in libvmaf: an imported state means the metrics run on CUDA. */
    vmaf->backend = EXACTVMAF_BACKEND_CUDA;
    vmaf->backend_chosen = true;
    return 0;
}

VMAF_EXPORT int exactvmaf_set_division(VmafContext *vmaf, enum ExactvmafDivision division)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    if (division != EXACTVMAF_DIVISION_IEEE && division != EXACTVMAF_DIVISION_RCP)
        return -EINVAL;
    if (vmaf->n_reg) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the division mode must be set before features are registered");
        return -EINVAL;
    }
#if !(defined(__x86_64__) || defined(__i386__) || defined(_M_X64))
    if (division == EXACTVMAF_DIVISION_RCP) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "rcp division needs an x86 processor");
        return -ENOTSUP;
    }
#endif
    vmaf->division = division;
    return 0;
}
