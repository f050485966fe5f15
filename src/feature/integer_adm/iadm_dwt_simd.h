/*
 * Two DWT passes whose operands are int16 values, in vpmaddwd pairs, for the
 * AVX2 and AVX-512 builds: the horizontal pass of scale 0 and the vertical
 * pass of scale 1 (whose input, band a of scale 0, holds int16 values in
 * int32 samples). Included after iadm_dwt0_simd.h's primitives are defined,
 * with DWT_LANES32 (8 or 16), DWT_NAME(x) and DWT_LOADU, DWT_SRAI16,
 * DWT_PAIR_BLEND (low 16 bits of a, high 16 of b), DWT_SLLI16 and
 * DWT_STORE16 (int32 lanes of int16 values to int16) defined.
 *
 * Why the bits are the reference's: each tap is below 2^15 in magnitude and
 * each operand within int16, so vpmaddwd's products and pair sums are exact;
 * the four taps' magnitudes sum to 54822, so every whole sum (plus the
 * rounding 32768) lies within 54822 * 32768 + 32768 < 2^31: the int32 sums
 * here are the exact values, as are the reference's int32 (scale 0) and
 * int64 (scale 1) sums. Scale 0's horizontal outputs, the sum >> 16, lie
 * within +-27411 (|sum| <= 54822 * 32768), so the int16 stores keep them.
 */

/* (lo[2j-1], lo[2j]) and (lo[2j+1], lo[2j+2]) are the int32 lanes of two
 * loads at lo + 2j - 1 and lo + 2j + 1. */
static void DWT_NAME(dwt0_horiz)(const int16_t *lo, const int16_t *hi, int n_out,
                                 int32_t *restrict a, int16_t *restrict v,
                                 int16_t *restrict h, int16_t *restrict d)
{
    const DWT0_V c01l = DWT0_SET1(DWT0_PAIR(IADM_LO0, IADM_LO1));
    const DWT0_V c23l = DWT0_SET1(DWT0_PAIR(IADM_LO2, IADM_LO3));
    const DWT0_V c01h = DWT0_SET1(DWT0_PAIR(IADM_HI0, IADM_HI1));
    const DWT0_V c23h = DWT0_SET1(DWT0_PAIR(IADM_HI2, IADM_HI3));
    const DWT0_V rnd = DWT0_SET1(32768);
#define DWT_TAPS(x0, x2, c01, c23) \
    DWT_SRAI16(DWT0_ADD(DWT0_ADD(DWT0_MADD(x0, c01), DWT0_MADD(x2, c23)), rnd))
    int j = 0;
    for (; j + DWT_LANES32 <= n_out; j += DWT_LANES32) {
        const DWT0_V l0 = DWT_LOADU(lo + 2 * j - 1), l2 = DWT_LOADU(lo + 2 * j + 1);
        DWT0_STORE(a + j, DWT_TAPS(l0, l2, c01l, c23l));
        if (!hi)
            continue;
        const DWT0_V h0 = DWT_LOADU(hi + 2 * j - 1), h2 = DWT_LOADU(hi + 2 * j + 1);
        DWT_STORE16(v + j, DWT_TAPS(l0, l2, c01h, c23h));
        DWT_STORE16(h + j, DWT_TAPS(h0, h2, c01l, c23l));
        DWT_STORE16(d + j, DWT_TAPS(h0, h2, c01h, c23h));
    }
#undef DWT_TAPS
    for (; j < n_out; j++) {
        const int32_t l0 = lo[2 * j - 1], l1 = lo[2 * j], l2 = lo[2 * j + 1],
                      l3 = lo[2 * j + 2];
        a[j] = iadm_s0_hlo(l0, l1, l2, l3);
        if (!hi)
            continue;
        const int32_t h0 = hi[2 * j - 1], h1 = hi[2 * j], h2 = hi[2 * j + 1],
                      h3 = hi[2 * j + 2];
        v[j] = iadm_s0_hhi(l0, l1, l2, l3);
        h[j] = iadm_s0_hlo(h0, h1, h2, h3);
        d[j] = iadm_s0_hhi(h0, h1, h2, h3);
    }
}

static void DWT_NAME(dwt1_vert)(const int32_t *r0, const int32_t *r1, const int32_t *r2,
                                const int32_t *r3, int n, int32_t *restrict lo,
                                int32_t *restrict hi)
{
    const DWT0_V c01l = DWT0_SET1(DWT0_PAIR(IADM_LO0, IADM_LO1));
    const DWT0_V c23l = DWT0_SET1(DWT0_PAIR(IADM_LO2, IADM_LO3));
    const DWT0_V c01h = DWT0_SET1(DWT0_PAIR(IADM_HI0, IADM_HI1));
    const DWT0_V c23h = DWT0_SET1(DWT0_PAIR(IADM_HI2, IADM_HI3));
    int j = 0;
    for (; j + DWT_LANES32 <= n; j += DWT_LANES32) {
        const DWT0_V p01 = DWT_PAIR_BLEND(DWT_LOADU(r0 + j), DWT_SLLI16(DWT_LOADU(r1 + j)));
        const DWT0_V p23 = DWT_PAIR_BLEND(DWT_LOADU(r2 + j), DWT_SLLI16(DWT_LOADU(r3 + j)));
        DWT0_STORE(lo + j, DWT0_ADD(DWT0_MADD(p01, c01l), DWT0_MADD(p23, c23l)));
        DWT0_STORE(hi + j, DWT0_ADD(DWT0_MADD(p01, c01h), DWT0_MADD(p23, c23h)));
    }
    for (; j < n; j++) {
        const int32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
        lo[j] = iadm_s1_vlo(s0, s1, s2, s3);
        hi[j] = iadm_s1_vhi(s0, s1, s2, s3);
    }
}
