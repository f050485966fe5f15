/*
 * AVX2 integer VIF kernels: the vertical and horizontal filters and the
 * statistic, fused per row, and the decimation. Selected at run time by
 * ivif_dsp_init on processors with AVX2; tests/checkasm_ivm.c checks every
 * one against the C reference on random and edge inputs.
 *
 * Why the bits are the reference's:
 * - Filters. Every filter sum is an integer sum of products below 2^32 (or,
 *   for the 48-bit moment sums, two such sums over the 16-bit halves of the
 *   products; see ivif_dsp.c), so any grouping and any lane order is exact
 *   modulo 2^32, where the reference's results live. vpmaddwd multiplies
 *   signed 16-bit pairs, so unsigned 16-bit values v are fed as v - 32768
 *   (v ^ 0x8000): a filter whose coefficients sum to 65536 then returns
 *   S - 2^31, and S = that ^ 0x80000000. A coefficient must be < 32768:
 *   the 3-tap filter's centre (43728) is split into two halves.
 * - The statistic: the integer steps are the reference's, lane by lane, and
 *   its sums are integer (any grouping is exact). The double steps are the
 *   same IEEE operations (vdivpd, vmulpd, vsubpd, vaddpd; this target does
 *   not enable FMA), vcvttpd2dq truncates and gives INT32_MIN out of range
 *   exactly as ivif_trunc_i32 models the scalar conversion, and
 *   vminpd(g, egl) is (g < egl ? g : egl). The log2 normalisation reads
 *   floor(log2 v) from an exact floating-point image of v: (float)(v >> 8)
 *   for a 32-bit v (< 2^24, exact), and for the 64-bit numerator the double
 *   trunc(g*g*s1) + numer1 (integers below 2^53, exact), whose top mantissa
 *   bits are then v's top 16 bits. Lanes outside a branch get a clamped
 *   table index and are masked out of the sums.
 * - The horizontal pass computes even and odd columns in separate vectors;
 *   the statistic's sums do not depend on pixel order.
 */
#include <string.h>

#include "ivif_dsp.h"

#if IVIF_HAVE_AVX2

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* ---- Coefficient pairs for vpmaddwd ---- */

/** A 32-bit lane holding the 16-bit pair (c0, c1), c0 in the low half. */
static inline int32_t pair32(unsigned c0, unsigned c1)
{
    return (int32_t)((c0 & 0xffff) | ((c1 & 0xffff) << 16));
}

/**
 * The horizontal filter as vpmaddwd pairs: pair i covers the taps at column
 * offsets off[i] and off[i] + 1 with coefficients coef[i]. Returns the count.
 * Every coefficient of the tables is below 32768 except the 3-tap centre,
 * which is split: f0 v[-1] + (c/2) v[0] and (c - c/2) v[0] + f2 v[1].
 */
static int hpairs(const uint16_t *f, int fw, int off[IVIF_MAX_TAPS], int32_t coef[IVIF_MAX_TAPS])
{
    const int r = fw / 2;
    if (fw == 3 && f[1] > 32767) {
        off[0] = -1;
        coef[0] = pair32(f[0], f[1] / 2u);
        off[1] = 0;
        coef[1] = pair32(f[1] - f[1] / 2u, f[2]);
        return 2;
    }
    int n = 0;
    for (int k = 0; k < fw; k += 2, n++) {
        off[n] = k - r;
        coef[n] = pair32(f[k], k + 1 < fw ? f[k + 1] : 0);
    }
    return n;
}

/* ---- The statistic on 8 lanes ---- */

typedef struct StatAcc {
    __m256i num_log;      /**< 8 x int32, flushed before it can overflow */
    __m256i den_log;      /**< 8 x int32, likewise */
    __m256i count;        /**< 8 x int32, likewise */
    __m256i num_non_log;  /**< 4 x int64 */
} StatAcc;

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
AVX2 static inline __m256i mul_round32(__m256i a, __m256i b)
{
    const __m256i half = _mm256_set1_epi64x(INT64_C(0x80000000));
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), half), 32);
    const __m256i odd = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), half);
    return _mm256_blend_epi32(even, odd, 0xAA);
}

/** Table values of 8 indices (forced into [32768, 65535]), plus 2048*k. */
AVX2 static inline __m256i log2_lookup(const uint16_t *table, __m256i idx, __m256i k)
{
    idx = _mm256_or_si256(_mm256_and_si256(idx, _mm256_set1_epi32(0x7fff)),
                          _mm256_set1_epi32(0x8000));
    /* 4-byte gather at 2*idx (the table has one spare entry), low half. */
    const __m256i v = _mm256_and_si256(
        _mm256_i32gather_epi32((const int *)(const void *)table, idx, 2),
        _mm256_set1_epi32(0xffff));
    return _mm256_add_epi32(v, _mm256_slli_epi32(k, 11));
}

/** ivif_log2 of 8 uint32 values t >= 2^15 (other lanes: garbage, never an out-of-range read). */
AVX2 static inline __m256i log2_u32(const uint16_t *table, __m256i t)
{
    const __m256 f = _mm256_cvtepi32_ps(_mm256_srli_epi32(t, 8));
    /* k = floor(log2 t) - 15 = (biased exponent - 127 + 8) - 15 */
    const __m256i k = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(f), 23),
                                       _mm256_set1_epi32(134));
    return log2_lookup(table, _mm256_srlv_epi32(t, k), k);
}

/** uint32 lanes to double, exactly. */
AVX2 static inline __m256d u32_to_pd(__m128i x)
{
    const __m256d d = _mm256_cvtepi32_pd(_mm_xor_si128(x, _mm_set1_epi32(INT32_MIN)));
    return _mm256_add_pd(d, _mm256_set1_pd(2147483648.0));
}

/** The low 32 bits of 4 64-bit lanes. */
AVX2 static inline __m128i low32(__m256i v)
{
    return _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}

/**
 * The numerator's double steps for 4 lanes (int32 sigmas): numer1 =
 * max((int32)(s2 - g*s12), 0) + nsq, and for the 64-bit numerator
 * trunc(g*g*s1) + numer1 (exact in double) its table index (the top 15
 * mantissa bits under the leading one) and shift k = floor(log2) - 15.
 */
AVX2 static inline void num_half(__m128i s1, __m128i s2, __m128i s12, __m256d egl,
                                 __m128i *numer1, __m128i *idx, __m128i *k)
{
    const __m256d s1d = _mm256_cvtepi32_pd(s1);
    const __m256d s2d = _mm256_cvtepi32_pd(s2);
    const __m256d s12d = _mm256_cvtepi32_pd(s12);
    const __m256d eps = _mm256_set1_pd(65536 * 1.0e-10);

    __m256d g = _mm256_div_pd(s12d, _mm256_add_pd(s1d, eps));
    __m128i sv = _mm256_cvttpd_epi32(_mm256_sub_pd(s2d, _mm256_mul_pd(g, s12d)));
    sv = _mm_max_epi32(sv, _mm_setzero_si128());
    g = _mm256_min_pd(g, egl);
    *numer1 = _mm_add_epi32(sv, _mm_set1_epi32(IVIF_SIGMA_NSQ));
    const __m256d prod = _mm256_mul_pd(_mm256_mul_pd(g, g), s1d);
    const __m256d tr = _mm256_round_pd(prod, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256i bits = _mm256_castpd_si256(_mm256_add_pd(tr, u32_to_pd(*numer1)));
    /* The sign bit is 0 in valid lanes: the biased exponent is bits >> 52. */
    *k = _mm_sub_epi32(low32(_mm256_srli_epi64(bits, 52)), _mm_set1_epi32(1023 + 15));
    *idx = low32(_mm256_srli_epi64(bits, 37));
}

/** ivif_stat_pixel on 8 lanes; lanes where `valid` is 0 add nothing. */
AVX2 static inline void stat8(__m256i mu1, __m256i mu2, __m256i xx, __m256i yy, __m256i xy,
                              __m256i valid, __m256d egl, const uint16_t *table, StatAcc *a)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i s1 = _mm256_sub_epi32(xx, mul_round32(mu1, mu1));
    __m256i s2 = _mm256_sub_epi32(yy, mul_round32(mu2, mu2));
    const __m256i s12 = _mm256_sub_epi32(xy, mul_round32(mu1, mu2));
    s2 = _mm256_max_epi32(s2, zero);

    const __m256i is_log_all = _mm256_cmpgt_epi32(s1, _mm256_set1_epi32(IVIF_SIGMA_NSQ - 1));
    const __m256i is_log = _mm256_and_si256(is_log_all, valid);
    const __m256i non_log = _mm256_andnot_si256(is_log_all, valid);

    /* Outside the log branch: sigma2^2 and a count. */
    const __m256i s2_nl = _mm256_and_si256(non_log, s2);
    a->num_non_log = _mm256_add_epi64(a->num_non_log,
        _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(s2_nl)),
                         _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s2_nl, 1))));
    a->count = _mm256_sub_epi32(a->count, non_log);
    if (_mm256_testz_si256(is_log, is_log))
        return;

    /* log2(nsq + s1) - 17, the sum formed in 32 bits as the reference adds two int32. */
    const __m256i dterm = _mm256_sub_epi32(
        log2_u32(table, _mm256_add_epi32(s1, _mm256_set1_epi32(IVIF_SIGMA_NSQ))),
        _mm256_set1_epi32(17 * IVIF_LOG2_ONE));
    a->den_log = _mm256_add_epi32(a->den_log, _mm256_and_si256(dterm, is_log));

    const __m256i is_num = _mm256_and_si256(is_log,
        _mm256_and_si256(_mm256_cmpgt_epi32(s12, zero), _mm256_cmpgt_epi32(s2, zero)));
    if (_mm256_testz_si256(is_num, is_num))
        return;
    __m128i n1_lo, n1_hi, i_lo, i_hi, k_lo, k_hi;
    num_half(_mm256_castsi256_si128(s1), _mm256_castsi256_si128(s2),
             _mm256_castsi256_si128(s12), egl, &n1_lo, &i_lo, &k_lo);
    num_half(_mm256_extracti128_si256(s1, 1), _mm256_extracti128_si256(s2, 1),
             _mm256_extracti128_si256(s12, 1), egl, &n1_hi, &i_hi, &k_hi);
    /* log2(numerator) - log2(numer1): both below 2^17, and so is the difference. */
    const __m256i l2 = log2_lookup(table, _mm256_set_m128i(i_hi, i_lo),
                                   _mm256_set_m128i(k_hi, k_lo));
    const __m256i l1 = log2_u32(table, _mm256_set_m128i(n1_hi, n1_lo));
    a->num_log = _mm256_add_epi32(a->num_log,
                                  _mm256_and_si256(_mm256_sub_epi32(l2, l1), is_num));
}

AVX2 static inline int64_t hsum64(__m256i v)
{
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

AVX2 static inline int64_t hsum32(__m256i v)
{
    const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
    const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
    return hsum64(_mm256_add_epi64(lo, hi));
}

/* stat8 calls between flushes of the 32-bit lane sums: a lane then holds at
 * most this many terms, each below 2^17 (the log terms) or 1 (the count). */
#define FLUSH_EVERY 4096

AVX2 static inline void stat_flush(StatAcc *a, IvifAccum *acc)
{
    acc->num_log += hsum32(a->num_log);
    acc->den_log += hsum32(a->den_log);
    acc->den_non_log += hsum32(a->count);
    acc->num_non_log += hsum64(a->num_non_log);
    a->num_log = a->den_log = a->count = a->num_non_log = _mm256_setzero_si256();
}

AVX2 void ivif_stat_row_avx2(const IvifRow *in, int n, double egl,
                             const uint16_t *log2_table, IvifAccum *acc)
{
    const __m256d eglv = _mm256_set1_pd(egl);
    const __m256i all = _mm256_set1_epi32(-1);
    StatAcc a = { _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                  _mm256_setzero_si256() };
    int j = 0, calls = 0;
    for (; j + 8 <= n; j += 8) {
        stat8(_mm256_loadu_si256((const __m256i *)(in->mu1 + j)),
              _mm256_loadu_si256((const __m256i *)(in->mu2 + j)),
              _mm256_loadu_si256((const __m256i *)(in->xx + j)),
              _mm256_loadu_si256((const __m256i *)(in->yy + j)),
              _mm256_loadu_si256((const __m256i *)(in->xy + j)), all, eglv, log2_table, &a);
        if (++calls == FLUSH_EVERY) {
            stat_flush(&a, acc);
            calls = 0;
        }
    }
    stat_flush(&a, acc);
    for (; j < n; j++)
        ivif_stat_pixel(in->mu1[j], in->mu2[j], in->xx[j], in->yy[j], in->xy[j], egl,
                        log2_table, acc);
}

/* ---- Vertical pass ---- */

#define CENTRE 0x8000

/** Store 8 uint32 lanes (each < 2^16) as 8 uint16 offset by -32768. */
AVX2 static inline void store8_centred(uint16_t *dst, __m256i v)
{
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
    _mm_storeu_si128((__m128i *)dst,
                     _mm_xor_si128(_mm256_castsi256_si128(p), _mm_set1_epi16((short)CENTRE)));
}

/** Store 16 uint32 lanes in unpack order (lo: columns 0-3, 8-11; hi: 4-7, 12-15) as above. */
AVX2 static inline void store16_centred(uint16_t *dst, __m256i lo, __m256i hi)
{
    _mm256_storeu_si256((__m256i *)dst, _mm256_xor_si256(_mm256_packus_epi32(lo, hi),
                                                         _mm256_set1_epi16((short)CENTRE)));
}

/** 8 columns of two 8-bit rows as 16-bit pairs (a_j, b_j) in 32-bit lanes. */
AVX2 static inline __m256i pair_u8(const uint8_t *a, const uint8_t *b)
{
    return _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)a),
                                                  _mm_loadl_epi64((const __m128i *)b)));
}

/** Vertical pass over the 8-bit columns [0, w & ~7), into the centred halves s->h[0..7]. */
AVX2 static void vert_u8(const IvifTaps *t, const IvifScratch *s)
{
    const int fw = t->fw, r = fw / 2, w8 = t->w & ~7;
    /* The reference's 8-bit moments are not shifted (round 0, shift 0). */
    const __m256i fc = _mm256_set1_epi32((int)t->f[r]);
    const __m256i mu_round = _mm256_set1_epi32((int)t->mu_round);
    const __m128i mu_shift = _mm_cvtsi32_si128(t->mu_shift);
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    __m256i fpair[IVIF_MAX_TAPS / 2], f32[IVIF_MAX_TAPS / 2];
    for (int p = 0; p < r; p++) {
        fpair[p] = _mm256_set1_epi32(pair32(t->f[p], t->f[p]));
        f32[p] = _mm256_set1_epi32((int)t->f[p]);
    }

    for (int j = 0; j < w8; j += 8) {
        /* Centre tap: (x, 0) pairs. */
        __m256i px = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)
                                          ((const uint8_t *)t->ref[r] + j)));
        __m256i py = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)
                                          ((const uint8_t *)t->dis[r] + j)));
        __m256i m1 = _mm256_mullo_epi32(px, fc), m2 = _mm256_mullo_epi32(py, fc);
        __m256i sxx = _mm256_mullo_epi32(_mm256_madd_epi16(px, px), fc);
        __m256i syy = _mm256_mullo_epi32(_mm256_madd_epi16(py, py), fc);
        __m256i sxy = _mm256_mullo_epi32(_mm256_madd_epi16(px, py), fc);
        for (int p = 0; p < r; p++) {
            px = pair_u8((const uint8_t *)t->ref[p] + j, (const uint8_t *)t->ref[fw - 1 - p] + j);
            py = pair_u8((const uint8_t *)t->dis[p] + j, (const uint8_t *)t->dis[fw - 1 - p] + j);
            m1 = _mm256_add_epi32(m1, _mm256_madd_epi16(px, fpair[p]));
            m2 = _mm256_add_epi32(m2, _mm256_madd_epi16(py, fpair[p]));
            sxx = _mm256_add_epi32(sxx, _mm256_mullo_epi32(_mm256_madd_epi16(px, px), f32[p]));
            syy = _mm256_add_epi32(syy, _mm256_mullo_epi32(_mm256_madd_epi16(py, py), f32[p]));
            sxy = _mm256_add_epi32(sxy, _mm256_mullo_epi32(_mm256_madd_epi16(px, py), f32[p]));
        }
        m1 = _mm256_srl_epi32(_mm256_add_epi32(m1, mu_round), mu_shift);
        m2 = _mm256_srl_epi32(_mm256_add_epi32(m2, mu_round), mu_shift);
        store8_centred(s->h[0] + j, _mm256_and_si256(m1, lo16));
        store8_centred(s->h[1] + j, _mm256_and_si256(m2, lo16));
        store8_centred(s->h[2] + j, _mm256_and_si256(sxx, lo16));
        store8_centred(s->h[3] + j, _mm256_srli_epi32(sxx, 16));
        store8_centred(s->h[4] + j, _mm256_and_si256(syy, lo16));
        store8_centred(s->h[5] + j, _mm256_srli_epi32(syy, 16));
        store8_centred(s->h[6] + j, _mm256_and_si256(sxy, lo16));
        store8_centred(s->h[7] + j, _mm256_srli_epi32(sxy, 16));
    }
}

/**
 * A moment from its two centred half sums: S = 2^16 H + L, and the
 * reference's (uint32)((S + round) >> shift) = (H << (16 - shift)) +
 * ((L + round) >> shift) modulo 2^32. Returns the low and high 16 bits.
 */
AVX2 static inline void moment_halves(__m256i lc, __m256i hc, __m256i round, __m128i shift,
                                      __m128i inv_shift, __m256i *lo, __m256i *hi)
{
    const __m256i top = _mm256_set1_epi32(INT32_MIN);
    const __m256i l = _mm256_xor_si256(lc, top), h = _mm256_xor_si256(hc, top);
    const __m256i q = _mm256_add_epi32(_mm256_sll_epi32(h, inv_shift),
                                       _mm256_srl_epi32(_mm256_add_epi32(l, round), shift));
    *lo = _mm256_and_si256(q, _mm256_set1_epi32(0xffff));
    *hi = _mm256_srli_epi32(q, 16);
}

/** A mean from its centred sum: (uint16)((S + round) >> shift). */
AVX2 static inline __m256i mean16(__m256i mc, __m256i round, __m128i shift)
{
    const __m256i m = _mm256_xor_si256(mc, _mm256_set1_epi32(INT32_MIN));
    return _mm256_and_si256(_mm256_srl_epi32(_mm256_add_epi32(m, round), shift),
                            _mm256_set1_epi32(0xffff));
}

/** Vertical row pair of 16-bit channels (a, b), centred and interleaved for vpmaddwd. */
AVX2 static inline void madd_pair(__m256i a, __m256i b, __m256i coef, __m256i *lo, __m256i *hi)
{
    const __m256i k = _mm256_set1_epi16((short)CENTRE);
    a = _mm256_xor_si256(a, k);
    b = _mm256_xor_si256(b, k);
    *lo = _mm256_add_epi32(*lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), coef));
    *hi = _mm256_add_epi32(*hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), coef));
}

/**
 * Vertical pass over the 16-bit columns [0, w & ~15). Row pairs (p, fw-1-p)
 * share a coefficient; the centre row is paired with itself and its
 * coefficient split in two. Two passes over the taps keep 8 accumulators:
 * means and xx, then yy and xy. Products' 16-bit halves come from vpmullw
 * and vpmulhuw.
 */
AVX2 static void vert_u16(const IvifTaps *t, const IvifScratch *s)
{
    const int fw = t->fw, r = fw / 2, w16 = t->w & ~15;
    const int n = r + 1;
    int k1[IVIF_MAX_TAPS / 2 + 1], k2[IVIF_MAX_TAPS / 2 + 1];
    __m256i coef[IVIF_MAX_TAPS / 2 + 1];
    for (int p = 0; p < r; p++) {
        k1[p] = p;
        k2[p] = fw - 1 - p;
        coef[p] = _mm256_set1_epi32(pair32(t->f[p], t->f[p]));
    }
    k1[r] = k2[r] = r;
    coef[r] = _mm256_set1_epi32(pair32(t->f[r] - t->f[r] / 2u, t->f[r] / 2u));

    const __m256i mu_round = _mm256_set1_epi32((int)t->mu_round);
    const __m128i mu_shift = _mm_cvtsi32_si128(t->mu_shift);
    const __m256i sq_round = _mm256_set1_epi32((int)t->sq_round);
    const __m128i sq_shift = _mm_cvtsi32_si128(t->sq_shift);
    const __m128i sq_inv = _mm_cvtsi32_si128(16 - t->sq_shift);

    for (int j = 0; j < w16; j += 16) {
        __m256i a[8], b[8];
        for (int c = 0; c < 8; c++)
            a[c] = b[c] = _mm256_setzero_si256();
        /* Pass 1: mu1, mu2, xx halves. */
        for (int p = 0; p < n; p++) {
            const __m256i x1 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->ref[k1[p]] + j));
            const __m256i x2 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->ref[k2[p]] + j));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->dis[k1[p]] + j));
            const __m256i y2 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->dis[k2[p]] + j));
            madd_pair(x1, x2, coef[p], &a[0], &b[0]);
            madd_pair(y1, y2, coef[p], &a[1], &b[1]);
            madd_pair(_mm256_mullo_epi16(x1, x1), _mm256_mullo_epi16(x2, x2), coef[p], &a[2], &b[2]);
            madd_pair(_mm256_mulhi_epu16(x1, x1), _mm256_mulhi_epu16(x2, x2), coef[p], &a[3], &b[3]);
        }
        /* Pass 2: yy and xy halves. */
        for (int p = 0; p < n; p++) {
            const __m256i x1 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->ref[k1[p]] + j));
            const __m256i x2 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->ref[k2[p]] + j));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->dis[k1[p]] + j));
            const __m256i y2 = _mm256_loadu_si256((const __m256i *)((const uint16_t *)t->dis[k2[p]] + j));
            madd_pair(_mm256_mullo_epi16(y1, y1), _mm256_mullo_epi16(y2, y2), coef[p], &a[4], &b[4]);
            madd_pair(_mm256_mulhi_epu16(y1, y1), _mm256_mulhi_epu16(y2, y2), coef[p], &a[5], &b[5]);
            madd_pair(_mm256_mullo_epi16(x1, y1), _mm256_mullo_epi16(x2, y2), coef[p], &a[6], &b[6]);
            madd_pair(_mm256_mulhi_epu16(x1, y1), _mm256_mulhi_epu16(x2, y2), coef[p], &a[7], &b[7]);
        }
        store16_centred(s->h[0] + j, mean16(a[0], mu_round, mu_shift),
                        mean16(b[0], mu_round, mu_shift));
        store16_centred(s->h[1] + j, mean16(a[1], mu_round, mu_shift),
                        mean16(b[1], mu_round, mu_shift));
        for (int c = 0; c < 3; c++) {
            __m256i lo_a, hi_a, lo_b, hi_b;
            moment_halves(a[2 + 2 * c], a[3 + 2 * c], sq_round, sq_shift, sq_inv, &lo_a, &hi_a);
            moment_halves(b[2 + 2 * c], b[3 + 2 * c], sq_round, sq_shift, sq_inv, &lo_b, &hi_b);
            store16_centred(s->h[2 + 2 * c] + j, lo_a, lo_b);
            store16_centred(s->h[3 + 2 * c] + j, hi_a, hi_b);
        }
    }
}

/** Columns [from, w) of the vertical pass in plain C, and the reflect-101 padding. */
static void vert_tail_and_pad(const IvifTaps *t, const IvifScratch *s, int from, int nch)
{
    const int w = t->w, r = t->fw / 2;
    for (int j = from; j < w; j++) {
        uint32_t v[5];
        ivif_vert_column(t, j, v);
        s->h[0][j] = (uint16_t)(v[0] ^ CENTRE);
        s->h[1][j] = (uint16_t)(v[1] ^ CENTRE);
        for (int c = 0; c < 3; c++) {
            s->h[2 + 2 * c][j] = (uint16_t)((v[2 + c] & 0xffff) ^ CENTRE);
            s->h[3 + 2 * c][j] = (uint16_t)((v[2 + c] >> 16) ^ CENTRE);
        }
    }
    for (int c = 0; c < nch; c++) {
        uint16_t *h = s->h[c];
        for (int m = 1; m <= r; m++) {
            h[-m] = h[m];
            h[w - 1 + m] = h[w - 1 - m];
        }
    }
}

/* ---- Horizontal pass and statistic ---- */

/** One channel's horizontal sum for 8 columns (base, base+2, ...), decoded (S). */
AVX2 static inline __m256i hsum_channel(const uint16_t *h, int base, int np, const int *off,
                                        const __m256i *coef)
{
    __m256i acc = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(h + base + off[0])),
                                    coef[0]);
    for (int i = 1; i < np; i++)
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(
            _mm256_loadu_si256((const __m256i *)(h + base + off[i])), coef[i]));
    return _mm256_xor_si256(acc, _mm256_set1_epi32(INT32_MIN));
}

/** The reference's horizontal moment: H + ((L + 32768) >> 16). */
AVX2 static inline __m256i hmoment(__m256i l, __m256i h)
{
    return _mm256_add_epi32(h, _mm256_srli_epi32(_mm256_add_epi32(l, _mm256_set1_epi32(32768)), 16));
}

/** The vertical pass of row_sums into s->h, padded. */
AVX2 static void vert_pass(const IvifTaps *t, const IvifScratch *s)
{
    if (t->u8) {
        vert_u8(t, s);
        vert_tail_and_pad(t, s, t->w & ~7, 8);
    } else {
        vert_u16(t, s);
        vert_tail_and_pad(t, s, t->w & ~15, 8);
    }
}

/** The five filtered values of 8 columns (base, base+2, ...). */
AVX2 static inline void filter8(const IvifScratch *s, int base, int np, const int *off,
                                const __m256i *coef, __m256i v[5])
{
    v[0] = hsum_channel(s->h[0], base, np, off, coef);
    v[1] = hsum_channel(s->h[1], base, np, off, coef);
    v[2] = hmoment(hsum_channel(s->h[2], base, np, off, coef),
                   hsum_channel(s->h[3], base, np, off, coef));
    v[3] = hmoment(hsum_channel(s->h[4], base, np, off, coef),
                   hsum_channel(s->h[5], base, np, off, coef));
    v[4] = hmoment(hsum_channel(s->h[6], base, np, off, coef),
                   hsum_channel(s->h[7], base, np, off, coef));
}

AVX2 void ivif_filter_row_avx2(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int w = t->w;
    vert_pass(t, s);
    int off[IVIF_MAX_TAPS];
    int32_t c32[IVIF_MAX_TAPS];
    const int np = hpairs(t->f, t->fw, off, c32);
    __m256i coef[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        coef[i] = _mm256_set1_epi32(c32[i]);
    uint32_t *dst[5] = { out->mu1, out->mu2, out->xx, out->yy, out->xy };
    for (int j = 0; j < w; j += 16) {
        __m256i e[5], o[5];
        filter8(s, j, np, off, coef, e);
        filter8(s, j + 1, np, off, coef, o);
        const int n = w - j < 16 ? w - j : 16;
        for (int c = 0; c < 5; c++) {
            /* Even and odd columns back into column order. */
            const __m256i lo = _mm256_unpacklo_epi32(e[c], o[c]);
            const __m256i hi = _mm256_unpackhi_epi32(e[c], o[c]);
            uint32_t tmp[16];
            _mm256_storeu_si256((__m256i *)tmp, _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256((__m256i *)(tmp + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
            memcpy(dst[c] + j, tmp, (size_t)n * sizeof(uint32_t));
        }
    }
}

AVX2 void ivif_row_sums_avx2(const IvifTaps *t, const IvifScratch *s, double egl,
                             const uint16_t *log2_table, IvifAccum *acc)
{
    const int w = t->w;
    vert_pass(t, s);

    int off[IVIF_MAX_TAPS];
    int32_t c32[IVIF_MAX_TAPS];
    const int np = hpairs(t->f, t->fw, off, c32);
    __m256i coef[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        coef[i] = _mm256_set1_epi32(c32[i]);

    const __m256d eglv = _mm256_set1_pd(egl);
    const __m256i wv = _mm256_set1_epi32(w);
    const __m256i lanes = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    StatAcc a = { _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                  _mm256_setzero_si256() };
    int calls = 0;
    for (int j = 0; j < w; j += 16) {
        for (int phase = 0; phase < 2; phase++) {
            const int base = j + phase;
            const __m256i valid = _mm256_cmpgt_epi32(wv, _mm256_add_epi32(_mm256_set1_epi32(base),
                                                                          lanes));
            __m256i v[5];
            filter8(s, base, np, off, coef, v);
            stat8(v[0], v[1], v[2], v[3], v[4], valid, eglv, log2_table, &a);
            if (++calls == FLUSH_EVERY) {
                stat_flush(&a, acc);
                calls = 0;
            }
        }
    }
    stat_flush(&a, acc);
}

/* ---- Decimation ---- */

AVX2 void ivif_decimate_row_avx2(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint16_t *h = s->h[0];
    const __m256i mu_round = _mm256_set1_epi32((int)t->mu_round);
    const __m128i mu_shift = _mm_cvtsi32_si128(t->mu_shift);
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    int done;

    if (t->u8) {
        const __m256i fc = _mm256_set1_epi32((int)t->f[r]);
        __m256i fpair[IVIF_MAX_TAPS / 2];
        for (int p = 0; p < r; p++)
            fpair[p] = _mm256_set1_epi32(pair32(t->f[p], t->f[p]));
        done = w & ~7;
        for (int j = 0; j < done; j += 8) {
            __m256i m = _mm256_mullo_epi32(fc, _mm256_cvtepu8_epi32(_mm_loadl_epi64(
                (const __m128i *)((const uint8_t *)t->ref[r] + j))));
            for (int p = 0; p < r; p++)
                m = _mm256_add_epi32(m, _mm256_madd_epi16(
                    pair_u8((const uint8_t *)t->ref[p] + j,
                            (const uint8_t *)t->ref[fw - 1 - p] + j), fpair[p]));
            m = _mm256_srl_epi32(_mm256_add_epi32(m, mu_round), mu_shift);
            store8_centred(h + j, _mm256_and_si256(m, lo16));
        }
    } else {
        __m256i coef[IVIF_MAX_TAPS / 2 + 1];
        for (int p = 0; p < r; p++)
            coef[p] = _mm256_set1_epi32(pair32(t->f[p], t->f[p]));
        coef[r] = _mm256_set1_epi32(pair32(t->f[r] - t->f[r] / 2u, t->f[r] / 2u));
        done = w & ~15;
        for (int j = 0; j < done; j += 16) {
            __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
            for (int p = 0; p <= r; p++) {
                const uint16_t *a = (const uint16_t *)t->ref[p] + j;
                const uint16_t *b = (const uint16_t *)t->ref[fw - 1 - p] + j;
                madd_pair(_mm256_loadu_si256((const __m256i *)a),
                          _mm256_loadu_si256((const __m256i *)b), coef[p], &lo, &hi);
            }
            store16_centred(h + j, mean16(lo, mu_round, mu_shift), mean16(hi, mu_round, mu_shift));
        }
    }
    for (int j = done; j < w; j++)
        h[j] = (uint16_t)(ivif_vert_mu_column(t, j) ^ CENTRE);
    for (int m = 1; m <= r; m++) {
        h[-m] = h[m];
        h[w - 1 + m] = h[w - 1 - m];
    }

    /* Horizontal taps at the even columns: output j reads h[2j - r ...]. */
    int off[IVIF_MAX_TAPS];
    int32_t c32[IVIF_MAX_TAPS];
    const int np = hpairs(t->f, fw, off, c32);
    __m256i coef[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        coef[i] = _mm256_set1_epi32(c32[i]);
    const int n = w / 2, n8 = n & ~7;
    for (int j = 0; j < n8; j += 8) {
        const __m256i m = hsum_channel(h, 2 * j, np, off, coef);
        const __m256i v = _mm256_srli_epi32(_mm256_add_epi32(m, _mm256_set1_epi32(32768)), 16);
        const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
        _mm_storeu_si128((__m128i *)(out + j), _mm256_castsi256_si128(p));
    }
    for (int j = n8; j < n; j++) {
        uint32_t m = 0;
        for (int k = 0; k < fw; k++)
            m += t->f[k] * (uint32_t)(h[2 * j - r + k] ^ CENTRE);
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

#endif
