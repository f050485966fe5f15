/*
 * The scoring half of the public API (libvmaf.c of Netflix v3.2.0):
 * registering a model's extractors, per-frame model scores (stored in the
 * collector so that they are written out), bootstrap statistics and
 * pooling.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "export.h"
#include "feature_collector.h"
#include "log.h"
#include "model/model_internal.h"
#include "opt.h"

/* Every feature must have an extractor before anything is registered. */
static int check_extractors(const VmafModel *m)
{
    for (unsigned i = 0; i < m->n_features; i++) {
        if (vmaf_fex_name_for_feature(m->feature[i].name)) continue;
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s needs feature \"%s\", "
                 "which no feature extractor of this build provides",
                 m->source, m->feature[i].name);
        return -EINVAL;
    }
    return 0;
}

/*
 * One registration per model feature, with that feature's options; the
 * context merges registrations that compute the same outputs (Netflix
 * registers per feature too and drops duplicates).
 */
static int use_features(VmafContext *vmaf, const VmafModel *m)
{
    for (unsigned i = 0; i < m->n_features; i++) {
        const char *fex = vmaf_fex_name_for_feature(m->feature[i].name);
        const int err = vmaf_ctx_use_feature(vmaf, fex, m->feature[i].opts);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: could not register "
                     "extractor \"%s\" for feature \"%s\"", m->source, fex,
                     m->feature[i].name);
            return err;
        }
    }
    return 0;
}

VMAF_EXPORT int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !model) return -EINVAL;
    const int err = check_extractors(model);
    if (err) return err;
    return use_features(vmaf, model);
}

VMAF_EXPORT int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                                        VmafModelCollection *model_collection)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !model_collection) return -EINVAL;
    for (unsigned i = 0; i < model_collection->cnt; i++) {
        const int err = check_extractors(model_collection->model[i]);
        if (err) return err;
    }
    for (unsigned i = 0; i < model_collection->cnt; i++) {
        const int err = use_features(vmaf, model_collection->model[i]);
        if (err) return err;
    }
    return 0;
}

/* The model's input features at `index`, read under their output names. */
static int gather(VmafFeatureCollector *fc, const VmafModel *m, unsigned index,
                  double *features)
{
    for (unsigned i = 0; i < m->n_features; i++) {
        char *name = vmaf_fex_output_name(m->feature[i].name, m->feature[i].opts);
        if (!name) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: no feature extractor "
                     "provides feature \"%s\"", m->source, m->feature[i].name);
            return -EINVAL;
        }
        const int err = vmaf_fc_get(fc, name, index, &features[i]);
        if (err)
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: no feature \"%s\" "
                     "at index %u", m->source, name, index);
        free(name);
        if (err) return err;
    }
    return 0;
}

static int predict_raw(VmafFeatureCollector *fc, const VmafModel *m,
                       unsigned index, double *raw)
{
    double features[EV_MODEL_MAX_FEATURES];
    const int err = gather(fc, m, index, features);
    if (err) return err;
    *raw = ev_model_predict_raw(m, features);
    return 0;
}

VMAF_EXPORT int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model,
                                    double *score, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !model || !score) return -EINVAL;
    VmafFeatureCollector *fc = vmaf_ctx_collector(vmaf);

    /* A score already stored (computed before, or imported) is reused. */
    if (!vmaf_fc_get(fc, model->name, index, score)) return 0;

    double raw;
    int err = predict_raw(fc, model, index, &raw);
    if (err) return err;
    const double s = ev_model_finish(model, raw);
    err = vmaf_fc_set(fc, model->name, s, index, VMAF_ORDER_KEY_MODEL);
    if (err) return err;
    *score = s;
    return 0;
}

static int store(VmafFeatureCollector *fc, const char *prefix,
                 const char *suffix, double value, unsigned index)
{
    char name[512];
    const int n = snprintf(name, sizeof(name), "%s%s", prefix, suffix);
    if (n < 0 || (size_t)n >= sizeof(name)) return -EINVAL;
    return vmaf_fc_set(fc, name, value, index, VMAF_ORDER_KEY_MODEL);
}

/* Output name suffixes of the bootstrap statistics, in Netflix's order. */
static const char *const bootstrap_suffix[4] = {
    "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi",
};

static double *bootstrap_field(VmafModelCollectionScore *s, unsigned i)
{
    switch (i) {
    case 0: return &s->bootstrap.bagging_score;
    case 1: return &s->bootstrap.stddev;
    case 2: return &s->bootstrap.ci.p95.lo;
    default: return &s->bootstrap.ci.p95.hi;
    }
}

/*
 * Every member's score (transformed and clipped as the member says) is
 * stored as <name>_NNNN; the statistics use the untransformed, unclipped
 * predictions. Scores are recomputed and overwritten on every call (the
 * same values), so calling this twice for a frame is harmless.
 */
VMAF_EXPORT int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                                     VmafModelCollection *model_collection,
                                                     VmafModelCollectionScore *score,
                                                     unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !model_collection || !score) return -EINVAL;
    VmafModelCollection *mc = model_collection;
    VmafFeatureCollector *fc = vmaf_ctx_collector(vmaf);

    double *raw = malloc(mc->cnt * sizeof(*raw));
    if (!raw) return -ENOMEM;
    int err = 0;
    for (unsigned i = 0; i < mc->cnt && !err; i++) {
        const VmafModel *m = mc->model[i];
        err = predict_raw(fc, m, index, &raw[i]);
        if (!err)
            err = vmaf_fc_set(fc, m->name, ev_model_finish(m, raw[i]), index,
                              VMAF_ORDER_KEY_MODEL);
    }
    if (!err) {
        VmafModelCollectionScore s;
        ev_model_bootstrap(mc->model[0], raw, mc->cnt, &s);
        for (unsigned i = 0; i < 4 && !err; i++)
            err = store(fc, mc->name, bootstrap_suffix[i], *bootstrap_field(&s, i),
                        index);
        if (!err) *score = s;
    }
    free(raw);
    return err;
}

/* Netflix: with n_subsample > 1 only multiples of it have scores. */
static int is_computed(unsigned subsample, unsigned i)
{
    return subsample <= 1 || !(i % subsample);
}

VMAF_EXPORT int vmaf_feature_score_pooled(VmafContext *vmaf,
                                          const char *feature_name,
                                          enum VmafPoolingMethod pool_method,
                                          double *score, unsigned index_low,
                                          unsigned index_high)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !feature_name || !score) return -EINVAL;
    if (index_low > index_high) return -EINVAL;
    if (pool_method <= VMAF_POOL_METHOD_UNKNOWN ||
        pool_method >= VMAF_POOL_METHOD_NB)
        return -EINVAL;

    VmafFeatureCollector *fc = vmaf_ctx_collector(vmaf);
    /* The short name the output files use stands for its canonical one, as
     * in vmaf_feature_score_at_index(). */
    bool stored = false;
    for (unsigned i = 0; i < vmaf_fc_count(fc) && !stored; i++)
        stored = !strcmp(vmaf_fc_at(fc, i)->name, feature_name);
    for (unsigned i = 0; i < vmaf_fc_count(fc) && !stored; i++) {
        const char *name = vmaf_fc_at(fc, i)->name;
        if (!strcmp(vmaf_feature_alias(name), feature_name)) {
            feature_name = name;
            break;
        }
    }
    const unsigned subsample = vmaf_ctx_subsample(vmaf);

    /* Frame order, one running sum each, as Netflix. */
    unsigned pic_cnt = 0;
    double min = 0., max = 0., sum = 0., i_sum = 0.;
    for (unsigned i = index_low; i <= index_high; i++) {
        if (!is_computed(subsample, i)) {
            if (i == index_high) break;
            continue;
        }
        double s;
        const int err = vmaf_fc_get(fc, feature_name, i, &s);
        if (err) return err;
        sum += s;
        i_sum += 1. / (s + 1.);
        if (!pic_cnt || s < min) min = s;
        if (!pic_cnt || s > max) max = s;
        pic_cnt++;
        /* index_high may be UINT_MAX: stop before the counter wraps. */
        if (i == index_high) break;
    }
    if (!pic_cnt) return -EINVAL;

    switch (pool_method) {
    case VMAF_POOL_METHOD_MEAN:
        *score = sum / pic_cnt;
        break;
    case VMAF_POOL_METHOD_MIN:
        *score = min;
        break;
    case VMAF_POOL_METHOD_MAX:
        *score = max;
        break;
    case VMAF_POOL_METHOD_HARMONIC_MEAN:
        *score = pic_cnt / i_sum - 1.0;
        break;
    default:
        return -EINVAL;
    }
    return 0;
}

VMAF_EXPORT int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                                  enum VmafPoolingMethod pool_method,
                                  double *score, unsigned index_low,
                                  unsigned index_high)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !model || !score) return -EINVAL;
    if (index_low > index_high) return -EINVAL;
    if (pool_method <= VMAF_POOL_METHOD_UNKNOWN ||
        pool_method >= VMAF_POOL_METHOD_NB)
        return -EINVAL;

    const unsigned subsample = vmaf_ctx_subsample(vmaf);
    for (unsigned i = index_low; ; i++) {
        if (is_computed(subsample, i)) {
            double s;
            const int err = vmaf_score_at_index(vmaf, model, &s, i);
            if (err) return err;
        }
        if (i == index_high) break;
    }
    return vmaf_feature_score_pooled(vmaf, model->name, pool_method, score,
                                     index_low, index_high);
}

VMAF_EXPORT int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                                   VmafModelCollection *model_collection,
                                                   enum VmafPoolingMethod pool_method,
                                                   VmafModelCollectionScore *score,
                                                   unsigned index_low,
                                                   unsigned index_high)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !model_collection || !score) return -EINVAL;
    if (index_low > index_high) return -EINVAL;
    if (pool_method <= VMAF_POOL_METHOD_UNKNOWN ||
        pool_method >= VMAF_POOL_METHOD_NB)
        return -EINVAL;

    const unsigned subsample = vmaf_ctx_subsample(vmaf);
    for (unsigned i = index_low; ; i++) {
        if (is_computed(subsample, i)) {
            VmafModelCollectionScore s;
            const int err = vmaf_score_at_index_model_collection(vmaf,
                                model_collection, &s, i);
            if (err) return err;
        }
        if (i == index_high) break;
    }

    VmafModelCollectionScore pooled;
    pooled.type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    for (unsigned k = 0; k < 4; k++) {
        char name[512];
        const int n = snprintf(name, sizeof(name), "%s%s",
                               model_collection->name, bootstrap_suffix[k]);
        if (n < 0 || (size_t)n >= sizeof(name)) return -EINVAL;
        const int err = vmaf_feature_score_pooled(vmaf, name, pool_method,
                                                  bootstrap_field(&pooled, k),
                                                  index_low, index_high);
        if (err) return err;
    }
    *score = pooled;
    return 0;
}
