/*
 * AVX2 integer VIF kernels: ivif_simd_tmpl.c on 8 lanes. Selected at run
 * time by ivif_dsp_init on processors with AVX2; tests/checkasm
 * checks every one against the C reference on random and edge inputs.
 *
 * What is particular to this width (the rest is in the template):
 * - Masks are vectors of all-ones lanes; the gathers read every lane, with
 *   indices clamped into the table, and lanes outside a branch are masked
 *   out of the sums.
 * - floor(log2 v) is read from an exact floating-point image of v:
 *   (float)(v >> 8) for a 32-bit v (< 2^24, exact), and for the 64-bit
 *   numerator the double trunc(g*g*s1) + numer1 (integers below 2^53,
 *   exact), whose top mantissa bits are then v's top 16 bits.
 * - The double steps are vdivpd, vmulpd, vsubpd, vaddpd (this target does
 *   not enable FMA), vcvttpd2dq and vminpd(g, egl).
 * - 16 registers: the 16-bit vertical pass takes two passes over the taps.
 */
#include <string.h>

#include "ivif_dsp.h"

#if IVIF_HAVE_AVX2

#include <immintrin.h>

#define TGT __attribute__((target("avx2")))
#define ISA(name) name##_avx2
#define LANES 8
#define VERT_PASSES 2

typedef __m256i V;
typedef __m256i M;
typedef __m256d VD;

TGT static inline V v_zero(void) { return _mm256_setzero_si256(); }
TGT static inline V v_set1(int32_t x) { return _mm256_set1_epi32(x); }
TGT static inline V v_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
TGT static inline V v_add(V a, V b) { return _mm256_add_epi32(a, b); }
TGT static inline V v_sub(V a, V b) { return _mm256_sub_epi32(a, b); }
TGT static inline V v_and(V a, V b) { return _mm256_and_si256(a, b); }
TGT static inline V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }
TGT static inline V v_max(V a, V b) { return _mm256_max_epi32(a, b); }
TGT static inline V v_srl(V a, __m128i n) { return _mm256_srl_epi32(a, n); }
TGT static inline V v_sll(V a, __m128i n) { return _mm256_sll_epi32(a, n); }
TGT static inline V v_srli(V a, int n) { return _mm256_srli_epi32(a, n); }
TGT static inline V v_mullo32(V a, V b) { return _mm256_mullo_epi32(a, b); }
TGT static inline V v_madd16(V a, V b) { return _mm256_madd_epi16(a, b); }
TGT static inline V v_mullo16(V a, V b) { return _mm256_mullo_epi16(a, b); }
TGT static inline V v_mulhi16u(V a, V b) { return _mm256_mulhi_epu16(a, b); }
TGT static inline V v_unpacklo16(V a, V b) { return _mm256_unpacklo_epi16(a, b); }
TGT static inline V v_unpackhi16(V a, V b) { return _mm256_unpackhi_epi16(a, b); }
TGT static inline VD vd_set1(double x) { return _mm256_set1_pd(x); }

TGT static inline M m_all(void) { return _mm256_set1_epi32(-1); }
TGT static inline M m_cmpgt(V a, V b) { return _mm256_cmpgt_epi32(a, b); }
TGT static inline M m_and(M a, M b) { return _mm256_and_si256(a, b); }
/** ~a & b */
TGT static inline M m_andnot(M a, M b) { return _mm256_andnot_si256(a, b); }
TGT static inline int m_none(M m) { return _mm256_testz_si256(m, m); }
TGT static inline V v_add_if(V acc, M m, V x) { return _mm256_add_epi32(acc, _mm256_and_si256(x, m)); }
/** Lanes i whose column base + 2i is below w. */
TGT static inline M m_even_below(int w, int base)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w),
                              _mm256_add_epi32(_mm256_set1_epi32(base),
                                               _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)));
}

/** 16 bytes as 16 16-bit lanes. */
TGT static inline V v_u8_to_16(const uint8_t *p)
{
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/** 8 uint32 lanes (each < 2^16) as 8 uint16. */
TGT static inline __m128i pack16(V v)
{
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08));
}

/**
 * Store 16 uint32 lanes (each < 2^16) in unpack order (lo: columns 0-3,
 * 8-11; hi: 4-7, 12-15) as uint16 offset by -32768.
 */
TGT static inline void store2_centred(uint16_t *dst, V lo, V hi)
{
    _mm256_storeu_si256((__m256i *)dst, _mm256_xor_si256(_mm256_packus_epi32(lo, hi),
                                                         _mm256_set1_epi16((short)0x8000)));
}

/** Store 8 uint32 lanes (each < 2^16) as 8 uint16. */
TGT static inline void store_u16(uint16_t *dst, V v)
{
    _mm_storeu_si128((__m128i *)dst, pack16(v));
}

/** Even columns e and odd columns o back into column order, 16 values. */
TGT static inline void store_interleaved(uint32_t *dst, V e, V o)
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

TGT static inline StatCommon stat_common_start(void)
{
    StatCommon c = { _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256() };
    return c;
}

TGT static inline int64_t hsum64(__m256i v)
{
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

TGT static inline int64_t hsum32(__m256i v)
{
    return hsum64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                   _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1))));
}

TGT static inline void stat_common_flush(StatCommon *c, IvifAccum *acc)
{
    acc->den_log += hsum32(c->den_log);
    acc->den_non_log += hsum32(c->count);
    acc->num_non_log += hsum64(c->num_non_log);
    *c = stat_common_start();
}

/** sigma2^2 and a count for the lanes outside the log branch (m). */
TGT static inline void stat_non_log(StatCommon *c, M m, V s2)
{
    const __m256i s2_nl = _mm256_and_si256(m, s2);
    c->num_non_log = _mm256_add_epi64(c->num_non_log,
        _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(s2_nl)),
                         _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s2_nl, 1))));
    c->count = _mm256_sub_epi32(c->count, m);
}

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
TGT static inline V mul_round32(V a, V b)
{
    const __m256i half = _mm256_set1_epi64x(INT64_C(0x80000000));
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), half), 32);
    const __m256i odd = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), half);
    return _mm256_blend_epi32(even, odd, 0xAA);
}

/** Table values of 8 indices (forced into [32768, 65535]), plus 2048*k. */
TGT static inline V log2_lookup(const uint16_t *table, V idx, V k)
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
TGT static inline V log2_u32(const uint16_t *table, M m, V t)
{
    (void)m;
    const __m256 f = _mm256_cvtepi32_ps(_mm256_srli_epi32(t, 8));
    /* k = floor(log2 t) - 15 = (biased exponent - 127 + 8) - 15 */
    const __m256i k = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(f), 23),
                                       _mm256_set1_epi32(134));
    return log2_lookup(table, _mm256_srlv_epi32(t, k), k);
}

/** uint32 lanes to double, exactly. */
TGT static inline __m256d u32_to_pd(__m128i x)
{
    const __m256d d = _mm256_cvtepi32_pd(_mm_xor_si128(x, _mm_set1_epi32(INT32_MIN)));
    return _mm256_add_pd(d, _mm256_set1_pd(2147483648.0));
}

/** The low 32 bits of 4 64-bit lanes. */
TGT static inline __m128i low32(__m256i v)
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
TGT static inline void num_prep(V s1, V s2, V s12, M m, const uint16_t *table, NumPrep *p)
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
TGT static inline V num_log_term(const NumPrep *p, VD egl, M m, const uint16_t *table)
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

#include "ivif_simd_tmpl.c"

#endif
