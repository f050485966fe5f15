/*
 * Bjøntegaard deltas (bdrate.h).
 *
 * The method: G. Bjøntegaard, "Calculation of average PSNR differences
 * between RD-curves", ITU-T SG16 Q.6 VCEG-M33, Austin, April 2001. Each curve
 * is interpolated as log10(bitrate) over quality (for BD-rate) or quality
 * over log10(bitrate) (for BD-quality); the two interpolants are integrated
 * over the interval both curves cover, and
 *
 *     BD-rate    = (10^((I_test - I_anchor) / (hi - lo)) - 1) * 100 %
 *     BD-quality = (I_test - I_anchor) / (hi - lo)
 *
 * VCEG-M33 fits one cubic polynomial per curve; the common test conditions
 * replaced it by a piecewise cubic Hermite interpolant (PCHIP), which follows
 * the points without overshoot: F. Bossen, "Common test conditions and
 * software reference configurations", JCTVC-L1100 (its BD-rate sheet), kept
 * by JVET's CTC sheets (JVET-T2010) and used by AOM's CTC. The slopes are
 * Fritsch and Carlson's ("Monotone piecewise cubic interpolation", SIAM J.
 * Numer. Anal. 17(2), 1980) in the form of Moler's pchip and SLATEC PCHIM,
 * as that sheet computes them:
 *
 *     h_k = x_{k+1} - x_k,   delta_k = (y_{k+1} - y_k) / h_k
 *     d_k = (w1 + w2) / (w1 / delta_{k-1} + w2 / delta_k),
 *           w1 = 2 h_k + h_{k-1},  w2 = h_k + 2 h_{k-1}   (0 where the deltas
 *           differ in sign or one is 0)
 *     d_0 = ((2 h_0 + h_1) delta_0 - h_0 delta_1) / (h_0 + h_1), set to 0 when
 *           its sign is not delta_0's, and to 3 delta_0 when the deltas differ
 *           in sign and |d_0| > |3 delta_0| (the same at the other end)
 *
 * and each piece y_k + d_k s + c_k s^2 + b_k s^3 (s = x - x_k) is integrated
 * exactly, as the sheet does, rather than sampled.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bdrate.h"

const char *bd_why(enum BdError e)
{
    switch (e) {
    case BD_OK: return "ok";
    case BD_TOO_FEW: return "a ladder has fewer than 2 encodes";
    case BD_BAD_RATE: return "a bitrate is not a number above 0";
    case BD_BAD_QUALITY: return "a score is not a number";
    case BD_NOT_MONOTONIC:
        return "the score does not rise strictly with the bitrate along a ladder";
    case BD_NO_OVERLAP: return "the ladders' ranges do not overlap";
    case BD_NO_MEMORY: return "out of memory";
    }
    return "unknown error";
}

/* One interpolant: n knots x (increasing), values y, slopes d. */
typedef struct Pchip {
    size_t n;
    double *x, *y, *d;
} Pchip;

static void pchip_free(Pchip *p)
{
    free(p->x);
    p->x = p->y = p->d = NULL;
}

static double end_slope(double h0, double h1, double del0, double del1)
{
    double d = ((2 * h0 + h1) * del0 - h0 * del1) / (h0 + h1);
    if ((d > 0) != (del0 > 0) || d == 0 || del0 == 0) d = 0;
    else if ((del0 > 0) != (del1 > 0) && fabs(d) > fabs(3 * del0)) d = 3 * del0;
    return d;
}

static int by_rate(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

/*
 * The curve's points sorted by bitrate, checked: quality must rise strictly
 * with the bitrate (an encode that costs more for less quality is not on the
 * rate-quality curve: BD is undefined then, as in the CTC tools). `over_rate`
 * builds quality over log10(rate), else log10(rate) over quality.
 */
static enum BdError pchip_make(const BdCurve *c, bool over_rate, Pchip *p)
{
    p->n = c->n;
    p->x = NULL;
    if (c->n < 2) return BD_TOO_FEW;
    for (size_t i = 0; i < c->n; i++) {
        if (!isfinite(c->rate[i]) || !(c->rate[i] > 0)) return BD_BAD_RATE;
        if (!isfinite(c->quality[i])) return BD_BAD_QUALITY;
    }
    double *pts = malloc(c->n * 2 * sizeof(double));
    p->x = malloc(c->n * 3 * sizeof(double));
    if (!pts || !p->x) {
        free(pts);
        pchip_free(p);
        return BD_NO_MEMORY;
    }
    p->y = p->x + c->n;
    p->d = p->y + c->n;
    for (size_t i = 0; i < c->n; i++) {
        pts[2 * i] = c->rate[i];
        pts[2 * i + 1] = c->quality[i];
    }
    qsort(pts, c->n, 2 * sizeof(double), by_rate);
    for (size_t i = 0; i + 1 < c->n; i++) {
        if (!(pts[2 * i] < pts[2 * i + 2]) || !(pts[2 * i + 1] < pts[2 * i + 3])) {
            free(pts);
            pchip_free(p);
            return BD_NOT_MONOTONIC;
        }
    }
    for (size_t i = 0; i < c->n; i++) {
        const double lr = log10(pts[2 * i]), q = pts[2 * i + 1];
        p->x[i] = over_rate ? lr : q;
        p->y[i] = over_rate ? q : lr;
    }
    free(pts);

    const size_t n = p->n;
    double *x = p->x, *y = p->y, *d = p->d;
    if (n == 2) {
        d[0] = d[1] = (y[1] - y[0]) / (x[1] - x[0]);
        return BD_OK;
    }
    for (size_t k = 1; k + 1 < n; k++) {
        const double h0 = x[k] - x[k - 1], h1 = x[k + 1] - x[k];
        const double del0 = (y[k] - y[k - 1]) / h0, del1 = (y[k + 1] - y[k]) / h1;
        if (del0 == 0 || del1 == 0 || (del0 > 0) != (del1 > 0)) {
            d[k] = 0;
            continue;
        }
        const double w1 = 2 * h1 + h0, w2 = h1 + 2 * h0;
        d[k] = (w1 + w2) / (w1 / del0 + w2 / del1);
    }
    const double h0 = x[1] - x[0], h1 = x[2] - x[1];
    d[0] = end_slope(h0, h1, (y[1] - y[0]) / h0, (y[2] - y[1]) / h1);
    const double g0 = x[n - 1] - x[n - 2], g1 = x[n - 2] - x[n - 3];
    d[n - 1] = end_slope(g0, g1, (y[n - 1] - y[n - 2]) / g0, (y[n - 2] - y[n - 3]) / g1);
    return BD_OK;
}

/* The piece k as y_k + d_k s + c s^2 + b s^3. */
static void piece(const Pchip *p, size_t k, double *c, double *b)
{
    const double h = p->x[k + 1] - p->x[k], delta = (p->y[k + 1] - p->y[k]) / h;
    *c = (3 * delta - 2 * p->d[k] - p->d[k + 1]) / h;
    *b = (p->d[k] - 2 * delta + p->d[k + 1]) / (h * h);
}

/* The exact integral of the interpolant over [lo, hi], inside its knots. */
static double pchip_integral(const Pchip *p, double lo, double hi)
{
    double sum = 0;
    for (size_t k = 0; k + 1 < p->n; k++) {
        const double s0 = fmin(fmax(p->x[k], lo), hi) - p->x[k];
        const double s1 = fmin(fmax(p->x[k + 1], lo), hi) - p->x[k];
        if (!(s1 > s0)) continue;
        double c, b;
        piece(p, k, &c, &b);
        sum += (s1 - s0) * p->y[k];
        sum += (s1 * s1 - s0 * s0) * p->d[k] / 2;
        sum += (s1 * s1 * s1 - s0 * s0 * s0) * c / 3;
        sum += (s1 * s1 * s1 * s1 - s0 * s0 * s0 * s0) * b / 4;
    }
    return sum;
}

/*
 * The mean difference test - anchor over the interval both cover. Both
 * integrals come from the same function over the same interval, so two
 * identical curves give exactly 0.
 */
static enum BdError mean_delta(const BdCurve *anchor, const BdCurve *test, bool over_rate,
                               double *avg)
{
    Pchip a, t;
    enum BdError e = pchip_make(anchor, over_rate, &a);
    if (e) return e;
    e = pchip_make(test, over_rate, &t);
    if (e) {
        pchip_free(&a);
        return e;
    }
    const double lo = fmax(a.x[0], t.x[0]), hi = fmin(a.x[a.n - 1], t.x[t.n - 1]);
    if (!(hi > lo)) {
        e = BD_NO_OVERLAP;
    } else {
        const double ia = pchip_integral(&a, lo, hi), it = pchip_integral(&t, lo, hi);
        *avg = (it - ia) / (hi - lo);
    }
    pchip_free(&a);
    pchip_free(&t);
    return e;
}

enum BdError bd_rate(const BdCurve *anchor, const BdCurve *test, double *percent)
{
    double avg;
    const enum BdError e = mean_delta(anchor, test, false, &avg);
    if (!e) *percent = (pow(10.0, avg) - 1) * 100;
    return e;
}

enum BdError bd_quality(const BdCurve *anchor, const BdCurve *test, double *delta)
{
    return mean_delta(anchor, test, true, delta);
}

enum BdError bd_quality_at(const BdCurve *c, double rate, double *quality)
{
    if (!(rate > 0)) return BD_BAD_RATE;
    Pchip p;
    const enum BdError e = pchip_make(c, true, &p);
    if (e) return e;
    const double x = log10(rate);
    enum BdError ret = BD_NO_OVERLAP;
    for (size_t k = 0; k + 1 < p.n; k++) {
        if (x < p.x[k] || x > p.x[k + 1]) continue;
        double cc, b;
        piece(&p, k, &cc, &b);
        const double s = x - p.x[k];
        *quality = p.y[k] + s * (p.d[k] + s * (cc + s * b));
        ret = BD_OK;
        break;
    }
    pchip_free(&p);
    return ret;
}
