/*
 * CSF weights of float_adm (docs/numerics.md 3.3.4). Every intermediate has the
 * type the reference gives it: the display resolution r and the Watson
 * logarithm are stored as float, the model parameters are float tables
 * promoted to double where they meet a double, and libm is called in double.
 * The casts below spell those conversions out; none of them is cosmetic.
 */
#include <math.h>

#include "math/ev_math.h"
#include "fp.h"
#include "adm_csf.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Watson et al. 1997, luma row of the 7-9 threshold model (float fields). */
static const float watson_a = (float)0.495;
static const float watson_k = (float)0.466;
static const float watson_f0 = (float)0.401;
static const float watson_g[4] = { (float)1.501, (float)1.0, (float)0.534, (float)1.0 };

/* Basis function amplitudes A[lambda][theta] of the same paper (float). */
static const float watson_amp[6][4] = {
    { (float)0.62171,  (float)0.67234,  (float)0.72709,  (float)0.67234  },
    { (float)0.34537,  (float)0.41317,  (float)0.49428,  (float)0.41317  },
    { (float)0.18004,  (float)0.22727,  (float)0.28688,  (float)0.22727  },
    { (float)0.091401, (float)0.11792,  (float)0.15214,  (float)0.11792  },
    { (float)0.045943, (float)0.059758, (float)0.077727, (float)0.059758 },
    { (float)0.023013, (float)0.030018, (float)0.039156, (float)0.030018 },
};

/* Barten / HDR-VDP-2 parameters (float tables). */
static const float barten_lum_anchor[6] = {
    (float)0.002, (float)0.02, (float)0.2, (float)2, (float)20, (float)150
};
static const float barten_param[6][5] = {
    { (float)0.0160737, (float)0.991265, (float)3.74038, (float)0.50722,  (float)4.46044 },
    { (float)0.383873,  (float)0.800889, (float)3.54104, (float)0.682505, (float)4.94958 },
    { (float)0.929301,  (float)0.476505, (float)4.37453, (float)0.750315, (float)5.28678 },
    { (float)1.29776,   (float)0.405782, (float)4.40602, (float)0.935314, (float)5.61425 },
    { (float)1.49222,   (float)0.334278, (float)3.79542, (float)1.07327,  (float)6.4635  },
    { (float)1.46213,   (float)0.394533, (float)2.7755,  (float)1.16577,  (float)7.45665 },
};
static const float barten_sa[4] = { (float)30.162, (float)4.0627, (float)1.6596, (float)0.2712 };
static const float barten_mtf_a[4] = {
    (float)0.424838596301290, (float)0.572435103936480,
    (float)0.000167576239164937, (float)0.00255872352306433
};
static const float barten_mtf_b[4] = { (float)0.028, (float)0.37, (float)37, (float)360 };

/* Netflix fixes the Barten luminance at DEFAULT_ADM_CSF_LUMINANCE_LEVEL. */
#define ADM_CSF_LUMINANCE 100.0

/* Display visual resolution in pixels per degree, stored as float. */
static float display_resolution(double nvd, int display_height)
{
    return (float)(nvd * display_height * M_PI / 180.0);
}

/* 1 / dwt_quant_step(): theta 1 for factor1, 2 for factor2. */
static float watson_factor(int lambda, int theta, double nvd, int display_height)
{
    const float r = display_resolution(nvd, display_height);
    const float temp = (float)ev_log10(ev_pow(2.0, lambda + 1) * (double)watson_f0 *
                                    (double)watson_g[theta] / (double)r);
    /* k * temp * temp is float * float * float in the reference. */
    const float expo = FMUL(FMUL(watson_k, temp), temp);
    const float q = (float)(2.0 * (double)watson_a * ev_pow(10.0, (double)expo) /
                            (double)watson_amp[lambda][theta]);
    return FDIV(1.0f, q);
}

/* adm_native_csf(): theta 0 (h, v) or 45 (d). */
static float native_factor(int lambda, double nvd, int display_height, int diagonal)
{
    const float r = display_resolution(nvd, display_height);
    float sf = (float)((double)r / ev_pow(2, lambda + 1));
    if (diagonal)
        sf = (float)((double)sf / 0.7);
    return (float)((0.31 + 0.69 * (double)sf) * ev_exp(-0.29 * (double)sf));
}

static float lerp_f(float lp, float lv, float rp, float rv, float sp)
{
    return FADD(lv, FMUL(FDIV(FSUB(rv, lv), FSUB(rp, lp)), FSUB(sp, lp)));
}

static float barten_rod_cone(float lum)
{
    const float ratio = FDIV(barten_sa[1], lum);
    return (float)((double)barten_sa[0] *
                   ev_pow(ev_pow((double)ratio, (double)barten_sa[2]) + 1,
                       (double)(-barten_sa[3])));
}

static float barten_mtf(float sf)
{
    float mtf = 0.0f;
    for (int i = 0; i < 4; i++) {
        const float arg = FMUL(-barten_mtf_b[i], sf);
        mtf = (float)((double)mtf + (double)barten_mtf_a[i] * ev_exp((double)arg));
    }
    return mtf;
}

static float barten_factor(int lambda, double nvd, int display_height,
                           double lum, double scale)
{
    const float r = display_resolution(nvd, display_height);
    const float sf = (float)((double)r / ev_pow(2, lambda + 1));

    /* CLAMP() of a double against float bounds yields a double. */
    const double lo = barten_lum_anchor[0], hi = barten_lum_anchor[5];
    const double clamped = lum > hi ? hi : (lum < lo ? lo : lum);

    int left = 0, right = 0;
    for (int i = 0; i < 5; i++) {
        if (clamped >= (double)barten_lum_anchor[i] &&
            clamped <= (double)barten_lum_anchor[i + 1]) {
            left = i;
            right = i + 1;
            break;
        }
    }

    const float lp = (float)ev_log10((double)barten_lum_anchor[left]);
    const float rp = (float)ev_log10((double)barten_lum_anchor[right]);
    const float sp = (float)ev_log10(clamped);
    float p[4];
    for (int k = 0; k < 4; k++)
        p[k] = lerp_f(lp, barten_param[left][k + 1], rp, barten_param[right][k + 1], sp);

    const float a = (float)(1.0 + ev_pow((double)FMUL(p[0], sf), (double)p[1]));
    const float sf7 = FDIV(sf, 7.0f);
    const float b = (float)(1.0 / ev_pow(1.0 - ev_exp(-ev_pow((double)sf7, 2.0)), (double)p[2]));
    const float csf = (float)((double)p[3] / ev_pow((double)FMUL(a, b), 0.5));

    const float prod = FMUL(FMUL(csf, barten_mtf(sf)), barten_rod_cone((float)lum));
    return (float)((double)prod * scale);
}

void adm_csf_rfactors(const AdmCsfParams *p, float rfactor[ADM_NUM_SCALES][3])
{
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        float f1, f2;
        if (p->csf_mode == 1) {
            f1 = barten_factor(s, p->norm_view_dist, p->ref_display_height,
                               ADM_CSF_LUMINANCE, p->csf_scale);
            f2 = barten_factor(s, p->norm_view_dist, p->ref_display_height,
                               ADM_CSF_LUMINANCE, p->csf_diag_scale);
        } else if (p->csf_mode == 2) {
            f1 = native_factor(s, p->norm_view_dist, p->ref_display_height, 0);
            f2 = native_factor(s, p->norm_view_dist, p->ref_display_height, 1);
        } else {
            /* Modes 0 and 3..9 all take the Watson97 branch in the reference. */
            f1 = watson_factor(s, 1, p->norm_view_dist, p->ref_display_height);
            f2 = watson_factor(s, 2, p->norm_view_dist, p->ref_display_height);
        }
        if (p->f1[s] >= 0)
            f1 = (float)p->f1[s];
        if (p->f2[s] >= 0)
            f2 = (float)p->f2[s];
        rfactor[s][0] = f1;
        rfactor[s][1] = f1;
        rfactor[s][2] = f2;
    }
}
