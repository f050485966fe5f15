/*
 * Scale 0 decoupling and masking in AVX-512 intrinsics, for the AVX-512
 * build of iadm_kern_tmpl.c (included after its generic kernels, which
 * take what these do not: a non-integer gain limit). Scale 0 bands are int16, so
 * the products that the generic kernels widen to int64 or double fit 32-bit
 * lanes here; each step below says why its value is the reference's.
 */

/* Sign-extended int16 row segment as 16 int32 lanes. */
static inline __m512i s0_load16(const int16_t *p)
{
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
}

static inline void s0_store16(int16_t *p, __m512i v)
{
    _mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtepi32_epi16(v));
}

/*
 * iadm_s0_angle on 16 columns. With p = (h, v) as int16 pairs, vpmaddwd
 * gives o.t, |o|^2 and |t|^2 exactly, except that a sum of 2^31 (every
 * operand -32768) wraps: |o|^2 and |t|^2 are >= 0 and are converted as
 * unsigned; o.t lies in (-2^31, 2^31], so INT32_MIN stands for +2^31, and
 * its square is the same either way. Those int32 to float conversions round
 * the exact value as the reference's double to float does. The reference
 * then divides each by 4096 (exact) and compares dp^2 with (cos2 |o|^2)
 * |t|^2 in double: dividing all three by 4096 scales both sides by 2^-24
 * exactly (no value reaches the subnormal or overflow range), so the
 * undivided comparison has the same outcome.
 */
static inline __mmask16 s0_angle16(__m512i oh, __m512i ov, __m512i th, __m512i tv,
                                   __m512d c2)
{
    const __m512i po = _mm512_mask_blend_epi16(0xAAAAAAAAu, oh, _mm512_slli_epi32(ov, 16));
    const __m512i pt = _mm512_mask_blend_epi16(0xAAAAAAAAu, th, _mm512_slli_epi32(tv, 16));
    const __m512i dp = _mm512_madd_epi16(po, pt);
    const __m512 dpf = _mm512_cvtepi32_ps(dp);
    const __m512 omf = _mm512_cvtepu32_ps(_mm512_madd_epi16(po, po));
    const __m512 tmf = _mm512_cvtepu32_ps(_mm512_madd_epi16(pt, pt));
    __mmask8 ge[2];
    for (int k = 0; k < 2; k++) {
        const __m512d d = _mm512_cvtps_pd(k ? _mm512_extractf32x8_ps(dpf, 1)
                                            : _mm512_castps512_ps256(dpf));
        const __m512d o = _mm512_cvtps_pd(k ? _mm512_extractf32x8_ps(omf, 1)
                                            : _mm512_castps512_ps256(omf));
        const __m512d t = _mm512_cvtps_pd(k ? _mm512_extractf32x8_ps(tmf, 1)
                                            : _mm512_castps512_ps256(tmf));
        ge[k] = _mm512_cmp_pd_mask(_mm512_mul_pd(d, d),
                                   _mm512_mul_pd(_mm512_mul_pd(c2, o), t), _CMP_GE_OQ);
    }
    const __mmask16 dp_ge0 = _mm512_cmpge_epi32_mask(dp, _mm512_setzero_si512()) |
                             _mm512_cmpeq_epi32_mask(dp, _mm512_set1_epi32(INT32_MIN));
    return (__mmask16)(_mm512_kunpackb(ge[1], ge[0]) & dp_ge0);
}

/*
 * iadm_s0_k and iadm_s0_rst_int on 16 columns of one band: every product is
 * of two values within 2^15 (and one factor at most 2^15 + 1), and egl at
 * most 100, so int32 holds each as the reference's int32 / int64 does.
 */
static inline __m512i s0_rst16(__m512i o, __m512i t, __m512i q, __mmask16 angle,
                               __m512i egl)
{
    const __m512i raw = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_srai_epi32(q, 15), t),
        _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(
                              _mm512_and_si512(q, _mm512_set1_epi32(32767)), t),
                          _mm512_set1_epi32(16384)), 15));
    const __m512i one = _mm512_set1_epi32(32768);
    __m512i k = _mm512_min_epi32(_mm512_max_epi32(raw, _mm512_setzero_si512()), one);
    k = _mm512_mask_mov_epi32(k, _mm512_cmpeq_epi32_mask(o, _mm512_setzero_si512()), one);
    const __m512i rst = _mm512_srai_epi32(
        _mm512_add_epi32(_mm512_mullo_epi32(k, o), _mm512_set1_epi32(16384)), 15);
    const __m512i g = _mm512_mullo_epi32(rst, egl);
    const __mmask16 kp = angle & _mm512_cmpgt_epi32_mask(k, _mm512_setzero_si512());
    const __mmask16 pos = kp & _mm512_cmpgt_epi32_mask(o, _mm512_setzero_si512());
    const __mmask16 neg = kp & _mm512_cmplt_epi32_mask(o, _mm512_setzero_si512());
    __m512i r = _mm512_mask_mov_epi32(rst, pos, _mm512_min_epi32(g, t));
    return _mm512_mask_mov_epi32(r, neg, _mm512_max_epi32(g, t));
}

static void simd_decouple0(const int16_t *const o[3], const int16_t *const t[3],
                           int j0, int j1, const int32_t *div_lookup, float cos2,
                           double egl, int32_t *tmp, int16_t *const r[3],
                           int16_t *const a[3])
{
    const int32_t egl_int = iadm_egl_int(egl);
    if (!egl_int) {
        decouple0(o, t, j0, j1, div_lookup, cos2, egl, tmp, r, a);
        return;
    }
    const __m512d c2 = _mm512_set1_pd((double)cos2);
    const __m512i eglv = _mm512_set1_epi32(egl_int);
    int j = j0;
    for (; j + 16 <= j1; j += 16) {
        __m512i ov[3], tv[3];
        for (int b = 0; b < 3; b++) {
            ov[b] = s0_load16(o[b] + j);
            tv[b] = s0_load16(t[b] + j);
        }
        const __mmask16 angle = s0_angle16(ov[0], ov[1], tv[0], tv[1], c2);
        for (int b = 0; b < 3; b++) {
            const __m512i q = div16(ov[b]);
            const __m512i rst = s0_rst16(ov[b], tv[b], q, angle, eglv);
            s0_store16(r[b] + j, rst);
            s0_store16(a[b] + j, _mm512_sub_epi32(tv[b], rst));
        }
    }
    for (; j < j1; j++) {
        const int32_t angle = iadm_s0_angle(o[0][j], o[1][j], t[0][j], t[1][j], cos2);
        for (int b = 0; b < 3; b++) {
            const int32_t oj = o[b][j], tj = t[b][j];
            const int32_t k = iadm_s0_k(oj, tj, div_lookup[oj + 32768]);
            const int16_t s = (int16_t)iadm_s0_rst_int(k, oj, tj, angle, egl_int);
            r[b][j] = s;
            a[b][j] = (int16_t)(tj - s);
        }
    }
}

/*
 * iadm_s0_cm's sum over 16 columns of one band, in 64-bit lanes (even and
 * odd columns apart): x is in [0, 2^31], so vpmuludq squares it exactly;
 * the rounded square is truncated to int32 by vpmuldq reading its low half
 * as signed, which then forms the reference's int64 product with x.
 * Columns whose x is 0 add (cub_add >> cub_shift) each; a block of such
 * columns adds that at once.
 */
/* The lanes' sum modulo 2^64, as the C kernel's uint64 sum wraps (GCC's
 * _mm512_reduce_add_epi64 adds as signed 64-bit integers, whose overflow is
 * undefined). */
static inline uint64_t s0_hsum_u64(__m512i v)
{
    uint64_t lane[8], sum = 0;
    _mm512_storeu_si512(lane, v);
    for (int k = 0; k < 8; k++)
        sum += lane[k];
    return sum;
}

static inline __m512i s0_cm16(__m512i src, __m512i rf, __m512i thr, int sub,
                              int sq_shift, int64_t sq_add, int cub_shift,
                              int64_t cub_add, int64_t zero_term, __m512i acc)
{
    const __m512i ap = _mm512_abs_epi32(_mm512_mullo_epi32(src, rf));
    const __m512i x = _mm512_max_epi32(_mm512_sub_epi32(ap, _mm512_slli_epi32(thr, sub)),
                                       _mm512_setzero_si512());
    if (!_mm512_test_epi32_mask(x, x))
        return _mm512_add_epi64(acc, _mm512_set1_epi64(2 * zero_term));
    const __m512i sqa = _mm512_set1_epi64(sq_add), cba = _mm512_set1_epi64(cub_add);
    const __m128i sqs = _mm_cvtsi32_si128(sq_shift), cbs = _mm_cvtsi32_si128(cub_shift);
    for (int k = 0; k < 2; k++) {
        const __m512i xe = k ? _mm512_srli_epi64(x, 32) : x;
        const __m512i sq = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(xe, xe), sqa), sqs);
        acc = _mm512_add_epi64(acc, _mm512_sra_epi64(_mm512_add_epi64(
                                        _mm512_mul_epi32(sq, xe), cba), cbs));
    }
    return acc;
}

static void simd_cm0(const int16_t *const x[3], const int32_t *fu, const int32_t *fm,
                     const int32_t *fd, const int32_t *g, int j0, int j1, int w,
                     const IadmCmParams *p, int32_t *restrict vtmp, int64_t out[3])
{
    const int c0 = j0 > 0 ? j0 - 1 : 0, c1 = j1 < w ? j1 + 1 : w;
    for (int c = c0; c < c1; c++)
        vtmp[c] = (int32_t)((uint32_t)fu[c] + (uint32_t)fm[c] + (uint32_t)fd[c]);

    static const int sub[3] = { 10, 10, 12 }, sq_shift[3] = { 29, 29, 30 };
    static const int64_t sq_add[3] = { 268435456, 268435456, 536870912 };
    int64_t zero_term[3];
    __m512i rf[3], acc[3];
    for (int b = 0; b < 3; b++) {
        rf[b] = _mm512_set1_epi32(p->rf0[b]);
        acc[b] = _mm512_setzero_si512();
        zero_term[b] = iadm_s0_cm(0, 0, 0, sub[b], sq_shift[b], sq_add[b], p->cub_shift[b],
                                  p->cub_add[b]);
    }
    const int lo = j0 > 1 ? j0 : 1, hi = j1 < w - 1 ? j1 : w - 1;
    int j = lo;
    for (; j + 16 <= hi; j += 16) {
        const __m512i thr = _mm512_add_epi32(
            _mm512_add_epi32(_mm512_loadu_si512(vtmp + j - 1), _mm512_loadu_si512(vtmp + j)),
            _mm512_add_epi32(_mm512_loadu_si512(vtmp + j + 1), _mm512_loadu_si512(g + j)));
        for (int b = 0; b < 3; b++)
            acc[b] = s0_cm16(s0_load16(x[b] + j), rf[b], thr, sub[b], sq_shift[b], sq_add[b],
                             p->cub_shift[b], p->cub_add[b], zero_term[b], acc[b]);
    }
    uint64_t sum[3];
    for (int b = 0; b < 3; b++)
        sum[b] = s0_hsum_u64(acc[b]);
    /* The rest of the interior, then columns 0 and w - 1 with their mirrors. */
    for (; j < hi; j++) {
        const int32_t thr = (int32_t)((uint32_t)vtmp[j - 1] + (uint32_t)vtmp[j] +
                                      (uint32_t)vtmp[j + 1] + (uint32_t)g[j]);
        for (int b = 0; b < 3; b++)
            sum[b] += (uint64_t)iadm_s0_cm(x[b][j], p->rf0[b], thr, sub[b], sq_shift[b],
                                           sq_add[b], p->cub_shift[b], p->cub_add[b]);
    }
    for (int e = 0; e < 2; e++) {
        const int jj = e == 0 ? 0 : w - 1;
        if (jj < j0 || jj >= j1 || (e == 1 && w - 1 == 0))
            continue;
        const int jl = jj == 0 ? 1 : jj - 1, jr = jj == w - 1 ? w - 1 : jj + 1;
        const int32_t thr = (int32_t)((uint32_t)vtmp[jl] + (uint32_t)vtmp[jj] +
                                      (uint32_t)vtmp[jr] + (uint32_t)g[jj]);
        for (int b = 0; b < 3; b++)
            sum[b] += (uint64_t)iadm_s0_cm(x[b][jj], p->rf0[b], thr, sub[b], sq_shift[b],
                                           sq_add[b], p->cub_shift[b], p->cub_add[b]);
    }
    for (int b = 0; b < 3; b++)
        out[b] = (int64_t)sum[b];
}
