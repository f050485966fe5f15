/*
 * The integer ADM kernels compiled for AVX-512 (F, BW, DQ, VL, CD): the same
 * source as the C build, vectorised at 512 bits. AVX-512 adds the 64-bit
 * arithmetic shifts and int64 -> float conversions that AVX2 lacks.
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

/* The division-table reads as hardware gathers (GCC's generic tuning
 * emulates them with scalar loads). */
static void hw_gather16_avx512(const int16_t *o, int j0, int j1, const int32_t *div_lookup,
                               int32_t *q)
{
    const __m512i off = _mm512_set1_epi32(32768);
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        const __m512i v = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(o + j)));
        _mm512_storeu_si512(q + j, _mm512_i32gather_epi32(_mm512_add_epi32(v, off),
                                                          div_lookup, 4));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[o[j] + 32768];
}

static void hw_gather32_avx512(const int32_t *idx, int j0, int j1, const int32_t *div_lookup,
                               int32_t *q)
{
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        const __m512i v = _mm512_loadu_si512(idx + j);
        _mm512_storeu_si512(q + j, _mm512_i32gather_epi32(v, div_lookup, 4));
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

#define IADM_DWT0_VERT_8 hw_dwt0_vert_8_avx512
#define IADM_GATHER16 hw_gather16_avx512
#define IADM_GATHER32 hw_gather32_avx512
#define IADM_SUFFIX avx512
#include "iadm_kern_tmpl.c"

int iadm_dsp_init_avx512(IadmDsp *d)
{
    fill_avx512(d);
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
