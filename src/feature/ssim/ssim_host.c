/*
 * Host conclusions of float_ssim and float_ms_ssim, shared by every backend
 * (see ssim_host.h). The libm calls (log10, ceil, pow) stay here, on the
 * host, in the reference's types.
 */
#include <errno.h>
#include <math.h>

#include "math/ev_math.h"
#include "ssim_host.h"

int ssim_scale_factor(int option, int w, int h)
{
    if (option > 0)
        return option;
    /* _round((float)_min(w, h) / 256.0f): the fraction is a float compared
     * with the double 0.5; the sign is +1 for the positive sizes seen here. */
    const float a = (float)(w < h ? w : h) / 256.0f;
    const int t = (int)a;
    const int sign = a > 0.0f ? 1 : -1;
    const int r = (double)(a - (float)t) >= 0.5 ? t + sign : t;
    return r > 1 ? r : 1;
}

int ssim_decimated_size(int n, int f)
{
    return n / f + (n & 1);
}

double ssim_max_db(unsigned bpc, unsigned w, unsigned h, bool clip)
{
    if (!clip)
        return INFINITY;
    /* peak*peak and w*h are unsigned products (2^16-1 squared still fits). */
    const unsigned peak = (1u << bpc) - 1u;
    const double mse = 0.5 / (w * h);
    return ceil(10. * ev_log10(peak * peak / mse));
}

double ssim_to_db(double score, double max_db)
{
    const double db = -10. * ev_log10(1 - score);
    return db < max_db ? db : max_db;
}

int ms_ssim_pool(const float l[MS_SSIM_SCALES], const float c[MS_SSIM_SCALES],
                 const float s[MS_SSIM_SCALES], double *score)
{
    static const float alpha[MS_SSIM_SCALES] = MS_SSIM_ALPHA_INIT;
    static const float beta[MS_SSIM_SCALES] = MS_SSIM_BETA_INIT;
    static const float gamma[MS_SSIM_SCALES] = MS_SSIM_GAMMA_INIT;

    double ms = 1.0;
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        /* msssim *= pow(l, a) * pow(c, b) * pow(s, g): the three powers are
         * multiplied left to right, then into the running product. */
        const double t = ev_pow((double)l[k], (double)alpha[k]) *
                         ev_pow((double)c[k], (double)beta[k]);
        ms = ms * (t * ev_pow((double)s[k], (double)gamma[k]));
        if (ms == INFINITY)
            return -ERANGE;
    }
    *score = ms;
    return 0;
}
