/*
 * The device records of a run (device_record.h): per extractor, the list
 * of devices that computed it, each an ordered dictionary of fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device_record.h"

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
    VmafDict **list = realloc(e->rec, (e->n + 1) * sizeof(*list));
    if (!list) return -ENOMEM;
    e->rec = list;
    VmafDict *copy = NULL;
    const int err = vmaf_dict_copy(rec, &copy);
    if (err) return err;
    e->rec[e->n++] = copy;
    return 0;
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
