/**
 * @file model.h
 * VMAF models and bootstrap model collections (libvmaf 3.x compatible).
 */
#ifndef __VMAF_MODEL_H__
#define __VMAF_MODEL_H__

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VmafModel VmafModel;

enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2),
};

typedef struct VmafModelConfig {
    const char *name;   /**< key the scores are stored under; NULL means "vmaf" */
    uint64_t flags;     /**< VmafModelFlags, or'd */
} VmafModelConfig;

/**
 * Load a model built into the library, e.g. "vmaf_float_v0.6.1".
 * The caller owns *model and frees it with vmaf_model_destroy().
 */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                    const char *version);

/** Load a model from a JSON file. */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                              const char *path);

/**
 * Apply feature options to every feature of the model computed by the
 * extractor feature_name (e.g. "float_adm", {"adm_enhn_gain_limit": "1.2"}).
 * opts_dict is consumed (freed) on success.
 */
int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict);

void vmaf_model_destroy(VmafModel *model);

typedef struct VmafModelCollection VmafModelCollection;

enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,
};

typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score;
        double stddev;
        struct {
            struct { double lo, hi; } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/**
 * Load a bootstrap model collection built into the library
 * (e.g. "vmaf_float_b_v0.6.3"). *model receives the collection's first
 * model; the caller owns both and frees them separately.
 */
int vmaf_model_collection_load(VmafModel **model,
                               VmafModelCollection **model_collection,
                               VmafModelConfig *cfg,
                               const char *version);

/** As vmaf_model_collection_load(), from a JSON file. */
int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg,
                                         const char *path);

/** As vmaf_model_feature_overload(), for every model of the collection. */
int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict);

void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_MODEL_H__ */
