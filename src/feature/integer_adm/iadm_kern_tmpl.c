/*
 * Integer ADM row kernels (iadm_kern.h), written once and built once per
 * instruction set (src/simd.h). Loops are plain element loops over
 * iadm_arith.h, shaped for the vectoriser: no loop-carried state except
 * integer sums (order-free), borders peeled off the interior. The C build
 * is the reference every other build is checked against (on AArch64 it is
 * kept scalar, src/meson.build). The x86 builds add what the vectoriser
 * does not find, under their set's #if: the division table's reads
 * (hardware gathers with AVX2, divisions with AVX-512), the DWT passes
 * whose operands are 16-bit in vpmaddwd pairs (iadm_dwt_simd.h), and with
 * AVX-512 scale 0's decoupling and masking in intrinsics
 * (iadm_s0_avx512.h). NEON has no gather: its build reads the table lane
 * by lane, as the C build does.
 */
#include <stddef.h>
#include <stdint.h>

#include "iadm_arith.h"
#include "iadm_kern.h"
#include "simd.h"

#if EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512
#include <immintrin.h>
#endif

#if EV_SIMD_IS_AVX2
/* The division-table reads as hardware gathers (GCC's generic tuning
 * emulates them with scalar loads). */
static void simd_gather16(const int16_t *o, int j0, int j1, const int32_t *div_lookup,
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

static void simd_gather32(const int32_t *idx, int j0, int j1, const int32_t *div_lookup,
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

/* int32 lanes of int16 values to int16: packs (exact) and the 64-bit
 * quarters back in order. */
static inline void store16(int16_t *p, __m256i v)
{
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08);
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(w));
}

#define DWT_LANES32 8
#define DWT_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define DWT_SRAI16(v) _mm256_srai_epi32(v, 16)
#define DWT_SLLI16(v) _mm256_slli_epi32(v, 16)
#define DWT_PAIR_BLEND(a, b) _mm256_blend_epi16(a, b, 0xAA)
#define DWT_STORE16 store16
#include "iadm_dwt_simd.h"

#elif EV_SIMD_IS_AVX512
/*
 * AVX-512 adds the 64-bit arithmetic shifts and int64 -> float conversions
 * that AVX2 lacks, which the vectoriser uses; the division table's reads
 * are divisions, cheaper than gathers.
 *
 * The division table's entry for 16 divisors, div_lookup[o + 32768] =
 * 2^30 / o truncated toward zero (0 for o = 0), without its gathers: the
 * double quotient is within 2^-23 of 2^30 / o, while a quotient that is not
 * a whole number lies at least 1 / |o| >= 2^-15 from one, so truncating the
 * double gives the same integer.
 */
static inline __m512i div16(__m512i o)
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
static void simd_gather16(const int16_t *o, int j0, int j1, const int32_t *div_lookup,
                          int32_t *q)
{
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        const __m512i v = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(o + j)));
        _mm512_storeu_si512(q + j, div16(v));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[o[j] + 32768];
}

static void simd_gather32(const int32_t *idx, int j0, int j1, const int32_t *div_lookup,
                          int32_t *q)
{
    const __m512i off = _mm512_set1_epi32(32768);
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        const __m512i v = _mm512_loadu_si512(idx + j);
        _mm512_storeu_si512(q + j, div16(_mm512_sub_epi32(v, off)));
    }
    for (; j < j1; j++)
        q[j] = div_lookup[idx[j]];
}

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

#define DWT_LANES32 16
#define DWT_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define DWT_SRAI16(v) _mm512_srai_epi32(v, 16)
#define DWT_SLLI16(v) _mm512_slli_epi32(v, 16)
#define DWT_PAIR_BLEND(a, b) _mm512_mask_blend_epi16(0xAAAAAAAAu, a, b)
#define DWT_STORE16(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvtepi32_epi16(v))
#include "iadm_dwt_simd.h"
#endif

static void dwt0_vert_8(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                        const uint8_t *r3, int n, int16_t *restrict lo,
                        int16_t *restrict hi)
{
    int j = 0;
#if EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512
    /* The columns a multiple of the vector width in vpmaddwd pairs. */
    j = simd_dwt0_vert_8(r0, r1, r2, r3, n, lo, hi);
#endif
    if (hi) {
        for (; j < n; j++) {
            const uint32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
            lo[j] = iadm_s0_vlo(s0, s1, s2, s3, 8);
            hi[j] = iadm_s0_vhi(s0, s1, s2, s3, 8);
        }
    } else {
        for (; j < n; j++)
            lo[j] = iadm_s0_vlo(r0[j], r1[j], r2[j], r3[j], 8);
    }
}

static void dwt0_vert_16(const uint16_t *r0, const uint16_t *r1,
                         const uint16_t *r2, const uint16_t *r3, int n,
                         int shift, int16_t *restrict lo, int16_t *restrict hi)
{
    if (hi) {
        for (int j = 0; j < n; j++) {
            const uint32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
            lo[j] = iadm_s0_vlo(s0, s1, s2, s3, shift);
            hi[j] = iadm_s0_vhi(s0, s1, s2, s3, shift);
        }
    } else {
        for (int j = 0; j < n; j++)
            lo[j] = iadm_s0_vlo(r0[j], r1[j], r2[j], r3[j], shift);
    }
}

#if !(EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512)
/* (The x86 builds have simd_dwt0_horiz, iadm_dwt_simd.h.) */
static void dwt0_horiz(const int16_t *lo, const int16_t *hi, int n_out,
                       int32_t *restrict a, int16_t *restrict v,
                       int16_t *restrict h, int16_t *restrict d)
{
    if (!hi) {
        for (int j = 0; j < n_out; j++)
            a[j] = iadm_s0_hlo(lo[2 * j - 1], lo[2 * j], lo[2 * j + 1], lo[2 * j + 2]);
        return;
    }
    for (int j = 0; j < n_out; j++) {
        const int32_t l0 = lo[2 * j - 1], l1 = lo[2 * j], l2 = lo[2 * j + 1],
                      l3 = lo[2 * j + 2];
        const int32_t h0 = hi[2 * j - 1], h1 = hi[2 * j], h2 = hi[2 * j + 1],
                      h3 = hi[2 * j + 2];
        a[j] = iadm_s0_hlo(l0, l1, l2, l3);
        v[j] = iadm_s0_hhi(l0, l1, l2, l3);
        h[j] = iadm_s0_hlo(h0, h1, h2, h3);
        d[j] = iadm_s0_hhi(h0, h1, h2, h3);
    }
}
#endif

static void dwt_vert(const int32_t *r0, const int32_t *r1, const int32_t *r2,
                     const int32_t *r3, int n, int64_t add, int shift,
                     int32_t *restrict lo, int32_t *restrict hi)
{
    for (int j = 0; j < n; j++) {
        const int32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
        lo[j] = iadm_s123_lo(s0, s1, s2, s3, add, shift);
        hi[j] = iadm_s123_hi(s0, s1, s2, s3, add, shift);
    }
}

#if !(EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512)
/* (The x86 builds have simd_dwt1_vert.) */
static void dwt1_vert(const int32_t *r0, const int32_t *r1, const int32_t *r2,
                      const int32_t *r3, int n, int32_t *restrict lo,
                      int32_t *restrict hi)
{
    for (int j = 0; j < n; j++) {
        const int32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
        lo[j] = iadm_s1_vlo(s0, s1, s2, s3);
        hi[j] = iadm_s1_vhi(s0, s1, s2, s3);
    }
}
#endif

static void dwt_horiz(const int32_t *lo, const int32_t *hi, int n_out,
                      int64_t add, int shift, int32_t *restrict a,
                      int32_t *restrict v, int32_t *restrict h,
                      int32_t *restrict d)
{
    for (int j = 0; j < n_out; j++) {
        const int32_t l0 = lo[2 * j - 1], l1 = lo[2 * j], l2 = lo[2 * j + 1],
                      l3 = lo[2 * j + 2];
        const int32_t h0 = hi[2 * j - 1], h1 = hi[2 * j], h2 = hi[2 * j + 1],
                      h3 = hi[2 * j + 2];
        a[j] = iadm_s123_lo(l0, l1, l2, l3, add, shift);
        v[j] = iadm_s123_hi(l0, l1, l2, l3, add, shift);
        h[j] = iadm_s123_lo(h0, h1, h2, h3, add, shift);
        d[j] = iadm_s123_hi(h0, h1, h2, h3, add, shift);
    }
}

/*
 * Decoupling in passes per row, each of which GCC vectorises (the fused loop
 * it does not): the angle tests (double) into a flag row, the reads of the
 * division table into q rows (a gather; the vector builds supply one with
 * intrinsics, simd_gather16 / simd_gather32), then the bands (integer, with
 * the gain limit in integers for a whole-number egl, else in double).
 * Restrict-qualified parameters (not locals) let the vectoriser assume the
 * rows do not overlap.
 */
static void angle0_row(const int16_t *restrict oh, const int16_t *restrict ov,
                       const int16_t *restrict th, const int16_t *restrict tv,
                       int j0, int j1, float cos2, int32_t *restrict flag)
{
    for (int j = j0; j < j1; j++)
        flag[j] = iadm_s0_angle(oh[j], ov[j], th[j], tv[j], cos2);
}

/* q[j] = div_lookup[o[j] + 32768]. */
static void gather16(const int16_t *restrict o, int j0, int j1,
                     const int32_t *restrict div_lookup, int32_t *restrict q)
{
#if EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512
    simd_gather16(o, j0, j1, div_lookup, q);
#else
    for (int j = j0; j < j1; j++)
        q[j] = div_lookup[o[j] + 32768];
#endif
}

/* q[j] = div_lookup[idx[j]], in place allowed. */
static void gather32(const int32_t *idx, int j0, int j1,
                     const int32_t *restrict div_lookup, int32_t *q)
{
#if EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512
    simd_gather32(idx, j0, j1, div_lookup, q);
#else
    for (int j = j0; j < j1; j++)
        q[j] = div_lookup[idx[j]];
#endif
}

/* The band pass, inlined twice: with the integer gain limit (use_int, a
 * literal) or the double one. */
#define IADM_S0_RST(k, o, t) \
    (use_int ? iadm_s0_rst_int(k, o, t, angle, egl_int) : iadm_s0_rst(k, o, t, angle, egl))

static inline __attribute__((always_inline)) void
decouple0_body(const int16_t *restrict oh, const int16_t *restrict ov,
                   const int16_t *restrict od, const int16_t *restrict th,
                   const int16_t *restrict tv, const int16_t *restrict td,
                   int16_t *restrict rh, int16_t *restrict rv, int16_t *restrict rd,
                   int16_t *restrict ah, int16_t *restrict av, int16_t *restrict ad,
                   int j0, int j1, const int32_t *restrict qh, const int32_t *restrict qv,
                   const int32_t *restrict qd, const int32_t *restrict flag, double egl,
                   int use_int, int32_t egl_int)
{
    for (int j = j0; j < j1; j++) {
        const int32_t ohj = oh[j], ovj = ov[j], odj = od[j];
        const int32_t thj = th[j], tvj = tv[j], tdj = td[j];
        const int32_t angle = flag[j];
        const int32_t kh = iadm_s0_k(ohj, thj, qh[j]);
        const int32_t kv = iadm_s0_k(ovj, tvj, qv[j]);
        const int32_t kd = iadm_s0_k(odj, tdj, qd[j]);
        const int16_t sh = (int16_t)IADM_S0_RST(kh, ohj, thj);
        const int16_t sv = (int16_t)IADM_S0_RST(kv, ovj, tvj);
        const int16_t sd = (int16_t)IADM_S0_RST(kd, odj, tdj);
        rh[j] = sh;
        rv[j] = sv;
        rd[j] = sd;
        ah[j] = (int16_t)(thj - sh);
        av[j] = (int16_t)(tvj - sv);
        ad[j] = (int16_t)(tdj - sd);
    }
}
#undef IADM_S0_RST

static void decouple0_rows(const int16_t *restrict oh, const int16_t *restrict ov,
                           const int16_t *restrict od, const int16_t *restrict th,
                           const int16_t *restrict tv, const int16_t *restrict td,
                           int16_t *restrict rh, int16_t *restrict rv,
                           int16_t *restrict rd, int16_t *restrict ah,
                           int16_t *restrict av, int16_t *restrict ad, int j0,
                           int j1, const int32_t *restrict qh,
                           const int32_t *restrict qv, const int32_t *restrict qd,
                           const int32_t *restrict flag, double egl)
{
    const int32_t egl_int = iadm_egl_int(egl);
    if (egl_int)
        decouple0_body(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, j0, j1, qh, qv,
                           qd, flag, egl, 1, egl_int);
    else
        decouple0_body(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, j0, j1, qh, qv,
                           qd, flag, egl, 0, 0);
}

static void decouple0(const int16_t *const o[3], const int16_t *const t[3],
                      int j0, int j1, const int32_t *div_lookup, float cos2,
                      double egl, int32_t *tmp, int16_t *const r[3],
                      int16_t *const a[3])
{
    const size_t n = (size_t)j1;
    int32_t *flag = tmp, *q[3] = { tmp + n, tmp + 2 * n, tmp + 3 * n };
    angle0_row(o[0], o[1], t[0], t[1], j0, j1, cos2, flag);
    for (int b = 0; b < 3; b++)
        gather16(o[b], j0, j1, div_lookup, q[b]);
    decouple0_rows(o[0], o[1], o[2], t[0], t[1], t[2], r[0], r[1], r[2], a[0],
                       a[1], a[2], j0, j1, q[0], q[1], q[2], flag, egl);
}

static void angle_row(const int32_t *restrict oh, const int32_t *restrict ov,
                      const int32_t *restrict th, const int32_t *restrict tv,
                      int j0, int j1, float cos2, int32_t *restrict flag)
{
    /* Rows whose samples are all below 2^26 in magnitude (in practice every
     * row) take the double form, which vectorises without int64 to float
     * conversions; the result is the same. */
    uint32_t mag = 0;
    for (int j = j0; j < j1; j++)
        mag |= iadm_abs_u32(oh[j]) | iadm_abs_u32(ov[j]) | iadm_abs_u32(th[j]) |
               iadm_abs_u32(tv[j]);
    if (mag < (1u << 26)) {
        for (int j = j0; j < j1; j++)
            flag[j] = iadm_s0_angle(oh[j], ov[j], th[j], tv[j], cos2);
    } else {
        for (int j = j0; j < j1; j++)
            flag[j] = iadm_s123_angle(oh[j], ov[j], th[j], tv[j], cos2);
    }
}

/* Normalising shift and table index of each divisor (the band pass then
 * needs no count of leading zeros, which AVX2 lacks). */
static void kidx_row(const int32_t *restrict o, int j0, int j1, int32_t *restrict sh,
                     int32_t *restrict idx)
{
    for (int j = j0; j < j1; j++) {
        const int x = iadm_s123_kshift(o[j]);
        sh[j] = x;
        idx[j] = iadm_s123_kidx(o[j], x);
    }
}

#define IADM_S123_RST(k, o, t) \
    (use_int ? iadm_s123_rst_int(k, o, t, angle, egl_int) : iadm_s123_rst(k, o, t, angle, egl))

static inline __attribute__((always_inline)) void
decouple_body(const int32_t *restrict oh, const int32_t *restrict ov,
                  const int32_t *restrict od, const int32_t *restrict th,
                  const int32_t *restrict tv, const int32_t *restrict td,
                  int32_t *restrict rh, int32_t *restrict rv, int32_t *restrict rd,
                  int32_t *restrict ah, int32_t *restrict av, int32_t *restrict ad,
                  int j0, int j1, const int32_t *restrict qh, const int32_t *restrict qv,
                  const int32_t *restrict qd, const int32_t *restrict sh_h,
                  const int32_t *restrict sh_v, const int32_t *restrict sh_d,
                  const int32_t *restrict flag, double egl, int use_int, int32_t egl_int)
{
    for (int j = j0; j < j1; j++) {
        const int32_t ohj = oh[j], ovj = ov[j], odj = od[j];
        const int32_t thj = th[j], tvj = tv[j], tdj = td[j];
        const int32_t angle = flag[j];
        const int xh = sh_h[j], xv = sh_v[j], xd = sh_d[j];
        const int32_t sh = IADM_S123_RST(iadm_s123_k(ohj, thj, qh[j], xh), ohj, thj);
        const int32_t sv = IADM_S123_RST(iadm_s123_k(ovj, tvj, qv[j], xv), ovj, tvj);
        const int32_t sd = IADM_S123_RST(iadm_s123_k(odj, tdj, qd[j], xd), odj, tdj);
        rh[j] = sh;
        rv[j] = sv;
        rd[j] = sd;
        ah[j] = (int32_t)((uint32_t)thj - (uint32_t)sh);
        av[j] = (int32_t)((uint32_t)tvj - (uint32_t)sv);
        ad[j] = (int32_t)((uint32_t)tdj - (uint32_t)sd);
    }
}
#undef IADM_S123_RST

static void decouple_rows(const int32_t *restrict oh, const int32_t *restrict ov,
                          const int32_t *restrict od, const int32_t *restrict th,
                          const int32_t *restrict tv, const int32_t *restrict td,
                          int32_t *restrict rh, int32_t *restrict rv,
                          int32_t *restrict rd, int32_t *restrict ah,
                          int32_t *restrict av, int32_t *restrict ad, int j0,
                          int j1, const int32_t *restrict qh,
                          const int32_t *restrict qv, const int32_t *restrict qd,
                          const int32_t *const sh[3], const int32_t *restrict flag,
                          double egl)
{
    const int32_t egl_int = iadm_egl_int(egl);
    if (egl_int)
        decouple_body(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, j0, j1, qh, qv,
                          qd, sh[0], sh[1], sh[2], flag, egl, 1, egl_int);
    else
        decouple_body(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, j0, j1, qh, qv,
                          qd, sh[0], sh[1], sh[2], flag, egl, 0, 0);
}

static void decouple(const int32_t *const o[3], const int32_t *const t[3],
                     int j0, int j1, const int32_t *div_lookup, float cos2,
                     double egl, int32_t *tmp, int32_t *const r[3],
                     int32_t *const a[3])
{
    const size_t n = (size_t)j1;
    int32_t *flag = tmp, *q[3] = { tmp + n, tmp + 2 * n, tmp + 3 * n };
    int32_t *sh[3] = { tmp + 4 * n, tmp + 5 * n, tmp + 6 * n };
    angle_row(o[0], o[1], t[0], t[1], j0, j1, cos2, flag);
    for (int b = 0; b < 3; b++) {
        kidx_row(o[b], j0, j1, sh[b], q[b]);
        gather32(q[b], j0, j1, div_lookup, q[b]);
    }
    const int32_t *const shc[3] = { sh[0], sh[1], sh[2] };
    decouple_rows(o[0], o[1], o[2], t[0], t[1], t[2], r[0], r[1], r[2], a[0],
                      a[1], a[2], j0, j1, q[0], q[1], q[2], shc, flag, egl);
}

static void den0(const int16_t *const b[3], int j0, int j1, uint64_t out[3])
{
    const int16_t *restrict bh = b[0], *restrict bv = b[1], *restrict bd = b[2];
    uint64_t sh = 0, sv = 0, sd = 0;
    for (int j = j0; j < j1; j++) {
        sh += iadm_s0_den(bh[j]);
        sv += iadm_s0_den(bv[j]);
        sd += iadm_s0_den(bd[j]);
    }
    out[0] = sh;
    out[1] = sv;
    out[2] = sd;
}

static void den(const int32_t *const b[3], int j0, int j1, int sq_shift,
                uint64_t cub_add, int cub_shift, uint64_t out[3])
{
    const int32_t *restrict bh = b[0], *restrict bv = b[1], *restrict bd = b[2];
    uint64_t sh = 0, sv = 0, sd = 0;
    for (int j = j0; j < j1; j++) {
        sh += iadm_s123_den(bh[j], sq_shift, cub_add, cub_shift);
        sv += iadm_s123_den(bv[j], sq_shift, cub_add, cub_shift);
        sd += iadm_s123_den(bd[j], sq_shift, cub_add, cub_shift);
    }
    out[0] = sh;
    out[1] = sv;
    out[2] = sd;
}

static void csf0(const int16_t *const src[3], const int32_t rf[3], int j0,
                 int j1, int32_t *restrict f, int32_t *restrict g)
{
    const int16_t *restrict sh = src[0], *restrict sv = src[1], *restrict sd = src[2];
    const int32_t rh = rf[0], rv = rf[1], rd = rf[2];
    for (int j = j0; j < j1; j++) {
        /* Q21 factors shift by 15, the Q23 diagonal by 17 with the
         * reference's rounding constant 65535. */
        const int16_t ch = iadm_s0_csf(sh[j], rh, 16384, 15);
        const int16_t cv = iadm_s0_csf(sv[j], rv, 16384, 15);
        const int16_t cd = iadm_s0_csf(sd[j], rd, 65535, 17);
        const int32_t fs = iadm_s0_flt(ch) + iadm_s0_flt(cv) + iadm_s0_flt(cd);
        const int32_t cs = iadm_s0_ctr(ch) + iadm_s0_ctr(cv) + iadm_s0_ctr(cd);
        f[j] = fs;
        g[j] = cs - fs;
    }
}

static void csf(const int32_t *const src[3], const uint32_t rf[3], int j0,
                int j1, int32_t *restrict f, int32_t *restrict g)
{
    const int32_t *restrict sh = src[0], *restrict sv = src[1], *restrict sd = src[2];
    const uint32_t rh = rf[0], rv = rf[1], rd = rf[2];
    for (int j = j0; j < j1; j++) {
        const int32_t ch = iadm_s123_csf(sh[j], rh);
        const int32_t cv = iadm_s123_csf(sv[j], rv);
        const int32_t cd = iadm_s123_csf(sd[j], rd);
        /* 27-term int32 sums of the reference wrap; so do these. */
        const uint32_t fs = (uint32_t)iadm_s123_flt(ch) + (uint32_t)iadm_s123_flt(cv) +
                            (uint32_t)iadm_s123_flt(cd);
        const uint32_t cs = (uint32_t)iadm_s123_ctr(ch) + (uint32_t)iadm_s123_ctr(cv) +
                            (uint32_t)iadm_s123_ctr(cd);
        f[j] = (int32_t)fs;
        g[j] = (int32_t)(cs - fs);
    }
}

/*
 * Masking threshold of column j: the 3x3 sum of F (V holds the vertical
 * sums) plus G, with the reference's mirrors: column -1 reads column 1,
 * column w reads column w-1 (rows were mirrored by the caller the same way).
 */
#if !EV_SIMD_IS_AVX512
/* (The AVX-512 build has simd_cm0, iadm_s0_avx512.h.) */
static void cm0(const int16_t *const x[3], const int32_t *fu, const int32_t *fm,
                const int32_t *fd, const int32_t *g, int j0, int j1, int w,
                const IadmCmParams *p, int32_t *restrict vtmp, int64_t out[3])
{
    /* Sums wrap (uint32, uint64) as the reference's int32 / int64 sums do on
     * x86; at scale 0 they never come near, but any input stays defined. */
    const int c0 = j0 > 0 ? j0 - 1 : 0, c1 = j1 < w ? j1 + 1 : w;
    for (int c = c0; c < c1; c++)
        vtmp[c] = (int32_t)((uint32_t)fu[c] + (uint32_t)fm[c] + (uint32_t)fd[c]);

    const int16_t *restrict xh = x[0], *restrict xv = x[1], *restrict xd = x[2];
    const int32_t rh = p->rf0[0], rv = p->rf0[1], rd = p->rf0[2];
    const int sh = p->cub_shift[0], sv = p->cub_shift[1], sd = p->cub_shift[2];
    const int64_t ah = p->cub_add[0], av = p->cub_add[1], ad = p->cub_add[2];
    uint64_t acc_h = 0, acc_v = 0, acc_d = 0;

    const int lo = j0 > 1 ? j0 : 1, hi = j1 < w - 1 ? j1 : w - 1;
    for (int j = lo; j < hi; j++) {
        const int32_t thr = (int32_t)((uint32_t)vtmp[j - 1] + (uint32_t)vtmp[j] +
                                      (uint32_t)vtmp[j + 1] + (uint32_t)g[j]);
        acc_h += (uint64_t)iadm_s0_cm(xh[j], rh, thr, 10, 29, 268435456, sh, ah);
        acc_v += (uint64_t)iadm_s0_cm(xv[j], rv, thr, 10, 29, 268435456, sv, av);
        acc_d += (uint64_t)iadm_s0_cm(xd[j], rd, thr, 12, 30, 536870912, sd, ad);
    }
    for (int e = 0; e < 2; e++) {
        const int j = e == 0 ? 0 : w - 1;
        if (j < j0 || j >= j1 || (e == 1 && w - 1 == 0))
            continue;
        const int jl = j == 0 ? 1 : j - 1, jr = j == w - 1 ? w - 1 : j + 1;
        const int32_t thr = (int32_t)((uint32_t)vtmp[jl] + (uint32_t)vtmp[j] +
                                      (uint32_t)vtmp[jr] + (uint32_t)g[j]);
        acc_h += (uint64_t)iadm_s0_cm(xh[j], rh, thr, 10, 29, 268435456, sh, ah);
        acc_v += (uint64_t)iadm_s0_cm(xv[j], rv, thr, 10, 29, 268435456, sv, av);
        acc_d += (uint64_t)iadm_s0_cm(xd[j], rd, thr, 12, 30, 536870912, sd, ad);
    }
    out[0] = (int64_t)acc_h;
    out[1] = (int64_t)acc_v;
    out[2] = (int64_t)acc_d;
}
#endif

static void cm(const int32_t *const x[3], const int32_t *fu, const int32_t *fm,
               const int32_t *fd, const int32_t *g, int j0, int j1, int w,
               const IadmCmParams *p, int32_t *restrict vtmp, int64_t out[3])
{
    const int c0 = j0 > 0 ? j0 - 1 : 0, c1 = j1 < w ? j1 + 1 : w;
    for (int c = c0; c < c1; c++)
        vtmp[c] = (int32_t)((uint32_t)fu[c] + (uint32_t)fm[c] + (uint32_t)fd[c]);

    const int32_t *restrict xh = x[0], *restrict xv = x[1], *restrict xd = x[2];
    const uint32_t rh = p->rf123[0], rv = p->rf123[1], rd = p->rf123[2];
    const int s = p->cub_shift[0];
    const int64_t add = p->cub_add[0];
    uint64_t acc_h = 0, acc_v = 0, acc_d = 0;

    const int lo = j0 > 1 ? j0 : 1, hi = j1 < w - 1 ? j1 : w - 1;
    for (int j = lo; j < hi; j++) {
        const int32_t thr = (int32_t)((uint32_t)vtmp[j - 1] + (uint32_t)vtmp[j] +
                                      (uint32_t)vtmp[j + 1] + (uint32_t)g[j]);
        acc_h += (uint64_t)iadm_s123_cm(xh[j], rh, thr, s, add);
        acc_v += (uint64_t)iadm_s123_cm(xv[j], rv, thr, s, add);
        acc_d += (uint64_t)iadm_s123_cm(xd[j], rd, thr, s, add);
    }
    for (int e = 0; e < 2; e++) {
        const int j = e == 0 ? 0 : w - 1;
        if (j < j0 || j >= j1 || (e == 1 && w - 1 == 0))
            continue;
        const int jl = j == 0 ? 1 : j - 1, jr = j == w - 1 ? w - 1 : j + 1;
        const int32_t thr = (int32_t)((uint32_t)vtmp[jl] + (uint32_t)vtmp[j] +
                                      (uint32_t)vtmp[jr] + (uint32_t)g[j]);
        acc_h += (uint64_t)iadm_s123_cm(xh[j], rh, thr, s, add);
        acc_v += (uint64_t)iadm_s123_cm(xv[j], rv, thr, s, add);
        acc_d += (uint64_t)iadm_s123_cm(xd[j], rd, thr, s, add);
    }
    out[0] = (int64_t)acc_h;
    out[1] = (int64_t)acc_v;
    out[2] = (int64_t)acc_d;
}

#if EV_SIMD_IS_AVX512
#include "iadm_s0_avx512.h"
#endif

const IadmDsp EV_SIMD_NAME(iadm_dsp) = {
    .dwt0_vert_8 = dwt0_vert_8,
    .dwt0_vert_16 = dwt0_vert_16,
#if EV_SIMD_IS_AVX2 || EV_SIMD_IS_AVX512
    .dwt0_horiz = simd_dwt0_horiz,
    .dwt1_vert = simd_dwt1_vert,
#else
    .dwt0_horiz = dwt0_horiz,
    .dwt1_vert = dwt1_vert,
#endif
    .dwt_vert = dwt_vert,
    .dwt_horiz = dwt_horiz,
#if EV_SIMD_IS_AVX512
    .decouple0 = simd_decouple0,
    .cm0 = simd_cm0,
#else
    .decouple0 = decouple0,
    .cm0 = cm0,
#endif
    .decouple = decouple,
    .den0 = den0,
    .den = den,
    .csf0 = csf0,
    .csf = csf,
    .cm = cm,
};
