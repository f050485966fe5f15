/*
 * VmafModel and VmafModelCollection internals, shared by the loader
 * (model.c), the prediction (predict.c) and the scoring API (score.c).
 */
#ifndef EXACTVMAF_MODEL_INTERNAL_H
#define EXACTVMAF_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/model.h"
#include "dict.h"
#include "svm.h"

/** Netflix's limits: more features or knots is a malformed model. */
#define EV_MODEL_MAX_FEATURES 64
#define EV_MODEL_MAX_KNOTS 10

enum EvModelType {
    EV_MODEL_TYPE_SVM_NUSVR = 1,           /* "LIBSVMNUSVR" */
    EV_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR,     /* "BOOTSTRAP_LIBSVMNUSVR" */
    EV_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR, /* "RESIDUEBOOTSTRAP_LIBSVMNUSVR" */
};

enum EvModelNorm {
    EV_MODEL_NORM_NONE = 1,
    EV_MODEL_NORM_LINEAR_RESCALE,
};

typedef struct EvModelFeature {
    char *name;         /**< canonical output name, e.g. "VMAF_feature_adm2_score" */
    double slope, intercept;
    VmafDict *opts;     /**< extractor options (NULL: defaults) */
} EvModelFeature;

typedef struct EvKnot {
    double x, y;
} EvKnot;

struct VmafModel {
    char *name;         /**< collector key of the scores ("vmaf", "vmaf_0001", ...) */
    char *source;       /**< built-in version or file path, for messages */
    enum EvModelType type;
    enum EvModelNorm norm;
    double slope, intercept;
    unsigned n_features;
    EvModelFeature *feature;
    struct {
        bool enabled;
        double min, max;
    } clip;
    struct {
        bool enabled;
        struct {
            bool enabled;
            double value;
        } p0, p1, p2;
        bool knots_enabled;
        unsigned n_knots;
        EvKnot knot[EV_MODEL_MAX_KNOTS];
        bool out_lte_in, out_gte_in;
    } transform;
    struct {
        bool enabled;
        double parameter;
        unsigned guiding;   /**< feature whose name contains "adm3" */
        unsigned guided;    /**< feature whose name contains "speed_chroma" */
    } chroma;
    EvSvm *svm;
};

struct VmafModelCollection {
    VmafModel **model;
    unsigned cnt;
    enum EvModelType type;
    char *name;         /**< prefix of the per-frame outputs ("vmaf") */
};

/**
 * Load a model (a JSON document with "model_dict") from memory; label names
 * it in error messages. What vmaf_model_load*() call; also a fuzz entry.
 */
int ev_model_load_from_buffer(VmafModel **model, const VmafModelConfig *cfg,
                              const char *label, const char *data, size_t size);

/** As ev_model_load_from_buffer, for a collection ("0", "1", ... members). */
int ev_model_collection_load_from_buffer(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         const VmafModelConfig *cfg,
                                         const char *label, const char *data,
                                         size_t size);

/**
 * The model's prediction before score transform and clip: normalise the
 * feature values (raw, in model feature order), correct chroma, SVM,
 * denormalise.
 */
double ev_model_predict_raw(const VmafModel *model, const double *features);

/** Apply the model's score transform (when enabled) then its clip (when enabled). */
double ev_model_finish(const VmafModel *model, double raw);

/** Bootstrap statistics over per-model raw predictions (cnt >= 1), as Netflix. */
void ev_model_bootstrap(const VmafModel *first, double *raw, unsigned cnt,
                        VmafModelCollectionScore *score);

#endif
