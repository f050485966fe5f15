/* Feature-extractor option tables: one per metric, filled by offsetof. */
#ifndef EXACTVMAF_OPT_H
#define EXACTVMAF_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"

enum VmafOptionType {
    VMAF_OPT_TYPE_BOOL,
    VMAF_OPT_TYPE_INT,
    VMAF_OPT_TYPE_DOUBLE,
    VMAF_OPT_TYPE_STRING,
};

enum VmafOptionFlag {
    /** A non-default value renames the extractor's provided outputs. */
    VMAF_OPT_FLAG_FEATURE_PARAM = 1 << 0,
};

typedef struct VmafOption {
    const char *name;
    const char *alias;      /**< short name; also used in output-name suffixes */
    const char *help;
    size_t offset;          /**< offsetof() into the extractor's private struct */
    enum VmafOptionType type;
    union {
        bool b;
        int i;
        double d;
        const char *s;
    } default_val;
    double min, max;        /**< inclusive range for INT and DOUBLE */
    const char *const *choices; /**< NULL-terminated allowed values for STRING */
    uint64_t flags;
} VmafOption;

/** Write every option's default into obj. STRING options point at static text. */
void vmaf_options_set_defaults(const VmafOption *opts, void *obj);

/**
 * Apply every entry of dict to obj. Keys match an option's name or alias.
 * An unknown key, a value that does not parse, or one outside the range is
 * an error; the message names the extractor, the option and the value.
 */
int vmaf_options_apply(const char *fex_name, const VmafOption *opts, void *obj,
                       const VmafDict *dict);

/** Parse one value for opt into obj. */
int vmaf_option_set(const char *fex_name, const VmafOption *opt, void *obj,
                    const char *val);

/** Find by name or alias; NULL when absent. */
const VmafOption *vmaf_option_find(const VmafOption *opts, const char *key);

/** 1 when the option's value in obj equals its default. */
int vmaf_option_is_default(const VmafOption *opt, const void *obj);

/**
 * The name an output gets for the option values in obj: unchanged when every
 * feature-parameter option has its default, else alias(name) followed by
 * "_key_value" for each non-default feature-parameter option, ordered by
 * option name (key = alias or name; %d / %g / %s; a bool adds "_key").
 * Returns a malloc'd string.
 */
char *vmaf_option_feature_name(const char *name, const VmafOption *opts,
                               const void *obj);

/**
 * Canonical extractor identity: extractor name + its non-default options;
 * two registrations with equal identities are deduplicated. malloc'd.
 */
char *vmaf_option_identity(const char *fex_name, const VmafOption *opts,
                           const void *obj);

/** Short output name of a canonical feature name (VMAF_feature_adm2_score -> adm2); name itself when none. */
const char *vmaf_feature_alias(const char *name);

#endif
