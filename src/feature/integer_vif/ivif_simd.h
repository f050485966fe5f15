/*
 * The integer VIF kernels' vector layer: what ivif_simd_tmpl.c needs of the
 * instruction set of the build that includes it (src/simd.h), picked by
 * EV_SIMD_IS_<SET>. The C build does not include it (its kernels are the
 * vectorisable C of ivif_simd_c.h).
 *
 * Each layer defines the types V (LANES 32-bit lanes), M (a lane mask), VD
 * (doubles, egl broadcast) and VC (a shift count for v_srl and v_sll, made
 * by v_count), VERT_PASSES (1, or 2 where 16 registers cannot hold a column
 * block's 16 accumulators), the v_*, m_* and store_* primitives, and the
 * statistic's own steps: StatCommon (the sums every gain limit shares) with
 * stat_common_start, stat_non_log and stat_common_flush, and NumPrep with
 * num_prep and num_log_term (the numerator's term: what the gain limit does
 * not change, then its term under one limit). Each says first what is
 * particular to its width; why the bits are the reference's at every width
 * is in the template.
 */
#ifndef EXACTVMAF_IVIF_SIMD_H
#define EXACTVMAF_IVIF_SIMD_H

#include <stdint.h>

#include "ivif_dsp.h"
#include "simd.h"

#if EV_SIMD_IS_AVX2
/*
 * AVX2, 8 lanes:
 * - Masks are vectors of all-ones lanes; the gathers read every lane, with
 *   indices clamped into the table, and lanes outside a branch are masked
 *   out of the sums.
 * - floor(log2 v) is read from an exact floating-point image of v:
 *   (float)(v >> 8) for a 32-bit v (< 2^24, exact), and for the 64-bit
 *   numerator the double trunc(g*g*s1) + numer1 (integers below 2^53,
 *   exact), whose top mantissa bits are then v's top 16 bits.
 * - The double steps are vdivpd, vmulpd, vsubpd, vaddpd (this build does
 *   not enable FMA), vcvttpd2dq and vminpd(g, egl).
 * - 16 registers: the 16-bit vertical pass takes two passes over the taps.
 */
#include <immintrin.h>

#define LANES 8
#define VERT_PASSES 2

typedef __m256i V;
typedef __m256i M;
typedef __m256d VD;
/** A shift count: x86 shifts every lane by a count held in an XMM register. */
typedef __m128i VC;

static inline VC v_count(int n) { return _mm_cvtsi32_si128(n); }
static inline V v_zero(void) { return _mm256_setzero_si256(); }
static inline V v_set1(int32_t x) { return _mm256_set1_epi32(x); }
static inline V v_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline V v_add(V a, V b) { return _mm256_add_epi32(a, b); }
static inline V v_sub(V a, V b) { return _mm256_sub_epi32(a, b); }
static inline V v_and(V a, V b) { return _mm256_and_si256(a, b); }
static inline V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }
static inline V v_max(V a, V b) { return _mm256_max_epi32(a, b); }
static inline V v_srl(V a, VC n) { return _mm256_srl_epi32(a, n); }
static inline V v_sll(V a, VC n) { return _mm256_sll_epi32(a, n); }
static inline V v_srli(V a, int n) { return _mm256_srli_epi32(a, n); }
static inline V v_mullo32(V a, V b) { return _mm256_mullo_epi32(a, b); }
static inline V v_madd16(V a, V b) { return _mm256_madd_epi16(a, b); }
static inline V v_mullo16(V a, V b) { return _mm256_mullo_epi16(a, b); }
static inline V v_mulhi16u(V a, V b) { return _mm256_mulhi_epu16(a, b); }
static inline V v_unpacklo16(V a, V b) { return _mm256_unpacklo_epi16(a, b); }
static inline V v_unpackhi16(V a, V b) { return _mm256_unpackhi_epi16(a, b); }
static inline VD vd_set1(double x) { return _mm256_set1_pd(x); }

static inline M m_all(void) { return _mm256_set1_epi32(-1); }
static inline M m_cmpgt(V a, V b) { return _mm256_cmpgt_epi32(a, b); }
static inline M m_and(M a, M b) { return _mm256_and_si256(a, b); }
/** ~a & b */
static inline M m_andnot(M a, M b) { return _mm256_andnot_si256(a, b); }
static inline int m_none(M m) { return _mm256_testz_si256(m, m); }
static inline V v_add_if(V acc, M m, V x) { return _mm256_add_epi32(acc, _mm256_and_si256(x, m)); }
/** Lanes i whose column base + 2i is below w. */
static inline M m_even_below(int w, int base)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w),
                              _mm256_add_epi32(_mm256_set1_epi32(base),
                                               _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)));
}

/** 16 bytes as 16 16-bit lanes. */
static inline V v_u8_to_16(const uint8_t *p)
{
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/** 8 uint32 lanes (each < 2^16) as 8 uint16. */
static inline __m128i pack16(V v)
{
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08));
}

/**
 * Store 16 uint32 lanes (each < 2^16) in unpack order (lo: columns 0-3,
 * 8-11; hi: 4-7, 12-15) as uint16 offset by -32768.
 */
static inline void store2_centred(uint16_t *dst, V lo, V hi)
{
    _mm256_storeu_si256((__m256i *)dst, _mm256_xor_si256(_mm256_packus_epi32(lo, hi),
                                                         _mm256_set1_epi16((short)0x8000)));
}

/** Store 8 uint32 lanes (each < 2^16) as 8 uint16. */
static inline void store_u16(uint16_t *dst, V v)
{
    _mm_storeu_si128((__m128i *)dst, pack16(v));
}

/** Even columns e and odd columns o back into column order, 16 values. */
static inline void store_interleaved(uint32_t *dst, V e, V o)
{
    const __m256i lo = _mm256_unpacklo_epi32(e, o), hi = _mm256_unpackhi_epi32(e, o);
    _mm256_storeu_si256((__m256i *)dst, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(dst + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}

/* ---- The statistic's particular steps ---- */

/** The sums every gain limit shares. */
typedef struct StatCommon {
    __m256i den_log;      /**< 8 x int32, flushed before it can overflow */
    __m256i count;        /**< 8 x int32, likewise */
    __m256i num_non_log;  /**< 4 x int64 */
} StatCommon;

static inline StatCommon stat_common_start(void)
{
    StatCommon c = { _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256() };
    return c;
}

static inline int64_t hsum64(__m256i v)
{
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

static inline int64_t hsum32(__m256i v)
{
    return hsum64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                   _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1))));
}

static inline void stat_common_flush(StatCommon *c, IvifAccum *acc)
{
    acc->den_log += hsum32(c->den_log);
    acc->den_non_log += hsum32(c->count);
    acc->num_non_log += hsum64(c->num_non_log);
    *c = stat_common_start();
}

/** sigma2^2 and a count for the lanes outside the log branch (m). */
static inline void stat_non_log(StatCommon *c, M m, V s2)
{
    const __m256i s2_nl = _mm256_and_si256(m, s2);
    c->num_non_log = _mm256_add_epi64(c->num_non_log,
        _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(s2_nl)),
                         _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s2_nl, 1))));
    c->count = _mm256_sub_epi32(c->count, m);
}

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
static inline V mul_round32(V a, V b)
{
    const __m256i half = _mm256_set1_epi64x(INT64_C(0x80000000));
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), half), 32);
    const __m256i odd = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), half);
    return _mm256_blend_epi32(even, odd, 0xAA);
}

/** Table values of 8 indices (forced into [32768, 65535]), plus 2048*k. */
static inline V log2_lookup(const uint16_t *table, V idx, V k)
{
    idx = _mm256_or_si256(_mm256_and_si256(idx, _mm256_set1_epi32(0x7fff)),
                          _mm256_set1_epi32(0x8000));
    /* 4-byte gather at 2*idx (the table has one spare entry), low half. */
    const __m256i v = _mm256_and_si256(
        _mm256_i32gather_epi32((const int *)(const void *)table, idx, 2),
        _mm256_set1_epi32(0xffff));
    return _mm256_add_epi32(v, _mm256_slli_epi32(k, 11));
}

/** ivif_log2 of 8 uint32 values t >= 2^15 (lanes outside m: garbage, read in bounds). */
static inline V log2_u32(const uint16_t *table, M m, V t)
{
    (void)m;
    const __m256 f = _mm256_cvtepi32_ps(_mm256_srli_epi32(t, 8));
    /* k = floor(log2 t) - 15 = (biased exponent - 127 + 8) - 15 */
    const __m256i k = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(f), 23),
                                       _mm256_set1_epi32(134));
    return log2_lookup(table, _mm256_srlv_epi32(t, k), k);
}

/** uint32 lanes to double, exactly. */
static inline __m256d u32_to_pd(__m128i x)
{
    const __m256d d = _mm256_cvtepi32_pd(_mm_xor_si128(x, _mm_set1_epi32(INT32_MIN)));
    return _mm256_add_pd(d, _mm256_set1_pd(2147483648.0));
}

/** The low 32 bits of 4 64-bit lanes. */
static inline __m128i low32(__m256i v)
{
    return _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}

/** The numerator's steps the gain limit does not change, per half of the lanes. */
typedef struct NumPrep {
    __m256d g[2];       /**< s12 / (s1 + eps), before the limit */
    __m256d s1d[2];
    __m256d n1d[2];     /**< numer1 as double (exact) */
    V l1;               /**< log2(numer1) */
} NumPrep;

/**
 * numer1 = max((int32)(s2 - g*s12), 0) + nsq and g before the limit, in
 * double per 4 lanes, and log2(numer1).
 */
static inline void num_prep(V s1, V s2, V s12, M m, const uint16_t *table, NumPrep *p)
{
    const __m256d eps = _mm256_set1_pd(65536 * 1.0e-10);
    __m128i n1[2];
    for (int h = 0; h < 2; h++) {
        const __m128i a = h ? _mm256_extracti128_si256(s1, 1) : _mm256_castsi256_si128(s1);
        const __m128i b = h ? _mm256_extracti128_si256(s2, 1) : _mm256_castsi256_si128(s2);
        const __m128i c = h ? _mm256_extracti128_si256(s12, 1) : _mm256_castsi256_si128(s12);
        const __m256d s1d = _mm256_cvtepi32_pd(a), s2d = _mm256_cvtepi32_pd(b);
        const __m256d s12d = _mm256_cvtepi32_pd(c);
        const __m256d g = _mm256_div_pd(s12d, _mm256_add_pd(s1d, eps));
        const __m128i sv = _mm_max_epi32(
            _mm256_cvttpd_epi32(_mm256_sub_pd(s2d, _mm256_mul_pd(g, s12d))), _mm_setzero_si128());
        n1[h] = _mm_add_epi32(sv, _mm_set1_epi32(IVIF_SIGMA_NSQ));
        p->g[h] = g;
        p->s1d[h] = s1d;
        p->n1d[h] = u32_to_pd(n1[h]);
    }
    p->l1 = log2_u32(table, m, _mm256_set_m128i(n1[1], n1[0]));
}

/**
 * log2(numerator) - log2(numer1) of every lane under the limit egl (lanes
 * outside m: garbage): the 64-bit numerator trunc(g*g*s1) + numer1 is
 * exact in double, and its table index is the top 15 mantissa bits under
 * the leading one, its shift k = floor(log2) - 15.
 */
static inline V num_log_term(const NumPrep *p, VD egl, M m, const uint16_t *table)
{
    (void)m;
    __m128i k[2], idx[2];
    for (int h = 0; h < 2; h++) {
        const __m256d g = _mm256_min_pd(p->g[h], egl);
        const __m256d prod = _mm256_mul_pd(_mm256_mul_pd(g, g), p->s1d[h]);
        const __m256d tr = _mm256_round_pd(prod, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m256i bits = _mm256_castpd_si256(_mm256_add_pd(tr, p->n1d[h]));
        /* The sign bit is 0 in valid lanes: the biased exponent is bits >> 52. */
        k[h] = _mm_sub_epi32(low32(_mm256_srli_epi64(bits, 52)), _mm_set1_epi32(1023 + 15));
        idx[h] = low32(_mm256_srli_epi64(bits, 37));
    }
    const __m256i l2 = log2_lookup(table, _mm256_set_m128i(idx[1], idx[0]),
                                   _mm256_set_m128i(k[1], k[0]));
    return _mm256_sub_epi32(l2, p->l1);
}

#elif EV_SIMD_IS_AVX512
/*
 * AVX-512 (F, BW, DQ, VL, CD), 16 lanes:
 * - Masks live in mask registers, and a masked gather reads only the lanes
 *   that are in the branch.
 * - floor(log2 v) comes from vplzcntd / vplzcntq, and the 64-bit numerator
 *   is formed as the reference forms it, (int64)(g*g*s1) + numer1
 *   (vcvttpd2qq truncates).
 * - AVX-512F has FMA instructions: it is the build's -ffp-contract=off that
 *   keeps g*s12 and the subtraction (and g*g*s1) separately rounded.
 * - 32-bit results go to 16-bit with vpmovdw (values below 2^16).
 * - 32 registers: the 16-bit vertical pass takes one pass over the taps.
 */
#include <immintrin.h>

#define LANES 16
#define VERT_PASSES 1

typedef __m512i V;
typedef __mmask16 M;
typedef __m512d VD;
/** A shift count: x86 shifts every lane by a count held in an XMM register. */
typedef __m128i VC;

static inline VC v_count(int n) { return _mm_cvtsi32_si128(n); }
static inline V v_zero(void) { return _mm512_setzero_si512(); }
static inline V v_set1(int32_t x) { return _mm512_set1_epi32(x); }
static inline V v_load(const void *p) { return _mm512_loadu_si512(p); }
static inline V v_add(V a, V b) { return _mm512_add_epi32(a, b); }
static inline V v_sub(V a, V b) { return _mm512_sub_epi32(a, b); }
static inline V v_and(V a, V b) { return _mm512_and_si512(a, b); }
static inline V v_xor(V a, V b) { return _mm512_xor_si512(a, b); }
static inline V v_max(V a, V b) { return _mm512_max_epi32(a, b); }
static inline V v_srl(V a, VC n) { return _mm512_srl_epi32(a, n); }
static inline V v_sll(V a, VC n) { return _mm512_sll_epi32(a, n); }
static inline V v_srli(V a, int n) { return _mm512_srli_epi32(a, (unsigned)n); }
static inline V v_mullo32(V a, V b) { return _mm512_mullo_epi32(a, b); }
static inline V v_madd16(V a, V b) { return _mm512_madd_epi16(a, b); }
static inline V v_mullo16(V a, V b) { return _mm512_mullo_epi16(a, b); }
static inline V v_mulhi16u(V a, V b) { return _mm512_mulhi_epu16(a, b); }
static inline V v_unpacklo16(V a, V b) { return _mm512_unpacklo_epi16(a, b); }
static inline V v_unpackhi16(V a, V b) { return _mm512_unpackhi_epi16(a, b); }
static inline VD vd_set1(double x) { return _mm512_set1_pd(x); }

static inline M m_all(void) { return 0xffff; }
static inline M m_cmpgt(V a, V b) { return _mm512_cmpgt_epi32_mask(a, b); }
static inline M m_and(M a, M b) { return a & b; }
/** ~a & b */
static inline M m_andnot(M a, M b) { return (M)(~a & b); }
static inline int m_none(M m) { return !m; }
static inline V v_add_if(V acc, M m, V x) { return _mm512_mask_add_epi32(acc, m, acc, x); }
/** Lanes i whose column base + 2i is below w. */
static inline M m_even_below(int w, int base)
{
    return _mm512_cmpgt_epi32_mask(
        _mm512_set1_epi32(w),
        _mm512_add_epi32(_mm512_set1_epi32(base),
                         _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30)));
}

/** 32 bytes as 32 16-bit lanes. */
static inline V v_u8_to_16(const uint8_t *p)
{
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
}

/**
 * Store 32 uint32 lanes (each < 2^16) in unpack order (per 128-bit lane: lo
 * 4 columns, hi 4 columns) as uint16 offset by -32768.
 */
static inline void store2_centred(uint16_t *dst, V lo, V hi)
{
    _mm512_storeu_si512(dst, _mm512_xor_si512(_mm512_packus_epi32(lo, hi),
                                              _mm512_set1_epi16((short)0x8000)));
}

/** Store 16 uint32 lanes (each < 2^16) as 16 uint16. */
static inline void store_u16(uint16_t *dst, V v)
{
    _mm256_storeu_si256((__m256i *)dst, _mm512_cvtepi32_epi16(v));
}

/** Even columns e and odd columns o back into column order, 32 values. */
static inline void store_interleaved(uint32_t *dst, V e, V o)
{
    const __m512i ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i ihi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                          15, 31);
    _mm512_storeu_si512(dst, _mm512_permutex2var_epi32(e, ilo, o));
    _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi32(e, ihi, o));
}

/* ---- The statistic's particular steps ---- */

/** The sums every gain limit shares. */
typedef struct StatCommon {
    __m512i den_log;      /**< 16 x int32, flushed before it can overflow */
    __m512i num_non_log;  /**< 8 x int64 */
    int64_t count;
} StatCommon;

static inline StatCommon stat_common_start(void)
{
    StatCommon c;
    c.den_log = c.num_non_log = _mm512_setzero_si512();
    c.count = 0;
    return c;
}

static inline int64_t hsum32(__m512i v)
{
    return _mm512_reduce_add_epi64(
        _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)),
                         _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1))));
}

static inline void stat_common_flush(StatCommon *c, IvifAccum *acc)
{
    acc->den_log += hsum32(c->den_log);
    acc->num_non_log += _mm512_reduce_add_epi64(c->num_non_log);
    acc->den_non_log += c->count;
    *c = stat_common_start();
}

/** sigma2^2 and a count for the lanes outside the log branch (m). */
static inline void stat_non_log(StatCommon *c, M m, V s2)
{
    const __m512i s2_nl = _mm512_maskz_mov_epi32(m, s2);
    c->num_non_log = _mm512_add_epi64(c->num_non_log,
        _mm512_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(s2_nl)),
                         _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(s2_nl, 1))));
    c->count += __builtin_popcount(m);
}

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
static inline V mul_round32(V a, V b)
{
    const __m512i half = _mm512_set1_epi64(INT64_C(0x80000000));
    const __m512i even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, b), half), 32);
    const __m512i odd = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), half);
    return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}

/** Table values of the lanes in m (other lanes 0): gather at 2*idx, low half, plus 2048*k. */
static inline V log2_lookup(const uint16_t *table, M m, V idx, V k)
{
    const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx,
                                                  (const void *)table, 2);
    return _mm512_add_epi32(_mm512_and_si512(v, _mm512_set1_epi32(0xffff)),
                            _mm512_slli_epi32(k, 11));
}

/** ivif_log2 of the uint32 lanes t >= 2^15 in m: k = 16 - lzcnt(t). */
static inline V log2_u32(const uint16_t *table, M m, V t)
{
    const __m512i k = _mm512_sub_epi32(_mm512_set1_epi32(16), _mm512_lzcnt_epi32(t));
    return log2_lookup(table, m, _mm512_srlv_epi32(t, k), k);
}

/** The numerator's steps the gain limit does not change, per half of the lanes. */
typedef struct NumPrep {
    __m512d g[2];       /**< s12 / (s1 + eps), before the limit */
    __m512d s1d[2];
    __m512i n1[2];      /**< numer1, 8 x int64 */
    V l1;               /**< log2(numer1) */
} NumPrep;

/**
 * numer1 = max((int32)(s2 - g*s12), 0) + nsq and g before the limit, in
 * double per 8 lanes, as the reference writes them, and log2(numer1).
 */
static inline void num_prep(V s1, V s2, V s12, M m, const uint16_t *table, NumPrep *p)
{
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10);
    __m256i n1[2];
    for (int h = 0; h < 2; h++) {
        const __m256i a = h ? _mm512_extracti64x4_epi64(s1, 1) : _mm512_castsi512_si256(s1);
        const __m256i b = h ? _mm512_extracti64x4_epi64(s2, 1) : _mm512_castsi512_si256(s2);
        const __m256i c = h ? _mm512_extracti64x4_epi64(s12, 1) : _mm512_castsi512_si256(s12);
        const __m512d s1d = _mm512_cvtepi32_pd(a), s2d = _mm512_cvtepi32_pd(b);
        const __m512d s12d = _mm512_cvtepi32_pd(c);
        const __m512d g = _mm512_div_pd(s12d, _mm512_add_pd(s1d, eps));
        const __m256i sv = _mm256_max_epi32(
            _mm512_cvttpd_epi32(_mm512_sub_pd(s2d, _mm512_mul_pd(g, s12d))),
            _mm256_setzero_si256());
        n1[h] = _mm256_add_epi32(sv, _mm256_set1_epi32(IVIF_SIGMA_NSQ));
        p->g[h] = g;
        p->s1d[h] = s1d;
        p->n1[h] = _mm512_cvtepu32_epi64(n1[h]);
    }
    p->l1 = log2_u32(table, m, _mm512_inserti64x4(_mm512_castsi256_si512(n1[0]), n1[1], 1));
}

/**
 * log2(numerator) - log2(numer1) of the lanes in m (others: 0 - 0) under
 * the limit egl: the 64-bit numerator (int64)(g*g*s1) + numer1, its table
 * index and k = 48 - lzcnt.
 */
static inline V num_log_term(const NumPrep *p, VD egl, M m, const uint16_t *table)
{
    __m256i k[2], idx[2];
    for (int h = 0; h < 2; h++) {
        const __m512d g = _mm512_min_pd(p->g[h], egl);
        const __m512i prod = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), p->s1d[h]));
        const __m512i v = _mm512_add_epi64(prod, p->n1[h]);
        const __m512i kk = _mm512_sub_epi64(_mm512_set1_epi64(48), _mm512_lzcnt_epi64(v));
        k[h] = _mm512_cvtepi64_epi32(kk);
        idx[h] = _mm512_cvtepi64_epi32(_mm512_srlv_epi64(v, kk));
    }
    const __m512i l2 = log2_lookup(table, m,
                                   _mm512_inserti64x4(_mm512_castsi256_si512(idx[0]), idx[1], 1),
                                   _mm512_inserti64x4(_mm512_castsi256_si512(k[0]), k[1], 1));
    return _mm512_sub_epi32(l2, p->l1);
}

#elif EV_SIMD_IS_NEON
/*
 * NEON (AArch64 Advanced SIMD), 4 lanes:
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
#include <arm_neon.h>

#define LANES 4
#define VERT_PASSES 1

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

#else
#error "ivif_simd.h is for the vector builds of ivif_simd_tmpl.c"
#endif

#endif
