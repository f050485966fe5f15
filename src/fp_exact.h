/*
 * Exact IEEE-754 arithmetic in integers, for devices whose own float
 * division/sqrt is not correctly rounded or which have no binary64 at all
 * (OpenCL without cl_khr_fp64, -cl-fp32-correctly-rounded-divide-sqrt not
 * supported). Every routine returns the bits a correctly rounded
 * (round-to-nearest-even, gradual underflow, no FTZ/DAZ) host operation
 * returns, NaN payloads excepted: an operation that produces or meets a NaN
 * returns a quiet NaN (the default one from arithmetic, the quieted input
 * from the two conversions).
 *
 * Only integer arithmetic is used; floats appear solely at the edges, as
 * bit casts, so the results do not depend on the device's float unit, its
 * contraction, its denormal mode or its compiler flags.
 *
 * One text compiles as:
 *   host C11            EV_FN from fp_fn.h (static inline), memcpy bit casts;
 *   CUDA (nvcc)         EV_FN from fp_fn.h (__host__ __device__), the
 *                       __float_as_uint/__uint_as_float intrinsics on the
 *                       device, memcpy in the host pass;
 *   OpenCL C 1.2        as_uint/as_float. The program text must supply, before
 *                       this file, the typedefs uint32_t (uint), uint64_t
 *                       (ulong), int64_t (long) (gpu/opencl/ev_opencl.h does);
 *                       EV_FN from fp_fn.h (static inline).
 *   Nothing of fp.h is used here; fp.h includes this file where its FDIV,
 *   FSQRT or D_* need it.
 *
 * binary64 values are carried as their bit patterns (ev_f64), because the
 * OpenCL device may have no `double` type at all.
 *
 * Internal helpers end in an underscore. Cost, besides a few dozen integer
 * operations each: fdiv one 64/64-bit division, fsqrt a 32-step integer
 * root, ddiv six 64/64-bit divisions, dmul four 32x32->64-bit products.
 * Correctness first: there are no fast paths.
 */
#ifndef EXACTVMAF_FP_EXACT_H
#define EXACTVMAF_FP_EXACT_H

#if !defined(__OPENCL_C_VERSION__)
#include <stdint.h>
#include <string.h>
#endif
/* Outside the #if so that an include inliner that expands every include
 * once, wherever it is met (gpu/opencl/cl2c.py), never buries it in a
 * false branch. */
#include "fp_fn.h"

/* 64-bit constants: OpenCL's `long` is 64 bits and has no `long long`. */
#if defined(__OPENCL_C_VERSION__)
#define EV_U64(c) ((uint64_t)(c##UL))
#else
#define EV_U64(c) UINT64_C(c)
#endif

/* ---- bit casts ---------------------------------------------------------- */

#if defined(__OPENCL_C_VERSION__)
#define EV_F2U(f) as_uint(f)
#define EV_U2F(u) as_float(u)
#elif defined(__CUDA_ARCH__)
#define EV_F2U(f) __float_as_uint(f)
#define EV_U2F(u) __uint_as_float(u)
#else
EV_FN uint32_t ev_f2u_(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
EV_FN float ev_u2f_(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#define EV_F2U(f) ev_f2u_(f)
#define EV_U2F(u) ev_u2f_(u)
#endif

/** A binary64 number as its IEEE-754 bit pattern. */
typedef uint64_t ev_f64;

#define EV_F32_SIGN 0x80000000u
#define EV_F32_INF 0x7f800000u
#define EV_F32_QNAN 0x7fc00000u
#define EV_F64_SIGN EV_U64(0x8000000000000000)
#define EV_F64_INF EV_U64(0x7ff0000000000000)
#define EV_F64_QNAN EV_U64(0x7ff8000000000000)
#define EV_F64_FRAC EV_U64(0x000fffffffffffff)

/* ---- shared integer machinery ------------------------------------------ */

/* Leading zeros of a nonzero x; a portable binary search (no builtins, so
 * the same text serves every compiler). */
EV_FN int ev_clz64_(uint64_t x)
{
    int n = 0;
    if (!(x >> 32)) { n += 32; x <<= 32; }
    if (!(x >> 48)) { n += 16; x <<= 16; }
    if (!(x >> 56)) { n += 8; x <<= 8; }
    if (!(x >> 60)) { n += 4; x <<= 4; }
    if (!(x >> 62)) { n += 2; x <<= 2; }
    if (!(x >> 63)) { n += 1; }
    return n;
}

/*
 * The one rounding step of every routine. Input: a nonzero m and an
 * exponent e standing for m * 2^e. When the true value is not exactly
 * m * 2^e, the caller has ORed a sticky 1 into bit 0 of a truncated m that
 * holds at least P + 3 significant bits: the true value then lies strictly
 * between the truncated m and m + 1, and because the round bit sits at least
 * one position above bit 0, every rounding boundary (a representable value
 * or a midpoint, both multiples of 2 units here) lies on the same side of
 * m | 1 as of the true value. So rounding m | 1 once gives the correctly
 * rounded true value, in the normal and (after a longer shift) the
 * subnormal range alike.
 *
 * Output: the magnitude bits of the format with P fraction bits and bias B
 * (binary32: 23, 127; binary64: 52, 1023), overflowing to infinity.
 */
EV_FN uint64_t ev_round_pack_(uint64_t m, int e, int P, int B)
{
    const int lz = ev_clz64_(m);
    const int emax = 2 * B + 1; /* the all-ones exponent field */
    m <<= lz;
    e -= lz;
    /* m now has its leading 1 at bit 63; E is that bit's biased exponent. */
    const int E = e + 63 + B;
    if (E >= emax)
        return (uint64_t)emax << P;
    /*
     * A normal result keeps the top P+1 bits. A subnormal one has a fixed
     * unit 2^(1-B-P), so it keeps 1-E fewer bits; its exponent field is 0.
     * Writing the field as (E-1) and adding the significand including its
     * implicit 1 lets a carry out of rounding step into the next binade (or
     * from the largest subnormal into the smallest normal, or from the
     * largest finite into infinity) by plain addition.
     */
    int s = 63 - P;
    uint64_t field = 0;
    if (E >= 1)
        field = (uint64_t)(E - 1);
    else
        s += 1 - E;
    if (s > 64)
        return 0; /* below half the smallest subnormal: m < 2^64 < 2^(s-1) */
    uint64_t sig, rem, tie;
    if (s == 64) {
        sig = 0;
        rem = m;
        tie = EV_U64(1) << 63;
    } else {
        sig = m >> s;
        rem = m & ((EV_U64(1) << s) - 1);
        tie = EV_U64(1) << (s - 1);
    }
    if (rem > tie || (rem == tie && (sig & 1)))
        sig++;
    /* At most (emax-2) << P plus 2^(P+1): a carry out of the largest finite
     * value yields exactly the infinity pattern, never beyond it. */
    return (field << P) + sig;
}

/* Significand and exponent of a finite nonzero magnitude: value = sig*2^exp.
 * Subnormals share the exponent of the smallest normal binade. */
EV_FN uint64_t ev_f32_sig_(uint32_t mag)
{
    return (uint64_t)((mag & 0x7fffffu) | (mag >= 0x800000u ? 0x800000u : 0u));
}
EV_FN int ev_f32_exp_(uint32_t mag)
{
    const int E = (int)(mag >> 23);
    return (E ? E : 1) - 150;
}
EV_FN uint64_t ev_f64_sig_(uint64_t mag)
{
    return (mag & EV_F64_FRAC) | (mag > EV_F64_FRAC ? EV_F64_FRAC + 1 : 0);
}
EV_FN int ev_f64_exp_(uint64_t mag)
{
    const int E = (int)(mag >> 52);
    return (E ? E : 1) - 1075;
}

/* ---- binary32 division and square root --------------------------------- */

/** IEEE binary32 a / b, round to nearest even, on bit patterns. */
EV_FN uint32_t ev_fdiv_bits(uint32_t a, uint32_t b)
{
    const uint32_t s = (a ^ b) & EV_F32_SIGN;
    const uint32_t aa = a & ~EV_F32_SIGN, ab = b & ~EV_F32_SIGN;
    if (aa > EV_F32_INF || ab > EV_F32_INF)
        return EV_F32_QNAN;
    if (aa == EV_F32_INF)
        return ab == EV_F32_INF ? EV_F32_QNAN : (s | EV_F32_INF);
    if (ab == EV_F32_INF)
        return s;
    if (ab == 0)
        return aa == 0 ? EV_F32_QNAN : (s | EV_F32_INF);
    if (aa == 0)
        return s;

    /* Normalize both significands to [2^23, 2^24). */
    uint64_t ma = ev_f32_sig_(aa), mb = ev_f32_sig_(ab);
    int ea = ev_f32_exp_(aa), eb = ev_f32_exp_(ab);
    const int la = ev_clz64_(ma) - 40, lb = ev_clz64_(mb) - 40;
    ma <<= la;
    ea -= la;
    mb <<= lb;
    eb -= lb;
    /* ma * 2^40 < 2^64; the quotient lies in (2^39, 2^41), so it has at least
     * 40 bits, well over the 26 the sticky argument needs. */
    const uint64_t n = ma << 40;
    uint64_t q = n / mb;
    q |= (n - q * mb) != 0;
    return s | (uint32_t)ev_round_pack_(q, ea - eb - 40, 23, 127);
}

/** Integer square root: floor(sqrt(x)), and whether it was exact. */
EV_FN uint64_t ev_isqrt64_(uint64_t x, int *inexact)
{
    /* Digit by digit, two input bits per step: with the root r so far,
     * appending a 1 costs (2r+1)^2 - (2r)^2 = 4r+1 of the remainder. */
    uint64_t root = 0, rem = 0;
    for (int i = 0; i < 32; i++) {
        root <<= 1;
        rem = (rem << 2) | (x >> 62);
        x <<= 2;
        const uint64_t t = (root << 1) | 1;
        if (rem >= t) {
            rem -= t;
            root |= 1;
        }
    }
    *inexact = rem != 0;
    return root;
}

/** IEEE binary32 sqrt(a), round to nearest even, on bit patterns. */
EV_FN uint32_t ev_fsqrt_bits(uint32_t a)
{
    if ((a & ~EV_F32_SIGN) == 0)
        return a; /* sqrt(-0) = -0 */
    if (a & EV_F32_SIGN)
        return EV_F32_QNAN;
    if (a >= EV_F32_INF)
        return a == EV_F32_INF ? a : EV_F32_QNAN;
    uint64_t m = ev_f32_sig_(a);
    int e = ev_f32_exp_(a);
    const int l = ev_clz64_(m) - 40;
    m <<= l;
    e -= l;
    /* Shift by 38 or 39 so the remaining exponent is even (it halves
     * exactly) and m stays below 2^63: the root then has at least 31 bits,
     * over the 26 needed, and the remainder gives the sticky bit. */
    const int sh = 38 + (int)((unsigned)(e - 38) & 1u);
    int inexact;
    uint64_t r = ev_isqrt64_(m << sh, &inexact);
    r |= (uint64_t)inexact;
    return (uint32_t)ev_round_pack_(r, (e - sh) / 2, 23, 127);
}

/** IEEE binary32 a / b, correctly rounded, without the device's divider. */
EV_FN float ev_fdiv_rn(float a, float b)
{
    return EV_U2F(ev_fdiv_bits(EV_F2U(a), EV_F2U(b)));
}

/** IEEE binary32 sqrt(a), correctly rounded, without the device's sqrt. */
EV_FN float ev_fsqrt_rn(float a)
{
    return EV_U2F(ev_fsqrt_bits(EV_F2U(a)));
}

/* ---- binary64 conversions ---------------------------------------------- */

/** (double)f on bit patterns: exact; a NaN keeps sign and payload, quieted. */
EV_FN ev_f64 ev_d_from_f_bits(uint32_t f)
{
    const uint64_t s = (uint64_t)(f & EV_F32_SIGN) << 32;
    const uint32_t a = f & ~EV_F32_SIGN;
    if (a > EV_F32_INF)
        return s | EV_F64_QNAN | ((uint64_t)(a & 0x7fffffu) << 29);
    if (a == EV_F32_INF)
        return s | EV_F64_INF;
    if (a == 0)
        return s;
    /* 24 bits into 53: the rounding step never rounds. */
    return s | ev_round_pack_(ev_f32_sig_(a), ev_f32_exp_(a), 52, 1023);
}

/** (float)d on bit patterns, round to nearest even (a NaN keeps sign and the
 * top of its payload, quieted). */
EV_FN uint32_t ev_d_to_f_bits(ev_f64 d)
{
    const uint32_t s = (uint32_t)((d & EV_F64_SIGN) >> 32);
    const uint64_t a = d & ~EV_F64_SIGN;
    if (a > EV_F64_INF)
        return s | EV_F32_QNAN | (uint32_t)((a & EV_F64_FRAC) >> 29);
    if (a == EV_F64_INF)
        return s | EV_F32_INF;
    if (a == 0)
        return s;
    /* The 53-bit significand is exact: no sticky bit, one rounding. */
    return s | (uint32_t)ev_round_pack_(ev_f64_sig_(a), ev_f64_exp_(a), 23, 127);
}

/** (double)f, exact. */
EV_FN ev_f64 ev_d_from_f(float f)
{
    return ev_d_from_f_bits(EV_F2U(f));
}

/** (float)d, round to nearest even, including results that become subnormal
 * and overflow to infinity. */
EV_FN float ev_d_to_f(ev_f64 d)
{
    return EV_U2F(ev_d_to_f_bits(d));
}

/** (double)u, round to nearest even. */
EV_FN ev_f64 ev_d_from_u64(uint64_t u)
{
    /* u itself is the exact value, so the rounding step sees it whole. */
    return u ? ev_round_pack_(u, 0, 52, 1023) : 0;
}

/** (double)i, round to nearest even. */
EV_FN ev_f64 ev_d_from_i64(int64_t i)
{
    /* The magnitude in unsigned arithmetic also covers INT64_MIN. */
    const uint64_t mag = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
    return (i < 0 ? EV_F64_SIGN : 0) | ev_d_from_u64(mag);
}

/**
 * (int64_t)d, truncating toward zero, for -2^63 <= d < 2^63 (C's defined
 * range). NaN and out-of-range values return INT64_MIN, as x86's cvttsd2si
 * does; C leaves them undefined.
 */
EV_FN int64_t ev_d_to_i64_trunc(ev_f64 d)
{
    const uint64_t a = d & ~EV_F64_SIGN;
    const int E = (int)(a >> 52);
    const int64_t lowest = -(int64_t)(EV_U64(0x7fffffffffffffff)) - 1;
    if (E < 1023)
        return 0; /* |d| < 1 */
    if (E >= 1023 + 63)
        return lowest; /* |d| >= 2^63: -2^63 itself, or out of range */
    const uint64_t m = ev_f64_sig_(a);
    const int sh = E - 1075;
    const uint64_t mag = sh >= 0 ? m << sh : m >> -sh; /* mag < 2^63 */
    return (d & EV_F64_SIGN) ? -(int64_t)mag : (int64_t)mag;
}

/* ---- binary64 arithmetic ----------------------------------------------- */

/** -d (flips the sign bit, NaN included, like C's unary minus). */
EV_FN ev_f64 ev_dneg(ev_f64 d)
{
    return d ^ EV_F64_SIGN;
}

/** fabs(d). */
EV_FN ev_f64 ev_dabs(ev_f64 d)
{
    return d & ~EV_F64_SIGN;
}

/** IEEE binary64 a + b, round to nearest even. */
EV_FN ev_f64 ev_dadd(ev_f64 a, ev_f64 b)
{
    uint64_t aa = a & ~EV_F64_SIGN, ab = b & ~EV_F64_SIGN;
    if (aa > EV_F64_INF || ab > EV_F64_INF)
        return EV_F64_QNAN;
    if (aa == EV_F64_INF)
        return (ab == EV_F64_INF && ((a ^ b) & EV_F64_SIGN)) ? EV_F64_QNAN : a;
    if (ab == EV_F64_INF)
        return b;
    if (ab == 0)
        return aa == 0 ? (a & b) : a; /* -0 + -0 = -0, any other zero sum +0 */
    if (aa == 0)
        return b;
    if (aa < ab) { /* order by magnitude: the result takes a's sign */
        const uint64_t t = a; a = b; b = t;
        const uint64_t u = aa; aa = ab; ab = u;
    }
    /*
     * Ten guard bits below both 53-bit significands (ma < 2^63, so the sum
     * fits in 64 bits). b is aligned to a; the bits it loses (only when the
     * exponents differ by more than 10) become a sticky 1 in bit 0. Then,
     * sum or difference, m is odd (ma is even) and the true result lies
     * within one unit of it, with at least 62 significant bits: no rounding
     * boundary (all even here) separates them, which is the condition of
     * ev_round_pack_. With nothing lost (close exponents, so every
     * cancellation) m is exact.
     */
    const int ea = ev_f64_exp_(aa), eb = ev_f64_exp_(ab);
    const uint64_t ma = ev_f64_sig_(aa) << 10;
    uint64_t mb = ev_f64_sig_(ab) << 10;
    const int d = ea - eb; /* >= 0 */
    if (d >= 64)
        mb = 1;
    else if (d > 0)
        mb = (mb >> d) | (uint64_t)((mb << (64 - d)) != 0);
    const uint64_t m = ((a ^ b) & EV_F64_SIGN) ? ma - mb : ma + mb;
    if (m == 0)
        return 0; /* x + (-x) = +0 in round to nearest */
    return (a & EV_F64_SIGN) | ev_round_pack_(m, ea - 10, 52, 1023);
}

/** IEEE binary64 a - b (= a + (-b) exactly, signed zeros included). */
EV_FN ev_f64 ev_dsub(ev_f64 a, ev_f64 b)
{
    return ev_dadd(a, b ^ EV_F64_SIGN);
}

/* Full 64x64 -> 128-bit product from 32-bit halves (no __int128 in OpenCL). */
EV_FN uint64_t ev_mul64x64_(uint64_t a, uint64_t b, uint64_t *lo)
{
    const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    const uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    /* Three terms below 2^32 each: the middle column cannot overflow. */
    const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Finite nonzero magnitude -> significand in [2^52, 2^53) and exponent. */
EV_FN uint64_t ev_f64_norm_(uint64_t mag, int *e)
{
    uint64_t m = ev_f64_sig_(mag);
    const int l = ev_clz64_(m) - 11;
    *e = ev_f64_exp_(mag) - l;
    return m << l;
}

/** IEEE binary64 a * b, round to nearest even. */
EV_FN ev_f64 ev_dmul(ev_f64 a, ev_f64 b)
{
    const uint64_t s = (a ^ b) & EV_F64_SIGN;
    const uint64_t aa = a & ~EV_F64_SIGN, ab = b & ~EV_F64_SIGN;
    if (aa > EV_F64_INF || ab > EV_F64_INF)
        return EV_F64_QNAN;
    if (aa == EV_F64_INF || ab == EV_F64_INF)
        return (aa == 0 || ab == 0) ? EV_F64_QNAN : (s | EV_F64_INF);
    if (aa == 0 || ab == 0)
        return s;
    int ea, eb;
    const uint64_t ma = ev_f64_norm_(aa, &ea), mb = ev_f64_norm_(ab, &eb);
    /* The exact product lies in [2^104, 2^106); keep its top 64 bits (at
     * least 63 significant) and fold the low 42 into the sticky bit. */
    uint64_t lo;
    const uint64_t hi = ev_mul64x64_(ma, mb, &lo);
    const uint64_t m = (hi << 22) | (lo >> 42) |
                       (uint64_t)((lo & ((EV_U64(1) << 42) - 1)) != 0);
    return s | ev_round_pack_(m, ea + eb + 42, 52, 1023);
}

/** IEEE binary64 a / b, round to nearest even. */
EV_FN ev_f64 ev_ddiv(ev_f64 a, ev_f64 b)
{
    const uint64_t s = (a ^ b) & EV_F64_SIGN;
    const uint64_t aa = a & ~EV_F64_SIGN, ab = b & ~EV_F64_SIGN;
    if (aa > EV_F64_INF || ab > EV_F64_INF)
        return EV_F64_QNAN;
    if (aa == EV_F64_INF)
        return ab == EV_F64_INF ? EV_F64_QNAN : (s | EV_F64_INF);
    if (ab == EV_F64_INF)
        return s;
    if (ab == 0)
        return aa == 0 ? EV_F64_QNAN : (s | EV_F64_INF);
    if (aa == 0)
        return s;
    int ea, eb;
    const uint64_t ma = ev_f64_norm_(aa, &ea), mb = ev_f64_norm_(ab, &eb);
    /*
     * Long division in 11-bit digits: the remainder stays below mb < 2^53,
     * so remainder * 2^11 fits in 64 bits. The first step gives the integer
     * digit (0 or 1, as ma/mb lies in (1/2, 2)); five more give
     * q = floor(ma * 2^55 / mb) in [2^54, 2^56), at least 55 bits, and the
     * final remainder is the sticky bit.
     */
    uint64_t q = ma / mb, r = ma - q * mb;
    for (int i = 0; i < 5; i++) {
        r <<= 11;
        const uint64_t digit = r / mb;
        r -= digit * mb;
        q = (q << 11) | digit;
    }
    q |= (uint64_t)(r != 0);
    return s | ev_round_pack_(q, ea - eb - 55, 52, 1023);
}

/* ---- binary64 comparisons (IEEE: NaN unordered, -0 == +0) --------------- */

EV_FN int ev_disnan_(ev_f64 d)
{
    return (d & ~EV_F64_SIGN) > EV_F64_INF;
}

/** a == b */
EV_FN int ev_deq(ev_f64 a, ev_f64 b)
{
    if (ev_disnan_(a) || ev_disnan_(b))
        return 0;
    return a == b || ((a | b) & ~EV_F64_SIGN) == 0;
}

/** a < b */
EV_FN int ev_dlt(ev_f64 a, ev_f64 b)
{
    if (ev_disnan_(a) || ev_disnan_(b))
        return 0;
    if (((a | b) & ~EV_F64_SIGN) == 0)
        return 0; /* both zero */
    const int sa = (a & EV_F64_SIGN) != 0, sb = (b & EV_F64_SIGN) != 0;
    if (sa != sb)
        return sa; /* (a zero against a nonzero of the other sign is still
                      ordered by sign alone) */
    /* Same sign: sign-magnitude bit patterns order like the magnitudes. */
    return sa ? a > b : a < b;
}

/** a <= b */
EV_FN int ev_dle(ev_f64 a, ev_f64 b)
{
    return ev_dlt(a, b) || ev_deq(a, b);
}

/** Exactly C's `a < b ? a : b` (libvmaf's MIN(a, b)): b when unordered, and
 * b when a and b are zeros of either sign. */
EV_FN ev_f64 ev_dmin(ev_f64 a, ev_f64 b)
{
    return ev_dlt(a, b) ? a : b;
}

/** Exactly C's `a > b ? a : b` (libvmaf's MAX(a, b)): b when unordered, and
 * b when a and b are zeros of either sign. */
EV_FN ev_f64 ev_dmax(ev_f64 a, ev_f64 b)
{
    return ev_dlt(b, a) ? a : b;
}

#endif
