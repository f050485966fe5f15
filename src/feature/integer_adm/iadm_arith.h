/*
 * Integer ADM ("adm") per-sample arithmetic, shared by the CPU loops and any
 * GPU twin. Each function is one step of Netflix libvmaf v3.2.0's C path
 * (integer_adm.c), operation for operation (docs/numerics.md section 9).
 *
 * Integer steps are written so that their value equals the reference's on
 * x86-64 for every input, without undefined behaviour here: where the
 * reference's int32 arithmetic can wrap (16-bit input sums, shifted masking
 * thresholds, 27-term int32 sums of scales 1-3) it is done in uint32 and
 * converted back (two's complement, as the reference's wrap on x86), and the
 * reference's int64 products are int64 here too. Integer sums are exact, so
 * their order is free; the loops may vectorise them.
 *
 * Floating point enters only in the angle test and the gain limit of the
 * decoupling (double, explicit single roundings) and in the host conclusion
 * (iadm_host.c). The double steps are written once with fp.h's ev_d and D_*
 * operations: where EV_F64 (host, CUDA, OpenCL with fp64) they are the plain
 * double operations, elsewhere (OpenCL without fp64) fp_exact.h's integer
 * routines, which give the same bits.
 */
#ifndef EXACTVMAF_IADM_ARITH_H
#define EXACTVMAF_IADM_ARITH_H

#include <stdint.h>

#include "fp.h"

/*
 * The two double steps fp.h has no D_* for: a >= b (IEEE, false when
 * unordered) and the truncation of a double known to be in int32 range.
 */
#if EV_F64
#define IADM_D_GE(a, b) ((a) >= (b))
#define IADM_D_TO_I32(d) ((int32_t)(d))
#else
#define IADM_D_GE(a, b) ev_dle((b), (a))
#define IADM_D_TO_I32(d) ((int32_t)ev_d_to_i64_trunc(d))
#endif

/* Double constants of the angle test and the gain limit: value and bits. */
#define IADM_D_ZERO D_K(0x0000000000000000, 0.0)
#define IADM_D_4096 D_K(0x40b0000000000000, 4096.0)
#define IADM_D_I32_MIN D_K(0xc1e0000000000000, -2147483648.0)
#define IADM_D_I32_MAX D_K(0x41dfffffffc00000, 2147483647.0)

/* db2 analysis filters in Q15 (dwt2_db2_coeffs_lo / _hi) and the low-pass
 * sum that re-centres unsigned input on zero. */
#define IADM_LO0 15826
#define IADM_LO1 27411
#define IADM_LO2 7345
#define IADM_LO3 (-4240)
#define IADM_HI0 (-4240)
#define IADM_HI1 (-7345)
#define IADM_HI2 27411
#define IADM_HI3 (-15826)
#define IADM_LO_SUM 46342

/* ------------------------------------------------------------------ */
/* Scale 0 DWT: unsigned samples -> int16 bands                         */
/* ------------------------------------------------------------------ */

/**
 * Vertical low-pass of one column (adm_dwt2_8 / adm_dwt2_16): taps on four
 * rows, minus LO_SUM * 2^(shift-1) to centre the range, rounded >> shift
 * (8 for 8-bit input, bpc otherwise). At 16 bits the reference's int32 sum
 * passes 2^31 before the subtraction brings it back; uint32 wraps the same.
 * (The rounding constant is not named `half`: a type name in OpenCL C.)
 */
EV_FN int16_t iadm_s0_vlo(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3,
                          int shift)
{
    const uint32_t rnd = 1u << (shift - 1);
    const uint32_t acc = (uint32_t)IADM_LO0 * s0 + (uint32_t)IADM_LO1 * s1 +
                         (uint32_t)IADM_LO2 * s2 + (uint32_t)IADM_LO3 * s3 -
                         (uint32_t)IADM_LO_SUM * rnd;
    return (int16_t)((int32_t)(acc + rnd) >> shift);
}

/** Vertical high-pass of one column; the high-pass taps sum to 0. */
EV_FN int16_t iadm_s0_vhi(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3,
                          int shift)
{
    const uint32_t rnd = 1u << (shift - 1);
    const uint32_t acc = (uint32_t)IADM_HI0 * s0 + (uint32_t)IADM_HI1 * s1 +
                         (uint32_t)IADM_HI2 * s2 + (uint32_t)IADM_HI3 * s3;
    return (int16_t)((int32_t)(acc + rnd) >> shift);
}

/** Horizontal low-pass of int16 samples, rounded >> 16 (fits int32). */
EV_FN int16_t iadm_s0_hlo(int32_t s0, int32_t s1, int32_t s2, int32_t s3)
{
    return (int16_t)((IADM_LO0 * s0 + IADM_LO1 * s1 + IADM_LO2 * s2 +
                      IADM_LO3 * s3 + 32768) >> 16);
}

/** Horizontal high-pass of int16 samples, rounded >> 16. */
EV_FN int16_t iadm_s0_hhi(int32_t s0, int32_t s1, int32_t s2, int32_t s3)
{
    return (int16_t)((IADM_HI0 * s0 + IADM_HI1 * s1 + IADM_HI2 * s2 +
                      IADM_HI3 * s3 + 32768) >> 16);
}

/* ------------------------------------------------------------------ */
/* Scales 1-3 DWT: int32 samples, int64 sums (adm_dwt2_s123_combined)   */
/* ------------------------------------------------------------------ */

EV_FN int32_t iadm_s123_lo(int32_t s0, int32_t s1, int32_t s2, int32_t s3,
                           int64_t add, int shift)
{
    const int64_t acc = (int64_t)IADM_LO0 * s0 + (int64_t)IADM_LO1 * s1 +
                        (int64_t)IADM_LO2 * s2 + (int64_t)IADM_LO3 * s3;
    return (int32_t)((acc + add) >> shift);
}

EV_FN int32_t iadm_s123_hi(int32_t s0, int32_t s1, int32_t s2, int32_t s3,
                           int64_t add, int shift)
{
    const int64_t acc = (int64_t)IADM_HI0 * s0 + (int64_t)IADM_HI1 * s1 +
                        (int64_t)IADM_HI2 * s2 + (int64_t)IADM_HI3 * s3;
    return (int32_t)((acc + add) >> shift);
}

/**
 * Scale 1's vertical pass (rounding 0, shift 0) on band a of scale 0, whose
 * values are int16: the taps' absolute sum times 2^15 is below 2^31, so the
 * int64 sum of the reference is exact in int32.
 */
EV_FN int32_t iadm_s1_vlo(int32_t s0, int32_t s1, int32_t s2, int32_t s3)
{
    return IADM_LO0 * s0 + IADM_LO1 * s1 + IADM_LO2 * s2 + IADM_LO3 * s3;
}

EV_FN int32_t iadm_s1_vhi(int32_t s0, int32_t s1, int32_t s2, int32_t s3)
{
    return IADM_HI0 * s0 + IADM_HI1 * s1 + IADM_HI2 * s2 + IADM_HI3 * s3;
}

/* ------------------------------------------------------------------ */
/* Decoupling (adm_decouple, adm_decouple_s123)                         */
/* ------------------------------------------------------------------ */

/**
 * Scale 0 restoration gain k = clamp(t / o, 0, 1) in Q15 through the
 * 2^30 / o table q = div_lookup[o + 32768]: the reference's
 * (q * t + 2^14) >> 15 in int64. Split q = qh * 2^15 + ql (0 <= ql < 2^15):
 * qh * t is a whole multiple of the divisor, so the floor distributes and
 * both parts fit int32 (|qh| <= 2^15, |t| <= 2^15).
 */
EV_FN int32_t iadm_s0_k(int32_t o, int32_t t, int32_t q)
{
    const int32_t raw = (q >> 15) * t + (((q & 32767) * t + 16384) >> 15);
    const int32_t k = raw < 0 ? 0 : (raw > 32768 ? 32768 : raw);
    return o == 0 ? 32768 : k;
}

/**
 * Angle test (adm_decouple): (o . t >= 0) and (o . t)^2 >= cos^2(1 deg)
 * |o|^2 |t|^2, with each int64 term converted to float, divided by 4096.0 in
 * double, and the right side associated as (cos2 * |o|^2) * |t|^2.
 * This form takes the products in double: exact while every |input| is below
 * 2^26 (products below 2^52, sums below 2^53), so the double converted to
 * float rounds exactly as the reference's (float)int64. Always true at
 * scale 0 (int16); scales 1-3 use it for rows that qualify, else
 * iadm_s123_angle. (float)x / 4096.0 >= 0 is x >= 0.
 */
EV_FN int32_t iadm_s0_angle(int32_t oh, int32_t ov, int32_t th, int32_t tv,
                            float cos2)
{
#define IADM_DP_(a, b) D_MUL(D_FROM_I64(a), D_FROM_I64(b))
    const ev_d dp = D_ADD(IADM_DP_(oh, th), IADM_DP_(ov, tv));
    const ev_d om = D_ADD(IADM_DP_(oh, oh), IADM_DP_(ov, ov));
    const ev_d tm = D_ADD(IADM_DP_(th, th), IADM_DP_(tv, tv));
#undef IADM_DP_
    const ev_d dpn = D_DIV(D_FROM_F(D_TO_F(dp)), IADM_D_4096);
    const ev_d omn = D_DIV(D_FROM_F(D_TO_F(om)), IADM_D_4096);
    const ev_d tmn = D_DIV(D_FROM_F(D_TO_F(tm)), IADM_D_4096);
    /* Both tests evaluated (no short circuit), so loops stay branch-free. */
    return IADM_D_GE(dp, IADM_D_ZERO) &
           IADM_D_GE(D_MUL(dpn, dpn), D_MUL(D_MUL(D_FROM_F(cos2), omn), tmn));
}

/**
 * The gain limit shared by every scale: with the angle test passed and the
 * reference's float sign of (k/32768)*(o/64) positive (negative), rst takes
 * MIN (MAX) of rst * egl (double) and t, truncated back to an integer. The
 * selected candidate is bounded by t, so it is in int32 range; the other
 * one is only clamped so that converting it is defined. Both are converted
 * and chosen as integers: branch-free, and a form the vectoriser accepts.
 */
EV_FN int32_t iadm_gain_limit(int32_t rst, int32_t k_pos, int32_t o, int32_t t,
                              int32_t angle, ev_d egl)
{
    const ev_d g = D_MUL(D_FROM_I64(rst), egl);
    const ev_d td = D_FROM_I64(t);
    ev_d lo = D_LT(g, td) ? g : td;
    ev_d hi = D_GT(g, td) ? g : td;
    lo = D_LT(lo, IADM_D_I32_MIN) ? IADM_D_I32_MIN : lo;
    hi = D_GT(hi, IADM_D_I32_MAX) ? IADM_D_I32_MAX : hi;
    const int32_t lo_i = IADM_D_TO_I32(lo), hi_i = IADM_D_TO_I32(hi);
    const int32_t kp = angle & k_pos;
    return (kp & (o > 0)) ? lo_i : ((kp & (o < 0)) ? hi_i : rst);
}

/**
 * The same gain limit for a whole-number egl (the default 100, and 1): then
 * rst * egl is an exact integer in double, MIN / MAX of it and t are exact,
 * and truncating changes nothing, so integer arithmetic gives the same
 * value. rst * egl in int64 covers every scale's rst.
 */
EV_FN int32_t iadm_gain_limit_int(int32_t rst, int32_t k_pos, int32_t o, int32_t t,
                                  int32_t angle, int32_t egl)
{
    const int64_t g = (int64_t)rst * egl;
    const int64_t lo = g < t ? g : t;
    const int64_t hi = g > t ? g : t;
    const int32_t kp = angle & k_pos;
    return (int32_t)((kp & (o > 0)) ? lo : ((kp & (o < 0)) ? hi : (int64_t)rst));
}

/** iadm_gain_limit_int for scale 0: |rst| <= 2^15 and egl <= 100 keep
 * rst * egl within int32. */
EV_FN int32_t iadm_gain_limit_int16(int32_t rst, int32_t k_pos, int32_t o, int32_t t,
                                    int32_t angle, int32_t egl)
{
    const int32_t g = rst * egl;
    const int32_t lo = g < t ? g : t;
    const int32_t hi = g > t ? g : t;
    const int32_t kp = angle & k_pos;
    return (kp & (o > 0)) ? lo : ((kp & (o < 0)) ? hi : rst);
}

#if EV_F64
/** egl as a whole number when it is one (1..100), else 0 (host and CUDA
 * callers; an OpenCL kernel gets it from the host). */
EV_FN int32_t iadm_egl_int(double egl)
{
    return egl >= 1.0 && egl <= 100.0 && egl == (double)(int32_t)egl ? (int32_t)egl : 0;
}
#endif

/**
 * Restored coefficient r of one band. rst = round(k * o) in Q15; when the
 * angle test passed, the reference's float sign of (k/32768)*(o/64) picks
 * MIN or MAX of rst * egl (double) and t, truncated back to an integer. That
 * float product is exact in sign (k >= 0, no underflow), so the test is
 * k > 0 with the sign of o. A rounded rst of 0 still takes the branch.
 * Scale 0 returns an int16 value; the caller stores it as int16.
 */
EV_FN int32_t iadm_s0_rst(int32_t k, int32_t o, int32_t t, int32_t angle, ev_d egl)
{
    const int32_t rst = (k * o + 16384) >> 15;
    return iadm_gain_limit(rst, (int32_t)(k > 0), o, t, angle, egl);
}

/** iadm_s0_rst for a whole-number egl (egl_int = iadm_egl_int(egl) != 0). */
EV_FN int32_t iadm_s0_rst_int(int32_t k, int32_t o, int32_t t, int32_t angle,
                              int32_t egl_int)
{
    const int32_t rst = (k * o + 16384) >> 15;
    return iadm_gain_limit_int16(rst, (int32_t)(k > 0), o, t, angle, egl_int);
}

/** |o| as uint32: abs(INT_MIN) is INT_MIN on x86, 2^31 as uint32. */
EV_FN uint32_t iadm_abs_u32(int32_t o)
{
    return o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
}

/**
 * Scales 1-3 restoration gain, in steps so that the table read stays with
 * the caller. A divisor of 2^15 or more is first rounded to its top 15 bits
 * (get_best15_from32: k = 17 - clz, (|o| + 2^(k-1)) >> k); the quotient's
 * rounding and shift then follow k. iadm_s123_kshift gives k (0 below
 * 2^15), iadm_s123_kidx the table index, iadm_s123_k the gain.
 */
EV_FN int iadm_s123_kshift(int32_t o)
{
    const uint32_t mag = iadm_abs_u32(o);
#if defined(__CUDA_ARCH__)
    const int k = 17 - __clz(mag | 1u);
#elif defined(__OPENCL_C_VERSION__)
    const int k = 17 - (int)clz(mag | 1u);
#else
    const int k = 17 - __builtin_clz(mag | 1u);
#endif
    return mag < 32768u ? 0 : k;
}

EV_FN int32_t iadm_s123_kidx(int32_t o, int shift)
{
    return (int32_t)((iadm_abs_u32(o) + ((1u << shift) >> 1)) >> shift) + 32768;
}

/**
 * k from the table entry q = div_lookup[iadm_s123_kidx()]. The rounding
 * constant is the reference's int (1 << (14 + k)), INT_MIN when k is 17
 * (|o| = 2^31); the sign of o multiplies the product. The clamped value
 * fits int32.
 */
EV_FN int32_t iadm_s123_k(int32_t o, int32_t t, int32_t q, int shift)
{
    const int64_t qt = (int64_t)q * t;
    const int64_t round = (int32_t)(1u << (14 + shift));
    const int64_t raw = ((o < 0 ? -qt : qt) + round) >> (15 + shift);
    const int64_t k = raw < 0 ? 0 : (raw > 32768 ? 32768 : raw);
    return o == 0 ? 32768 : (int32_t)k;
}

/** int64 x as float, the reference's (float)int64 conversion. */
EV_FN float iadm_i64_f32(int64_t x)
{
    return (float)x;
}

/**
 * Angle test for any int32 inputs: int64 dot product and magnitudes
 * (wrapping as the reference's int64 would on x86 for the extreme int32
 * corner), each converted to float, then as iadm_s0_angle.
 */
EV_FN int32_t iadm_s123_angle(int32_t oh, int32_t ov, int32_t th, int32_t tv,
                              float cos2)
{
    const int64_t dp = (int64_t)((uint64_t)((int64_t)oh * th) +
                                 (uint64_t)((int64_t)ov * tv));
    const int64_t om = (int64_t)((uint64_t)((int64_t)oh * oh) +
                                 (uint64_t)((int64_t)ov * ov));
    const int64_t tm = (int64_t)((uint64_t)((int64_t)th * th) +
                                 (uint64_t)((int64_t)tv * tv));
    const ev_d dpn = D_DIV(D_FROM_F(iadm_i64_f32(dp)), IADM_D_4096);
    const ev_d omn = D_DIV(D_FROM_F(iadm_i64_f32(om)), IADM_D_4096);
    const ev_d tmn = D_DIV(D_FROM_F(iadm_i64_f32(tm)), IADM_D_4096);
    return IADM_D_GE(dpn, IADM_D_ZERO) &
           IADM_D_GE(D_MUL(dpn, dpn), D_MUL(D_MUL(D_FROM_F(cos2), omn), tmn));
}

/** Scales 1-3 restored coefficient (see iadm_s0_rst). */
EV_FN int32_t iadm_s123_rst(int32_t k, int32_t o, int32_t t, int32_t angle, ev_d egl)
{
    const int32_t rst = (int32_t)(((int64_t)k * o + 16384) >> 15);
    return iadm_gain_limit(rst, (int32_t)(k > 0), o, t, angle, egl);
}

/** iadm_s123_rst for a whole-number egl. */
EV_FN int32_t iadm_s123_rst_int(int32_t k, int32_t o, int32_t t, int32_t angle,
                                int32_t egl_int)
{
    const int32_t rst = (int32_t)(((int64_t)k * o + 16384) >> 15);
    return iadm_gain_limit_int(rst, (int32_t)(k > 0), o, t, angle, egl_int);
}

/* ------------------------------------------------------------------ */
/* CSF and the masking threshold's terms (adm_csf, i4_adm_csf)          */
/* ------------------------------------------------------------------ */

/**
 * Scale 0 CSF: rf (uint16, Q21 for h/v and Q23 for d) times the int16
 * coefficient, rounded >> 15 or 17. rf * src stays within int32 for every
 * uint16 rf and int16 src.
 */
EV_FN int16_t iadm_s0_csf(int32_t src, int32_t rf, int32_t add, int shift)
{
    return (int16_t)((rf * src + add) >> shift);
}

/** Scale 0 filtered CSF: |c| / 30 in Q-adjusted form, cast to int16. */
EV_FN int16_t iadm_s0_flt(int32_t c)
{
    return (int16_t)((4369 * (c < 0 ? -c : c) + 2048) >> 12);
}

/** Scale 0 centre term of the masking threshold: |c| / 15, cast to int16. */
EV_FN int16_t iadm_s0_ctr(int32_t c)
{
    return (int16_t)((8738 * (c < 0 ? -c : c) + 2048) >> 12);
}

/** Scales 1-3 CSF: (rf * src + 2^27) >> 28, rf uint32 (Q32). */
EV_FN int32_t iadm_s123_csf(int32_t src, uint32_t rf)
{
    return (int32_t)(((int64_t)rf * src + (1 << 27)) >> 28);
}

/*
 * The reference's rounding constant of the scales 1-3 filtered terms is
 * (int32_t)(1u << 31), i.e. -2^31: they subtract half a unit instead of
 * adding it. |c| of INT_MIN is INT_MIN there (abs), kept here.
 */
EV_FN int32_t iadm_abs32(int32_t c)
{
    return (int32_t)(c < 0 ? 0u - (uint32_t)c : (uint32_t)c);
}

/** Scales 1-3 filtered CSF: (143165577 * |c| - 2^31) >> 32. */
EV_FN int32_t iadm_s123_flt(int32_t c)
{
    return (int32_t)(((int64_t)143165577 * iadm_abs32(c) - 2147483648LL) >> 32);
}

/** Scales 1-3 centre term: (286331153 * |c| - 2^31) >> 32. */
EV_FN int32_t iadm_s123_ctr(int32_t c)
{
    return (int32_t)(((int64_t)286331153 * iadm_abs32(c) - 2147483648LL) >> 32);
}

/* ------------------------------------------------------------------ */
/* Contrast masking terms (adm_cm, i4_adm_cm)                           */
/* ------------------------------------------------------------------ */

/**
 * Scale 0 masking term of one band: x = |src * rf| - (thr << sub), floored
 * at 0, x^2 rounded >> sq_shift and truncated to int32, then x^2 * x rounded
 * >> cub_shift. thr << sub and the subtraction wrap in int32 as the
 * reference's do on x86 (only reachable with extreme thresholds).
 */
EV_FN int64_t iadm_s0_cm(int32_t src, int32_t rf, int32_t thr, int sub,
                         int sq_shift, int64_t sq_add, int cub_shift,
                         int64_t cub_add)
{
    const int32_t p = rf * src;
    const uint32_t ap = p < 0 ? 0u - (uint32_t)p : (uint32_t)p;
    int32_t x = (int32_t)(ap - ((uint32_t)thr << sub));
    x = x < 0 ? 0 : x;
    /* x >= 0 here: the square is an unsigned widening product. */
    const uint64_t xu = (uint32_t)x;
    const int32_t x_sq = (int32_t)((xu * xu + (uint64_t)sq_add) >> sq_shift);
    return ((int64_t)x_sq * x + cub_add) >> cub_shift;
}

/** Scales 1-3 masking term: x from the CSF of src, minus thr (no shift). */
EV_FN int64_t iadm_s123_cm(int32_t src, uint32_t rf, int32_t thr, int cub_shift,
                           int64_t cub_add)
{
    const int32_t c = iadm_s123_csf(src, rf);
    int32_t x = (int32_t)((uint32_t)iadm_abs32(c) - (uint32_t)thr);
    x = x < 0 ? 0 : x;
    const uint64_t xu = (uint32_t)x;
    const int32_t x_sq = (int32_t)((xu * xu + 536870912u) >> 30);
    return ((int64_t)x_sq * x + cub_add) >> cub_shift;
}

/* ------------------------------------------------------------------ */
/* Denominator (CSF of the reference, cubed)                            */
/* ------------------------------------------------------------------ */

/** Scale 0: |v|^3 of an int16 coefficient, uint64. */
EV_FN uint64_t iadm_s0_den(int32_t v)
{
    const uint64_t a = (uint16_t)(v < 0 ? -v : v);
    return a * a * a;
}

/** Scales 1-3: ((|v|^2 + 2^sq) >> sq) * |v|, rounded >> cub_shift. */
EV_FN uint64_t iadm_s123_den(int32_t v, int sq_shift, uint64_t cub_add,
                             int cub_shift)
{
    const uint64_t a = (uint32_t)iadm_abs32(v);
    return ((((a * a) + ((uint64_t)1 << sq_shift)) >> sq_shift) * a + cub_add) >>
           cub_shift;
}

/* ------------------------------------------------------------------ */
/* Per-row conclusion of the sums (every backend, host)                 */
/* ------------------------------------------------------------------ */

/** A denominator row sum, rounded by the scale's row shift. */
EV_FN uint64_t iadm_row_u64(uint64_t inner, uint64_t add, int shift)
{
    return (inner + add) >> shift;
}

/** A masking row sum, rounded by the scale's row shift. */
EV_FN int64_t iadm_row_i64(int64_t inner, int64_t add, int shift)
{
    return (inner + add) >> shift;
}

/* acc += v, wrapping as the reference's int64 sums would on x86 (never
 * reached by real pictures). */
EV_FN void iadm_acc_add(int64_t *acc, int64_t v)
{
    *acc = (int64_t)((uint64_t)*acc + (uint64_t)v);
}

#endif
