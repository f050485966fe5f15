/*
 * The 8-bit vertical DWT of scale 0 (iadm_s0_vlo / iadm_s0_vhi on four rows)
 * in vpmaddwd pairs, for the AVX2 and AVX-512 builds of iadm_kern_tmpl.c.
 * Included after immintrin.h under the includer's target pragma, with
 * DWT0_LANES16 (16 or 32), DWT0_V and the DWT0_* primitives defined.
 *
 * Why the bits are the reference's: the reference forms
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
 *
 * DWT0_PAIR stays defined for iadm_dwt_simd.h.
 */
#define DWT0_PAIR(a, b) ((int32_t)(((uint32_t)(uint16_t)(int16_t)(a)) | \
                                   ((uint32_t)(uint16_t)(int16_t)(b) << 16)))

static int DWT0_NAME(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
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
