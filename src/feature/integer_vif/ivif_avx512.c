/*
 * AVX-512 (F, BW, DQ, VL, CD) integer VIF kernels: ivif_avx2.c at twice the
 * width. The same integer identities make them exact (see ivif_avx2.c);
 * what differs:
 * - masks live in mask registers, and a masked gather reads only the lanes
 *   that are in the branch;
 * - floor(log2 v) comes from vplzcntd / vplzcntq instead of a
 *   floating-point image of v, and the 64-bit numerator is formed as the
 *   reference forms it, (int64)(g*g*s1) + numer1 (vcvttpd2qq truncates);
 * - 32-bit results go to 16-bit with vpmovdw (values below 2^16).
 * AVX-512F has FMA instructions: it is the build's -ffp-contract=off that
 * keeps g*s12 and the subtraction (and g*g*s1) separately rounded.
 * Selected by ivif_dsp_init on processors with these extensions;
 * tests/checkasm_ivm.c checks every kernel against the C reference.
 */
#include <string.h>

#include "ivif_dsp.h"

#if IVIF_HAVE_AVX512

#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2")))

#define CENTRE 0x8000

/** A 32-bit lane holding the 16-bit pair (c0, c1), c0 in the low half. */
static inline int32_t pair32(unsigned c0, unsigned c1)
{
    return (int32_t)((c0 & 0xffff) | ((c1 & 0xffff) << 16));
}

/** The horizontal vpmaddwd pairs (ivif_avx2.c, hpairs). */
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

/* ---- The statistic on 16 lanes ---- */

typedef struct StatAcc {
    __m512i num_log;      /**< 16 x int32, flushed before it can overflow */
    __m512i den_log;      /**< 16 x int32, likewise */
    __m512i num_non_log;  /**< 8 x int64 */
    int64_t count;
} StatAcc;

/** ((uint64)a*b + 2^31) >> 32 in each 32-bit lane. */
AVX512 static inline __m512i mul_round32(__m512i a, __m512i b)
{
    const __m512i half = _mm512_set1_epi64(INT64_C(0x80000000));
    const __m512i even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, b), half), 32);
    const __m512i odd = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), half);
    return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}

/** Table values of the lanes in m (other lanes 0): gather at 2*idx, low half, plus 2048*k. */
AVX512 static inline __m512i log2_lookup(const uint16_t *table, __mmask16 m, __m512i idx,
                                         __m512i k)
{
    const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx,
                                                  (const void *)table, 2);
    return _mm512_add_epi32(_mm512_and_si512(v, _mm512_set1_epi32(0xffff)),
                            _mm512_slli_epi32(k, 11));
}

/** ivif_log2 of the uint32 lanes t >= 2^15 in m: k = 16 - lzcnt(t). */
AVX512 static inline __m512i log2_u32(const uint16_t *table, __mmask16 m, __m512i t)
{
    const __m512i k = _mm512_sub_epi32(_mm512_set1_epi32(16), _mm512_lzcnt_epi32(t));
    return log2_lookup(table, m, _mm512_srlv_epi32(t, k), k);
}

/**
 * The numerator's double steps for 8 lanes (int32 sigmas), as the reference
 * writes them: numer1 = max((int32)(s2 - g*s12), 0) + nsq, and the 64-bit
 * numerator (int64)(g*g*s1) + numer1, returned as its table index and
 * k = 48 - lzcnt.
 */
AVX512 static inline void num_half(__m256i s1, __m256i s2, __m256i s12, __m512d egl,
                                   __m256i *numer1, __m256i *idx, __m256i *k)
{
    const __m512d s1d = _mm512_cvtepi32_pd(s1);
    const __m512d s2d = _mm512_cvtepi32_pd(s2);
    const __m512d s12d = _mm512_cvtepi32_pd(s12);
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10);

    __m512d g = _mm512_div_pd(s12d, _mm512_add_pd(s1d, eps));
    __m256i sv = _mm512_cvttpd_epi32(_mm512_sub_pd(s2d, _mm512_mul_pd(g, s12d)));
    sv = _mm256_max_epi32(sv, _mm256_setzero_si256());
    g = _mm512_min_pd(g, egl);
    *numer1 = _mm256_add_epi32(sv, _mm256_set1_epi32(IVIF_SIGMA_NSQ));
    const __m512i prod = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), s1d));
    const __m512i v = _mm512_add_epi64(prod, _mm512_cvtepu32_epi64(*numer1));
    const __m512i kk = _mm512_sub_epi64(_mm512_set1_epi64(48), _mm512_lzcnt_epi64(v));
    *k = _mm512_cvtepi64_epi32(kk);
    *idx = _mm512_cvtepi64_epi32(_mm512_srlv_epi64(v, kk));
}

/** ivif_stat_pixel on 16 lanes; lanes outside `valid` add nothing. */
AVX512 static inline void stat16(__m512i mu1, __m512i mu2, __m512i xx, __m512i yy, __m512i xy,
                                 __mmask16 valid, __m512d egl, const uint16_t *table,
                                 StatAcc *a)
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i s1 = _mm512_sub_epi32(xx, mul_round32(mu1, mu1));
    const __m512i s2 = _mm512_max_epi32(_mm512_sub_epi32(yy, mul_round32(mu2, mu2)), zero);
    const __m512i s12 = _mm512_sub_epi32(xy, mul_round32(mu1, mu2));

    const __mmask16 is_log_all = _mm512_cmpgt_epi32_mask(s1, _mm512_set1_epi32(IVIF_SIGMA_NSQ - 1));
    const __mmask16 is_log = is_log_all & valid;
    const __mmask16 non_log = (__mmask16)(~is_log_all & valid);

    /* Outside the log branch: sigma2^2 and a count. */
    const __m512i s2_nl = _mm512_maskz_mov_epi32(non_log, s2);
    a->num_non_log = _mm512_add_epi64(a->num_non_log,
        _mm512_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(s2_nl)),
                         _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(s2_nl, 1))));
    a->count += __builtin_popcount(non_log);
    if (!is_log)
        return;

    /* log2(nsq + s1) - 17, the sum formed in 32 bits as the reference adds two int32. */
    const __m512i dterm = _mm512_sub_epi32(
        log2_u32(table, is_log, _mm512_add_epi32(s1, _mm512_set1_epi32(IVIF_SIGMA_NSQ))),
        _mm512_set1_epi32(17 * IVIF_LOG2_ONE));
    a->den_log = _mm512_mask_add_epi32(a->den_log, is_log, a->den_log, dterm);

    const __mmask16 is_num = is_log & _mm512_cmpgt_epi32_mask(s12, zero) &
                             _mm512_cmpgt_epi32_mask(s2, zero);
    if (!is_num)
        return;
    __m256i n1_lo, n1_hi, i_lo, i_hi, k_lo, k_hi;
    num_half(_mm512_castsi512_si256(s1), _mm512_castsi512_si256(s2),
             _mm512_castsi512_si256(s12), egl, &n1_lo, &i_lo, &k_lo);
    num_half(_mm512_extracti64x4_epi64(s1, 1), _mm512_extracti64x4_epi64(s2, 1),
             _mm512_extracti64x4_epi64(s12, 1), egl, &n1_hi, &i_hi, &k_hi);
    const __m512i l2 = log2_lookup(table, is_num,
                                   _mm512_inserti64x4(_mm512_castsi256_si512(i_lo), i_hi, 1),
                                   _mm512_inserti64x4(_mm512_castsi256_si512(k_lo), k_hi, 1));
    const __m512i l1 = log2_u32(table, is_num,
                                _mm512_inserti64x4(_mm512_castsi256_si512(n1_lo), n1_hi, 1));
    /* Both below 2^17, and so is the difference. */
    a->num_log = _mm512_mask_add_epi32(a->num_log, is_num, a->num_log,
                                       _mm512_sub_epi32(l2, l1));
}

AVX512 static inline int64_t hsum32(__m512i v)
{
    return _mm512_reduce_add_epi64(
        _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)),
                         _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1))));
}

/* stat16 calls between flushes of the 32-bit lane sums: a lane then holds at
 * most this many terms, each below 2^17. */
#define FLUSH_EVERY 4096

AVX512 static inline void stat_flush(StatAcc *a, IvifAccum *acc)
{
    acc->num_log += hsum32(a->num_log);
    acc->den_log += hsum32(a->den_log);
    acc->num_non_log += _mm512_reduce_add_epi64(a->num_non_log);
    acc->den_non_log += a->count;
    a->num_log = a->den_log = a->num_non_log = _mm512_setzero_si512();
    a->count = 0;
}

AVX512 static inline StatAcc stat_start(void)
{
    StatAcc a;
    a.num_log = a.den_log = a.num_non_log = _mm512_setzero_si512();
    a.count = 0;
    return a;
}

AVX512 void ivif_stat_row_avx512(const IvifRow *in, int n, double egl,
                                 const uint16_t *log2_table, IvifAccum *acc)
{
    const __m512d eglv = _mm512_set1_pd(egl);
    StatAcc a = stat_start();
    int j = 0, calls = 0;
    for (; j + 16 <= n; j += 16) {
        stat16(_mm512_loadu_si512(in->mu1 + j), _mm512_loadu_si512(in->mu2 + j),
               _mm512_loadu_si512(in->xx + j), _mm512_loadu_si512(in->yy + j),
               _mm512_loadu_si512(in->xy + j), 0xffff, eglv, log2_table, &a);
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

/** Store 16 uint32 lanes (each < 2^16) as 16 uint16 offset by -32768. */
AVX512 static inline void store16_centred(uint16_t *dst, __m512i v)
{
    _mm256_storeu_si256((__m256i *)dst, _mm256_xor_si256(_mm512_cvtepi32_epi16(v),
                                                         _mm256_set1_epi16((short)CENTRE)));
}

/** Store 32 uint32 lanes in unpack order (per 128-bit lane: lo 4 columns, hi 4 columns). */
AVX512 static inline void store32_centred(uint16_t *dst, __m512i lo, __m512i hi)
{
    _mm512_storeu_si512(dst, _mm512_xor_si512(_mm512_packus_epi32(lo, hi),
                                              _mm512_set1_epi16((short)CENTRE)));
}

/** 16 columns of two 8-bit rows as 16-bit pairs (a_j, b_j) in 32-bit lanes. */
AVX512 static inline __m512i pair_u8(const uint8_t *a, const uint8_t *b)
{
    const __m128i x = _mm_loadu_si128((const __m128i *)a);
    const __m128i y = _mm_loadu_si128((const __m128i *)b);
    const __m256i p = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(x, y)),
                                              _mm_unpackhi_epi8(x, y), 1);
    return _mm512_cvtepu8_epi16(p);
}

/** Vertical pass over the 8-bit columns [0, w & ~15) (the moments are not shifted at 8 bits). */
AVX512 static void vert_u8(const IvifTaps *t, const IvifScratch *s)
{
    const int fw = t->fw, r = fw / 2, w16 = t->w & ~15;
    const __m512i fc = _mm512_set1_epi32((int)t->f[r]);
    const __m512i mu_round = _mm512_set1_epi32((int)t->mu_round);
    const __m128i mu_shift = _mm_cvtsi32_si128(t->mu_shift);
    const __m512i lo16 = _mm512_set1_epi32(0xffff);
    __m512i fpair[IVIF_MAX_TAPS / 2], f32[IVIF_MAX_TAPS / 2];
    for (int p = 0; p < r; p++) {
        fpair[p] = _mm512_set1_epi32(pair32(t->f[p], t->f[p]));
        f32[p] = _mm512_set1_epi32((int)t->f[p]);
    }

    for (int j = 0; j < w16; j += 16) {
        /* Centre tap: (x, 0) pairs. */
        __m512i px = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)
                                          ((const uint8_t *)t->ref[r] + j)));
        __m512i py = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)
                                          ((const uint8_t *)t->dis[r] + j)));
        __m512i m1 = _mm512_mullo_epi32(px, fc), m2 = _mm512_mullo_epi32(py, fc);
        __m512i sxx = _mm512_mullo_epi32(_mm512_madd_epi16(px, px), fc);
        __m512i syy = _mm512_mullo_epi32(_mm512_madd_epi16(py, py), fc);
        __m512i sxy = _mm512_mullo_epi32(_mm512_madd_epi16(px, py), fc);
        for (int p = 0; p < r; p++) {
            px = pair_u8((const uint8_t *)t->ref[p] + j, (const uint8_t *)t->ref[fw - 1 - p] + j);
            py = pair_u8((const uint8_t *)t->dis[p] + j, (const uint8_t *)t->dis[fw - 1 - p] + j);
            m1 = _mm512_add_epi32(m1, _mm512_madd_epi16(px, fpair[p]));
            m2 = _mm512_add_epi32(m2, _mm512_madd_epi16(py, fpair[p]));
            sxx = _mm512_add_epi32(sxx, _mm512_mullo_epi32(_mm512_madd_epi16(px, px), f32[p]));
            syy = _mm512_add_epi32(syy, _mm512_mullo_epi32(_mm512_madd_epi16(py, py), f32[p]));
            sxy = _mm512_add_epi32(sxy, _mm512_mullo_epi32(_mm512_madd_epi16(px, py), f32[p]));
        }
        m1 = _mm512_srl_epi32(_mm512_add_epi32(m1, mu_round), mu_shift);
        m2 = _mm512_srl_epi32(_mm512_add_epi32(m2, mu_round), mu_shift);
        store16_centred(s->h[0] + j, _mm512_and_si512(m1, lo16));
        store16_centred(s->h[1] + j, _mm512_and_si512(m2, lo16));
        store16_centred(s->h[2] + j, _mm512_and_si512(sxx, lo16));
        store16_centred(s->h[3] + j, _mm512_srli_epi32(sxx, 16));
        store16_centred(s->h[4] + j, _mm512_and_si512(syy, lo16));
        store16_centred(s->h[5] + j, _mm512_srli_epi32(syy, 16));
        store16_centred(s->h[6] + j, _mm512_and_si512(sxy, lo16));
        store16_centred(s->h[7] + j, _mm512_srli_epi32(sxy, 16));
    }
}

/** A moment from its two centred half sums (ivif_avx2.c, moment_halves). */
AVX512 static inline void moment_halves(__m512i lc, __m512i hc, __m512i round, __m128i shift,
                                        __m128i inv_shift, __m512i *lo, __m512i *hi)
{
    const __m512i top = _mm512_set1_epi32(INT32_MIN);
    const __m512i l = _mm512_xor_si512(lc, top), h = _mm512_xor_si512(hc, top);
    const __m512i q = _mm512_add_epi32(_mm512_sll_epi32(h, inv_shift),
                                       _mm512_srl_epi32(_mm512_add_epi32(l, round), shift));
    *lo = _mm512_and_si512(q, _mm512_set1_epi32(0xffff));
    *hi = _mm512_srli_epi32(q, 16);
}

/** A mean from its centred sum: (uint16)((S + round) >> shift). */
AVX512 static inline __m512i mean16(__m512i mc, __m512i round, __m128i shift)
{
    const __m512i m = _mm512_xor_si512(mc, _mm512_set1_epi32(INT32_MIN));
    return _mm512_and_si512(_mm512_srl_epi32(_mm512_add_epi32(m, round), shift),
                            _mm512_set1_epi32(0xffff));
}

/** Vertical row pair of 16-bit channels (a, b), centred and interleaved for vpmaddwd. */
AVX512 static inline void madd_pair(__m512i a, __m512i b, __m512i coef, __m512i *lo, __m512i *hi)
{
    const __m512i k = _mm512_set1_epi16((short)CENTRE);
    a = _mm512_xor_si512(a, k);
    b = _mm512_xor_si512(b, k);
    *lo = _mm512_add_epi32(*lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), coef));
    *hi = _mm512_add_epi32(*hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), coef));
}

/** Vertical pass over the 16-bit columns [0, w & ~31) (ivif_avx2.c, vert_u16), one pass. */
AVX512 static void vert_u16(const IvifTaps *t, const IvifScratch *s)
{
    const int fw = t->fw, r = fw / 2, w32 = t->w & ~31;
    const int n = r + 1;
    int k1[IVIF_MAX_TAPS / 2 + 1], k2[IVIF_MAX_TAPS / 2 + 1];
    __m512i coef[IVIF_MAX_TAPS / 2 + 1];
    for (int p = 0; p < r; p++) {
        k1[p] = p;
        k2[p] = fw - 1 - p;
        coef[p] = _mm512_set1_epi32(pair32(t->f[p], t->f[p]));
    }
    k1[r] = k2[r] = r;
    coef[r] = _mm512_set1_epi32(pair32(t->f[r] - t->f[r] / 2u, t->f[r] / 2u));

    const __m512i mu_round = _mm512_set1_epi32((int)t->mu_round);
    const __m128i mu_shift = _mm_cvtsi32_si128(t->mu_shift);
    const __m512i sq_round = _mm512_set1_epi32((int)t->sq_round);
    const __m128i sq_shift = _mm_cvtsi32_si128(t->sq_shift);
    const __m128i sq_inv = _mm_cvtsi32_si128(16 - t->sq_shift);

    for (int j = 0; j < w32; j += 32) {
        __m512i a[8], b[8];
        for (int c = 0; c < 8; c++)
            a[c] = b[c] = _mm512_setzero_si512();
        for (int p = 0; p < n; p++) {
            const __m512i x1 = _mm512_loadu_si512((const uint16_t *)t->ref[k1[p]] + j);
            const __m512i x2 = _mm512_loadu_si512((const uint16_t *)t->ref[k2[p]] + j);
            const __m512i y1 = _mm512_loadu_si512((const uint16_t *)t->dis[k1[p]] + j);
            const __m512i y2 = _mm512_loadu_si512((const uint16_t *)t->dis[k2[p]] + j);
            madd_pair(x1, x2, coef[p], &a[0], &b[0]);
            madd_pair(y1, y2, coef[p], &a[1], &b[1]);
            madd_pair(_mm512_mullo_epi16(x1, x1), _mm512_mullo_epi16(x2, x2), coef[p], &a[2], &b[2]);
            madd_pair(_mm512_mulhi_epu16(x1, x1), _mm512_mulhi_epu16(x2, x2), coef[p], &a[3], &b[3]);
            madd_pair(_mm512_mullo_epi16(y1, y1), _mm512_mullo_epi16(y2, y2), coef[p], &a[4], &b[4]);
            madd_pair(_mm512_mulhi_epu16(y1, y1), _mm512_mulhi_epu16(y2, y2), coef[p], &a[5], &b[5]);
            madd_pair(_mm512_mullo_epi16(x1, y1), _mm512_mullo_epi16(x2, y2), coef[p], &a[6], &b[6]);
            madd_pair(_mm512_mulhi_epu16(x1, y1), _mm512_mulhi_epu16(x2, y2), coef[p], &a[7], &b[7]);
        }
        store32_centred(s->h[0] + j, mean16(a[0], mu_round, mu_shift),
                        mean16(b[0], mu_round, mu_shift));
        store32_centred(s->h[1] + j, mean16(a[1], mu_round, mu_shift),
                        mean16(b[1], mu_round, mu_shift));
        for (int c = 0; c < 3; c++) {
            __m512i lo_a, hi_a, lo_b, hi_b;
            moment_halves(a[2 + 2 * c], a[3 + 2 * c], sq_round, sq_shift, sq_inv, &lo_a, &hi_a);
            moment_halves(b[2 + 2 * c], b[3 + 2 * c], sq_round, sq_shift, sq_inv, &lo_b, &hi_b);
            store32_centred(s->h[2 + 2 * c] + j, lo_a, lo_b);
            store32_centred(s->h[3 + 2 * c] + j, hi_a, hi_b);
        }
    }
}

/** Columns [from, w) of the vertical pass in plain C, and the reflect-101 padding. */
static void vert_tail_and_pad(const IvifTaps *t, const IvifScratch *s, int from)
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
    for (int c = 0; c < 8; c++) {
        uint16_t *h = s->h[c];
        for (int m = 1; m <= r; m++) {
            h[-m] = h[m];
            h[w - 1 + m] = h[w - 1 - m];
        }
    }
}

AVX512 static void vert_pass(const IvifTaps *t, const IvifScratch *s)
{
    if (t->u8) {
        vert_u8(t, s);
        vert_tail_and_pad(t, s, t->w & ~15);
    } else {
        vert_u16(t, s);
        vert_tail_and_pad(t, s, t->w & ~31);
    }
}

/* ---- Horizontal pass and statistic ---- */

/** One channel's horizontal sum for 16 columns (base, base+2, ...), decoded (S). */
AVX512 static inline __m512i hsum_channel(const uint16_t *h, int base, int np, const int *off,
                                          const __m512i *coef)
{
    __m512i acc = _mm512_madd_epi16(_mm512_loadu_si512(h + base + off[0]), coef[0]);
    for (int i = 1; i < np; i++)
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_loadu_si512(h + base + off[i]),
                                                      coef[i]));
    return _mm512_xor_si512(acc, _mm512_set1_epi32(INT32_MIN));
}

/** The reference's horizontal moment: H + ((L + 32768) >> 16). */
AVX512 static inline __m512i hmoment(__m512i l, __m512i h)
{
    return _mm512_add_epi32(h, _mm512_srli_epi32(_mm512_add_epi32(l, _mm512_set1_epi32(32768)), 16));
}

/** The five filtered values of 16 columns (base, base+2, ...). */
AVX512 static inline void filter16(const IvifScratch *s, int base, int np, const int *off,
                                   const __m512i *coef, __m512i v[5])
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

AVX512 void ivif_filter_row_avx512(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int w = t->w;
    vert_pass(t, s);
    int off[IVIF_MAX_TAPS];
    int32_t c32[IVIF_MAX_TAPS];
    const int np = hpairs(t->f, t->fw, off, c32);
    __m512i coef[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        coef[i] = _mm512_set1_epi32(c32[i]);
    uint32_t *dst[5] = { out->mu1, out->mu2, out->xx, out->yy, out->xy };
    const __m512i ilo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i ihi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                          15, 31);
    for (int j = 0; j < w; j += 32) {
        __m512i e[5], o[5];
        filter16(s, j, np, off, coef, e);
        filter16(s, j + 1, np, off, coef, o);
        const int n = w - j < 32 ? w - j : 32;
        for (int c = 0; c < 5; c++) {
            /* Even and odd columns back into column order. */
            uint32_t tmp[32];
            _mm512_storeu_si512(tmp, _mm512_permutex2var_epi32(e[c], ilo, o[c]));
            _mm512_storeu_si512(tmp + 16, _mm512_permutex2var_epi32(e[c], ihi, o[c]));
            memcpy(dst[c] + j, tmp, (size_t)n * sizeof(uint32_t));
        }
    }
}

AVX512 void ivif_row_sums_avx512(const IvifTaps *t, const IvifScratch *s, double egl,
                                 const uint16_t *log2_table, IvifAccum *acc)
{
    const int w = t->w;
    vert_pass(t, s);

    int off[IVIF_MAX_TAPS];
    int32_t c32[IVIF_MAX_TAPS];
    const int np = hpairs(t->f, t->fw, off, c32);
    __m512i coef[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        coef[i] = _mm512_set1_epi32(c32[i]);

    const __m512d eglv = _mm512_set1_pd(egl);
    const __m512i wv = _mm512_set1_epi32(w);
    const __m512i lanes = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                            28, 30);
    StatAcc a = stat_start();
    int calls = 0;
    for (int j = 0; j < w; j += 32) {
        for (int phase = 0; phase < 2; phase++) {
            const int base = j + phase;
            const __mmask16 valid = _mm512_cmpgt_epi32_mask(
                wv, _mm512_add_epi32(_mm512_set1_epi32(base), lanes));
            __m512i v[5];
            filter16(s, base, np, off, coef, v);
            stat16(v[0], v[1], v[2], v[3], v[4], valid, eglv, log2_table, &a);
            if (++calls == FLUSH_EVERY) {
                stat_flush(&a, acc);
                calls = 0;
            }
        }
    }
    stat_flush(&a, acc);
}

/* ---- Decimation ---- */

AVX512 void ivif_decimate_row_avx512(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint16_t *h = s->h[0];
    const __m512i mu_round = _mm512_set1_epi32((int)t->mu_round);
    const __m128i mu_shift = _mm_cvtsi32_si128(t->mu_shift);
    const __m512i lo16 = _mm512_set1_epi32(0xffff);
    int done;

    if (t->u8) {
        const __m512i fc = _mm512_set1_epi32((int)t->f[r]);
        __m512i fpair[IVIF_MAX_TAPS / 2];
        for (int p = 0; p < r; p++)
            fpair[p] = _mm512_set1_epi32(pair32(t->f[p], t->f[p]));
        done = w & ~15;
        for (int j = 0; j < done; j += 16) {
            __m512i m = _mm512_mullo_epi32(fc, _mm512_cvtepu8_epi32(_mm_loadu_si128(
                (const __m128i *)((const uint8_t *)t->ref[r] + j))));
            for (int p = 0; p < r; p++)
                m = _mm512_add_epi32(m, _mm512_madd_epi16(
                    pair_u8((const uint8_t *)t->ref[p] + j,
                            (const uint8_t *)t->ref[fw - 1 - p] + j), fpair[p]));
            m = _mm512_srl_epi32(_mm512_add_epi32(m, mu_round), mu_shift);
            store16_centred(h + j, _mm512_and_si512(m, lo16));
        }
    } else {
        __m512i coef[IVIF_MAX_TAPS / 2 + 1];
        for (int p = 0; p < r; p++)
            coef[p] = _mm512_set1_epi32(pair32(t->f[p], t->f[p]));
        coef[r] = _mm512_set1_epi32(pair32(t->f[r] - t->f[r] / 2u, t->f[r] / 2u));
        done = w & ~31;
        for (int j = 0; j < done; j += 32) {
            __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
            for (int p = 0; p <= r; p++)
                madd_pair(_mm512_loadu_si512((const uint16_t *)t->ref[p] + j),
                          _mm512_loadu_si512((const uint16_t *)t->ref[fw - 1 - p] + j),
                          coef[p], &lo, &hi);
            store32_centred(h + j, mean16(lo, mu_round, mu_shift), mean16(hi, mu_round, mu_shift));
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
    __m512i coef[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        coef[i] = _mm512_set1_epi32(c32[i]);
    const int n = w / 2, n16 = n & ~15;
    for (int j = 0; j < n16; j += 16) {
        const __m512i m = hsum_channel(h, 2 * j, np, off, coef);
        const __m512i v = _mm512_srli_epi32(_mm512_add_epi32(m, _mm512_set1_epi32(32768)), 16);
        _mm256_storeu_si256((__m256i *)(out + j), _mm512_cvtepi32_epi16(v));
    }
    for (int j = n16; j < n; j++) {
        uint32_t m = 0;
        for (int k = 0; k < fw; k++)
            m += t->f[k] * (uint32_t)(h[2 * j - r + k] ^ CENTRE);
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

#endif
