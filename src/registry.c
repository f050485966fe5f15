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
extern const VmafFeatureExtractor vmaf_fex_integer_adm;
extern const VmafFeatureExtractor vmaf_fex_integer_vif;
extern const VmafFeatureExtractor vmaf_fex_integer_motion;
extern const VmafFeatureExtractor vmaf_fex_float_ssim;
extern const VmafFeatureExtractor vmaf_fex_float_ms_ssim;
extern const VmafFeatureExtractor vmaf_fex_psnr;
extern const VmafFeatureExtractor vmaf_fex_float_psnr;
extern const VmafFeatureExtractor vmaf_fex_ciede;
extern const VmafFeatureExtractor vmaf_fex_float_moment;
extern const VmafFeatureExtractor vmaf_fex_psnr_hvs;
extern const VmafFeatureExtractor vmaf_fex_cambi;
extern const VmafFeatureExtractor vmaf_fex_speed_chroma;
extern const VmafFeatureExtractor vmaf_fex_speed_temporal;

static const VmafFeatureExtractor *const registry[] = {
    &vmaf_fex_float_adm,
    &vmaf_fex_float_vif,
    &vmaf_fex_float_motion,
    &vmaf_fex_integer_adm,
    &vmaf_fex_integer_vif,
    &vmaf_fex_integer_motion,
    &vmaf_fex_float_ssim,
    &vmaf_fex_float_ms_ssim,
    &vmaf_fex_psnr,
    &vmaf_fex_float_psnr,
    &vmaf_fex_ciede,
    &vmaf_fex_float_moment,
    &vmaf_fex_psnr_hvs,
    &vmaf_fex_cambi,
    &vmaf_fex_speed_chroma,
    &vmaf_fex_speed_temporal,
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
