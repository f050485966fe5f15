/*
 * Model prediction, in Netflix libvmaf's order and types (predict.c of
 * v3.2.0): every step is double, nothing is fused (the project builds
 * with -ffp-contract=off), and each expression below keeps the reference's
 * association.
 */
#include <math.h>
#include <stdlib.h>

#include "model_internal.h"

static double normalize(const VmafModel *m, double slope, double intercept,
                        double v)
{
    if (m->norm == EV_MODEL_NORM_LINEAR_RESCALE)
        return slope * v + intercept;
    return v;
}

static double denormalize(const VmafModel *m, double slope, double intercept,
                          double v)
{
    if (m->norm == EV_MODEL_NORM_LINEAR_RESCALE)
        return (v - intercept) / slope;
    return v;
}

/*
 * v1.0.16 models: a SpEED chroma score of exactly 0 is replaced by one
 * derived from adm3, c - c*adm3, computed on the denormalised values and
 * normalised back.
 */
static void correct_chroma(const VmafModel *m, EvSvmNode *node)
{
    const EvModelFeature *guided = &m->feature[m->chroma.guided];
    const double guided_score = denormalize(m, guided->slope, guided->intercept,
                                            node[m->chroma.guided].value);
    if (guided_score != 0.0) return;

    const EvModelFeature *guiding = &m->feature[m->chroma.guiding];
    const double guiding_score = denormalize(m, guiding->slope,
                                             guiding->intercept,
                                             node[m->chroma.guiding].value);
    const double c = m->chroma.parameter;
    const double corrected = (-c * guiding_score) + c;
    node[m->chroma.guided].value =
        normalize(m, guided->slope, guided->intercept, corrected);
}

double ev_model_predict_raw(const VmafModel *m, const double *features)
{
    EvSvmNode node[EV_MODEL_MAX_FEATURES + 1];
    for (unsigned i = 0; i < m->n_features; i++) {
        node[i].index = (int)i + 1;
        node[i].value = normalize(m, m->feature[i].slope,
                                  m->feature[i].intercept, features[i]);
    }
    node[m->n_features].index = -1;
    node[m->n_features].value = 0.0;

    if (m->chroma.enabled) correct_chroma(m, node);

    const double prediction = ev_svm_predict(m->svm, node);
    if (m->norm == EV_MODEL_NORM_LINEAR_RESCALE)
        return (prediction - m->intercept) / m->slope;
    return prediction;
}

/*
 * Piecewise-linear mapping through the knots (validated at load: at least
 * two, x increasing, y non-decreasing). Netflix evaluates every segment in
 * order and the last one that applies wins; x below the first knot or
 * above the last extends the outer segments.
 */
static double line_through(EvKnot a, EvKnot b, double x)
{
    double slope, offset;
    if (b.x - a.x == 0 || b.y - a.y == 0) {
        slope = 1.0;
        offset = 0.0;
    } else if (a.x == 0) {
        offset = a.y;
        slope = (b.y - offset) / b.x;
    } else {
        slope = (b.y - a.y) / (b.x - a.x);
        offset = a.y - (a.x * slope);
    }
    return slope * x + offset;
}

static double piecewise_linear(const VmafModel *m, double x)
{
    const EvKnot *k = m->transform.knot;
    const unsigned n_seg = m->transform.n_knots - 1;
    double y = 0.0;
    for (unsigned i = 0; i < n_seg; i++) {
        const bool inside = k[i].x <= x && x <= k[i + 1].x;
        const bool below = i == 0 && x < k[i].x;
        const bool above = i == n_seg - 1 && x > k[i + 1].x;
        if (!(inside || below || above)) continue;
        if (k[i].y == k[i + 1].y)
            y = k[i].y;
        else
            y = line_through(k[i], k[i + 1], x);
    }
    return y;
}

/* quality_runner's transform_score: polynomial, knots, rectification. */
static double transform(const VmafModel *m, double in)
{
    double out;
    if (m->transform.p0.enabled || m->transform.p1.enabled ||
        m->transform.p2.enabled) {
        out = 0.;
        if (m->transform.p0.enabled)
            out += m->transform.p0.value;
        if (m->transform.p1.enabled)
            out += m->transform.p1.value * in;
        if (m->transform.p2.enabled)
            out += m->transform.p2.value * in * in;
    } else {
        out = in;
    }

    if (m->transform.knots_enabled)
        out = piecewise_linear(m, out);

    if (m->transform.out_lte_in)
        out = (out > in) ? in : out;
    if (m->transform.out_gte_in)
        out = (out < in) ? in : out;
    return out;
}

static double clip(const VmafModel *m, double v)
{
    v = (v < m->clip.min) ? m->clip.min : v;
    v = (v > m->clip.max) ? m->clip.max : v;
    return v;
}

double ev_model_finish(const VmafModel *m, double raw)
{
    double v = raw;
    if (m->transform.enabled) v = transform(m, v);
    if (m->clip.enabled) v = clip(m, v);
    return v;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the two order statistics around perc. */
static double percentile(const double *sorted, unsigned n, double perc)
{
    const double p = perc * (n - 1) / 100.;
    const int lo = (int)floor(p);
    const int hi = (int)ceil(p);
    if (lo == hi) return sorted[lo];
    return sorted[lo] * (hi - p) + sorted[hi] * (p - lo);
}

void ev_model_bootstrap(const VmafModel *first, double *raw, unsigned cnt,
                        VmafModelCollectionScore *score)
{
    double sum = 0.;
    for (unsigned i = 0; i < cnt; i++)
        sum += raw[i];
    const double mean = sum / cnt;

    double ssd = 0.;
    for (unsigned i = 0; i < cnt; i++)
        ssd += pow(raw[i] - mean, 2);
    double stddev = sqrt(ssd / cnt);

    qsort(raw, cnt, sizeof(*raw), compare_double);
    const double lo = percentile(raw, cnt, 2.5);
    const double hi = percentile(raw, cnt, 97.5);

    /*
     * The statistics are taken on untransformed, unclipped predictions; the
     * first model's transform and clip then map them to the score scale,
     * and the stddev is scaled by the transform's slope at the mean,
     * estimated by a central difference of +-0.01.
     */
    const double delta = 0.01;
    const double plus = ev_model_finish(first, mean + delta);
    const double minus = ev_model_finish(first, mean - delta);
    const double slope = (plus - minus) / (2.0 * delta);
    stddev *= slope;

    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    score->bootstrap.bagging_score = ev_model_finish(first, mean);
    score->bootstrap.stddev = stddev;
    score->bootstrap.ci.p95.lo = ev_model_finish(first, lo);
    score->bootstrap.ci.p95.hi = ev_model_finish(first, hi);
}
