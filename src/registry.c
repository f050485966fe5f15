/*
 * The list of extractors, in the order of the rooms' list
 * (src/feature/meson.build, which makes feature/registry_list.h): lookups
 * are by name and output order follows registration by the user, but
 * vmaf_fex_find_by_feature() and vmaf_fex_list() see this order.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "export.h"
#include "feature/extractor.h"
#include "gpu/device.h"

static const VmafFeatureExtractor *const registry[] = {
#define VMAF_FEX(s) &vmaf_fex_##s,
#include "feature/registry_list.h"
    NULL,
};

const VmafFeatureExtractor *const *vmaf_fex_list(void)
{
    return registry;
}

/* A descriptor without extract() is declared but not built yet. */
static int built(const VmafFeatureExtractor *f)
{
    return f->extract != NULL;
}

const VmafFeatureExtractor *vmaf_fex_find(const char *name)
{
    if (!name) return NULL;
    for (unsigned i = 0; registry[i]; i++)
        if (built(registry[i]) && !strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

int vmaf_fex_declared(const char *name)
{
    if (!name) return 0;
    for (unsigned i = 0; registry[i]; i++)
        if (!strcmp(registry[i]->name, name)) return 1;
    return 0;
}

const VmafFeatureExtractor *vmaf_fex_find_by_feature(const char *feature_name)
{
    if (!feature_name) return NULL;
    for (unsigned i = 0; registry[i]; i++) {
        if (!built(registry[i])) continue;
        const char *const *p = registry[i]->provided_features;
        for (; p && *p; p++)
            if (!strcmp(*p, feature_name)) return registry[i];
    }
    return NULL;
}

/* ---- The public listing (exactvmaf.h): the built extractors, in order ---- */

static const VmafFeatureExtractor *built_at(unsigned i)
{
    for (unsigned k = 0; registry[k]; k++)
        if (built(registry[k]) && !i--) return registry[k];
    return NULL;
}

VMAF_EXPORT const char *exactvmaf_extractor_name(unsigned i)
{
    const VmafFeatureExtractor *f = built_at(i);
    return f ? f->name : NULL;
}

VMAF_EXPORT const char *exactvmaf_extractor_output(unsigned i, unsigned k)
{
    const VmafFeatureExtractor *f = built_at(i);
    const char *const *p = f ? f->provided_features : NULL;
    for (; p && *p; p++)
        if (!k--) return *p;
    return NULL;
}

VMAF_EXPORT int exactvmaf_extractor_option(unsigned i, unsigned k, const char **name,
                                           const char **alias, const char **help)
{
    const VmafFeatureExtractor *f = built_at(i);
    const VmafOption *o = f ? f->options : NULL;
    for (; o && o->name; o++) {
        if (k--) continue;
        if (name) *name = o->name;
        if (alias) *alias = o->alias;
        if (help) *help = o->help;
        return 0;
    }
    return -ENOENT;
}

/* A twin runs on a backend whose blob of its program this library holds. */
static int has_blob(const VmafFexTwin *t, enum ExactvmafBackend backend)
{
    const char *api = exactvmaf_backend_name(backend);
    for (const VmafGpuBlob *b = t->program ? t->program->blobs : NULL; b && b->api; b++)
        if (!strcmp(b->api, api)) return 1;
    return 0;
}

VMAF_EXPORT int exactvmaf_extractor_twins(unsigned i)
{
    const VmafFeatureExtractor *f = built_at(i);
    if (!f) return -ENOENT;
    const VmafFexTwin *t = f->gpu;
    if (!t) return 0;
    int bits = 0;
    if (has_blob(t, EXACTVMAF_BACKEND_CUDA)) bits |= EXACTVMAF_TWIN_CUDA;
    if (has_blob(t, EXACTVMAF_BACKEND_OPENCL)) {
        bits |= EXACTVMAF_TWIN_OPENCL;
        if (t->needs_fp64) bits |= EXACTVMAF_TWIN_OPENCL_NEEDS_FP64;
    }
    return bits;
}
