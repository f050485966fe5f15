/*
 * The feature-extractor interface. One `static const VmafFeatureExtractor`
 * per metric, in the metric's own folder, listed in registry.c.
 * Instance state lives in the private struct (priv_size bytes, zeroed, option
 * defaults written, then the user's options applied) that the framework
 * allocates per instance; the descriptor is never written.
 */
#ifndef EXACTVMAF_FEATURE_EXTRACTOR_H
#define EXACTVMAF_FEATURE_EXTRACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/picture.h"
#include "exactvmaf/exactvmaf.h"
#include "opt.h"

enum VmafFexFlags {
    /** extract() must see frames in index order, on one instance. */
    VMAF_FEX_TEMPORAL = 1 << 0,
};

typedef struct VmafFex VmafFex;
typedef struct VmafFeatureCollector VmafFeatureCollector;

/** What every extractor may read from its context at init. */
typedef struct VmafFexEnv {
    enum ExactvmafDivision division;
} VmafFexEnv;

typedef struct VmafFeatureExtractor {
    const char *name;
    /** Validate geometry (error + log for unsupported sizes/depths) and allocate. */
    int (*init)(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h);
    /** Compute one frame pair; emit outputs with vmaf_fex_emit(). */
    int (*extract)(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index);
    /** Temporal extractors only: emit what is still pending. May be NULL. */
    int (*flush)(VmafFex *fex);
    /** Free what init allocated. May be NULL. Called even when init failed. */
    void (*close)(VmafFex *fex);
    const VmafOption *options;  /**< NULL-name terminated; may be NULL */
    size_t priv_size;
    uint64_t flags;             /**< VmafFexFlags */
    /** Outputs renamed by feature-parameter options; NULL terminated. */
    const char *const *provided_features;
} VmafFeatureExtractor;

/** One instance of an extractor, owned by the framework. */
struct VmafFex {
    const VmafFeatureExtractor *desc;
    void *priv;
    VmafFexEnv env;
    VmafFeatureCollector *fc;
    unsigned ordinal;       /**< registration order; fixes output order */
    VmafDict *names;        /**< provided feature -> output name */
    unsigned call_index;    /**< index of the frame whose call is running */
    unsigned emit_seq;      /**< emissions so far in this call */
};

/**
 * Store one output value for frame `index`. `name` is the extractor's
 * canonical name (e.g. "VMAF_feature_adm2_score"); provided features are
 * renamed for non-default feature-parameter options, other names are kept.
 */
int vmaf_fex_emit(VmafFex *fex, const char *name, double value, unsigned index);

/** Registry lookup by extractor name ("float_adm"); NULL when unknown. */
const VmafFeatureExtractor *vmaf_fex_find(const char *name);
/** 1 when `name` is a known extractor, built or not. */
int vmaf_fex_declared(const char *name);
/** Extractor that provides output `feature_name` (canonical); NULL when none. */
const VmafFeatureExtractor *vmaf_fex_find_by_feature(const char *feature_name);
/** NULL-terminated list of every registered extractor. */
const VmafFeatureExtractor *const *vmaf_fex_list(void);

#endif
