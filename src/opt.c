#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opt.h"

const VmafOption *vmaf_option_find(const VmafOption *opts, const char *key)
{
    if (!opts || !key) return NULL;
    for (const VmafOption *o = opts; o->name; o++)
        if (!strcmp(o->name, key) || (o->alias && !strcmp(o->alias, key))) return o;
    return NULL;
}

void vmaf_options_set_defaults(const VmafOption *opts, void *obj)
{
    if (!opts || !obj) return;
    for (const VmafOption *o = opts; o->name; o++) {
        void *dst = (char *)obj + o->offset;
        switch (o->type) {
        case VMAF_OPT_TYPE_BOOL: *(bool *)dst = o->default_val.b; break;
        case VMAF_OPT_TYPE_INT: *(int *)dst = o->default_val.i; break;
        case VMAF_OPT_TYPE_DOUBLE: *(double *)dst = o->default_val.d; break;
        case VMAF_OPT_TYPE_STRING: *(const char **)dst = o->default_val.s; break;
        }
    }
}

static int bad_value(const char *fex_name, const VmafOption *opt, const char *val,
                     const char *why)
{
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: option %s: bad value \"%s\": %s",
             fex_name ? fex_name : "?", opt->name, val, why);
    return -EINVAL;
}

int vmaf_option_set(const char *fex_name, const VmafOption *opt, void *obj,
                    const char *val)
{
    if (!opt || !obj || !val) return -EINVAL;
    void *dst = (char *)obj + opt->offset;
    char range[96];
    snprintf(range, sizeof(range), "expected a value in [%g, %g]", opt->min, opt->max);

    switch (opt->type) {
    case VMAF_OPT_TYPE_BOOL:
        /* Netflix takes only true/false; 1/0 are accepted as the obvious synonyms. */
        if (!strcmp(val, "true") || !strcmp(val, "1")) *(bool *)dst = true;
        else if (!strcmp(val, "false") || !strcmp(val, "0")) *(bool *)dst = false;
        else return bad_value(fex_name, opt, val, "expected true or false");
        return 0;
    case VMAF_OPT_TYPE_INT: {
        char *end = NULL;
        errno = 0;
        long long n = strtoll(val, &end, 10);
        if (!*val || *end || errno) return bad_value(fex_name, opt, val, "expected an integer");
        if (n < opt->min || n > opt->max) return bad_value(fex_name, opt, val, range);
        *(int *)dst = (int)n;
        return 0;
    }
    case VMAF_OPT_TYPE_DOUBLE: {
        char *end = NULL;
        errno = 0;
        double d = strtod(val, &end);
        if (!*val || *end || errno || !isfinite(d))
            return bad_value(fex_name, opt, val, "expected a number");
        if (d < opt->min || d > opt->max) return bad_value(fex_name, opt, val, range);
        *(double *)dst = d;
        return 0;
    }
    case VMAF_OPT_TYPE_STRING:
        /* A string option without choices exists only to be refused clearly. */
        if (!opt->choices)
            return bad_value(fex_name, opt, val, "this option is not supported by exactvmaf");
        /* Values point at the table's static strings: no lifetime to manage. */
        for (const char *const *c = opt->choices; c && *c; c++) {
            if (!strcmp(*c, val)) {
                *(const char **)dst = *c;
                return 0;
            }
        }
        return bad_value(fex_name, opt, val, "not one of the allowed values");
    }
    return -EINVAL;
}

int vmaf_options_apply(const char *fex_name, const VmafOption *opts, void *obj,
                       const VmafDict *dict)
{
    for (unsigned i = 0; dict && i < dict->cnt; i++) {
        const VmafOption *o = vmaf_option_find(opts, dict->entry[i].key);
        if (!o) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: unknown option \"%s\"",
                     fex_name ? fex_name : "?", dict->entry[i].key);
            return -EINVAL;
        }
        int err = vmaf_option_set(fex_name, o, obj, dict->entry[i].val);
        if (err) return err;
    }
    return 0;
}

int vmaf_option_is_default(const VmafOption *o, const void *obj)
{
    const void *v = (const char *)obj + o->offset;
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: return *(const bool *)v == o->default_val.b;
    case VMAF_OPT_TYPE_INT: return *(const int *)v == o->default_val.i;
    case VMAF_OPT_TYPE_DOUBLE: return *(const double *)v == o->default_val.d;
    case VMAF_OPT_TYPE_STRING:
        return !strcmp(*(const char *const *)v, o->default_val.s);
    }
    return 1;
}

/* Output-name aliases of the canonical names that carry suffixes. */
static const char *const alias_map[][2] = {
    { "VMAF_feature_adm2_score", "adm2" },
    { "VMAF_feature_aim_score", "aim" },
    { "VMAF_feature_adm3_score", "adm3" },
    { "VMAF_feature_adm_scale0_score", "adm_scale0" },
    { "VMAF_feature_adm_scale1_score", "adm_scale1" },
    { "VMAF_feature_adm_scale2_score", "adm_scale2" },
    { "VMAF_feature_adm_scale3_score", "adm_scale3" },
    { "VMAF_feature_motion_score", "motion" },
    { "VMAF_feature_motion2_score", "motion2" },
    { "VMAF_feature_motion3_score", "motion3" },
    { "VMAF_feature_vif_scale0_score", "vif_scale0" },
    { "VMAF_feature_vif_scale1_score", "vif_scale1" },
    { "VMAF_feature_vif_scale2_score", "vif_scale2" },
    { "VMAF_feature_vif_scale3_score", "vif_scale3" },
    { "VMAF_integer_feature_adm2_score", "integer_adm2" },
    { "VMAF_integer_feature_aim_score", "integer_aim" },
    { "VMAF_integer_feature_adm3_score", "integer_adm3" },
    { "VMAF_integer_feature_motion_score", "integer_motion" },
    { "VMAF_integer_feature_motion2_score", "integer_motion2" },
    { "VMAF_integer_feature_motion3_score", "integer_motion3" },
    { "VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0" },
    { "VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1" },
    { "VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2" },
    { "VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3" },
    { "Cambi_feature_cambi_score", "cambi" },
    { "Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u" },
    { "Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v" },
    { "Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv" },
    { "Speed_temporal_feature_speed_temporal_score", "speed_temporal" },
};

const char *vmaf_feature_alias(const char *name)
{
    for (size_t i = 0; i < sizeof(alias_map) / sizeof(alias_map[0]); i++)
        if (!strcmp(alias_map[i][0], name)) return alias_map[i][1];
    return name;
}

static int cmp_opt_name(const void *a, const void *b)
{
    const VmafOption *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

static char *name_with_options(const char *name, const VmafOption *opts,
                               const void *obj, bool fp_only)
{
    const VmafOption *sel[64];
    unsigned n = 0;
    for (const VmafOption *o = opts; o && o->name && n < 64; o++) {
        if (fp_only && !(o->flags & VMAF_OPT_FLAG_FEATURE_PARAM)) continue;
        if (vmaf_option_is_default(o, obj)) continue;
        sel[n++] = o;
    }
    if (!n) return strdup(name);
    qsort(sel, n, sizeof(sel[0]), cmp_opt_name);

    char buf[512];
    size_t len = (size_t)snprintf(buf, sizeof(buf), "%s", vmaf_feature_alias(name));
    for (unsigned i = 0; i < n && len < sizeof(buf); i++) {
        const VmafOption *o = sel[i];
        const void *v = (const char *)obj + o->offset;
        const char *key = o->alias ? o->alias : o->name;
        size_t room = sizeof(buf) - len;
        int k = 0;
        switch (o->type) {
        case VMAF_OPT_TYPE_BOOL:
            /* Netflix adds the bare key for a non-default bool. */
            k = snprintf(buf + len, room, "_%s", key);
            break;
        case VMAF_OPT_TYPE_INT:
            k = snprintf(buf + len, room, "_%s_%d", key, *(const int *)v);
            break;
        case VMAF_OPT_TYPE_DOUBLE:
            k = snprintf(buf + len, room, "_%s_%g", key, *(const double *)v);
            break;
        case VMAF_OPT_TYPE_STRING:
            k = snprintf(buf + len, room, "_%s_%s", key, *(const char *const *)v);
            break;
        }
        if (k < 0) return NULL;
        len += (size_t)k;
    }
    if (len >= sizeof(buf)) return NULL;
    return strdup(buf);
}

char *vmaf_option_feature_name(const char *name, const VmafOption *opts,
                               const void *obj)
{
    return name_with_options(name, opts, obj, true);
}

char *vmaf_option_identity(const char *fex_name, const VmafOption *opts,
                           const void *obj)
{
    return name_with_options(fex_name, opts, obj, true);
}
