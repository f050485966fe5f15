/*
 * NEON (AArch64 Advanced SIMD) integer VIF kernels: ivif_simd_tmpl.c on 4
 * lanes. Every AArch64 processor runs them; tests/checkasm checks every one
 * against the C reference on random and edge inputs.
 *
 * What is particular to this width (the rest is in the template):
 * - vpmaddwd (x86's pairwise 16-bit multiply-add) is a widening multiply of
 *   each half (smull, smull2) and a pairwise add (addp): the same products
 *   and the same sums modulo 2^32.
 * - Masks are vectors of all-ones lanes; there is no gather, so the log2
 *   table is read lane by lane, with indices forced into the table.
 * - floor(log2 v) comes from clz: 32-bit for the denominator and numer1,
 *   and for the 64-bit numerator (int64)(g*g*s1) + numer1, formed as the
 *   reference forms it (fcvtzs truncates), from the clz of its two halves.
 * - The double steps are fdiv, fmul, fsub, fadd on 2 lanes; AArch64 has
 *   fused multiply-add, and it is the build's -ffp-contract=off that keeps
 *   g*s12 and the subtraction (and g*g*s1) separately rounded (arm_neon.h
 *   writes vmulq_f64 and vsubq_f64 as C operators). min(g, egl) is
 *   (g < egl ? g : egl) by a compare and a select, as x86's minpd, not
 *   fmin. x86's cvttpd2dq gives INT32_MIN out of range and the reference's
 *   max(., 0) then 0; fcvtzs saturates to int64, so a value above INT32_MAX
 *   is sent to 0 by hand and the rest goes through the same max.
 * - 32 registers: the 16-bit vertical pass takes one pass over the taps.
 */
#include <string.h>

#include "cpu.h"
#include "ivif_dsp.h"

#if IVIF_HAVE_NEON

#include <arm_neon.h>

#define TGT
#define ISA(name) name##_neon
#define LANES 4
#define VERT_PASSES 1
#define IVIF_LAYER_HAS_VC 1

typedef int32x4_t V;
typedef uint32x4_t M;
typedef float64x2_t VD;
/** A shift count: ushl shifts by a signed per-lane count. */
typedef int VC;

static inline uint32x4_t u32(V a) { return vreinterpretq_u32_s32(a); }
static inline V s32(uint32x4_t a) { return vreinterpretq_s32_u32(a); }
static inline int16x8_t s16(V a) { return vreinterpretq_s16_s32(a); }
static inline uint16x8_t u16(V a) { return vreinterpretq_u16_s32(a); }

static inline VC v_count(int n) { return n; }
static inline V v_zero(void) { return vdupq_n_s32(0); }
static inline V v_set1(int32_t x) { return vdupq_n_s32(x); }
static inline V v_load(const void *p) { return vreinterpretq_s32_u8(vld1q_u8(p)); }
static inline V v_add(V a, V b) { return vaddq_s32(a, b); }
static inline V v_sub(V a, V b) { return vsubq_s32(a, b); }
static inline V v_and(V a, V b) { return vandq_s32(a, b); }
static inline V v_xor(V a, V b) { return veorq_s32(a, b); }
static inline V v_max(V a, V b) { return vmaxq_s32(a, b); }
/* x86's count-register shifts give 0 for counts above 31; so does ushl. */
static inline V v_srl(V a, VC n) { return s32(vshlq_u32(u32(a), vdupq_n_s32(-n))); }
static inline V v_sll(V a, VC n) { return s32(vshlq_u32(u32(a), vdupq_n_s32(n))); }
static inline V v_srli(V a, int n) { return v_srl(a, n); }
static inline V v_mullo32(V a, V b) { return vmulq_s32(a, b); }
/** x86's vpmaddwd: lane i = a[2i]*b[2i] + a[2i+1]*b[2i+1], signed 16-bit halves. */
static inline V v_madd16(V a, V b)
{
    const int32x4_t lo = vmull_s16(vget_low_s16(s16(a)), vget_low_s16(s16(b)));
    const int32x4_t hi = vmull_high_s16(s16(a), s16(b));
    return vpaddq_s32(lo, hi);
}
static inline V v_mullo16(V a, V b) { return vreinterpretq_s32_s16(vmulq_s16(s16(a), s16(b))); }
/** The high halves of the unsigned 16-bit products (x86's vpmulhuw). */
static inline V v_mulhi16u(V a, V b)
{
    const uint32x4_t lo = vmull_u16(vget_low_u16(u16(a)), vget_low_u16(u16(b)));
    const uint32x4_t hi = vmull_high_u16(u16(a), u16(b));
    return vreinterpretq_s32_u16(vuzp2q_u16(vreinterpretq_u16_u32(lo), vreinterpretq_u16_u32(hi)));
}
static inline V v_unpacklo16(V a, V b) { return vreinterpretq_s32_s16(vzip1q_s16(s16(a), s16(b))); }
static inline V v_unpackhi16(V a, V b) { return vreinterpretq_s32_s16(vzip2q_s16(s16(a), s16(b))); }
static inline VD vd_set1(double x) { return vdupq_n_f64(x); }

static inline M m_all(void) { return vdupq_n_u32(~0u); }
static inline M m_cmpgt(V a, V b) { return vcgtq_s32(a, b); }
static inline M m_and(M a, M b) { return vandq_u32(a, b); }
/** ~a & b */
static inline M m_andnot(M a, M b) { return vbicq_u32(b, a); }
static inline int m_none(M m) { return vmaxvq_u32(m) == 0; }
static inline V v_add_if(V acc, M m, V x) { return vaddq_s32(acc, vandq_s32(x, s32(m))); }
/** Lanes i whose column base + 2i is below w. */
static inline M m_even_below(int w, int base)
{
    static const int32_t step[4] = { 0, 2, 4, 6 };
    return vcgtq_s32(vdupq_n_s32(w), vaddq_s32(vdupq_n_s32(base), vld1q_s32(step)));
}

/** 8 bytes as 8 16-bit lanes. */
static inline V v_u8_to_16(const uint8_t *p)
{
    return vreinterpretq_s32_u16(vmovl_u8(vld1_u8(p)));
}

/** Store 8 uint32 lanes (lo: columns 0-3, hi: 4-7, each < 2^16) as uint16 offset by -32768. */
static inline void store2_centred(uint16_t *dst, V lo, V hi)
{
    vst1q_u16(dst, veorq_u16(vcombine_u16(vmovn_u32(u32(lo)), vmovn_u32(u32(hi))),
                             vdupq_n_u16(0x8000)));
}

/** Store 4 uint32 lanes (each < 2^16) as 4 uint16. */
static inline void store_u16(uint16_t *dst, V v)
{
    vst1_u16(dst, vmovn_u32(u32(v)));
}

/** Even columns e and odd columns o back into column order, 8 values. */
static inline void store_interleaved(uint32_t *dst, V e, V o)
{
    const uint32x4x2_t eo = { { u32(e), u32(o) } };
    vst2q_u32(dst, eo);
}

/* ---- The statistic's particular steps ---- */

/** The sums every gain limit shares. */
typedef struct StatCommon {
    int32x4_t den_log;      /**< flushed before it can overflow */
    int32x4_t count;        /**< likewise */
    uint64x2_t num_non_log;
} StatCommon;

static inline StatCommon stat_common_start(void)
{
    StatCommon c = { vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_u64(0) };
    return c;
}

static inline int64_t hsum32(V v)
{
    return vaddlvq_s32(v);
}

static inline void stat_common_flush(StatCommon *c, IvifAccum *acc)
{
    acc->den_log += hsum32(c->den_log);
    acc->den_non_log += hsum32(c->count);
    acc->num_non_log += (int64_t)vaddvq_u64(c->num_non_log);
    *c = stat_common_start();
}

/** sigma2^2 and a count for the lanes outside the log branch (m). */
static inline void stat_non_log(StatCommon *c, M m, V s2)
{
    c->num_non_log = vpadalq_u32(c->num_non_log, vandq_u32(m, u32(s2)));
    c->count = vsubq_s32(c->count, s32(m));
}

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
static inline V mul_round32(V a, V b)
{
    const uint64x2_t half = vdupq_n_u64(UINT64_C(0x80000000));
    const uint64x2_t lo = vmull_u32(vget_low_u32(u32(a)), vget_low_u32(u32(b)));
    const uint64x2_t hi = vmull_high_u32(u32(a), u32(b));
    return s32(vcombine_u32(vaddhn_u64(lo, half), vaddhn_u64(hi, half)));
}

/** Table values of 4 indices (forced into [32768, 65535]), plus 2048*k. */
static inline V log2_lookup(const uint16_t *table, V idx, V k)
{
    idx = vorrq_s32(vandq_s32(idx, vdupq_n_s32(0x7fff)), vdupq_n_s32(0x8000));
    int32_t i[4], v[4];
    vst1q_s32(i, idx);
    for (int l = 0; l < 4; l++)
        v[l] = table[i[l]];
    return vaddq_s32(vld1q_s32(v), vshlq_n_s32(k, 11));
}

/** ivif_log2 of 4 uint32 values t >= 2^15 (lanes outside m: garbage, read in bounds). */
static inline V log2_u32(const uint16_t *table, M m, V t)
{
    (void)m;
    /* k = floor(log2 t) - 15 = 16 - clz(t) */
    const V k = vsubq_s32(vdupq_n_s32(16), vclzq_s32(t));
    return log2_lookup(table, s32(vshlq_u32(u32(t), vnegq_s32(k))), k);
}

/** The numerator's steps the gain limit does not change, per half of the lanes. */
typedef struct NumPrep {
    float64x2_t g[2];       /**< s12 / (s1 + eps), before the limit */
    float64x2_t s1d[2];
    int64x2_t n1[2];        /**< numer1 */
    V l1;                   /**< log2(numer1) */
} NumPrep;

/** int32 lanes 2h, 2h+1 as double, exactly. */
static inline float64x2_t half_to_f64(V v, int h)
{
    return vcvtq_f64_s64(vmovl_s32(h ? vget_high_s32(v) : vget_low_s32(v)));
}

/**
 * numer1 = max((int32)(s2 - g*s12), 0) + nsq and g before the limit, in
 * double per 2 lanes, and log2(numer1).
 */
static inline void num_prep(V s1, V s2, V s12, M m, const uint16_t *table, NumPrep *p)
{
    const float64x2_t eps = vdupq_n_f64(65536 * 1.0e-10);
    int32x2_t n1[2];
    for (int h = 0; h < 2; h++) {
        const float64x2_t s1d = half_to_f64(s1, h), s2d = half_to_f64(s2, h);
        const float64x2_t s12d = half_to_f64(s12, h);
        const float64x2_t g = vdivq_f64(s12d, vaddq_f64(s1d, eps));
        const int64x2_t sv = vcvtq_s64_f64(vsubq_f64(s2d, vmulq_f64(g, s12d)));
        /* Above INT32_MAX x86 gives INT32_MIN, and max(., 0) then 0 (not
         * reached while s12 > 0, kept so that the lanes model cvttpd2dq). */
        const int64x2_t in_range = vbslq_s64(vcgtq_s64(sv, vdupq_n_s64(INT32_MAX)),
                                             vdupq_n_s64(0), sv);
        const int64x2_t sv0 = vbslq_s64(vcltq_s64(in_range, vdupq_n_s64(0)), vdupq_n_s64(0),
                                        in_range);
        const int64x2_t numer1 = vaddq_s64(sv0, vdupq_n_s64(IVIF_SIGMA_NSQ));
        n1[h] = vmovn_s64(numer1);
        p->g[h] = g;
        p->s1d[h] = s1d;
        p->n1[h] = numer1;
    }
    p->l1 = log2_u32(table, m, vcombine_s32(n1[0], n1[1]));
}

/** clz of 64-bit lanes, from their 32-bit halves. */
static inline int32x2_t clz64(uint64x2_t v)
{
    const uint32x2_t hi = vshrn_n_u64(v, 32), lo = vmovn_u64(v);
    const int32x2_t chi = vreinterpret_s32_u32(vclz_u32(hi));
    const int32x2_t clo = vadd_s32(vreinterpret_s32_u32(vclz_u32(lo)), vdup_n_s32(32));
    return vbsl_s32(vceq_u32(hi, vdup_n_u32(0)), clo, chi);
}

/**
 * log2(numerator) - log2(numer1) of every lane under the limit egl (lanes
 * outside m: garbage): the 64-bit numerator (int64)(g*g*s1) + numer1, its
 * table index and k = 48 - clz.
 */
static inline V num_log_term(const NumPrep *p, VD egl, M m, const uint16_t *table)
{
    (void)m;
    int32x2_t k[2], idx[2];
    for (int h = 0; h < 2; h++) {
        const float64x2_t g = vbslq_f64(vcltq_f64(p->g[h], egl), p->g[h], egl);
        const int64x2_t prod = vcvtq_s64_f64(vmulq_f64(vmulq_f64(g, g), p->s1d[h]));
        const uint64x2_t v = vreinterpretq_u64_s64(vaddq_s64(prod, p->n1[h]));
        k[h] = vsub_s32(vdup_n_s32(48), clz64(v));
        idx[h] = vmovn_s64(vreinterpretq_s64_u64(vshlq_u64(v, vnegq_s64(vmovl_s32(k[h])))));
    }
    const V l2 = log2_lookup(table, vcombine_s32(idx[0], idx[1]), vcombine_s32(k[0], k[1]));
    return vsubq_s32(l2, p->l1);
}

#include "ivif_simd_tmpl.c"

#endif
