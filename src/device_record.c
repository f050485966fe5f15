/*
 * What is said of devices (device_record.h): the records of a run (per
 * extractor, the list of devices that computed it, each an ordered
 * dictionary of fields), and the listing's lines (--list-devices).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_record.h"
#include "export.h"
#include "exactvmaf/exactvmaf.h"
#include "gpu/cuda/cuda_backend.h"
#if EXACTVMAF_HAVE_OPENCL
#include "gpu/opencl/opencl_device.h"
#endif
#include "log.h"

typedef struct ExtractorRecords {
    char *name;
    VmafDict **rec;
    unsigned n;
} ExtractorRecords;

struct VmafDeviceRecords {
    ExtractorRecords *ext;
    unsigned n, cap;
};

int vmaf_device_record_gpu(VmafDict **rec, const char *backend, const VmafGpuDeviceInfo *info)
{
    const struct {
        const char *key, *val;
    } field[] = {
        { "backend", backend },         { "name", info->name },
        { "index", info->index },       { "platform", info->platform },
        { "driver", info->driver },     { "arch", info->arch },
        { "fp64", info->fp64 },
    };
    *rec = NULL;
    for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
        /* A field that does not apply to the backend is left out, not written empty. */
        if (!field[i].val[0] && i) continue;
        const int err = vmaf_dict_set(rec, field[i].key, field[i].val);
        if (err) {
            vmaf_dict_free(rec);
            return err;
        }
    }
    return 0;
}

int vmaf_device_records_describe(VmafDict **rec, unsigned *n_rec, VmafGpuDev *const *dev,
                                 unsigned n_dev)
{
    for (unsigned k = 0; k < n_dev; k++) {
        VmafGpuDeviceInfo info;
        dev[k]->ops->describe(dev[k], &info);
        bool seen = false;
        for (unsigned j = 0; j < *n_rec && !seen; j++)
            seen = !strcmp(vmaf_dict_get(rec[j], "index"), info.index);
        if (seen) continue;
        const int err = vmaf_device_record_gpu(&rec[*n_rec], dev[k]->ops->name, &info);
        if (err) return err;
        (*n_rec)++;
    }
    return 0;
}

int vmaf_device_record_cpu(VmafDict **rec)
{
    *rec = NULL;
    return vmaf_dict_set(rec, "backend", "cpu");
}

int vmaf_device_records_find(const VmafDeviceRecords *r, const char *name)
{
    for (unsigned i = 0; r && i < r->n; i++)
        if (!strcmp(r->ext[i].name, name)) return (int)i;
    return -1;
}

int vmaf_device_records_add(VmafDeviceRecords **pr, const char *extractor, const VmafDict *rec)
{
    if (!*pr && !(*pr = calloc(1, sizeof(**pr)))) return -ENOMEM;
    VmafDeviceRecords *r = *pr;
    int i = vmaf_device_records_find(r, extractor);
    if (i < 0) {
        if (r->n == r->cap) {
            const unsigned cap = r->cap ? 2 * r->cap : 16;
            ExtractorRecords *e = realloc(r->ext, cap * sizeof(*e));
            if (!e) return -ENOMEM;
            r->ext = e;
            r->cap = cap;
        }
        char *name = strdup(extractor);
        if (!name) return -ENOMEM;
        r->ext[r->n] = (ExtractorRecords){ .name = name };
        i = (int)r->n++;
    }
    ExtractorRecords *e = &r->ext[i];
    /* An extractor registered twice (two models' option sets) on one device: one record. */
    for (unsigned k = 0; k < e->n; k++)
        if (vmaf_dict_equal(e->rec[k], rec)) return 0;
    VmafDict **list = realloc(e->rec, (e->n + 1) * sizeof(*list));
    if (!list) return -ENOMEM;
    e->rec = list;
    VmafDict *copy = NULL;
    const int err = vmaf_dict_copy(rec, &copy);
    if (err) return err;
    e->rec[e->n++] = copy;
    return 0;
}

int vmaf_device_records_add_takeover(VmafDeviceRecords **r, const char *extractor,
                                     unsigned from, const char *why)
{
    VmafDict *rec = NULL;
    int err = vmaf_device_record_cpu(&rec);
    char frame[16];
    snprintf(frame, sizeof(frame), "%u", from);
    if (!err && from != UINT_MAX) err = vmaf_dict_set(&rec, "from_frame", frame);
    if (!err) err = vmaf_dict_set(&rec, "failover", why);
    if (!err) err = vmaf_device_records_add(r, extractor, rec);
    vmaf_dict_free(&rec);
    return err;
}

unsigned vmaf_device_records_count(const VmafDeviceRecords *r)
{
    return r ? r->n : 0;
}

const char *vmaf_device_records_extractor(const VmafDeviceRecords *r, unsigned i)
{
    return r && i < r->n ? r->ext[i].name : NULL;
}

const VmafDict *vmaf_device_records_at(const VmafDeviceRecords *r, unsigned i, unsigned k)
{
    return r && i < r->n && k < r->ext[i].n ? r->ext[i].rec[k] : NULL;
}

void vmaf_device_records_free(VmafDeviceRecords **pr)
{
    VmafDeviceRecords *r = *pr;
    if (!r) return;
    for (unsigned i = 0; i < r->n; i++) {
        for (unsigned k = 0; k < r->ext[i].n; k++) vmaf_dict_free(&r->ext[i].rec[k]);
        free(r->ext[i].rec);
        free(r->ext[i].name);
    }
    free(r->ext);
    free(r);
    *pr = NULL;
}

VMAF_EXPORT int exactvmaf_device_describe(enum ExactvmafBackend backend, unsigned i,
                                          char *line, size_t len)
{
    vmaf_log_bind(0);
    if (!line || !len) return -EINVAL;
    line[0] = '\0';
    if (backend == EXACTVMAF_BACKEND_CUDA) {
        int count = 0;
        int err = evc_device_count(&count, line, len);
        if (err) return -ENODEV;
        if (i >= (unsigned)count) return -ENOENT;
        VmafGpuDev *d = NULL;
        char why[256] = "";
        /* The failing call goes on the device's line, not in an error of
         * its own; the hold is this call's alone, not every caller's
         * without a context. */
        const uint64_t log_id = vmaf_log_register(vmaf_log_default_level());
        vmaf_log_bind(log_id);
        vmaf_log_hold(log_id);
        err = evc_device_open(&d, (int)i, why, sizeof(why));
        char held[512];
        vmaf_log_release(log_id, false, held, sizeof(held));
        vmaf_log_bind(0);
        vmaf_log_unregister(log_id);
        if (err) {
            const char *call = held;
            if (!strncmp(call, "cuda: ", 6)) call += 6;
            snprintf(line, len, "cuda %u: cannot be opened: %s%s%s", i, why, *call ? ": " : "",
                     call);
            return 0;
        }
        size_t free_b = 0, total_b = 0;
        if (!d->ops->enter(d)) {
            d->ops->mem_info(d, &free_b, &total_b);
            d->ops->leave(d);
        }
        VmafGpuDeviceInfo in;
        d->ops->describe(d, &in);
        snprintf(line, len, "cuda %u: %s, %s, driver %s, %.0f MiB", i, in.name, in.arch,
                 in.driver, (double)total_b / (1024.0 * 1024.0));
        d->ops->close(d);
        return 0;
    }
    if (backend == EXACTVMAF_BACKEND_OPENCL) {
#if EXACTVMAF_HAVE_OPENCL
        int count = 0;
        if (evl_driver_load(line, len) || evl_device_count(&count, line, len)) return -ENODEV;
        if (!count) return -ENODEV;     /* `line` says why */
        if (i >= (unsigned)count) return -ENOENT;
        EvlDeviceInfo in;
        const int err = evl_device_info((int)i, &in);
        if (err) return err;
        snprintf(line, len, "opencl %d:%d (%u): %s, %s, %s, driver %s, fp64 %s, %.0f MiB",
                 in.platform_index, in.device_index, i, in.name, in.platform, in.version,
                 in.driver, in.fp64 ? "yes" : "no", (double)in.global_mem / (1024.0 * 1024.0));
        return 0;
#else
        snprintf(line, len, "this exactvmaf was built without OpenCL (-Dopencl=disabled)");
        return -ENODEV;
#endif
    }
    return -EINVAL;
}
