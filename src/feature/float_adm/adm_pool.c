/* float_adm geometry and per-frame conclusion (docs/numerics.md 3.3.2, 3.3.6-3.3.8). */
#include <math.h>

#include "math/ev_math.h"
#include "fp.h"
#include "adm_pool.h"
#include "feature/extractor.h"

_Static_assert(ADM_NUM_SCALES == ADM_SCORE_SCALES, "AdmScores holds every scale");

/* ADM_BORDER_FACTOR: the share of each band edge left out of the sums. */
#define ADM_BORDER_FACTOR 0.1

static AdmRect decouple_region(int w, int h)
{
    /* One extra sample each side for the 3x3 masking filter; the reference
     * truncates the double toward zero, then clamps to the band. */
    AdmRect r;
    r.l = (int)(w * ADM_BORDER_FACTOR - 0.5 - 1);
    r.t = (int)(h * ADM_BORDER_FACTOR - 0.5 - 1);
    r.r = w - r.l + 2;
    r.b = h - r.t + 2;
    if (r.l < 0) r.l = 0;
    if (r.r > w) r.r = w;
    if (r.t < 0) r.t = 0;
    if (r.b > h) r.b = h;
    return r;
}

static AdmRect masking_region(int w, int h)
{
    AdmRect r;
    r.l = (int)(w * ADM_BORDER_FACTOR - 0.5);
    r.t = (int)(h * ADM_BORDER_FACTOR - 0.5);
    r.r = w - r.l;
    r.b = h - r.t;
    return r;
}

void adm_geometry(int w, int h, AdmScaleGeom geom[ADM_NUM_SCALES])
{
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        AdmScaleGeom *g = &geom[s];
        g->in_w = w;
        g->in_h = h;
        g->w = (w + 1) / 2;
        g->h = (h + 1) / 2;
        g->dec = decouple_region(g->w, g->h);
        g->cm = masking_region(g->w, g->h);
        w = g->w;
        h = g->h;
    }
}

/*
 * powf(accum, 1/p) + noise per band, then (h + v) + d, all fp32. noise is
 * get_noise_constant(): powf of the int area times the double weight,
 * converted to float. expo is the double 1.0f / p converted by powf's
 * float parameter.
 */
static float band_total(const float acc[3], int area, double weight, float expo)
{
    const float noise = ev_powf((float)(area * weight), expo);
    const float h = FADD(ev_powf(acc[ADM_BAND_H], expo), noise);
    const float v = FADD(ev_powf(acc[ADM_BAND_V], expo), noise);
    const float d = FADD(ev_powf(acc[ADM_BAND_D], expo), noise);
    return FADD(FADD(h, v), d);
}

void adm_conclude(const AdmScaleAccum acc[ADM_NUM_SCALES],
                  const AdmScaleGeom geom[ADM_NUM_SCALES],
                  const AdmPoolParams *p, int w, int h, AdmScores *out)
{
    /* The reference multiplies the int dimensions; the caller keeps w * h
     * within int, so the widened product is the same value. */
    const double limit = 1e-10 * (double)((long long)w * h) / (1920.0 * 1080.0);
    const float expo = (float)(1.0 / p->p_norm);

    double num = 0, den = 0, aim_num = 0, aim_den = 0;
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        float num_s, den_s, aim_s;
        if (s == 0 && p->skip_scale0) {
            num_s = 0.0f;
            den_s = (float)1e-10;   /* the reference's "avoid divide by zero" */
            aim_s = 0.0f;
        } else {
            const AdmRect *cm = &geom[s].cm;
            const int area = (cm->r - cm->l) * (cm->b - cm->t);
            den_s = band_total(acc[s].den, area, p->noise_weight, expo);
            num_s = band_total(acc[s].num, area, p->noise_weight, expo);
            aim_s = band_total(acc[s].aim, area, 0.0, expo);
        }
        num += num_s;
        den += den_s;
        if (s != p->skip_aim_scale) {
            aim_den += den_s;
            aim_num += aim_s;
        }
        out->num_scale[s] = num_s;
        out->den_scale[s] = den_s;
    }

    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;

    double adm2, aim;
    if (den == 0.0) {
        /* Uninitialised in the reference; see adm_conclude() in adm_pool.h. */
        adm2 = 1.0;
        aim = 0.0;
    } else {
        const double ratio = aim_num / aim_den;
        aim = ratio < 1.0 ? ratio : 1.0;
        adm2 = num / den;
    }

    double adm3;
    if (p->adm3_apply_hm)
        adm3 = 2 * adm2 * aim / (adm2 + aim);
    else
        adm3 = adm2 * p->dlm_weight + (1 - aim) * (1 - p->dlm_weight);
    adm3 = adm3 > p->min_val ? adm3 : p->min_val;

    out->adm2 = adm2;
    out->aim = aim;
    out->adm3 = adm3;
    out->num = num;
    out->den = den;
    for (int s = 0; s < ADM_NUM_SCALES; s++)
        out->scale[s] = out->num_scale[s] / out->den_scale[s];
}

int adm_emit(VmafFex *fex, const AdmScores *sc, bool debug, unsigned index)
{
    static const char *const names[ADM_OUT_COUNT] = {
        "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
        "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score",
        "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score",
        "adm", "adm_num", "adm_den",
        "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
        "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3",
    };
    return adm_scores_emit(fex, names, sc, debug, index);
}
