/*
 * Integer ADM host side: geometry, CSF factors, division table, conclusion.
 * Every conversion and libm call has the reference's types; the x86 helpers
 * below reproduce the value an x86-64 GCC build gives for a double that the
 * reference converts to uint16/uint32 (its cvttsd2si), so that even an
 * out-of-range factor (a large Barten csf scale) lands where Netflix's does.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "math/ev_math.h"
#include "feature/extractor.h"
#include "feature/float_adm/adm_csf.h"
#include "iadm_host.h"

_Static_assert(IADM_NUM_SCALES == ADM_SCORE_SCALES, "AdmScores holds every scale");

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* (uint32_t)d on x86-64: cvttsd2si to 64 bits, low half; 0 when invalid. */
static uint32_t x86_u32(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return 0;
    return (uint32_t)(int64_t)d;
}

/* (uint16_t)d on x86-64: cvttsd2si to 32 bits, low half; 0 when invalid. */
static uint16_t x86_u16(double d)
{
    if (!(d >= -2147483648.0 && d < 2147483648.0))
        return 0;
    return (uint16_t)(int32_t)d;
}

/* The border the reference trims: w * 0.1 - 0.5 (minus 1 for the filter
 * taps in the decoupling and CSF), truncated toward zero. */
static IadmRect ext_rect(int w, int h)
{
    IadmRect r;
    r.left = (int)(w * 0.1 - 0.5 - 1);
    r.top = (int)(h * 0.1 - 0.5 - 1);
    r.right = w - r.left + 2;
    r.bottom = h - r.top + 2;
    if (r.left < 0)
        r.left = 0;
    if (r.right > w)
        r.right = w;
    if (r.top < 0)
        r.top = 0;
    if (r.bottom > h)
        r.bottom = h;
    return r;
}

static IadmRect cm_rect(int w, int h)
{
    IadmRect r;
    r.left = (int)(w * 0.1 - 0.5);
    r.top = (int)(h * 0.1 - 0.5);
    r.right = w - r.left;
    r.bottom = h - r.top;
    return r;
}

/* 2^(n - 1) as the reference computes a rounding constant from an unsigned
 * shift: pow() of the uint32 n - 1, converted back (0 when n is 0). */
static uint32_t half_of(uint32_t n)
{
    return x86_u32(ev_pow(2, (double)(uint32_t)(n - 1)));
}

static int shift_ok(uint32_t s)
{
    return s <= 63;
}

int iadm_geometry(int w, int h, IadmScaleGeom g[IADM_NUM_SCALES])
{
    static const uint32_t den_sq[3] = { 31, 30, 31 };
    static const uint32_t den_pending[3] = { 32, 27, 23 };
    static const uint32_t cm_pending[3] = { 45, 39, 36 };

    int in_w = w, in_h = h;
    for (int s = 0; s < IADM_NUM_SCALES; s++) {
        IadmScaleGeom *q = &g[s];
        q->in_w = in_w;
        q->in_h = in_h;
        q->w = (in_w + 1) / 2;
        q->h = (in_h + 1) / 2;
        q->ext = ext_rect(q->w, q->h);
        q->cm = cm_rect(q->w, q->h);
        const IadmRect *c = &q->cm;
        const int cw = c->right - c->left, ch = c->bottom - c->top;

        if (s == 0) {
            int32_t sa = (int32_t)ceil(ev_log2((double)(ch * cw)) - 20);
            sa = sa > 0 ? sa : 0;
            q->den_row_shift = sa;
            q->den_row_add = sa > 0 ? (uint64_t)(1 << (sa - 1)) : 0;
            q->den_sq_shift = 0;
            q->den_cub_shift = 0;
            q->den_cub_add = 0;
            q->den_div = ev_pow(2, 18 - sa);

            const uint32_t sh = x86_u32(ceil(ev_log2(q->w) - 4));
            const uint32_t sd = x86_u32(ceil(ev_log2(q->w) - 3));
            const uint32_t si = x86_u32(ceil(ev_log2(q->h)));
            if (!shift_ok(sh) || !shift_ok(sd) || !shift_ok(si))
                return -EINVAL;
            q->cm_cub_shift[0] = q->cm_cub_shift[1] = (int)sh;
            q->cm_cub_shift[2] = (int)sd;
            q->cm_cub_add[0] = q->cm_cub_add[1] = half_of(sh);
            q->cm_cub_add[2] = half_of(sd);
            q->cm_row_shift = (int)si;
            q->cm_row_add = half_of(si);
            q->cm_div0[0] = ev_pow(2, (double)(uint32_t)(52 - sh - si));
            q->cm_div0[1] = q->cm_div0[0];
            q->cm_div0[2] = ev_pow(2, (double)(uint32_t)(57 - sd - si));
            q->cm_div123 = 0.0f;
        } else {
            const uint32_t sc = x86_u32(ceil(ev_log2(cw)));
            const uint32_t sa = x86_u32(ceil(ev_log2(ch)));
            if (!shift_ok(sc) || !shift_ok(sa))
                return -EINVAL;
            q->den_row_shift = (int)sa;
            q->den_row_add = half_of(sa);
            q->den_sq_shift = (int)den_sq[s - 1];
            q->den_cub_shift = (int)sc;
            q->den_cub_add = half_of(sc);
            q->den_div = ev_pow(2, (double)(uint32_t)(den_pending[s - 1] - sa - sc));

            const uint32_t cc = x86_u32(ceil(ev_log2(q->w)));
            const uint32_t ci = x86_u32(ceil(ev_log2(q->h)));
            if (!shift_ok(cc) || !shift_ok(ci))
                return -EINVAL;
            for (int b = 0; b < 3; b++) {
                q->cm_cub_shift[b] = (int)cc;
                q->cm_cub_add[b] = half_of(cc);
                q->cm_div0[b] = 0.0;
            }
            q->cm_row_shift = (int)ci;
            q->cm_row_add = half_of(ci);
            q->cm_div123 = (float)ev_pow(2, (double)(uint32_t)(cm_pending[s - 1] - cc - ci));
        }
        in_w = q->w;
        in_h = q->h;
    }
    return 0;
}

/* Barten-Watson blend tables (barten_csf_tools.h), [theta][scale] with
 * theta 0 for h/v and 1 for d; float. */
typedef float BlendTable[2][4];

static const BlendTable blend_1080_3h = {
    { 0.01183f, 0.025026f, 0.04295f, 0.058621f },
    { 0.004302f, 0.011778f, 0.023918f, 0.035901f } };
static const BlendTable blend_1080_5h = {
    { 0.004212f, 0.014809f, 0.029642f, 0.047464f },
    { 0.000984f, 0.005852f, 0.0146f, 0.027574f } };
static const BlendTable blend_2160_3h = {
    { 0.00226f, 0.01183f, 0.025026f, 0.04295f },
    { 0.000479f, 0.004302f, 0.011778f, 0.023918f } };
static const BlendTable blend_2160_5h = {
    { 0.000092f, 0.004212f, 0.014809f, 0.029642f },
    { 0.000050f, 0.000984f, 0.005852f, 0.0146f } };
static const BlendTable blend_720_3h = {
    { 0.018715f, 0.035637f, 0.052798f, 0.061509f },
    { 0.007999f, 0.018396f, 0.031851f, 0.037718f } };
static const BlendTable blend_720_5h = {
    { 0.010144f, 0.022561f, 0.040309f, 0.05672f },
    { 0.003463f, 0.010282f, 0.021839f, 0.034641f } };
static const BlendTable blend_480_3h = {
    { 0.027961f, 0.045875f, 0.060275f, 0.056234f },
    { 0.013572f, 0.026277f, 0.036959f, 0.034511f } };
static const BlendTable blend_480_5h = {
    { 0.016781f, 0.032822f, 0.05032f, 0.061594f },
    { 0.00691f, 0.016545f, 0.029917f, 0.037777f } };

/* The corrected ("MAE", models v1.0.17+) blend. */
static const BlendTable mae_1080_3h = {
    { 0.011249f, 0.022606f, 0.035930f, 0.045673f },
    { 0.004097f, 0.010921f, 0.021430f, 0.031313f } };
static const BlendTable mae_1080_5h = {
    { 0.004052f, 0.013939f, 0.026298f, 0.038833f },
    { 0.000927f, 0.005544f, 0.013415f, 0.024515f } };
static const BlendTable mae_2160_3h = {
    { 0.002166f, 0.011249f, 0.022606f, 0.035930f },
    { 0.000447f, 0.004097f, 0.010921f, 0.021430f } };
static const BlendTable mae_2160_5h = {
    { 0.000077f, 0.004052f, 0.013939f, 0.026298f },
    { 0.000045f, 0.000927f, 0.005544f, 0.013415f } };
static const BlendTable mae_720_3h = {
    { 0.017329f, 0.030870f, 0.042134f, 0.047410f },
    { 0.007509f, 0.016707f, 0.028072f, 0.032722f } };
static const BlendTable mae_720_5h = {
    { 0.009689f, 0.020577f, 0.034162f, 0.044523f },
    { 0.003302f, 0.009579f, 0.019661f, 0.030318f } };
static const BlendTable mae_480_3h = {
    { 0.024969f, 0.037825f, 0.046676f, 0.043974f },
    { 0.012511f, 0.023424f, 0.032139f, 0.030166f } };
static const BlendTable mae_480_5h = {
    { 0.015665f, 0.028766f, 0.040612f, 0.047483f },
    { 0.006514f, 0.015107f, 0.026476f, 0.032776f } };

/*
 * barten_watson_blend_csf(_mae): a table entry for the supported viewing
 * conditions (2160 at 1.5H shares 1080 at 3H's table), else the reference
 * returns -EINVAL as a float factor, and so do we.
 */
static float blend_factor(bool mae, int scale, int theta, double nvd, int rdh)
{
    const BlendTable *t = NULL;
    if (rdh == 1080 && nvd == 3.0)
        t = mae ? &mae_1080_3h : &blend_1080_3h;
    else if (rdh == 1080 && nvd == 5.0)
        t = mae ? &mae_1080_5h : &blend_1080_5h;
    else if (rdh == 2160 && nvd == 1.5)
        t = mae ? &mae_1080_3h : &blend_1080_3h;
    else if (rdh == 2160 && nvd == 3.0)
        t = mae ? &mae_2160_3h : &blend_2160_3h;
    else if (rdh == 2160 && nvd == 5.0)
        t = mae ? &mae_2160_5h : &blend_2160_5h;
    else if (rdh == 720 && nvd == 3.0)
        t = mae ? &mae_720_3h : &blend_720_3h;
    else if (rdh == 720 && nvd == 5.0)
        t = mae ? &mae_720_5h : &blend_720_5h;
    else if (rdh == 480 && nvd == 3.0)
        t = mae ? &mae_480_3h : &blend_480_3h;
    else if (rdh == 480 && nvd == 5.0)
        t = mae ? &mae_480_5h : &blend_480_5h;
    if (!t)
        return (float)-EINVAL;
    return (*t)[theta][scale];
}

void iadm_params(const IadmOptions *o, IadmParams *p)
{
    /* integer ADM's csf modes: 0 Watson97, 1 Barten, 2 Barten-Watson blend,
     * 3 blend (MAE). Watson and Barten are float ADM's own functions (the
     * reference shares dwt_quant_step's arithmetic and barten_csf). */
    if (o->csf_mode == 2 || o->csf_mode == 3) {
        const bool mae = o->csf_mode == 3;
        for (int s = 0; s < IADM_NUM_SCALES; s++) {
            const float f1 = blend_factor(mae, s, 0, o->norm_view_dist, o->ref_display_height);
            const float f2 = blend_factor(mae, s, 1, o->norm_view_dist, o->ref_display_height);
            p->rfactor[s][0] = f1;
            p->rfactor[s][1] = f1;
            p->rfactor[s][2] = f2;
        }
    } else {
        const AdmCsfParams csf = {
            .norm_view_dist = o->norm_view_dist,
            .ref_display_height = o->ref_display_height,
            .csf_mode = o->csf_mode == 1 ? 1 : 0,
            .csf_scale = o->csf_scale,
            .csf_diag_scale = o->csf_diag_scale,
            .f1 = { -1, -1, -1, -1 },
            .f2 = { -1, -1, -1, -1 },
        };
        adm_csf_rfactors(&csf, p->rfactor);
    }

    /* Scale 0 in Q21 (h, v) and Q23 (d), uint16; the default viewing
     * condition with Watson97 takes the reference's hard-coded values. */
    if (fabs(o->norm_view_dist * o->ref_display_height - 3.0 * 1080) < 1.0e-8 &&
        o->csf_mode == 0) {
        p->rf0[0] = 36453;
        p->rf0[1] = 36453;
        p->rf0[2] = 49417;
    } else {
        p->rf0[0] = x86_u16(p->rfactor[0][0] * ev_pow(2, 21));
        p->rf0[1] = x86_u16(p->rfactor[0][1] * ev_pow(2, 21));
        p->rf0[2] = x86_u16(p->rfactor[0][2] * ev_pow(2, 23));
    }
    for (int s = 0; s < IADM_NUM_SCALES; s++)
        for (int b = 0; b < 3; b++)
            p->rf123[s][b] = s == 0 ? 0 : x86_u32(p->rfactor[s][b] * ev_pow(2, 32));

    p->cos2 = (float)(cos(1.0 * M_PI / 180.0) * cos(1.0 * M_PI / 180.0));
    p->egl = o->enhn_gain_limit;
    p->noise_weight = o->noise_weight;
    p->dlm_weight = o->dlm_weight;
    p->min_val = o->min_val;
    p->skip_aim = o->skip_aim;
    p->skip_scale0 = o->skip_scale0;
}

void iadm_div_table(int32_t t[IADM_DIV_TABLE_SIZE])
{
    t[32768] = 0;
    for (int i = 1; i <= 32768; i++) {
        const int32_t q = (int32_t)(1073741824 / i);
        t[32768 + i] = q;
        t[32768 - i] = -q;
    }
}

void iadm_dwt_indices(int n, int *idx)
{
    const int half = (n + 1) / 2;
    int *i0 = idx, *i1 = idx + half, *i2 = idx + 2 * half, *i3 = idx + 3 * half;
    i0[0] = 1;
    i1[0] = 0;
    i2[0] = 1;
    i3[0] = 2;
    for (int i = 1; i < half - 2; i++) {
        i0[i] = 2 * i - 1;
        i1[i] = 2 * i;
        i2[i] = 2 * i + 1;
        i3[i] = 2 * i + 2;
    }
    /* The last two outputs reflect at the far edge (2n - i - 1); with half
     * == 2 this rewrites output 0, whose first tap becomes -1. */
    for (int i = half - 2 < 0 ? 0 : half - 2; i < half; i++) {
        int v[4] = { 2 * i - 1, 2 * i, 2 * i + 1, 2 * i + 2 };
        for (int k = 0; k < 4; k++)
            if (v[k] >= n)
                v[k] = 2 * n - v[k] - 1;
        i0[i] = v[0];
        i1[i] = v[1];
        i2[i] = v[2];
        i3[i] = v[3];
    }
}

/* One band's p-th root plus the noise floor, float (p = 3). */
static float root_plus(float x, float floor_term)
{
    return ev_powf(x, 1.0f / 3.0f) + floor_term;
}

/* adm_csf_den_scale / adm_csf_den_s123. */
static float den_scale(const IadmAccum *a, const IadmScaleGeom *g,
                       const float rf[3], double nw)
{
    const IadmRect *c = &g->cm;
    const float floor_term =
        ev_powf((c->bottom - c->top) * (c->right - c->left) * nw, 1.0f / 3.0f);
    float band[3];
    for (int b = 0; b < 3; b++) {
        const double csf = (double)(a->den[b] / g->den_div) * ev_pow(rf[b], 3);
        band[b] = root_plus((float)csf, floor_term);
    }
    return band[0] + band[1] + band[2];
}

/* adm_cm / i4_adm_cm's conclusion: accumulators to a float score. */
static float num_scale(const int64_t acc[3], int scale, const IadmScaleGeom *g,
                       double nw)
{
    const IadmRect *c = &g->cm;
    const float floor_term =
        ev_powf((c->bottom - c->top) * (c->right - c->left) * nw, 1.0f / 3.0f);
    float band[3];
    for (int b = 0; b < 3; b++) {
        const float f = scale == 0 ? (float)(acc[b] / g->cm_div0[b])
                                   : (float)(acc[b] / g->cm_div123);
        band[b] = root_plus(f, floor_term);
    }
    return band[0] + band[1] + band[2];
}

void iadm_conclude(const IadmAccum acc[IADM_NUM_SCALES],
                   const IadmScaleGeom g[IADM_NUM_SCALES], const IadmParams *p,
                   int w, int h, AdmScores *out)
{
    const double numden_limit = 1e-10 * (w * h) / (1920.0 * 1080.0);
    double num = 0, den = 0, aim_num = 0;

    for (int s = 0; s < IADM_NUM_SCALES; s++) {
        float ns = 0.0f, ds = 0.0f, as = 0.0f;
        if (s == 0 && p->skip_scale0) {
            /* The reference skips scale 0's work and avoids a zero divisor. */
            ds = 1e-10;
        } else {
            ds = den_scale(&acc[s], &g[s], p->rfactor[s], p->noise_weight);
            ns = num_scale(acc[s].num, s, &g[s], p->noise_weight);
            if (!p->skip_aim)
                as = num_scale(acc[s].aim, s, &g[s], 0.0);
        }
        num += ns;
        den += ds;
        aim_num += as;
        out->num_scale[s] = ns;
        out->den_scale[s] = ds;
    }

    num = num < numden_limit ? 0 : num;
    den = den < numden_limit ? 0 : den;

    double score, score_aim;
    if (den == 0.0) {
        score = 1.0f;
        /* The reference leaves its aim score uninitialised here; its builds
         * print 0 (a zeroed stack slot). */
        score_aim = 0.0;
    } else {
        score_aim = aim_num / den;
        score = num / den;
    }

    out->adm2 = score;
    out->aim = score_aim;
    const double adm3 = score * p->dlm_weight + (1 - score_aim) * (1 - p->dlm_weight);
    out->adm3 = adm3 > p->min_val ? adm3 : p->min_val;
    for (int s = 0; s < IADM_NUM_SCALES; s++)
        out->scale[s] = out->num_scale[s] / out->den_scale[s];
    out->num = num;
    out->den = den;
}

int iadm_emit(VmafFex *fex, const AdmScores *sc, bool debug, unsigned index)
{
    static const char *const names[ADM_OUT_COUNT] = {
        "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
        "VMAF_integer_feature_adm3_score",
        "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
        "integer_adm", "integer_adm_num", "integer_adm_den",
        "integer_adm_num_scale0", "integer_adm_den_scale0",
        "integer_adm_num_scale1", "integer_adm_den_scale1",
        "integer_adm_num_scale2", "integer_adm_den_scale2",
        "integer_adm_num_scale3", "integer_adm_den_scale3",
    };
    return adm_scores_emit(fex, names, sc, debug, index);
}
