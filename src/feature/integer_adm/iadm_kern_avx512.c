/*
 * The integer ADM kernels compiled for AVX-512 (F, BW, DQ, VL, CD): the same
 * source as the C build, vectorised at 512 bits. AVX-512 adds the 64-bit
 * arithmetic shifts and int64 -> float conversions that AVX2 lacks. The
 * int16 DWT passes (iadm_dwt_simd.h) and scale 0's decoupling and masking
 * (iadm_s0_avx512.h) are written in intrinsics, where 32-bit lanes and
 * vpmaddwd hold what the C source widens; the division table's reads are
 * divisions, cheaper than gathers.
 */
#include "iadm_kern.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2,bmi2"))), apply_to = function)
#else
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx512cd,avx2,bmi2,prefer-vector-width=512")
#endif

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The division table's entry for 16 divisors, div_lookup[o + 32768] =
 * 2^30 / o truncated toward zero (0 for o = 0), without its gathers: the
 * double quotient is within 2^-23 of 2^30 / o, while a quotient that is not
 * a whole number lies at least 1 / |o| >= 2^-15 from one, so truncating the
 * double gives the same integer.
 */
static inline __m512i div16_avx512(__m512i o)
{
    const __mmask16 nz = _mm512_test_epi32_mask(o, o);
    const __m512d num = _mm512_set1_pd(1073741824.0);
    __m256i q[2];
    for (int k = 0; k < 2; k++) {
        const __m256i h = k ? _mm512_extracti64x4_epi64(o, 1) : _mm512_castsi512_si256(o);
        const __mmask8 m = (__mmask8)(k ? nz >> 8 : nz);
        q[k] = _mm512_maskz_cvttpd_epi32(m, _mm512_maskz_div_pd(m, num, _mm512_cvtepi32_pd(h)));
    }
    return _mm512_inserti64x4(_mm512_castsi256_si512(q[0]), q[1], 1);
}

/* The division-table reads (index o + 32768) as divisions. */
static void hw_gather16_avx512(const int16_t *o, int j0, int j1, const int32_t *div_lookup,
                               int32_t *q)
{
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        const __m512i v = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(o + j)));
        _mm512_storeu_si512(q + j, div16_avx512(v));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[o[j] + 32768];
}

static void hw_gather32_avx512(const int32_t *idx, int j0, int j1, const int32_t *div_lookup,
                               int32_t *q)
{
    const __m512i off = _mm512_set1_epi32(32768);
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        const __m512i v = _mm512_loadu_si512(idx + j);
        _mm512_storeu_si512(q + j, div16_avx512(_mm512_sub_epi32(v, off)));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[idx[j]];
}

#include "iadm_arith.h"

#define DWT0_NAME hw_dwt0_vert_8_avx512
#define DWT0_LANES16 32
#define DWT0_V __m512i
#define DWT0_SET1 _mm512_set1_epi32
#define DWT0_LOAD_U8(p) _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define DWT0_UNPACKLO _mm512_unpacklo_epi16
#define DWT0_UNPACKHI _mm512_unpackhi_epi16
#define DWT0_MADD _mm512_madd_epi16
#define DWT0_ADD _mm512_add_epi32
#define DWT0_SRAI8(v) _mm512_srai_epi32(v, 8)
#define DWT0_PACKS _mm512_packs_epi32
#define DWT0_STORE(p, v) _mm512_storeu_si512((void *)(p), v)
#include "iadm_dwt0_simd.h"

#define DWT_LANES32 16
#define DWT_NAME(x) hw_##x##_avx512
#define DWT_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define DWT_SRAI16(v) _mm512_srai_epi32(v, 16)
#define DWT_SLLI16(v) _mm512_slli_epi32(v, 16)
#define DWT_PAIR_BLEND(a, b) _mm512_mask_blend_epi16(0xAAAAAAAAu, a, b)
#define DWT_STORE16(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvtepi32_epi16(v))
#include "iadm_dwt_simd.h"

#define IADM_DWT0_VERT_8 hw_dwt0_vert_8_avx512
#define IADM_GATHER16 hw_gather16_avx512
#define IADM_GATHER32 hw_gather32_avx512
#define IADM_SUFFIX avx512
#include "iadm_kern_tmpl.c"

#include "iadm_s0_avx512.h"

int iadm_dsp_init_avx512(IadmDsp *d)
{
    fill_avx512(d);
    d->dwt0_horiz = hw_dwt0_horiz_avx512;
    d->dwt1_vert = hw_dwt1_vert_avx512;
    d->decouple0 = hw_decouple0_avx512;
    d->cm0 = hw_cm0_avx512;
    return 1;
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
int iadm_dsp_init_avx512(IadmDsp *d)
{
    (void)d;
    return 0;
}
#endif
