/*
 * The integer ADM kernels compiled for AVX2: the same source as the C build
 * (iadm_kern_tmpl.c), vectorised by the compiler. Integer arithmetic and
 * IEEE double operations give the same bits at every vector width.
 */
#include "iadm_kern.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#else
#pragma GCC target("avx2,bmi2")
#endif

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* The division-table reads as hardware gathers (GCC's generic tuning
 * emulates them with scalar loads). */
static void hw_gather16_avx2(const int16_t *o, int j0, int j1, const int32_t *div_lookup,
                             int32_t *q)
{
    const __m256i off = _mm256_set1_epi32(32768);
    int j = j0;
    for (; j + 8 <= j1; j += 8) {
        const __m256i v = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(o + j)));
        _mm256_storeu_si256((__m256i *)(q + j),
                            _mm256_i32gather_epi32(div_lookup, _mm256_add_epi32(v, off), 4));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[o[j] + 32768];
}

static void hw_gather32_avx2(const int32_t *idx, int j0, int j1, const int32_t *div_lookup,
                             int32_t *q)
{
    int j = j0;
    for (; j + 8 <= j1; j += 8) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(idx + j));
        _mm256_storeu_si256((__m256i *)(q + j), _mm256_i32gather_epi32(div_lookup, v, 4));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[idx[j]];
}

#include "iadm_arith.h"

#define DWT0_NAME hw_dwt0_vert_8_avx2
#define DWT0_LANES16 16
#define DWT0_V __m256i
#define DWT0_SET1 _mm256_set1_epi32
#define DWT0_LOAD_U8(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define DWT0_UNPACKLO _mm256_unpacklo_epi16
#define DWT0_UNPACKHI _mm256_unpackhi_epi16
#define DWT0_MADD _mm256_madd_epi16
#define DWT0_ADD _mm256_add_epi32
#define DWT0_SRAI8(v) _mm256_srai_epi32(v, 8)
#define DWT0_PACKS _mm256_packs_epi32
#define DWT0_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#include "iadm_dwt0_simd.h"

/* int32 lanes of int16 values to int16: packs (exact) and the 64-bit
 * quarters back in order. */
static inline void store16_avx2(int16_t *p, __m256i v)
{
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08);
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(w));
}

#define DWT_LANES32 8
#define DWT_NAME(x) hw_##x##_avx2
#define DWT_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define DWT_SRAI16(v) _mm256_srai_epi32(v, 16)
#define DWT_SLLI16(v) _mm256_slli_epi32(v, 16)
#define DWT_PAIR_BLEND(a, b) _mm256_blend_epi16(a, b, 0xAA)
#define DWT_STORE16 store16_avx2
#include "iadm_dwt_simd.h"

#define IADM_DWT0_VERT_8 hw_dwt0_vert_8_avx2
#define IADM_GATHER16 hw_gather16_avx2
#define IADM_GATHER32 hw_gather32_avx2
#define IADM_SUFFIX avx2
#include "iadm_kern_tmpl.c"

int iadm_dsp_init_avx2(IadmDsp *d)
{
    fill_avx2(d);
    d->dwt0_horiz = hw_dwt0_horiz_avx2;
    d->dwt1_vert = hw_dwt1_vert_avx2;
    return 1;
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
int iadm_dsp_init_avx2(IadmDsp *d)
{
    (void)d;
    return 0;
}
#endif
