/*
 * Checks src/fp_exact.h against the host's own IEEE-754 float and double
 * operations, bit for bit (results that are NaN on both sides count as
 * equal: fp_exact.h does not promise NaN payloads; every non-NaN result,
 * including the sign of zero, must match exactly; selections (neg, abs, min,
 * max) must match exactly even for NaN).
 *
 * Cases: (a) a fixed edge set (signed zeros, subnormal/normal boundaries,
 * 1 +- ulp, max finite, infinities, NaNs, powers of two, explicit ties) and
 * its cross product for binary operations; (b) seeded random operands
 * mixing uniform bit patterns, uniform exponent/mantissa, sparse mantissas
 * (exact products and ties), subnormals and exponent pairs aimed at
 * underflow, overflow and cancellation; (c) doubles within a few ulps of the
 * float rounding boundaries (midpoints) for double->float.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Wundef -Werror=vla -ffp-contract=off \
 *       -Isrc tests/test_fp_exact.c -lm -o test_fp_exact
 *   ./test_fp_exact [--quick] [--seed N] [--exhaustive]
 *
 * --quick divides the random counts by 20; --exhaustive adds every binary32
 * input of sqrt and float->double (minutes).
 * Assumes the host evaluates float and double in their own types
 * (FLT_EVAL_METHOD 0, e.g. x86-64 SSE) with no FTZ/DAZ.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "fp_exact.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "the reference needs FLT_EVAL_METHOD 0"
#endif

/* ---- bits, PRNG --------------------------------------------------------- */

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static uint64_t rng;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}
static uint32_t rnd32(void) { return (uint32_t)(rnd() >> 32); }
static int rndn(int n) { return (int)((rnd() >> 33) % (uint64_t)n); } /* [0, n) */
static int rndr(int lo, int hi) { return lo + rndn(hi - lo + 1); }   /* [lo, hi] */
static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

/* ---- host references (volatile: evaluated at run time, in SSE) ---------- */

static uint32_t ref_fdiv(uint32_t a, uint32_t b)
{
    volatile float x = u2f(a), y = u2f(b);
    return f2u(x / y);
}
static uint32_t ref_fsqrt(uint32_t a) { volatile float x = u2f(a); return f2u(sqrtf(x)); }
static uint64_t ref_dfromf(uint32_t a) { volatile float x = u2f(a); return d2u((double)x); }
static uint32_t ref_dtof(uint64_t a) { volatile double x = u2d(a); return f2u((float)x); }
static uint64_t ref_dfromi(int64_t a) { volatile int64_t x = a; return d2u((double)x); }
static uint64_t ref_dfromu(uint64_t a) { volatile uint64_t x = a; return d2u((double)x); }
static int64_t ref_dtoi(uint64_t a) { volatile double x = u2d(a); return (int64_t)x; }
#define REF_D2(name, expr)                                  \
    static uint64_t name(uint64_t a, uint64_t b)            \
    {                                                       \
        volatile double x = u2d(a), y = u2d(b);             \
        double xa = x, yb = y;                              \
        return d2u(expr);                                   \
    }
REF_D2(ref_dadd, xa + yb)
REF_D2(ref_dsub, xa - yb)
REF_D2(ref_dmul, xa * yb)
REF_D2(ref_ddiv, xa / yb)
REF_D2(ref_dmin, xa < yb ? xa : yb)
REF_D2(ref_dmax, xa > yb ? xa : yb)
static int ref_dlt(uint64_t a, uint64_t b) { volatile double x = u2d(a), y = u2d(b); return x < y; }
static int ref_dle(uint64_t a, uint64_t b) { volatile double x = u2d(a), y = u2d(b); return x <= y; }
static int ref_deq(uint64_t a, uint64_t b) { volatile double x = u2d(a), y = u2d(b); return x == y; }
static uint64_t ref_dneg(uint64_t a) { volatile double x = u2d(a); return d2u(-x); }
static uint64_t ref_dabs(uint64_t a) { volatile double x = u2d(a); return d2u(fabs(x)); }

/* ---- bookkeeping -------------------------------------------------------- */

typedef struct { const char *name; uint64_t n, bad; } Stat;
static uint64_t g_checks, g_failed;

static int nan32(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }
static int nan64(uint64_t u) { return (u & ~(UINT64_C(1) << 63)) > UINT64_C(0x7ff0000000000000); }

static void miss(Stat *s, const char *ops, uint64_t got, uint64_t want)
{
    if (s->bad++ < 8)
        printf("  FAIL %s(%s): got %016" PRIx64 " want %016" PRIx64 "\n", s->name, ops, got, want);
}

/* One check per routine; operands and results as bit patterns. */
static void c_fdiv(Stat *s, uint32_t a, uint32_t b)
{
    const uint32_t g = f2u(ev_fdiv_rn(u2f(a), u2f(b))), w = ref_fdiv(a, b);
    s->n++;
    if (g != w && !(nan32(g) && nan32(w))) {
        char o[64];
        snprintf(o, sizeof o, "%08" PRIx32 ", %08" PRIx32, a, b);
        miss(s, o, g, w);
    }
}
static void c_fsqrt(Stat *s, uint32_t a)
{
    const uint32_t g = f2u(ev_fsqrt_rn(u2f(a))), w = ref_fsqrt(a);
    s->n++;
    if (g != w && !(nan32(g) && nan32(w))) {
        char o[64];
        snprintf(o, sizeof o, "%08" PRIx32, a);
        miss(s, o, g, w);
    }
}
static void c_dfromf(Stat *s, uint32_t a)
{
    const uint64_t g = ev_d_from_f(u2f(a)), w = ref_dfromf(a);
    s->n++;
    if (g != w && !(nan64(g) && nan64(w))) {
        char o[64];
        snprintf(o, sizeof o, "%08" PRIx32, a);
        miss(s, o, g, w);
    }
}
static void c_dtof(Stat *s, uint64_t a)
{
    const uint32_t g = f2u(ev_d_to_f(a)), w = ref_dtof(a);
    s->n++;
    if (g != w && !(nan32(g) && nan32(w))) {
        char o[64];
        snprintf(o, sizeof o, "%016" PRIx64, a);
        miss(s, o, g, w);
    }
}
static void c_dfromi(Stat *s, int64_t a)
{
    const uint64_t g = ev_d_from_i64(a), w = ref_dfromi(a);
    s->n++;
    if (g != w) {
        char o[64];
        snprintf(o, sizeof o, "%" PRId64, a);
        miss(s, o, g, w);
    }
}
static void c_dfromu(Stat *s, uint64_t a)
{
    const uint64_t g = ev_d_from_u64(a), w = ref_dfromu(a);
    s->n++;
    if (g != w) {
        char o[64];
        snprintf(o, sizeof o, "%" PRIu64, a);
        miss(s, o, g, w);
    }
}
static void c_dtoi(Stat *s, uint64_t a) /* a must be in [-2^63, 2^63) */
{
    const int64_t g = ev_d_to_i64_trunc(a), w = ref_dtoi(a);
    s->n++;
    if (g != w) {
        char o[64];
        snprintf(o, sizeof o, "%016" PRIx64, a);
        miss(s, o, (uint64_t)g, (uint64_t)w);
    }
}
/* Binary64 op: `exact` demands identical bits even for NaN (selections). */
static void c_d2(Stat *s, ev_f64 (*f)(ev_f64, ev_f64), uint64_t (*r)(uint64_t, uint64_t),
                 int exact, uint64_t a, uint64_t b)
{
    const uint64_t g = f(a, b), w = r(a, b);
    s->n++;
    if (g != w && (exact || !(nan64(g) && nan64(w)))) {
        char o[64];
        snprintf(o, sizeof o, "%016" PRIx64 ", %016" PRIx64, a, b);
        miss(s, o, g, w);
    }
}
static void c_dcmp(Stat *s, int (*f)(ev_f64, ev_f64), int (*r)(uint64_t, uint64_t), uint64_t a,
                   uint64_t b)
{
    const int g = f(a, b), w = r(a, b);
    s->n++;
    if (g != w) {
        char o[64];
        snprintf(o, sizeof o, "%016" PRIx64 ", %016" PRIx64, a, b);
        miss(s, o, (uint64_t)g, (uint64_t)w);
    }
}
static void c_d1(Stat *s, ev_f64 (*f)(ev_f64), uint64_t (*r)(uint64_t), uint64_t a)
{
    const uint64_t g = f(a), w = r(a);
    s->n++;
    if (g != w) {
        char o[64];
        snprintf(o, sizeof o, "%016" PRIx64, a);
        miss(s, o, g, w);
    }
}

/* ---- edge sets ---------------------------------------------------------- */

/* Positive binary32 patterns; each is also used negated. */
static const uint32_t F_EDGE[] = {
    0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x00000005, 0x00000007, 0x00000200,
    0x003fffff, 0x00400000, 0x00400001, 0x007ffffe, 0x007fffff, 0x00800000, 0x00800001,
    0x00ffffff, 0x01000000, 0x1f800000, 0x33800000, 0x34000000, 0x3eaaaaab, 0x3dcccccd,
    0x3f000000, 0x3f7fffff, 0x3f800000, 0x3f800001, 0x3f800003, 0x3fc00000, 0x3fffffff,
    0x40000000, 0x40400000, 0x40800000, 0x41200000, 0x4b7fffff, 0x4b800000, 0x5f800000,
    0x7e800000, 0x7f000000, 0x7f7ffffe, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x7f800001,
    0x7fffffff,
};
#define N_F_EDGE (sizeof F_EDGE / sizeof F_EDGE[0])

static const uint64_t D_EDGE[] = {
    0x0000000000000000, 0x0000000000000001, 0x0000000000000002, 0x0000000000000003,
    0x0000000000000005, 0x000fffffffffffff, 0x000ffffffffffffe, 0x0008000000000000,
    0x0008000000000001, 0x0010000000000000, 0x0010000000000001, 0x001fffffffffffff,
    0x0020000000000000, 0x0340000000000000, 0x3690000000000000, 0x36a0000000000000,
    0x36a8000000000000, 0x3800000000000000, 0x3810000000000000, 0x380fffffe0000000,
    0x3ca0000000000000, 0x3cb0000000000000, 0x3fd5555555555555, 0x3fb999999999999a,
    0x3fe0000000000000, 0x3fefffffffffffff, 0x3ff0000000000000, 0x3ff0000000000001,
    0x3ff0000000000003, 0x3ff0000010000000, 0x3ff0000030000000, 0x3ff0000010000001,
    0x3ff8000000000000, 0x3fffffffffffffff, 0x4000000000000000, 0x4008000000000000,
    0x4340000000000000, 0x4330000000000001, 0x43e0000000000000, 0x43dfffffffffffff,
    0x47efffffe0000000, 0x47efffffefffffff, 0x47effffff0000000, 0x47f0000000000000,
    0x7fd0000000000000, 0x7fe0000000000000, 0x7feffffffffffffe, 0x7fefffffffffffff,
    0x7ff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001, 0x7fffffffffffffff,
};
#define N_D_EDGE (sizeof D_EDGE / sizeof D_EDGE[0])

static uint32_t f_edge(size_t i) /* i < 2 * N_F_EDGE */
{
    return F_EDGE[i % N_F_EDGE] | (i >= N_F_EDGE ? 0x80000000u : 0);
}
static uint64_t d_edge(size_t i)
{
    return D_EDGE[i % N_D_EDGE] | (i >= N_D_EDGE ? UINT64_C(1) << 63 : 0);
}

/* ---- random operands ---------------------------------------------------- */

static uint32_t f_make(uint32_t sign, int E, uint32_t frac)
{
    return (sign ? 0x80000000u : 0) | ((uint32_t)clampi(E, 0, 255) << 23) | (frac & 0x7fffffu);
}
static uint32_t f_sparse_frac(void) /* few significant bits: exact products, ties */
{
    const int k = rndr(0, 23);
    return k == 23 ? 0 : rnd32() & ~((1u << k) - 1) & 0x7fffffu;
}
static uint32_t rand_f(void)
{
    switch (rndn(10)) {
    case 0: case 1: return rnd32();
    case 2: case 3: case 4: return f_make(rnd32() & 1, rndr(0, 255), rnd32());
    case 5: return f_make(rnd32() & 1, rndr(0, 255), f_sparse_frac());
    case 6: return f_edge((size_t)rndn(2 * N_F_EDGE));
    case 7: return f_make(rnd32() & 1, rndr(120, 134),
                          rndn(2) ? (uint32_t)rndn(16) : 0x7fffffu - (uint32_t)rndn(16));
    case 8: return f_make(rnd32() & 1, 0, rnd32() >> rndn(24)); /* subnormal */
    default: return f_make(rnd32() & 1, rndr(1, 254), rnd32()); /* finite normal */
    }
}

static uint64_t d_make(uint64_t sign, int E, uint64_t frac)
{
    return (sign ? UINT64_C(1) << 63 : 0) | ((uint64_t)clampi(E, 0, 2047) << 52) |
           (frac & EV_F64_FRAC);
}
static uint64_t d_sparse_frac(void)
{
    const int k = rndr(0, 52);
    return k == 52 ? 0 : rnd() & ~((UINT64_C(1) << k) - 1) & EV_F64_FRAC;
}
static int d_E(uint64_t d) { return (int)((d >> 52) & 0x7ff); }
static uint64_t rand_d(void)
{
    switch (rndn(11)) {
    case 0: case 1: return rnd();
    case 2: case 3: case 4: return d_make(rnd() & 1, rndr(0, 2047), rnd());
    case 5: return d_make(rnd() & 1, rndr(0, 2047), d_sparse_frac());
    case 6: return d_edge((size_t)rndn(2 * N_D_EDGE));
    case 7: return d_make(rnd() & 1, rndr(1016, 1030),
                          rndn(2) ? (uint64_t)rndn(16) : EV_F64_FRAC - (uint64_t)rndn(16));
    case 8: return d_make(rnd() & 1, 0, rnd() >> rndn(53));
    case 9: return d2u((double)u2f(rand_f())); /* float-valued doubles */
    default: return d_make(rnd() & 1, rndr(1, 2046), rnd());
    }
}
/* A finite operand with biased exponent E (clamped), random sign and fraction. */
static uint64_t rand_d_near(int E)
{
    const uint64_t frac = rndn(3) ? rnd() : d_sparse_frac();
    return d_make(rnd() & 1, clampi(E, 0, 2046), frac);
}

/* Double halfway between binary32 f (finite) and its neighbour away from
 * (up = 1) or toward (up = 0) zero, exactly, in double. */
static double f_mid(uint32_t f, int up)
{
    const float x = u2f(f);
    const float dir = (f >> 31) ? (up ? -INFINITY : INFINITY) : (up ? INFINITY : -INFINITY);
    const float y = nextafterf(x, dir);
    double dy = (double)y;
    if (isinf(y))
        dy = (double)x + copysign(ldexp(1.0, 104), (double)x);
    return (double)x + (dy - (double)x) / 2;
}

/* ---- the runs ----------------------------------------------------------- */

static void report(const Stat *s)
{
    printf("%s: %" PRIu64 " cases, %" PRIu64 " different\n", s->name, s->n, s->bad);
    g_checks += s->n;
    g_failed += s->bad;
}

static void run_fdiv(uint64_t n)
{
    Stat s = { "ev_fdiv_rn", 0, 0 };
    for (size_t i = 0; i < 2 * N_F_EDGE; i++)
        for (size_t j = 0; j < 2 * N_F_EDGE; j++)
            c_fdiv(&s, f_edge(i), f_edge(j));
    for (uint64_t k = 0; k < n; k++) {
        const uint32_t a = rand_f();
        const int Ea = (int)((a >> 23) & 0xff);
        uint32_t b;
        switch (rndn(6)) {
        case 0: /* quotient near or below the smallest normal: ties exist only there */
            b = f_make(rnd32() & 1, Ea + 126 + rndr(-4, 30), rndn(2) ? 0 : f_sparse_frac());
            break;
        case 1: /* quotient near overflow */
            b = f_make(rnd32() & 1, Ea - 127 + rndr(-4, 4), rnd32());
            break;
        case 2: { /* a = b * q exactly (or nearly): exact quotients */
            const uint32_t bb = f_make(rnd32() & 1, rndr(1, 254), f_sparse_frac());
            const uint32_t q = f_make(rnd32() & 1, rndr(100, 154), f_sparse_frac());
            volatile float p = u2f(bb) * u2f(q);
            c_fdiv(&s, f2u(p), bb);
            b = bb;
            break;
        }
        default:
            b = rand_f();
        }
        c_fdiv(&s, a, b);
    }
    report(&s);
}

static void run_fsqrt(uint64_t n, int exhaustive)
{
    Stat s = { "ev_fsqrt_rn", 0, 0 };
    for (size_t i = 0; i < 2 * N_F_EDGE; i++)
        c_fsqrt(&s, f_edge(i));
    for (uint64_t k = 0; k < n; k++) {
        if (rndn(4) == 0) { /* exact squares and their neighbours */
            const uint32_t r = f_make(0, rndr(1, 254), f_sparse_frac() & 0x7ff800u);
            volatile float sq = u2f(r) * u2f(r);
            const uint32_t b = f2u(sq);
            c_fsqrt(&s, b + (uint32_t)rndr(-2, 2));
        } else {
            c_fsqrt(&s, rand_f());
        }
    }
    if (exhaustive)
        for (uint64_t u = 0; u <= 0xffffffffu; u++)
            c_fsqrt(&s, (uint32_t)u);
    report(&s);
}

static void run_conv(uint64_t n, int exhaustive)
{
    Stat sf = { "ev_d_from_f", 0, 0 }, st = { "ev_d_to_f", 0, 0 };
    Stat si = { "ev_d_from_i64", 0, 0 }, su = { "ev_d_from_u64", 0, 0 };
    Stat sc = { "ev_d_to_i64_trunc", 0, 0 };

    for (size_t i = 0; i < 2 * N_F_EDGE; i++)
        c_dfromf(&sf, f_edge(i));
    for (uint64_t k = 0; k < n; k++)
        c_dfromf(&sf, rand_f());
    if (exhaustive)
        for (uint64_t u = 0; u <= 0xffffffffu; u++)
            c_dfromf(&sf, (uint32_t)u);

    /* double -> float: the edge doubles, then the midpoints of every finite
     * edge float in both directions (ties to even and to odd neighbours,
     * 0 / min subnormal, max subnormal / min normal, max finite / infinity)
     * and their double neighbours. */
    for (size_t i = 0; i < 2 * N_D_EDGE; i++)
        c_dtof(&st, d_edge(i));
    for (size_t i = 0; i < 2 * N_F_EDGE; i++) {
        const uint32_t f = f_edge(i);
        if ((f & 0x7fffffffu) >= 0x7f800000u)
            continue;
        for (int up = 0; up < 2; up++) {
            const uint64_t m = d2u(f_mid(f, up));
            for (int d = -3; d <= 3; d++)
                c_dtof(&st, m + (uint64_t)(int64_t)d);
        }
    }
    for (uint64_t k = 0; k < n; k++) {
        const int mode = rndn(8);
        if (mode < 5) { /* near a float rounding boundary */
            uint32_t f;
            do f = rand_f(); while ((f & 0x7fffffffu) >= 0x7f800000u);
            const uint64_t m = d2u(f_mid(f, rndn(2)));
            int64_t d;
            if (mode < 3)
                d = rndr(-4, 4);
            else if (mode == 3)
                d = (int64_t)(rnd() >> rndr(35, 63)) * (rndn(2) ? 1 : -1);
            else
                d = 0;
            c_dtof(&st, m + (uint64_t)d);
        } else if (mode == 5) { /* anywhere in or near the float range */
            c_dtof(&st, d_make(rnd() & 1, rndr(1023 - 160, 1023 + 130), rnd()));
        } else {
            c_dtof(&st, rand_d());
        }
    }

    static const int64_t I_EDGE[] = {
        0, 1, -1, 2, 3, INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX - 1,
        (INT64_C(1) << 53), (INT64_C(1) << 53) + 1, (INT64_C(1) << 53) + 2,
        (INT64_C(1) << 53) + 3, -(INT64_C(1) << 53) - 1, -(INT64_C(1) << 53) - 3,
        (INT64_C(1) << 54) + 2, (INT64_C(1) << 54) + 6, (INT64_C(1) << 62) + 512,
        (INT64_C(1) << 62) + 513, (INT64_C(1) << 62) + 1536, INT64_MAX - 511, INT64_MAX - 512,
        INT64_MAX - 1023, INT64_MAX - 1024,
    };
    for (size_t i = 0; i < sizeof I_EDGE / sizeof I_EDGE[0]; i++) {
        c_dfromi(&si, I_EDGE[i]);
        c_dfromu(&su, (uint64_t)I_EDGE[i]);
    }
    for (uint64_t k = 0; k < n; k++) {
        uint64_t u;
        if (rndn(2)) {
            u = rnd() >> rndn(64);
        } else { /* k significant bits, the dropped ones often exactly half */
            const int bits = rndr(54, 64);
            u = (rnd() >> (64 - bits)) | (UINT64_C(1) << (bits - 1));
            const int drop = bits - 53;
            if (rndn(2))
                u = (u & ~((UINT64_C(1) << drop) - 1)) | (UINT64_C(1) << (drop - 1));
            u += (uint64_t)rndr(-1, 1);
        }
        c_dfromu(&su, u);
        c_dfromi(&si, rndn(2) ? (int64_t)(u >> 1) : -(int64_t)(u >> 1));
        c_dfromi(&si, (int64_t)u);
    }

    static const uint64_t T_EDGE[] = {
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x3fe0000000000000,
        0x3fefffffffffffff, 0x3ff0000000000000, 0x3ff8000000000000, 0x4330000000000000,
        0x4330000000000001, 0x4340000000000001, 0x43dfffffffffffff, 0xc3e0000000000000,
        0xc3dfffffffffffff, 0xbfefffffffffffff, 0xbff0000000000000, 0xbff8000000000000,
    };
    for (size_t i = 0; i < sizeof T_EDGE / sizeof T_EDGE[0]; i++)
        c_dtoi(&sc, T_EDGE[i]);
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t frac = rndn(3) ? rnd() : d_sparse_frac();
        c_dtoi(&sc, d_make(rnd() & 1, rndn(8) ? rndr(1000, 1085) : rndr(0, 1085), frac));
    }

    report(&sf);
    report(&st);
    report(&si);
    report(&su);
    report(&sc);
}

/* Second operand for the binary64 arithmetic, per operation. */
enum { OP_ADD, OP_MUL, OP_DIV };
static uint64_t rand_d_pair(uint64_t a, int op)
{
    const int Ea = d_E(a);
    switch (rndn(8)) {
    case 0: case 1: case 2: return rand_d();
    case 3: /* cancellation: -a or a, a few ulps and maybe a binade away */
        return (a ^ (rndn(2) ? UINT64_C(1) << 63 : 0)) + (uint64_t)(int64_t)rndr(-3, 3) +
               (rndn(4) ? 0 : (uint64_t)(int64_t)rndr(-1, 1) << 52);
    default:
        break;
    }
    switch (op) {
    case OP_ADD: /* exponent within 70: alignment, ties, sticky */
        return rand_d_near(Ea + rndr(-70, 70));
    case OP_MUL: /* product near underflow or overflow */
        return rand_d_near(rndn(2) ? 1023 - Ea + rndr(-60, 5) : 3069 - Ea + rndr(-5, 5));
    default:     /* quotient near underflow (power-of-two divisors give ties) or overflow */
        if (rndn(2)) {
            const uint64_t b = rand_d_near(Ea + 1023 + rndr(-5, 60));
            return rndn(2) ? b & ~EV_F64_FRAC : b;
        }
        return rand_d_near(Ea - 1023 + rndr(-5, 5));
    }
}

static void run_d_arith(uint64_t n)
{
    Stat sa = { "ev_dadd", 0, 0 }, ss = { "ev_dsub", 0, 0 };
    Stat sm = { "ev_dmul", 0, 0 }, sd = { "ev_ddiv", 0, 0 };
    for (size_t i = 0; i < 2 * N_D_EDGE; i++)
        for (size_t j = 0; j < 2 * N_D_EDGE; j++) {
            const uint64_t a = d_edge(i), b = d_edge(j);
            c_d2(&sa, ev_dadd, ref_dadd, 0, a, b);
            c_d2(&ss, ev_dsub, ref_dsub, 0, a, b);
            c_d2(&sm, ev_dmul, ref_dmul, 0, a, b);
            c_d2(&sd, ev_ddiv, ref_ddiv, 0, a, b);
        }
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t a = rand_d();
        c_d2(&sa, ev_dadd, ref_dadd, 0, a, rand_d_pair(a, OP_ADD));
        c_d2(&ss, ev_dsub, ref_dsub, 0, a, rand_d_pair(a, OP_ADD));
        c_d2(&sm, ev_dmul, ref_dmul, 0, a, rand_d_pair(a, OP_MUL));
        if (rndn(8) == 0) { /* a = b * q exactly: exact quotient */
            const uint64_t b = d_make(rnd() & 1, rndr(700, 1300), d_sparse_frac() & ~((UINT64_C(1) << 26) - 1));
            const uint64_t q = d_make(rnd() & 1, rndr(700, 1300), d_sparse_frac() & ~((UINT64_C(1) << 26) - 1));
            c_d2(&sd, ev_ddiv, ref_ddiv, 0, ref_dmul(b, q), b);
        } else {
            c_d2(&sd, ev_ddiv, ref_ddiv, 0, a, rand_d_pair(a, OP_DIV));
        }
    }
    report(&sa);
    report(&ss);
    report(&sm);
    report(&sd);
}

static void run_d_select(uint64_t n)
{
    Stat sl = { "ev_dlt", 0, 0 }, se = { "ev_dle", 0, 0 }, sq = { "ev_deq", 0, 0 };
    Stat smin = { "ev_dmin", 0, 0 }, smax = { "ev_dmax", 0, 0 };
    Stat sn = { "ev_dneg", 0, 0 }, sb = { "ev_dabs", 0, 0 };
    for (size_t i = 0; i < 2 * N_D_EDGE; i++) {
        c_d1(&sn, ev_dneg, ref_dneg, d_edge(i));
        c_d1(&sb, ev_dabs, ref_dabs, d_edge(i));
        for (size_t j = 0; j < 2 * N_D_EDGE; j++) {
            const uint64_t a = d_edge(i), b = d_edge(j);
            c_dcmp(&sl, ev_dlt, ref_dlt, a, b);
            c_dcmp(&se, ev_dle, ref_dle, a, b);
            c_dcmp(&sq, ev_deq, ref_deq, a, b);
            c_d2(&smin, ev_dmin, ref_dmin, 1, a, b);
            c_d2(&smax, ev_dmax, ref_dmax, 1, a, b);
        }
    }
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t a = rand_d();
        uint64_t b;
        switch (rndn(4)) {
        case 0: b = a; break;
        case 1: b = (a ^ (rndn(2) ? UINT64_C(1) << 63 : 0)) + (uint64_t)(int64_t)rndr(-2, 2); break;
        default: b = rand_d();
        }
        c_dcmp(&sl, ev_dlt, ref_dlt, a, b);
        c_dcmp(&se, ev_dle, ref_dle, a, b);
        c_dcmp(&sq, ev_deq, ref_deq, a, b);
        c_d2(&smin, ev_dmin, ref_dmin, 1, a, b);
        c_d2(&smax, ev_dmax, ref_dmax, 1, a, b);
        c_d1(&sn, ev_dneg, ref_dneg, a);
        c_d1(&sb, ev_dabs, ref_dabs, a);
    }
    report(&sl);
    report(&se);
    report(&sq);
    report(&smin);
    report(&smax);
    report(&sn);
    report(&sb);
}

int main(int argc, char **argv)
{
    uint64_t nf = 20000000, nd = 5000000, seed = UINT64_C(0x5eed0f9e7ac7);
    int exhaustive = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            nf /= 20;
            nd /= 20;
        } else if (!strcmp(argv[i], "--exhaustive")) {
            exhaustive = 1;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--quick] [--seed N] [--exhaustive]\n", argv[0]);
            return 2;
        }
    }
    rng = seed;
    printf("seed %" PRIu64 ", %" PRIu64 " random binary32 and %" PRIu64 " binary64 cases per routine\n",
           seed, nf, nd);
    run_fdiv(nf);
    run_fsqrt(nf, exhaustive);
    run_conv(nd, exhaustive);
    run_d_arith(nd);
    run_d_select(nd);
    printf("%" PRIu64 " checks, %" PRIu64 " failed\n", g_checks, g_failed);
    return g_failed ? 1 : 0;
}
