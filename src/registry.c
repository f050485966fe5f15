/*
 * The list of extractors, in the order of the rooms' list
 * (src/feature/meson.build, which makes feature/registry_list.h): lookups
 * are by name and output order follows registration by the user, but
 * vmaf_fex_find_by_feature() and vmaf_fex_list() see this order.
 */
#include <stddef.h>
#include <string.h>

#include "feature/extractor.h"

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
