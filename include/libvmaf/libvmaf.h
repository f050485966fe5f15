/**
 * @file libvmaf.h
 * exactvmaf's libvmaf 3.x compatible API: a program written for libvmaf
 * compiles and runs against it unchanged.
 *
 * Errors are negative errno values. Ownership: pictures passed to
 * vmaf_read_pictures() belong to the library afterwards; models and
 * dictionaries stay the caller's unless a function says it consumes them.
 */
#ifndef __VMAF_H__
#define __VMAF_H__

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/feature.h"
#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR,
    VMAF_LOG_LEVEL_WARNING,
    VMAF_LOG_LEVEL_INFO,
    VMAF_LOG_LEVEL_DEBUG,
};

enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML,
    VMAF_OUTPUT_FORMAT_JSON,
    VMAF_OUTPUT_FORMAT_CSV,
    VMAF_OUTPUT_FORMAT_SUB,
};

enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN,
    VMAF_POOL_METHOD_MAX,
    VMAF_POOL_METHOD_MEAN,
    VMAF_POOL_METHOD_HARMONIC_MEAN,
    VMAF_POOL_METHOD_NB
};

typedef struct VmafConfiguration {
    enum VmafLogLevel log_level;
    unsigned n_threads;     /**< 0: compute on the calling thread */
    unsigned n_subsample;   /**< compute every n-th frame; 0 or 1: all */
    uint64_t cpumask;       /**< accepted for compatibility; the C path is always exact */
    uint64_t gpumask;
} VmafConfiguration;

typedef struct VmafContext VmafContext;

/** Create a context. *vmaf is freed with vmaf_close(). */
int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/** Register every extractor the model needs, with the model's options. */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/** As vmaf_use_features_from_model() for every model of a collection. */
int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection);

/**
 * Register the extractor feature_name ("float_adm", ...) with options.
 * opts_dict (may be NULL) is consumed. An unknown extractor or option, or a
 * bad value, is -EINVAL with a logged message.
 */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict);

/** Store an externally computed score for frame index. */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                              double value, unsigned index);

/**
 * Hand over a reference/distorted pair for frame index (the library takes
 * the pictures' references). ref == dist == NULL flushes: every pending
 * frame is finished, and no more pictures are accepted.
 */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index);

/** Model score of one frame; also stored under the model's name. */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                        unsigned index);

int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score,
                                         unsigned index);

/** Stored value of output feature_name at frame index; -EINVAL when absent. */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                double *score, unsigned index);

/** Pool a model's per-frame scores over [index_low, index_high], in frame order. */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                      enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high);

typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt;
} VmafPictureConfiguration;

/** Keep a pool of pic_cnt pictures for vmaf_fetch_preallocated_picture(). */
int vmaf_preallocate_pictures(VmafContext *vmaf,
                              VmafPictureConfiguration cfg);

int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/** Free the context and everything it holds (not the models). */
int vmaf_close(VmafContext *vmaf);

/** Write every stored output to output_path ("-" or NULL: stdout). */
int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                      enum VmafOutputFormat fmt);

/** "3.2.0-exactvmaf-<version>" style string. */
const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_H__ */
