/*
 * The list of extractors. Order here carries no meaning: lookups are by
 * name, and output order follows registration by the user.
 */
#include <stddef.h>
#include <string.h>

#include "feature/extractor.h"

extern const VmafFeatureExtractor vmaf_fex_float_adm;
extern const VmafFeatureExtractor vmaf_fex_float_vif;
extern const VmafFeatureExtractor vmaf_fex_float_motion;

static const VmafFeatureExtractor *const registry[] = {
    &vmaf_fex_float_adm,
    &vmaf_fex_float_vif,
    &vmaf_fex_float_motion,
    NULL,
};

const VmafFeatureExtractor *const *vmaf_fex_list(void)
{
    return registry;
}

const VmafFeatureExtractor *vmaf_fex_find(const char *name)
{
    if (!name) return NULL;
    for (unsigned i = 0; registry[i]; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

const VmafFeatureExtractor *vmaf_fex_find_by_feature(const char *feature_name)
{
    if (!feature_name) return NULL;
    for (unsigned i = 0; registry[i]; i++) {
        const char *const *p = registry[i]->provided_features;
        for (; p && *p; p++)
            if (!strcmp(*p, feature_name)) return registry[i];
    }
    return NULL;
}
