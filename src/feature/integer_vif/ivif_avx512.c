/*
 * AVX-512 (F, BW, DQ, VL, CD) integer VIF kernels: ivif_simd_tmpl.c on 16
 * lanes. Selected by ivif_dsp_init on processors with these extensions;
 * tests/checkasm checks every kernel against the C reference.
 *
 * What is particular to this width (the rest is in the template):
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
#include <string.h>

#include "ivif_dsp.h"

#if IVIF_HAVE_AVX512

#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2")))
#define ISA(name) name##_avx512
#define LANES 16
#define VERT_PASSES 1

typedef __m512i V;
typedef __mmask16 M;
typedef __m512d VD;

TGT static inline V v_zero(void) { return _mm512_setzero_si512(); }
TGT static inline V v_set1(int32_t x) { return _mm512_set1_epi32(x); }
TGT static inline V v_load(const void *p) { return _mm512_loadu_si512(p); }
TGT static inline V v_add(V a, V b) { return _mm512_add_epi32(a, b); }
TGT static inline V v_sub(V a, V b) { return _mm512_sub_epi32(a, b); }
TGT static inline V v_and(V a, V b) { return _mm512_and_si512(a, b); }
TGT static inline V v_xor(V a, V b) { return _mm512_xor_si512(a, b); }
TGT static inline V v_max(V a, V b) { return _mm512_max_epi32(a, b); }
TGT static inline V v_srl(V a, __m128i n) { return _mm512_srl_epi32(a, n); }
TGT static inline V v_sll(V a, __m128i n) { return _mm512_sll_epi32(a, n); }
TGT static inline V v_srli(V a, int n) { return _mm512_srli_epi32(a, (unsigned)n); }
TGT static inline V v_mullo32(V a, V b) { return _mm512_mullo_epi32(a, b); }
TGT static inline V v_madd16(V a, V b) { return _mm512_madd_epi16(a, b); }
TGT static inline V v_mullo16(V a, V b) { return _mm512_mullo_epi16(a, b); }
TGT static inline V v_mulhi16u(V a, V b) { return _mm512_mulhi_epu16(a, b); }
TGT static inline V v_unpacklo16(V a, V b) { return _mm512_unpacklo_epi16(a, b); }
TGT static inline V v_unpackhi16(V a, V b) { return _mm512_unpackhi_epi16(a, b); }
TGT static inline VD vd_set1(double x) { return _mm512_set1_pd(x); }

TGT static inline M m_all(void) { return 0xffff; }
TGT static inline M m_cmpgt(V a, V b) { return _mm512_cmpgt_epi32_mask(a, b); }
TGT static inline M m_and(M a, M b) { return a & b; }
/** ~a & b */
TGT static inline M m_andnot(M a, M b) { return (M)(~a & b); }
TGT static inline int m_none(M m) { return !m; }
TGT static inline V v_add_if(V acc, M m, V x) { return _mm512_mask_add_epi32(acc, m, acc, x); }
/** Lanes i whose column base + 2i is below w. */
TGT static inline M m_even_below(int w, int base)
{
    return _mm512_cmpgt_epi32_mask(
        _mm512_set1_epi32(w),
        _mm512_add_epi32(_mm512_set1_epi32(base),
                         _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30)));
}

/** 32 bytes as 32 16-bit lanes. */
TGT static inline V v_u8_to_16(const uint8_t *p)
{
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
}

/**
 * Store 32 uint32 lanes (each < 2^16) in unpack order (per 128-bit lane: lo
 * 4 columns, hi 4 columns) as uint16 offset by -32768.
 */
TGT static inline void store2_centred(uint16_t *dst, V lo, V hi)
{
    _mm512_storeu_si512(dst, _mm512_xor_si512(_mm512_packus_epi32(lo, hi),
                                              _mm512_set1_epi16((short)0x8000)));
}

/** Store 16 uint32 lanes (each < 2^16) as 16 uint16. */
TGT static inline void store_u16(uint16_t *dst, V v)
{
    _mm256_storeu_si256((__m256i *)dst, _mm512_cvtepi32_epi16(v));
}

/** Even columns e and odd columns o back into column order, 32 values. */
TGT static inline void store_interleaved(uint32_t *dst, V e, V o)
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

TGT static inline StatCommon stat_common_start(void)
{
    StatCommon c;
    c.den_log = c.num_non_log = _mm512_setzero_si512();
    c.count = 0;
    return c;
}

TGT static inline int64_t hsum32(__m512i v)
{
    return _mm512_reduce_add_epi64(
        _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)),
                         _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1))));
}

TGT static inline void stat_common_flush(StatCommon *c, IvifAccum *acc)
{
    acc->den_log += hsum32(c->den_log);
    acc->num_non_log += _mm512_reduce_add_epi64(c->num_non_log);
    acc->den_non_log += c->count;
    *c = stat_common_start();
}

/** sigma2^2 and a count for the lanes outside the log branch (m). */
TGT static inline void stat_non_log(StatCommon *c, M m, V s2)
{
    const __m512i s2_nl = _mm512_maskz_mov_epi32(m, s2);
    c->num_non_log = _mm512_add_epi64(c->num_non_log,
        _mm512_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(s2_nl)),
                         _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(s2_nl, 1))));
    c->count += __builtin_popcount(m);
}

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
TGT static inline V mul_round32(V a, V b)
{
    const __m512i half = _mm512_set1_epi64(INT64_C(0x80000000));
    const __m512i even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, b), half), 32);
    const __m512i odd = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), half);
    return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}

/** Table values of the lanes in m (other lanes 0): gather at 2*idx, low half, plus 2048*k. */
TGT static inline V log2_lookup(const uint16_t *table, M m, V idx, V k)
{
    const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx,
                                                  (const void *)table, 2);
    return _mm512_add_epi32(_mm512_and_si512(v, _mm512_set1_epi32(0xffff)),
                            _mm512_slli_epi32(k, 11));
}

/** ivif_log2 of the uint32 lanes t >= 2^15 in m: k = 16 - lzcnt(t). */
TGT static inline V log2_u32(const uint16_t *table, M m, V t)
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
TGT static inline void num_prep(V s1, V s2, V s12, M m, const uint16_t *table, NumPrep *p)
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
TGT static inline V num_log_term(const NumPrep *p, VD egl, M m, const uint16_t *table)
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

#include "ivif_simd_tmpl.c"

#endif
