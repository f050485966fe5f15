/*
 * ciede arithmetic: Netflix libvmaf v3.2.0's CIEDE2000 of two YUV samples,
 * shared by the CPU reference and every GPU twin.
 *
 * The reference (a port of av-metrics) mixes float and double at almost
 * every step; the exact type of each operation is what fixes the bits, so
 * every operation below is one FMUL/FADD/.../DDIV (src/fp.h) or an explicit
 * conversion, in the reference's order:
 *   - "(float)x" where the reference stores a double into a float variable,
 *     parameter or return value;
 *   - a float operand of a double operation is widened exactly;
 *   - pow(x, 2) is x*x in double (GCC emits exactly that for the reference,
 *     and both are the exact square of a float);
 *   - pow(c, 7), powf(c, 7), atan2, sin, cos, exp and the pow calls of the
 *     colour conversion are libm calls with the reference's arguments. The
 *     results are those of the host's libm (glibc for the goldens): a GPU
 *     twin needs bit-identical implementations of those functions, which
 *     CUDA's are not (shared/NUMERICS.md G3).
 *   - Constant expressions (2*pi, pi/6, 10/255, ...) are written as in the
 *     reference, so that they fold to the same doubles.
 *
 * The per-frame score is 45 - 20 log10(mean ΔE00), the mean taken over an
 * fp64 running sum of the float ΔE00 values in raster order (host side).
 */
#ifndef EXACTVMAF_CIEDE_ARITH_H
#define EXACTVMAF_CIEDE_ARITH_H

#include <math.h>

#include "fp.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/** L*a*b* as the reference keeps it: three floats. */
typedef struct CiedeLab {
    float l, a, b;
} CiedeLab;

/**
 * Limited-range YUV to [0, 1] (BT.709), per depth: y' = (y - off_y) * mul_y,
 * c' = (c - off_c) * mul_c. The reference computes the factors from
 * scale = 2^(bpc-8) at every sample; they are the same doubles each time.
 */
typedef struct CiedeRange {
    double off_y, off_c;
    double mul_y, mul_c;
} CiedeRange;

EV_FN CiedeRange ciede_range(unsigned bpc)
{
    const double scale = (double)(1 << (bpc - 8));
    CiedeRange r;
    r.off_y = DMUL(16., scale);
    r.off_c = DMUL(128., scale);
    r.mul_y = DDIV(1., DMUL(219., scale));
    r.mul_c = DDIV(1., DMUL(224., scale));
    return r;
}

/** Gamma-encoded R, G or B to linear light (the sRGB curve). */
EV_FN double ciede_linearize(double c)
{
    if (c > 10. / 255.)
        return pow(DMUL(DADD(c, 0.055), 1.0 / 1.055), 2.4);
    return DMUL(c, 1.0 / 12.92);
}

/** The L*a*b* companding f(t), returned as float (the reference's type). */
EV_FN float ciede_lab_f(double t)
{
    if (t > 216.0 / 24389.0)
        return (float)pow(t, 1.0 / 3.0);
    return (float)DMUL(DADD(DMUL(24389.0 / 27.0, t), 16.0), 1.0 / 116.0);
}

/** Red from y' and v'. */
EV_FN double ciede_red(double y, double v)
{
    return DADD(y, DMUL(1.28033, v));
}

/** Green from y', u' and v'. */
EV_FN double ciede_green(double y, double u, double v)
{
    return DSUB(DSUB(y, DMUL(0.21482, u)), DMUL(0.38059, v));
}

/** Blue from y' and u'. */
EV_FN double ciede_blue(double y, double u)
{
    return DADD(y, DMUL(2.12798, u));
}

/**
 * L*a*b* from linear R, G, B (each the ciede_linearize() of the channel):
 * XYZ (D65), then f() of X/Xn, Y, Z/Zn as floats, then L, a, b.
 */
EV_FN CiedeLab ciede_lab_from_linear(double r, double g, double b)
{
    const double x = DADD(DADD(DMUL(r, 0.4124564390896921), DMUL(g, 0.357576077643909)),
                          DMUL(b, 0.18043748326639894));
    const double y = DADD(DADD(DMUL(r, 0.21267285140562248), DMUL(g, 0.715152155287818)),
                          DMUL(b, 0.07217499330655958));
    const double z = DADD(DADD(DMUL(r, 0.019333895582329317), DMUL(g, 0.119192025881303)),
                          DMUL(b, 0.9503040785363677));

    const double fx = ciede_lab_f(DMUL(x, 1.0 / 0.95047));
    const double fy = ciede_lab_f(y);
    const double fz = ciede_lab_f(DMUL(z, 1.0 / 1.08883));

    CiedeLab lab;
    lab.l = (float)DSUB(DMUL(116.0, fy), 16.0);
    lab.a = (float)DMUL(500.0, DSUB(fx, fy));
    lab.b = (float)DMUL(200.0, DSUB(fy, fz));
    return lab;
}

/** L*a*b* of one YUV sample triple (the samples as the reference's floats). */
EV_FN CiedeLab ciede_lab(const CiedeRange *rg, float ys, float us, float vs)
{
    const double y = DMUL(DSUB(ys, rg->off_y), rg->mul_y);
    const double u = DMUL(DSUB(us, rg->off_c), rg->mul_c);
    const double v = DMUL(DSUB(vs, rg->off_c), rg->mul_c);
    return ciede_lab_from_linear(ciede_linearize(ciede_red(y, v)),
                                 ciede_linearize(ciede_green(y, u, v)),
                                 ciede_linearize(ciede_blue(y, u)));
}

/** Hue angle h' in [0, 2pi) of (a', b'), as float; 0 for the origin. */
EV_FN float ciede_hue(float b, float a_prime)
{
    if (b == 0.0f && a_prime == 0.0f)
        return 0.0f;
    float h = (float)atan2((double)b, (double)a_prime);
    if (h < 0.0f)
        h = (float)DADD(h, 2. * M_PI);
    return h;
}

/**
 * Δh'. As the reference, the zero test is on the unprimed chromas c1, c2;
 * the wrap adds or subtracts 2pi in double after the float difference.
 */
EV_FN float ciede_delta_hue(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0f || c2 == 0.0f)
        return 0.0f;
    const float d = FSUB(h2, h1);
    if ((double)fabsf(FSUB(h1, h2)) <= M_PI)
        return d;
    if (h2 <= h1)
        return (float)DADD(d, 2. * M_PI);
    return (float)DSUB(d, 2. * M_PI);
}

/** Mean hue H̄' (float sum, then double). */
EV_FN float ciede_mean_hue(float h1, float h2)
{
    const float sum = FADD(h1, h2);
    if ((double)fabsf(FSUB(h1, h2)) > M_PI)
        return (float)DDIV(DADD(sum, 2.0 * M_PI), 2.0);
    return (float)DDIV((double)sum, 2.0);
}

/** T(H̄'), the hue weighting, in double, stored as float. */
EV_FN float ciede_t(float hb)
{
    const double t1 = DMUL(0.17, cos(DSUB(hb, M_PI / 6.0)));
    const double t2 = DMUL(0.24, cos(DMUL(2.0, hb)));
    const double t3 = DMUL(0.32, cos(DADD(DMUL(3.0, hb), M_PI / 30.0)));
    const double t4 = DMUL(0.20, cos(DSUB(DMUL(4.0, hb), 7.0 * M_PI / 20.0)));
    return (float)DSUB(DADD(DADD(DSUB(1.0, t1), t2), t3), t4);
}

/** R_T, the rotation term, from C̄' and H̄'. */
EV_FN float ciede_r_t(float cbp, float hb)
{
    /* (H̄' in degrees - 275) / 25, each step stored as float as in the reference. */
    const float hb_deg = (float)DMUL(hb, 180.0 / M_PI);
    const float x = (float)DMUL(DSUB(hb_deg, 275.0), 1.0 / 25.0);
    /* 25^7 as the reference's powf(25., 7) folds: the float nearest 6103515625. */
    const float c7 = powf(cbp, 7.0f);
    const float ratio = FDIV(c7, FADD(c7, 6103515625.0f));
    /* powf(x, 2) is x*x in float (as GCC emits it); 60 exp(-x^2) degrees,
     * stored as float, then to radians, stored as float. */
    const float theta_deg = (float)DMUL(60.0, exp((double)(-FMUL(x, x))));
    const float theta = (float)DMUL(theta_deg, M_PI / 180.0);
    return (float)DMUL(DMUL(-2.0, sqrt((double)ratio)), sin((double)theta));
}

/** ΔE00 of two L*a*b* colours with kL = 0.65, kC = 1, kH = 4 (the reference's). */
EV_FN float ciede_de2000(CiedeLab c1, CiedeLab c2)
{
    const float k_l = (float)0.65, k_c = (float)1.0, k_h = (float)4.0;

    const float dl = FSUB(c2.l, c1.l);
    const float l_bar = FDIV(FADD(c1.l, c2.l), 2.0f);
    const float ch1 = (float)sqrt(DADD(DMUL(c1.a, c1.a), DMUL(c1.b, c1.b)));
    const float ch2 = (float)sqrt(DADD(DMUL(c2.a, c2.a), DMUL(c2.b, c2.b)));
    const float c_bar = FDIV(FADD(ch1, ch2), 2.0f);

    /* G: a' = a + (a/2) (1 - sqrt(C̄^7 / (C̄^7 + 25^7))), the product in double. */
    const double c_bar7 = pow((double)c_bar, 7.0);
    const double g = DSUB(1.0, sqrt(DDIV(c_bar7, DADD(c_bar7, 6103515625.0))));
    const float a1p = (float)DADD(c1.a, DMUL(FDIV(c1.a, 2.0f), g));
    const float a2p = (float)DADD(c2.a, DMUL(FDIV(c2.a, 2.0f), g));

    const float cp1 = (float)sqrt(DADD(DMUL(a1p, a1p), DMUL(c1.b, c1.b)));
    const float cp2 = (float)sqrt(DADD(DMUL(a2p, a2p), DMUL(c2.b, c2.b)));
    const float cbp = FDIV(FADD(cp1, cp2), 2.0f);
    const float dc = FSUB(cp2, cp1);

    const float l50 = FSUB(l_bar, 50.0f);
    const double l50_sq = DMUL(l50, l50);
    const float s_l = (float)DADD(1., DDIV(DMUL(0.015, l50_sq), sqrt(DADD(20.0, l50_sq))));
    const float s_c = (float)DADD(1., DMUL(0.045, cbp));

    const float h1 = ciede_hue(c1.b, a1p);
    const float h2 = ciede_hue(c2.b, a2p);
    const float dh = ciede_delta_hue(ch1, ch2, h1, h2);
    /* ΔH' = 2 sqrt(C1' C2') sin(Δh'/2); the chroma product is float. */
    const float d_big_h = (float)DMUL(DMUL(2.0, sqrt((double)FMUL(cp1, cp2))),
                                      sin(DDIV(dh, 2.0)));
    const float hb = ciede_mean_hue(h1, h2);
    const float t = ciede_t(hb);
    const float s_h = (float)DADD(1.0, DMUL(DMUL(0.015, cbp), t));
    const float r_t = ciede_r_t(cbp, hb);

    const float lightness = FDIV(dl, FMUL(k_l, s_l));
    const float chroma = FDIV(dc, FMUL(k_c, s_c));
    const float hue = FDIV(d_big_h, FMUL(k_h, s_h));

    /* Squares in double (exact), the cross term in float. */
    const double sum = DADD(DADD(DADD(DMUL(lightness, lightness), DMUL(chroma, chroma)),
                                 DMUL(hue, hue)),
                            FMUL(FMUL(r_t, chroma), hue));
    return (float)sqrt(sum);
}

#endif
