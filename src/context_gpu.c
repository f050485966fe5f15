/*
 * The context's GPU side: the backend's devices opened (or, under auto, the
 * CPU where none is usable), the pipeline started with the twins of the
 * registered metrics, the pool's pictures pinned for it, the records of
 * which device computes each extractor, each frame's part of the pipeline
 * and its end (under backend auto through the failover, failover.c). Under backend auto the GPU's
 * errors are held back while it starts: the CPU takes over where it cannot
 * start (from frame 0); where it fails mid-run, the failover the context
 * makes next (failover.c) holds them.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_internal.h"
#include "device_record.h"
#include "export.h"
#include "failover.h"
#include "fex_internal.h"
#include "gpu/cuda/cuda_backend.h"
#if EXACTVMAF_HAVE_OPENCL
#include "gpu/opencl/opencl_device.h"
#endif
#include "gpu/pipeline.h"
#include "log.h"
#include "trace.h"

#if EXACTVMAF_HAVE_OPENCL
/* The OpenCL devices asked for: the device string, the listed indices, or device 0. */
static int open_opencl(VmafContext *vmaf, VmafGpuDev **dev, unsigned *n_dev, char *why,
                       size_t why_len)
{
    int list[VMAF_GPU_MAX_DEVICES];
    unsigned n = 0;
    int err = evl_driver_load(why, why_len);
    if (!err && vmaf->opencl_device[0]) {
        err = evl_device_parse(vmaf->opencl_device, &list[0]);
        if (err) snprintf(why, why_len, "no OpenCL device \"%s\"", vmaf->opencl_device);
        n = 1;
    } else if (!err && vmaf->gpu_named && vmaf->n_gpu) {
        memcpy(list, vmaf->gpu_list, vmaf->n_gpu * sizeof(list[0]));
        n = vmaf->n_gpu;
    } else if (!err) {
        /* The default (device 0 not named, or every device). */
        err = evl_device_default(&list[0], why, why_len);
        n = 1;
    }
    const int mode = vmaf->opencl_fp64 == EXACTVMAF_FP64_OFF ? EVL_FP64_OFF
                     : vmaf->opencl_fp64 == EXACTVMAF_FP64_ON ? EVL_FP64_ON : EVL_FP64_AUTO;
    for (unsigned k = 0; !err && k < n; k++) {
        err = evl_device_open(&dev[k], list[k], mode, why, why_len);
        if (!err) *n_dev = k + 1;
    }
    return err;
}
#else
static int open_opencl(VmafContext *vmaf, VmafGpuDev **dev, unsigned *n_dev, char *why,
                       size_t why_len)
{
    (void)vmaf, (void)dev, (void)n_dev;
    snprintf(why, why_len, "this exactvmaf was built without OpenCL (-Dopencl=disabled)");
    return -ENOSYS;
}
#endif

/* The CUDA devices asked for: an imported state, the listed ones, or all. */
static int open_cuda(VmafContext *vmaf, VmafGpuDev **dev, unsigned *n_dev, char *why,
                     size_t why_len)
{
    if (vmaf->cuda) {
        VmafCudaState *st = vmaf->cuda;
        vmaf->cuda = NULL;
        const int err = evc_device_wrap(&dev[0], st);
        if (!err) *n_dev = 1;
        return err;
    }
    int list[VMAF_GPU_MAX_DEVICES];
    unsigned n = vmaf->n_gpu;
    int err = 0;
    if (!n) {
        int count = 0;
        err = evc_device_count(&count, why, why_len);
        if (!err && count > VMAF_GPU_MAX_DEVICES) count = VMAF_GPU_MAX_DEVICES;
        for (int k = 0; !err && k < count; k++) list[n++] = k;
        if (!err && !n) {
            snprintf(why, why_len, "this machine has no CUDA device");
            err = -ENODEV;
        }
    } else {
        memcpy(list, vmaf->gpu_list, n * sizeof(list[0]));
    }
    for (unsigned k = 0; !err && k < n; k++) {
        err = evc_device_open(&dev[k], list[k], why, why_len);
        if (!err) *n_dev = k + 1;
    }
    return err;
}

/*
 * The backend's devices looked for, none opened: 0 where device `gpu_index`
 * is there, else -ENODEV with why not. Auto goes by this and then by opening
 * the devices (open_backend), which can still fail.
 */
static int gpu_present(bool opencl, int gpu_index, char *why, size_t len)
{
    int count = 0;
#if EXACTVMAF_HAVE_OPENCL
    if (opencl && (evl_driver_load(why, len) || evl_device_count(&count, why, len)))
        return -ENODEV;
#else
    if (opencl) {
        snprintf(why, len, "this exactvmaf was built without OpenCL (-Dopencl=disabled)");
        return -ENODEV;
    }
#endif
    if (!opencl && evc_device_count(&count, why, len)) return -ENODEV;
    if (!count) {
        snprintf(why, len, "this machine has no %s device", opencl ? "OpenCL" : "CUDA");
        return -ENODEV;
    }
    if (gpu_index >= count) {
        snprintf(why, len, "no %s device %d (this machine has %d)", opencl ? "OpenCL" : "CUDA",
                 gpu_index, count);
        return -ENODEV;
    }
    return 0;
}

VMAF_EXPORT int exactvmaf_backend_resolve(enum ExactvmafBackend backend, int gpu_index,
                                          char *why, size_t len)
{
    vmaf_log_bind(0);
    char buf[256] = "";
    if (why && len) why[0] = '\0';
    if (gpu_index < 0) return -EINVAL;
    switch (backend) {
    case EXACTVMAF_BACKEND_CPU:
    case EXACTVMAF_BACKEND_CUDA:
    case EXACTVMAF_BACKEND_OPENCL:
        return backend;
    case EXACTVMAF_BACKEND_AUTO:
    case EXACTVMAF_BACKEND_AUTO_OPENCL:
        break;
    default:
        return -EINVAL;
    }
    const bool opencl = backend == EXACTVMAF_BACKEND_AUTO_OPENCL;
    if (!gpu_present(opencl, gpu_index, buf, sizeof(buf)))
        return opencl ? EXACTVMAF_BACKEND_OPENCL : EXACTVMAF_BACKEND_CUDA;
    if (why && len) snprintf(why, len, "%s", buf);
    return EXACTVMAF_BACKEND_CPU;
}

/* Whether the CPU takes over where the GPU cannot start or fails mid-run. */
bool vmaf_ctx_falls_back(const VmafContext *vmaf)
{
    return vmaf->backend == EXACTVMAF_BACKEND_AUTO ||
           vmaf->backend == EXACTVMAF_BACKEND_AUTO_OPENCL;
}

/* Resolve the backend: open the GPU devices when one is asked for. A GPU
 * backend without a usable device is an error; auto (CUDA, else the CPU)
 * falls back to the CPU (saying so when auto was asked for rather than the
 * default). */
static int open_backend(VmafContext *vmaf, VmafGpuDev **dev, unsigned *n_dev)
{
    *n_dev = 0;
    if (vmaf->backend == EXACTVMAF_BACKEND_CPU) {
        evc_state_close(vmaf->cuda);
        vmaf->cuda = NULL;
        return 0;
    }
    char why[256] = "";
    const bool opencl = vmaf->backend == EXACTVMAF_BACKEND_OPENCL ||
                        vmaf->backend == EXACTVMAF_BACKEND_AUTO_OPENCL;
    const bool automatic = vmaf_ctx_falls_back(vmaf);
    /* The failing call is told once, with the device, in the one line
     * below: a notice under auto (the failure is not the run's), else the
     * error. */
    vmaf_log_hold(vmaf->log_id);
    const int err = opencl ? open_opencl(vmaf, dev, n_dev, why, sizeof(why))
                           : open_cuda(vmaf, dev, n_dev, why, sizeof(why));
    char held[512];
    vmaf_log_release(vmaf->log_id, false, held, sizeof(held));
    if (err) {
        for (unsigned k = 0; k < *n_dev; k++) dev[k]->ops->close(dev[k]);
        *n_dev = 0;
        /* The held error names the call ("cuda: cuX failed with ..."). */
        const char *call = held;
        const char *colon = strstr(call, ": ");
        if (colon && (!strncmp(call, "cuda: ", 6) || !strncmp(call, "opencl: ", 8)))
            call = colon + 2;
        /* A reason that already says it all (a device that is not there). */
        if (strstr(why, call)) call = "";
        if (automatic) {
            /* A machine (or a build) without CUDA is no news unless auto
             * was asked for; a device that is there but fails is. */
            const bool absent = (err == -ENODEV || err == -ENOSYS) && !*call;
            vmaf_log(vmaf->backend_chosen || !absent ? VMAF_LOG_LEVEL_WARNING
                                                     : VMAF_LOG_LEVEL_INFO,
                     "backend %s: %s not used (%s%s%s); computing on the CPU",
                     exactvmaf_backend_name(opencl ? EXACTVMAF_BACKEND_AUTO_OPENCL
                                                   : EXACTVMAF_BACKEND_AUTO),
                     opencl ? "OpenCL" : "CUDA", why,
                     *call ? ": " : "", call);
            return 0;
        }
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "backend %s: no usable %s device: %s%s%s",
                 exactvmaf_backend_name(opencl ? EXACTVMAF_BACKEND_OPENCL : EXACTVMAF_BACKEND_CUDA),
                 opencl ? "OpenCL" : "CUDA", why,
                 *call ? ": " : "", call);
        return err;
    }
    return 0;
}

void vmaf_ctx_free_gpu_records(VmafContext *vmaf)
{
    for (unsigned k = 0; k < vmaf->n_gpu_rec; k++) vmaf_dict_free(&vmaf->gpu_rec[k]);
    vmaf->n_gpu_rec = 0;
}

/* The opened devices' records (device_record.h), each device once. */
static int describe_devices(VmafContext *vmaf, VmafGpuDev *const *dev, unsigned n_dev)
{
    vmaf_ctx_free_gpu_records(vmaf);
    return vmaf_device_records_describe(vmaf->gpu_rec, &vmaf->n_gpu_rec, dev, n_dev);
}

/* Record which backend and devices compute each extractor (the output files list them). */
int vmaf_ctx_record_backends(VmafContext *vmaf)
{
    VmafDict *cpu = NULL;
    int err = vmaf_device_record_cpu(&cpu);
    vmaf_device_records_free(&vmaf->devices);
    for (unsigned i = 0; !err && i < vmaf->n_reg; i++) {
        const VmafFex *fex = vmaf->reg[i].gpu ? vmaf->gpu_inst[i] : NULL;
        const char *name = vmaf->reg[i].desc->name;
        err = vmaf_dict_set(&vmaf->backends, name, fex ? vmaf_fex_backend(fex) : "cpu");
        /* A twin runs on every device of the pipeline: the frames are split over them. */
        for (unsigned k = 0; !err && fex && k < vmaf->n_gpu_rec; k++)
            err = vmaf_device_records_add(&vmaf->devices, name, vmaf->gpu_rec[k]);
        if (!err && !fex) err = vmaf_device_records_add(&vmaf->devices, name, cpu);
    }
    vmaf_dict_free(&cpu);
    return err;
}

/* Pool pictures in page-locked memory: the pipeline copies straight from them. */
void vmaf_ctx_pin_pool(VmafContext *vmaf)
{
    if (vmaf->pool && vmaf->gpu) vmaf_gpu_pin_pool(vmaf->gpu, vmaf->pool);
}

void vmaf_ctx_destroy_gpu(VmafContext *vmaf)
{
    /* The pool's pages are unlocked with it. */
    vmaf_gpu_destroy(vmaf->gpu);
    vmaf->gpu = NULL;
    for (unsigned i = 0; vmaf->gpu_inst && i < vmaf->n_reg; i++)
        vmaf_fex_destroy(vmaf->gpu_inst[i]);
    free(vmaf->gpu_inst);
    vmaf->gpu_inst = NULL;
}

static bool subsampled_out(const VmafContext *vmaf, unsigned index)
{
    return vmaf->cfg.n_subsample > 1 && index % vmaf->cfg.n_subsample;
}

/* A temporal extractor sees every frame, subsampled or not. */
static bool skip_by_subsample(const VmafContext *vmaf, const Registration *r,
                              unsigned index)
{
    return !(r->desc->flags & VMAF_FEX_TEMPORAL) && subsampled_out(vmaf, index);
}

/* A device picture (gpu/dev_picture.h) handed in: the GPU waits for its writes. */
static int handed_over(VmafPicture *pic)
{
    VmafDevPicture *dp = vmaf_picture_device(pic);
    return dp && dp->ops->handed_over ? dp->ops->handed_over(dp) : 0;
}

/* Does frame `index` have work for the GPU pipeline? */
static bool gpu_work(const VmafContext *vmaf, unsigned index)
{
    for (unsigned i = 0; vmaf->gpu && i < vmaf->n_reg; i++)
        if (vmaf->reg[i].gpu && !skip_by_subsample(vmaf, &vmaf->reg[i], index)) return true;
    return false;
}

int vmaf_ctx_gpu_frame(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    int err = handed_over(ref);
    if (!err) err = handed_over(dist);
    if (err || !gpu_work(vmaf, index)) return err;
    /* The pipeline takes references of its own; an error here is its
     * sticky one (this frame or an earlier one failed on the GPU). */
    if (vmaf->failover) err = vmaf_failover_keep(vmaf, ref, dist, index);
    if (!err) err = vmaf_gpu_submit(vmaf->gpu, ref, dist, index, !subsampled_out(vmaf, index));
    /* Under backend auto the frames the GPU dropped, before this one, go
     * to the CPU, which then computes this one with the others. */
    if (err && vmaf->failover) err = vmaf_failover_run(vmaf, err, index);
    return err;
}

int vmaf_ctx_gpu_drain(VmafContext *vmaf)
{
    if (!vmaf->gpu) return 0;
    int err = vmaf_gpu_drain(vmaf->gpu);
    /* Under backend auto the frames the GPU dropped go to the CPU. */
    if (err && vmaf->failover) err = vmaf_failover_run(vmaf, err, UINT_MAX);
    /* The GPU's work is done: nothing more to hold back. */
    if (!err && vmaf->failover) vmaf_failover_give_up(vmaf);
    return err;
}

int vmaf_ctx_flush_gpu(VmafContext *vmaf)
{
    for (unsigned i = 0; vmaf->gpu_inst && i < vmaf->n_reg; i++) {
        VmafFex *fex = vmaf->reg[i].gpu ? vmaf->gpu_inst[i] : NULL;
        if (!fex) continue;
        const int err = vmaf_fex_flush(fex, VMAF_FEX_CALL_END);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s failed to flush (%s)", vmaf->reg[i].desc->name,
                     strerror(-err));
            return err;
        }
    }
    return 0;
}

/* The GPU pipeline and its twins, when a device is open; a metric whose
 * twin declines (or that has none) stays on the CPU. */
static int start_gpu(VmafContext *vmaf, VmafGpuDev **dev, unsigned n_dev, bool *refused)
{
    const VmafGpuConfig gc = { .frames_in_flight = vmaf->frames_in_flight,
                               .log_id = vmaf->log_id, .conclude = vmaf_fex_conclude };
    int err = vmaf_gpu_create(&vmaf->gpu, dev, n_dev, &gc, vmaf->pix_fmt, vmaf->bpc,
                              vmaf->w, vmaf->h);
    if (err) return err;
    ev_trace("GPU lanes made");
    char name[256];
    snprintf(name, sizeof(name), "%s", dev[0]->ops->device_name(dev[0]));
    vmaf->gpu_inst = calloc(vmaf->n_reg ? vmaf->n_reg : 1, sizeof(*vmaf->gpu_inst));
    if (!vmaf->gpu_inst) return -ENOMEM;
    const VmafFexEnv env = { .division = vmaf->division, .gpu = vmaf->gpu };
    unsigned n_twin = 0;
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        Registration *r = &vmaf->reg[i];
        if (!r->desc->gpu || !vmaf_gpu_runs(vmaf->gpu, r->desc->gpu->program)) continue;
        VmafFex *fex = NULL;
        err = vmaf_fex_create(&fex, r->desc, r->opts, &env, vmaf->fc, i);
        if (err) return err;
        err = vmaf_fex_init(fex, vmaf->pix_fmt, vmaf->bpc, vmaf->w, vmaf->h);
        if (!err && !fex->twin) {
            /* The twin declined: the metric stays on the CPU. */
            vmaf_fex_destroy(fex);
            continue;
        }
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: cannot start on %ux%u %u-bit pictures (%s)",
                     r->desc->name, vmaf->w, vmaf->h, vmaf->bpc, strerror(-err));
            /* The metric refuses these pictures whatever computes it. */
            *refused = !fex->twin;
            vmaf_fex_destroy(fex);
            return err;
        }
        vmaf->gpu_inst[i] = fex;
        r->gpu = true;
        n_twin++;
    }
    if (!n_twin) {
        vmaf_ctx_destroy_gpu(vmaf);
        return 0;
    }
    ev_trace("%u twins ready", n_twin);
    err = vmaf_gpu_start(vmaf->gpu);
    if (err) return err;
    ev_trace("GPU pipeline started");
    vmaf_log(VMAF_LOG_LEVEL_INFO, "computing on %s%s where a metric has a %s twin", name,
             n_dev > 1 ? " and more devices" : "", vmaf_gpu_backend(vmaf->gpu));
    vmaf_ctx_pin_pool(vmaf);
    return 0;
}


int vmaf_ctx_start_gpu(VmafContext *vmaf)
{
    VmafGpuDev *dev[VMAF_GPU_MAX_DEVICES];
    unsigned n_dev = 0;
    ev_trace("opening the backend");
    int err = open_backend(vmaf, dev, &n_dev);
    if (err) return err;
    ev_trace("backend open (%u devices)", n_dev);
    if (n_dev) err = describe_devices(vmaf, dev, n_dev);
    if (err) {
        for (unsigned k = 0; k < n_dev; k++) dev[k]->ops->close(dev[k]);
        return err;
    }
    /* Under backend auto a GPU's errors are held back: the CPU can take over. */
    const bool hold = n_dev && vmaf_ctx_falls_back(vmaf);
    if (hold) vmaf_log_hold(vmaf->log_id);
    bool refused = false;
    if (n_dev) err = start_gpu(vmaf, dev, n_dev, &refused);
    if (err && hold && !refused) {
        /* Nothing computed yet: the CPU takes every metric from frame 0. */
        vmaf_ctx_destroy_gpu(vmaf);
        char why[400];
        vmaf_log_release(vmaf->log_id, false, why, sizeof(why));
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "backend auto: the GPU could not start (%s); "
                 "computing on the CPU from frame 0", why[0] ? why : strerror(-err));
        for (unsigned i = 0; i < vmaf->n_reg; i++) vmaf->reg[i].gpu = false;
        err = 0;
    } else if (hold) {
        /* With the pipeline running, what the start recovered from (fewer
         * frames in flight where memory was short, said as info) is not
         * the run's error; else the held messages are the run's. */
        vmaf_log_release(vmaf->log_id, !(!err && vmaf->gpu), NULL, 0);
    }
    return err;
}
