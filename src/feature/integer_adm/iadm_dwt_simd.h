/*
 * The DWT passes whose operands are 16-bit, in vpmaddwd pairs, for the AVX2
 * and AVX-512 builds of iadm_kern_tmpl.c (which define, before including
 * this, DWT0_LANES16 (16 or 32), DWT_LANES32 (8 or 16), the vector type
 * DWT0_V and the primitives DWT0_SET1, DWT0_LOAD_U8, DWT0_UNPACKLO / HI,
 * DWT0_MADD, DWT0_ADD, DWT0_SRAI8, DWT0_PACKS, DWT0_STORE, DWT_LOADU,
 * DWT_SRAI16, DWT_SLLI16, DWT_PAIR_BLEND (low 16 bits of a, high 16 of b)
 * and DWT_STORE16 (int32 lanes of int16 values to int16)):
 * - simd_dwt0_vert_8, the 8-bit vertical DWT of scale 0 (iadm_s0_vlo /
 *   iadm_s0_vhi on four rows), for the columns a multiple of the width;
 * - simd_dwt0_horiz, the horizontal pass of scale 0, and simd_dwt1_vert, the
 *   vertical pass of scale 1 (whose input, band a of scale 0, holds int16
 *   values in int32 samples).
 *
 * The 8-bit vertical pass. Why the bits are the reference's: the reference forms
 * acc = c0 s0 + c1 s1 + c2 s2 + c3 s3 (- LO_SUM rnd for lo) in uint32 and
 * returns (int16)((int32)(acc + rnd) >> 8) (rnd = 128). Every coefficient is
 * below 2^15 in magnitude and every sample in [0, 255], so vpmaddwd's
 * products and pair sums are exact; the whole sum lies within
 * +-(15826 + 27411 + 7345) 255 < 2^24, so the int32 sums here are the exact
 * values, which are the reference's uint32 values read as int32. The
 * arithmetic shift then gives the same integer, and that lies in
 * [-27394, 27304] (lo: [-1081200, 12898410] - 5931520 over 256; hi:
 * +-6989805 + 128 over 256), so vpackssdw never saturates and equals the
 * reference's truncation to int16.
 */
#define DWT0_PAIR(a, b) ((int32_t)(((uint32_t)(uint16_t)(int16_t)(a)) | \
                                   ((uint32_t)(uint16_t)(int16_t)(b) << 16)))

static int simd_dwt0_vert_8(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                            const uint8_t *r3, int n, int16_t *lo, int16_t *hi)
{
    const DWT0_V c01l = DWT0_SET1(DWT0_PAIR(IADM_LO0, IADM_LO1));
    const DWT0_V c23l = DWT0_SET1(DWT0_PAIR(IADM_LO2, IADM_LO3));
    const DWT0_V c01h = DWT0_SET1(DWT0_PAIR(IADM_HI0, IADM_HI1));
    const DWT0_V c23h = DWT0_SET1(DWT0_PAIR(IADM_HI2, IADM_HI3));
    /* rnd - LO_SUM rnd for lo, rnd for hi. */
    const DWT0_V kl = DWT0_SET1(128 - IADM_LO_SUM * 128), kh = DWT0_SET1(128);
    int j = 0;
    for (; j + DWT0_LANES16 <= n; j += DWT0_LANES16) {
        const DWT0_V a0 = DWT0_LOAD_U8(r0 + j), a1 = DWT0_LOAD_U8(r1 + j);
        const DWT0_V a2 = DWT0_LOAD_U8(r2 + j), a3 = DWT0_LOAD_U8(r3 + j);
        /* Per 128-bit lane: columns 0-3 (unpacklo) and 4-7 (unpackhi);
         * vpackssdw puts them back in column order. */
        const DWT0_V p01l = DWT0_UNPACKLO(a0, a1), p01h = DWT0_UNPACKHI(a0, a1);
        const DWT0_V p23l = DWT0_UNPACKLO(a2, a3), p23h = DWT0_UNPACKHI(a2, a3);
        const DWT0_V ll = DWT0_SRAI8(DWT0_ADD(DWT0_ADD(DWT0_MADD(p01l, c01l),
                                                       DWT0_MADD(p23l, c23l)), kl));
        const DWT0_V lh = DWT0_SRAI8(DWT0_ADD(DWT0_ADD(DWT0_MADD(p01h, c01l),
                                                       DWT0_MADD(p23h, c23l)), kl));
        DWT0_STORE(lo + j, DWT0_PACKS(ll, lh));
        if (hi) {
            const DWT0_V hl = DWT0_SRAI8(DWT0_ADD(DWT0_ADD(DWT0_MADD(p01l, c01h),
                                                           DWT0_MADD(p23l, c23h)), kh));
            const DWT0_V hh = DWT0_SRAI8(DWT0_ADD(DWT0_ADD(DWT0_MADD(p01h, c01h),
                                                           DWT0_MADD(p23h, c23h)), kh));
            DWT0_STORE(hi + j, DWT0_PACKS(hl, hh));
        }
    }
    return j;
}

/*
 * The horizontal pass of scale 0 and the vertical pass of scale 1.
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
static void simd_dwt0_horiz(const int16_t *lo, const int16_t *hi, int n_out,
                            int32_t *restrict a, int16_t *restrict v, int16_t *restrict h,
                            int16_t *restrict d)
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

static void simd_dwt1_vert(const int32_t *r0, const int32_t *r1, const int32_t *r2,
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
