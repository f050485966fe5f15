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
 *     CUDA's are not (docs/numerics.md G3).
 *   - Constant expressions (2*pi, pi/6, 10/255, ...) are written as in the
 *     reference, so that they fold to the same doubles.
 *
 * The per-frame score is 45 - 20 log10(mean ΔE00), the mean taken over an
 * fp64 running sum of the float ΔE00 values in raster order (host side).
 *
 * GPU twins. The device's pow, atan2, sin, cos and exp are not glibc's, but
 * every libm result here is narrowed to a float (or compared with a
 * constant) a few exact operations later. So a twin computes with its own
 * functions and certifies each narrowing: CIEDE_F(cert, v, err) rounds v,
 * where err bounds how far the CPU's value of v can be from the twin's,
 * and marks the pixel hard unless every value within err rounds to the same
 * float; CIEDE_GT does the same for a comparison. The bounds follow from
 * CIEDE_LIBM, the largest relative difference assumed between two libm
 * results for one argument (glibc's and CUDA's documented errors are a few
 * ulp; 2^-47 is 32 ulp), carried through the exact operations between.
 * powf(C̄', 7), whose float result is the reference's directly, is bracketed
 * instead: every float within one ulp of C̄'^7 (glibc's powf errs by less)
 * gives the rest of ΔE00, and the pixel is open unless they agree: the host
 * finishes it with glibc's powf. A hard pixel's ΔE00 is the CPU's, computed
 * by the host (ciede_gpu.c). On the CPU
 * the macros are the plain narrowing and comparison: nothing changes there.
 */
#ifndef EXACTVMAF_CIEDE_ARITH_H
#define EXACTVMAF_CIEDE_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fp.h"

/* The libm calls: the math room's on the host (glibc's bits on every
 * system, src/math/ev_math.h); a device twin calls its own and certifies
 * (above). atan2, sin and cos are still the host's libm: glibc's are LGPL
 * code that the room does not carry (docs/numerics.md). */
#if defined(__CUDA_ARCH__) || defined(__OPENCL_C_VERSION__)
#define CIEDE_POW pow
#define CIEDE_POWF powf
#define CIEDE_EXP exp
#else
#include "math/ev_math.h"
#define CIEDE_POW ev_pow
#define CIEDE_POWF ev_powf
#define CIEDE_EXP ev_exp
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#if defined(__CUDACC__) || defined(__OPENCL_C_VERSION__)
#define CIEDE_CERTIFY 1
#else
#define CIEDE_CERTIFY 0
#endif

/**
 * A pixel's certificate on the GPU: hard when a narrowing could differ
 * from the CPU's. libm: the largest relative difference assumed between
 * two libm results for one argument (CIEDE_LIBM; larger in tests, which
 * makes many pixels hard).
 */
typedef struct CiedeCert {
    int hard;
    double libm;
} CiedeCert;

/* The assumed difference: 32 ulp (glibc's and CUDA's documented errors are
 * a few ulp, OpenCL's bounds up to 16). */
#define CIEDE_LIBM 0x1p-47

#if CIEDE_CERTIFY
#define CIEDE_LIBM_OR_0 (cert->libm)
#define CIEDE_U_OR_0 CIEDE_U
/* One double rounding, relative. */
#define CIEDE_U 0x1p-53

/** v to float; hard unless all of [v - err, v + err] rounds to it (err doubled for slack). */
EV_FN float ciede_float(CiedeCert *c, double v, double err)
{
    if ((float)(v - 2.0 * err) != (float)(v + 2.0 * err)) c->hard = 1;
    return (float)v;
}

/** v > thr; hard when v is within err of thr. */
EV_FN int ciede_gt(CiedeCert *c, double v, double thr, double err)
{
    if (fabs(v - thr) <= 2.0 * err) c->hard = 1;
    return v > thr;
}
#define CIEDE_F(c, v, err) ciede_float((c), (v), (err))
#define CIEDE_GT(c, v, thr, err) ciede_gt((c), (v), (thr), (err))
#else
#define CIEDE_LIBM_OR_0 0.0
#define CIEDE_U_OR_0 0.0
#define CIEDE_F(c, v, err) ((float)(v))
#define CIEDE_GT(c, v, thr, err) ((v) > (thr))
#endif

/*
 * The GPU twins' frame sum. The reference adds the float ΔE00 values in
 * double in raster order. A value of exponent >= CIEDE_SUM_MIN_EXP is a
 * whole number of 2^-CIEDE_SUM_UNIT_BITS units, so the twin adds those units
 * as integers (any order gives the same total), and finds the smallest
 * value; while every value is such a multiple and the smallest value's last
 * bit is no finer than the total's ulp, every partial sum of the raster
 * order is exact and the reference's sum is that total (ciede_gpu.c).
 * ΔE00 < 2^9, so frames below 2^25 pixels keep the total below 2^64 units.
 */
#define CIEDE_SUM_UNIT_BITS 30
/* ΔE00 stays below this (about 365 at most with these weights); a value
 * that does not is left to the host. */
#define CIEDE_MAX_VALUE 512.0f
#define CIEDE_SUM_MIN_EXP (23 - CIEDE_SUM_UNIT_BITS)
#define CIEDE_MAX_PIXELS (1u << 25)
/* The per-frame words the kernel leaves: the units' total (two words, low
 * first), the counts of hard and of open pixels, the smallest certified
 * value's bits. */
enum {
    CIEDE_RES_UNITS_LO, CIEDE_RES_UNITS_HI, CIEDE_RES_HARD, CIEDE_RES_OPEN, CIEDE_RES_MIN,
    CIEDE_RES_WORDS
};
/** The exponent of a positive finite float's bits. */
EV_FN int ciede_exponent(uint32_t bits)
{
    return (int)(bits >> 23) - 127;
}

/**
 * A positive value below CIEDE_MAX_VALUE, given by its bits, as a count of
 * 2^-CIEDE_SUM_UNIT_BITS units; 0 when its exponent is below
 * CIEDE_SUM_MIN_EXP (not a whole count; such a value sends the frame to
 * the host's raster sum through the smallest value).
 */
EV_FN uint64_t ciede_sum_units(uint32_t bits)
{
    const int e = ciede_exponent(bits);
    if (e < CIEDE_SUM_MIN_EXP) return 0;
    return (uint64_t)((bits & 0x7fffffu) | 0x800000u) << (e - CIEDE_SUM_MIN_EXP);
}

/* Hard pixels listed per frame (their index); more are found by their NaN
 * in the values. */
#define CIEDE_HARD_MAX 4096u
/* Open pixels listed per frame: index, then the float bits of lightness,
 * chroma, hue, C̄' and θ (CiedeParts). One that finds the list full is
 * listed as hard. */
#define CIEDE_OPEN_MAX (1u << 17)
#define CIEDE_OPEN_WORDS 6
/* Items per group along a row. */
#define CIEDE_GROUP 256

/*
 * Chroma on the luma grid as the reference reads it (ciede.c): 4:4:4 as is,
 * 4:2:0 at (i/2, j/2), 4:2:2 as the run of w samples from chroma row i/2
 * continuing through the padding-free rows. layout: CIEDE_CHROMA_*.
 */
enum { CIEDE_CHROMA_444, CIEDE_CHROMA_420, CIEDE_CHROMA_422 };

/** The chroma sample pixel (i, j) reads: its number in a plane of cw samples per row, no padding. */
EV_FN size_t ciede_chroma_at(int layout, int i, int j, int cw)
{
    if (layout == CIEDE_CHROMA_420) return (size_t)(i / 2) * (size_t)cw + (size_t)(j / 2);
    if (layout == CIEDE_CHROMA_422) return (size_t)(i / 2) * (size_t)cw + (size_t)j;
    return (size_t)i * (size_t)cw + (size_t)j;
}

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
        return CIEDE_POW(DMUL(DADD(c, 0.055), 1.0 / 1.055), 2.4);
    return DMUL(c, 1.0 / 12.92);
}

/**
 * The L*a*b* companding f(t), returned as float (the reference's type).
 * err_t: how far the CPU's t may be from this t (GPU; unused on the CPU).
 */
EV_FN float ciede_lab_f(CiedeCert *cert, double t, double err_t)
{
    (void)cert;
    (void)err_t;
    if (CIEDE_GT(cert, t, 216.0 / 24389.0, err_t)) {
        const double f = CIEDE_POW(t, 1.0 / 3.0);
        /* d(t^(1/3)) = f dt / 3t, and the two cube roots' own difference. */
        return CIEDE_F(cert, f, f * (err_t / (3.0 * t) * 1.01 + CIEDE_LIBM_OR_0));
    }
    /* 24389/27/116 < 7.8; three roundings of a value below 2. */
    return CIEDE_F(cert, DMUL(DADD(DMUL(24389.0 / 27.0, t), 16.0), 1.0 / 116.0),
                   7.8 * err_t + 0x1p-50);
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
EV_FN CiedeLab ciede_lab_from_linear(CiedeCert *cert, double r, double g, double b)
{
    /* GPU: each linear value within CIEDE_LIBM of the CPU's; X, Y and Z are
     * sums of their multiples, so their difference is bounded by that of
     * the terms' magnitudes plus a few roundings (the X/Xn and Z/Zn scalings
     * below 1.06). */
    const double mag = fabs(r) + fabs(g) + fabs(b);
    const double err = 2.2 * (CIEDE_LIBM_OR_0 + 0x1p-49) * mag;
    (void)err;
    const double x = DADD(DADD(DMUL(r, 0.4124564390896921), DMUL(g, 0.357576077643909)),
                          DMUL(b, 0.18043748326639894));
    const double y = DADD(DADD(DMUL(r, 0.21267285140562248), DMUL(g, 0.715152155287818)),
                          DMUL(b, 0.07217499330655958));
    const double z = DADD(DADD(DMUL(r, 0.019333895582329317), DMUL(g, 0.119192025881303)),
                          DMUL(b, 0.9503040785363677));

    const double fx = ciede_lab_f(cert, DMUL(x, 1.0 / 0.95047), err);
    const double fy = ciede_lab_f(cert, y, err);
    const double fz = ciede_lab_f(cert, DMUL(z, 1.0 / 1.08883), err);

    CiedeLab lab;
    lab.l = (float)DSUB(DMUL(116.0, fy), 16.0);
    lab.a = (float)DMUL(500.0, DSUB(fx, fy));
    lab.b = (float)DMUL(200.0, DSUB(fy, fz));
    return lab;
}

/** L*a*b* of one YUV sample triple (the samples as the reference's floats). */
EV_FN CiedeLab ciede_lab_cert(CiedeCert *cert, const CiedeRange *rg, float ys, float us,
                              float vs)
{
    const double y = DMUL(DSUB(ys, rg->off_y), rg->mul_y);
    const double u = DMUL(DSUB(us, rg->off_c), rg->mul_c);
    const double v = DMUL(DSUB(vs, rg->off_c), rg->mul_c);
    return ciede_lab_from_linear(cert, ciede_linearize(ciede_red(y, v)),
                                 ciede_linearize(ciede_green(y, u, v)),
                                 ciede_linearize(ciede_blue(y, u)));
}

/** The CPU's L*a*b* (nothing to certify). */
EV_FN CiedeLab ciede_lab(const CiedeRange *rg, float ys, float us, float vs)
{
    return ciede_lab_cert(NULL, rg, ys, us, vs);
}

/** Hue angle h' in [0, 2pi) of (a', b'), as float; 0 for the origin. */
EV_FN float ciede_hue(CiedeCert *cert, float b, float a_prime)
{
    (void)cert;
    if (b == 0.0f && a_prime == 0.0f)
        return 0.0f;
    const double at = atan2((double)b, (double)a_prime);
    float h = CIEDE_F(cert, at, fabs(at) * 2.0 * CIEDE_LIBM_OR_0);
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
    if (fabs((double)FSUB(h1, h2)) <= M_PI)
        return d;
    if (h2 <= h1)
        return (float)DADD(d, 2. * M_PI);
    return (float)DSUB(d, 2. * M_PI);
}

/** Mean hue H̄' (float sum, then double). */
EV_FN float ciede_mean_hue(float h1, float h2)
{
    const float sum = FADD(h1, h2);
    if (fabs((double)FSUB(h1, h2)) > M_PI)
        return (float)DDIV(DADD(sum, 2.0 * M_PI), 2.0);
    return (float)DDIV((double)sum, 2.0);
}

/** T(H̄'), the hue weighting, in double, stored as float. */
EV_FN float ciede_t(CiedeCert *cert, float hb)
{
    (void)cert;
    const double t1 = DMUL(0.17, cos(DSUB(hb, M_PI / 6.0)));
    const double t2 = DMUL(0.24, cos(DMUL(2.0, hb)));
    const double t3 = DMUL(0.32, cos(DADD(DMUL(3.0, hb), M_PI / 30.0)));
    const double t4 = DMUL(0.20, cos(DSUB(DMUL(4.0, hb), 7.0 * M_PI / 20.0)));
    /* Each cosine within CIEDE_LIBM of the CPU's (|cos| <= 1, weights 0.93
     * in all), and eight roundings of values below 2. */
    return CIEDE_F(cert, DSUB(DADD(DADD(DSUB(1.0, t1), t2), t3), t4),
                   CIEDE_LIBM_OR_0 + 0x1p-48);
}

/** R_T's rotation θ in radians, from H̄' alone, as the reference's float. */
EV_FN float ciede_rotation(CiedeCert *cert, float hb)
{
    (void)cert;
    /* (H̄' in degrees - 275) / 25, each step stored as float as in the reference. */
    const float hb_deg = (float)DMUL(hb, 180.0 / M_PI);
    const float x = (float)DMUL(DSUB(hb_deg, 275.0), 1.0 / 25.0);
    /* powf(x, 2) is x*x in float (as GCC emits it); 60 exp(-x^2) degrees,
     * stored as float, then to radians, stored as float. */
    const double e60 = DMUL(60.0, CIEDE_EXP((double)(-FMUL(x, x))));
    const float theta_deg = CIEDE_F(cert, e60, e60 * (CIEDE_LIBM_OR_0 + 2.0 * CIEDE_U_OR_0));
    return (float)DMUL(theta_deg, M_PI / 180.0);
}

/** What ΔE00 needs besides C̄'^7 and sin(θ): the three weighted differences, C̄' and θ. */
typedef struct CiedeParts {
    float lightness, chroma, hue;   /* ΔL'/(kL SL), ΔC'/(kC SC), ΔH'/(kH SH) */
    float cbp;                      /* C̄' */
    float theta;                    /* ciede_rotation(H̄') */
} CiedeParts;

/** Everything of ΔE00 with kL = 0.65, kC = 1, kH = 4 (the reference's) but C̄'^7. */
EV_FN CiedeParts ciede_parts(CiedeCert *cert, CiedeLab c1, CiedeLab c2)
{
    (void)cert;
    const float k_l = (float)0.65, k_c = (float)1.0, k_h = (float)4.0;

    const float dl = FSUB(c2.l, c1.l);
    const float l_bar = FDIV(FADD(c1.l, c2.l), 2.0f);
    const float ch1 = (float)sqrt(DADD(DMUL(c1.a, c1.a), DMUL(c1.b, c1.b)));
    const float ch2 = (float)sqrt(DADD(DMUL(c2.a, c2.a), DMUL(c2.b, c2.b)));
    const float c_bar = FDIV(FADD(ch1, ch2), 2.0f);

    /* G: a' = a + (a/2) (1 - sqrt(C̄^7 / (C̄^7 + 25^7))), the product in double.
     * GPU: G within CIEDE_LIBM/2 + 2^-51 of the CPU's (a ratio below 1 under
     * a square root), so a' within |a| (CIEDE_LIBM + 2^-48) (|a'| >= |a|). */
    const double c_bar7 = CIEDE_POW((double)c_bar, 7.0);
    const double g = DSUB(1.0, sqrt(DDIV(c_bar7, DADD(c_bar7, 6103515625.0))));
    const float a1p = CIEDE_F(cert, DADD(c1.a, DMUL(FDIV(c1.a, 2.0f), g)),
                              fabs((double)c1.a) * (CIEDE_LIBM_OR_0 + 0x1p-48));
    const float a2p = CIEDE_F(cert, DADD(c2.a, DMUL(FDIV(c2.a, 2.0f), g)),
                              fabs((double)c2.a) * (CIEDE_LIBM_OR_0 + 0x1p-48));

    const float cp1 = (float)sqrt(DADD(DMUL(a1p, a1p), DMUL(c1.b, c1.b)));
    const float cp2 = (float)sqrt(DADD(DMUL(a2p, a2p), DMUL(c2.b, c2.b)));
    const float cbp = FDIV(FADD(cp1, cp2), 2.0f);
    const float dc = FSUB(cp2, cp1);

    const float l50 = FSUB(l_bar, 50.0f);
    const double l50_sq = DMUL(l50, l50);
    const float s_l = (float)DADD(1., DDIV(DMUL(0.015, l50_sq), sqrt(DADD(20.0, l50_sq))));
    const float s_c = (float)DADD(1., DMUL(0.045, cbp));

    const float h1 = ciede_hue(cert, c1.b, a1p);
    const float h2 = ciede_hue(cert, c2.b, a2p);
    const float dh = ciede_delta_hue(ch1, ch2, h1, h2);
    /* ΔH' = 2 sqrt(C1' C2') sin(Δh'/2); the chroma product is float. */
    const double dbh = DMUL(DMUL(2.0, sqrt((double)FMUL(cp1, cp2))), sin(DDIV(dh, 2.0)));
    const float d_big_h = CIEDE_F(cert, dbh, fabs(dbh) * (CIEDE_LIBM_OR_0 + 2.0 * CIEDE_U_OR_0));
    const float hb = ciede_mean_hue(h1, h2);
    const float t = ciede_t(cert, hb);
    const float s_h = (float)DADD(1.0, DMUL(DMUL(0.015, cbp), t));

    CiedeParts p;
    p.lightness = FDIV(dl, FMUL(k_l, s_l));
    p.chroma = FDIV(dc, FMUL(k_c, s_c));
    p.hue = FDIV(d_big_h, FMUL(k_h, s_h));
    p.cbp = cbp;
    p.theta = ciede_rotation(cert, hb);
    return p;
}

/**
 * ΔE00 from its parts, c7, the float C̄'^7 (the reference's powf(C̄', 7)),
 * and s = sin(θ) in double.
 */
EV_FN float ciede_tail(CiedeCert *cert, const CiedeParts *p, float c7, double s)
{
    (void)cert;
    /* R_T = -2 sqrt(C̄'^7 / (C̄'^7 + 25^7)) sin(θ); 25^7 as the reference's
     * powf(25., 7) folds: the float nearest 6103515625. */
    const float ratio = FDIV(c7, FADD(c7, 6103515625.0f));
    const double rt = DMUL(DMUL(-2.0, sqrt((double)ratio)), s);
    const float r_t = CIEDE_F(cert, rt, fabs(rt) * (CIEDE_LIBM_OR_0 + 2.0 * CIEDE_U_OR_0));

    /* Squares in double (exact), the cross term in float. */
    const double sum = DADD(DADD(DADD(DMUL(p->lightness, p->lightness),
                                      DMUL(p->chroma, p->chroma)),
                                 DMUL(p->hue, p->hue)),
                            FMUL(FMUL(r_t, p->chroma), p->hue));
    return (float)sqrt(sum);
}

#if !CIEDE_CERTIFY
/** ΔE00 from its parts with glibc's powf and sin (the twins bracket powf instead). */
EV_FN float ciede_tail_cpu(const CiedeParts *p)
{
    return ciede_tail(NULL, p, CIEDE_POWF(p->cbp, 7.0f), sin((double)p->theta));
}

/** The CPU's ΔE00 of two L*a*b* colours. */
EV_FN float ciede_de2000(CiedeLab c1, CiedeLab c2)
{
    const CiedeParts p = ciede_parts(NULL, c1, c2);
    return ciede_tail_cpu(&p);
}
#endif

#if CIEDE_CERTIFY
/**
 * The GPU's ΔE00 of a pixel whose parts are p (certified): the CPU's unless
 * cert->hard, or unless *open, where only C̄'^7 is in doubt. glibc's
 * powf(C̄', 7) is within one float ulp of C̄'^7, so it is one of the floats
 * around the device's C̄'^7 (which is within CIEDE_LIBM of the true power):
 * the one it rounds to and the neighbour on the power's side, and both
 * neighbours when the power is that close to a float. When they give
 * different ΔE00 values, the host computes this pixel's ΔE00 from p with
 * glibc's powf and sin (ciede_tail()).
 */
EV_FN float ciede_de2000_certified(CiedeCert *cert, const CiedeParts *p, int *open)
{
    *open = 0;
    const double s = sin((double)p->theta);
    if (p->cbp == 0.0f) return ciede_tail(cert, p, 0.0f, s);   /* powf(0, 7) is +0 exactly */
    const double t7 = CIEDE_POW((double)p->cbp, 7.0);
    const float f0 = (float)t7;
    const uint32_t b0 = ev_f32_bits(f0);
    const double near = 2.0 * cert->libm * t7;
    /* C̄' > 0, so C̄'^7 >= +0 and the neighbours are the bit patterns -1
     * and +1. The one below is a candidate when the power may lie below f0,
     * and when f0 is a power of two (the step below is half an ulp). */
    const int lo = b0 > 0 && (t7 <= (double)f0 + near || !(b0 & 0x7fffffu));
    const int hi = b0 < 0x7f7fffffu && t7 >= (double)f0 - near;
    const float r = ciede_tail(cert, p, f0, s);
    if (lo && ciede_tail(cert, p, ev_bits_f32(b0 - 1), s) != r) *open = 1;
    if (hi && ciede_tail(cert, p, ev_bits_f32(b0 + 1), s) != r) *open = 1;
    return r;
}
#endif

#endif
