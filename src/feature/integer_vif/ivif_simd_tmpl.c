/*
 * The integer VIF fast kernels (ivif_dsp.h), built once per instruction set
 * (src/simd.h): the vertical and horizontal filters and the statistic fused
 * per row, the statistic alone, the filter alone (for tests) and the
 * decimation. The C build has the vectorisable C kernels of ivif_simd_c.h;
 * the vector builds are written once for every vector width here, on the
 * layer ivif_simd.h gives for their set: AVX2 (8 lanes), AVX-512 (16) or
 * NEON (4).
 *
 * Why the bits are the reference's:
 * - Filters. Every filter sum is an integer sum of products below 2^32 (or,
 *   for the 48-bit moment sums, two such sums over the 16-bit halves of the
 *   products; see ivif_simd_c.h), so any grouping and any lane order is exact
 *   modulo 2^32, where the reference's results live. vpmaddwd multiplies
 *   signed 16-bit pairs, so unsigned 16-bit values v are fed as v - 32768
 *   (v ^ 0x8000): a filter whose coefficients sum to 65536 then returns
 *   S - 2^31, and S = that ^ 0x80000000. A coefficient must be < 32768:
 *   the 3-tap filter's centre (43728) is split into two halves.
 * - The statistic: the integer steps are the reference's, lane by lane, and
 *   its sums are integer (any grouping is exact). The double steps are the
 *   same IEEE operations, each rounded (the build's -ffp-contract=off keeps
 *   the multiplies and subtractions apart where the target has FMA);
 *   truncation to int32 gives INT32_MIN out of range exactly as
 *   ivif_trunc_i32 models the scalar conversion, and min(g, egl) is
 *   (g < egl ? g : egl). How floor(log2 v) is found differs per width (see
 *   each layer of ivif_simd.h); lanes outside a branch add nothing to the sums.
 * - The horizontal pass computes even and odd columns in separate vectors;
 *   the statistic's sums do not depend on pixel order.
 */

#include <stdint.h>
#include <string.h>

#include "ivif_dsp.h"
#include "simd.h"

#if EV_SIMD_IS_C

#include "ivif_simd_c.h"

#else

#include "ivif_simd.h"

#define CENTRE 0x8000

/* Bytes ahead that the 8-bit vertical passes prefetch in each of the rows
 * they read: 17 (or 9) rows of each picture are more streams than the
 * hardware prefetchers follow. A hint; it changes no result. */
#define VERT_PREFETCH 256

/* stat calls between flushes of the 32-bit lane sums: a lane then holds at
 * most this many terms, each below 2^17 (the log terms) or 1 (the count). */
#define FLUSH_EVERY 4096

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

/* ---- The statistic on LANES lanes ---- */

typedef struct StatAcc {
    StatCommon c;
    V num_log[IVIF_MAX_GAIN_LIMITS];    /**< int32 lanes, flushed before they can overflow */
} StatAcc;

static inline StatAcc stat_start(void)
{
    StatAcc a;
    a.c = stat_common_start();
    for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
        a.num_log[e] = v_zero();
    return a;
}

/** The lane sums into acc[e] (the shared ones into every acc[e]); zeroed. */
static inline void stat_flush(StatAcc *a, int n_egl, IvifAccum *acc)
{
    IvifAccum common = { 0, 0, 0, 0 };
    stat_common_flush(&a->c, &common);
    for (int e = 0; e < n_egl; e++) {
        acc[e].num_log += hsum32(a->num_log[e]);
        acc[e].den_log += common.den_log;
        acc[e].num_non_log += common.num_non_log;
        acc[e].den_non_log += common.den_non_log;
        a->num_log[e] = v_zero();
    }
}

/** ivif_stat_pixel on every lane under each gain limit; lanes outside `valid` add nothing. */
static inline void stat_lanes(V mu1, V mu2, V xx, V yy, V xy, M valid, const VD *egl,
                                  int n_egl, const uint16_t *table, StatAcc *a)
{
    const V zero = v_zero();
    const V s1 = v_sub(xx, mul_round32(mu1, mu1));
    const V s2 = v_max(v_sub(yy, mul_round32(mu2, mu2)), zero);
    const V s12 = v_sub(xy, mul_round32(mu1, mu2));

    const M is_log_all = m_cmpgt(s1, v_set1(IVIF_SIGMA_NSQ - 1));
    const M is_log = m_and(is_log_all, valid);
    /* Outside the log branch: sigma2^2 and a count. */
    stat_non_log(&a->c, m_andnot(is_log_all, valid), s2);
    if (m_none(is_log))
        return;

    /* log2(nsq + s1) - 17, the sum formed in 32 bits as the reference adds two int32. */
    const V dterm = v_sub(log2_u32(table, is_log, v_add(s1, v_set1(IVIF_SIGMA_NSQ))),
                          v_set1(17 * IVIF_LOG2_ONE));
    a->c.den_log = v_add_if(a->c.den_log, is_log, dterm);

    const M is_num = m_and(is_log, m_and(m_cmpgt(s12, zero), m_cmpgt(s2, zero)));
    if (m_none(is_num))
        return;
    /* log2(numerator) - log2(numer1): both below 2^17, and so is the difference. */
    NumPrep p;
    num_prep(s1, s2, s12, is_num, table, &p);
    for (int e = 0; e < n_egl; e++)
        a->num_log[e] = v_add_if(a->num_log[e], is_num, num_log_term(&p, egl[e], is_num, table));
}

static void stat_row(const IvifRow *in, int n, const IvifGainLimits *gl,
                            const uint16_t *log2_table, IvifAccum *acc)
{
    VD eglv[IVIF_MAX_GAIN_LIMITS];
    for (int e = 0; e < gl->n; e++)
        eglv[e] = vd_set1(gl->v[e]);
    StatAcc a = stat_start();
    int j = 0, calls = 0;
    for (; j + LANES <= n; j += LANES) {
        stat_lanes(v_load(in->mu1 + j), v_load(in->mu2 + j), v_load(in->xx + j),
                   v_load(in->yy + j), v_load(in->xy + j), m_all(), eglv, gl->n, log2_table, &a);
        if (++calls == FLUSH_EVERY) {
            stat_flush(&a, gl->n, acc);
            calls = 0;
        }
    }
    stat_flush(&a, gl->n, acc);
    if (j < n) {
        IvifRow rest = { in->mu1 + j, in->mu2 + j, in->xx + j, in->yy + j, in->xy + j };
        ivif_stat_row_c(&rest, n - j, gl, log2_table, acc);
    }
}

/* ---- Vertical pass ---- */

/**
 * Vertical pass over the 8-bit columns [0, w rounded down to 2 LANES), into
 * the centred halves. Each row is read once as 16-bit lanes; rows p and
 * fw-1-p, which share a coefficient, are interleaved into (x_p, x_q) pairs,
 * so that one vpmaddwd gives f*(x_p + x_q) (coefficients below 32768, as the
 * filters read at 8 bits have), one gives x_p^2 + x_q^2 (below 2^17) for one
 * vpmulld by f, and one x_p*y_p + x_q*y_q. The centre row is paired with 0.
 * Every sum is below 2^32: the reference's 8-bit moments are not shifted.
 * Lanes hold the unpack order, which store2_centred undoes.
 */
static inline __attribute__((always_inline)) void
vert_u8_fw(const IvifTaps *t, const IvifScratch *s, const int fw)
{
    const int r = fw / 2, wv = t->w & ~(2 * LANES - 1);
    const int n = r + 1;
    V fpair[IVIF_MAX_TAPS / 2 + 1], f32[IVIF_MAX_TAPS / 2 + 1];
    for (int p = 0; p < r; p++) {
        fpair[p] = v_set1(pair32(t->f[p], t->f[p]));
        f32[p] = v_set1((int32_t)t->f[p]);
    }
    fpair[r] = v_set1(pair32(t->f[r], 0));
    f32[r] = v_set1((int32_t)t->f[r]);
    const V mu_round = v_set1((int32_t)t->mu_round);
    const VC mu_shift = v_count(t->mu_shift);
    const V lo16 = v_set1(0xffff);

    for (int j = 0; j < wv; j += 2 * LANES) {
        /* [0] unpacklo lanes, [1] unpackhi lanes. */
        V m1[2], m2[2], sxx[2], syy[2], sxy[2];
        for (int h = 0; h < 2; h++)
            m1[h] = m2[h] = sxx[h] = syy[h] = sxy[h] = v_zero();
        for (int pass = 0; pass < VERT_PASSES; pass++) {
            const int first = pass == 0, second = VERT_PASSES == 1 || pass == 1;
            for (int p = 0; p < n; p++) {
                const int q = fw - 1 - p;
                if (first) {
                    __builtin_prefetch((const uint8_t *)t->ref[p] + j + VERT_PREFETCH);
                    __builtin_prefetch((const uint8_t *)t->dis[p] + j + VERT_PREFETCH);
                    __builtin_prefetch((const uint8_t *)t->ref[q] + j + VERT_PREFETCH);
                    __builtin_prefetch((const uint8_t *)t->dis[q] + j + VERT_PREFETCH);
                }
                const V x1 = v_u8_to_16((const uint8_t *)t->ref[p] + j);
                const V y1 = v_u8_to_16((const uint8_t *)t->dis[p] + j);
                const V x2 = p < r ? v_u8_to_16((const uint8_t *)t->ref[q] + j) : v_zero();
                const V y2 = p < r ? v_u8_to_16((const uint8_t *)t->dis[q] + j) : v_zero();
                for (int h = 0; h < 2; h++) {
                    const V px = h ? v_unpackhi16(x1, x2) : v_unpacklo16(x1, x2);
                    const V py = h ? v_unpackhi16(y1, y2) : v_unpacklo16(y1, y2);
                    if (first) {
                        m1[h] = v_add(m1[h], v_madd16(px, fpair[p]));
                        m2[h] = v_add(m2[h], v_madd16(py, fpair[p]));
                        sxx[h] = v_add(sxx[h], v_mullo32(v_madd16(px, px), f32[p]));
                    }
                    if (second) {
                        syy[h] = v_add(syy[h], v_mullo32(v_madd16(py, py), f32[p]));
                        sxy[h] = v_add(sxy[h], v_mullo32(v_madd16(px, py), f32[p]));
                    }
                }
            }
        }
        store2_centred(s->h[0] + j, v_srl(v_add(m1[0], mu_round), mu_shift),
                       v_srl(v_add(m1[1], mu_round), mu_shift));
        store2_centred(s->h[1] + j, v_srl(v_add(m2[0], mu_round), mu_shift),
                       v_srl(v_add(m2[1], mu_round), mu_shift));
        store2_centred(s->h[2] + j, v_and(sxx[0], lo16), v_and(sxx[1], lo16));
        store2_centred(s->h[3] + j, v_srli(sxx[0], 16), v_srli(sxx[1], 16));
        store2_centred(s->h[4] + j, v_and(syy[0], lo16), v_and(syy[1], lo16));
        store2_centred(s->h[5] + j, v_srli(syy[0], 16), v_srli(syy[1], 16));
        store2_centred(s->h[6] + j, v_and(sxy[0], lo16), v_and(sxy[1], lo16));
        store2_centred(s->h[7] + j, v_srli(sxy[0], 16), v_srli(sxy[1], 16));
    }
}

/**
 * A moment from its two centred half sums: S = 2^16 H + L, and the
 * reference's (uint32)((S + round) >> shift) = (H << (16 - shift)) +
 * ((L + round) >> shift) modulo 2^32. Returns the low and high 16 bits.
 */
static inline void moment_halves(V lc, V hc, V round, VC shift, VC inv_shift,
                                     V *lo, V *hi)
{
    const V top = v_set1(INT32_MIN);
    const V l = v_xor(lc, top), h = v_xor(hc, top);
    const V q = v_add(v_sll(h, inv_shift), v_srl(v_add(l, round), shift));
    *lo = v_and(q, v_set1(0xffff));
    *hi = v_srli(q, 16);
}

/** A mean from its centred sum: (uint16)((S + round) >> shift). */
static inline V mean16(V mc, V round, VC shift)
{
    return v_and(v_srl(v_add(v_xor(mc, v_set1(INT32_MIN)), round), shift), v_set1(0xffff));
}

/** Vertical row pair of 16-bit channels (a, b), centred and interleaved for vpmaddwd. */
static inline void madd_pair(V a, V b, V coef, V *lo, V *hi)
{
    const V k = v_set1(pair32(CENTRE, CENTRE));
    a = v_xor(a, k);
    b = v_xor(b, k);
    *lo = v_add(*lo, v_madd16(v_unpacklo16(a, b), coef));
    *hi = v_add(*hi, v_madd16(v_unpackhi16(a, b), coef));
}

/**
 * Vertical pass over the 16-bit columns [0, w rounded down to 2 LANES). Row
 * pairs (p, fw-1-p) share a coefficient; the centre row is paired with
 * itself and its coefficient split in two. The 16 accumulators of a column
 * block (means, then the halves of xx, yy and xy) are filled in VERT_PASSES
 * passes over the taps. Products' 16-bit halves come from vpmullw and
 * vpmulhuw.
 */
static inline __attribute__((always_inline)) void
vert_u16_fw(const IvifTaps *t, const IvifScratch *s, const int fw)
{
    const int r = fw / 2, wv = t->w & ~(2 * LANES - 1);
    const int n = r + 1;
    int k1[IVIF_MAX_TAPS / 2 + 1], k2[IVIF_MAX_TAPS / 2 + 1];
    V coef[IVIF_MAX_TAPS / 2 + 1];
    for (int p = 0; p < r; p++) {
        k1[p] = p;
        k2[p] = fw - 1 - p;
        coef[p] = v_set1(pair32(t->f[p], t->f[p]));
    }
    k1[r] = k2[r] = r;
    coef[r] = v_set1(pair32(t->f[r] - t->f[r] / 2u, t->f[r] / 2u));

    const V mu_round = v_set1((int32_t)t->mu_round);
    const VC mu_shift = v_count(t->mu_shift);
    const V sq_round = v_set1((int32_t)t->sq_round);
    const VC sq_shift = v_count(t->sq_shift);
    const VC sq_inv = v_count(16 - t->sq_shift);

    for (int j = 0; j < wv; j += 2 * LANES) {
        V a[8], b[8];
        for (int c = 0; c < 8; c++)
            a[c] = b[c] = v_zero();
        for (int pass = 0; pass < VERT_PASSES; pass++) {
            const int first = pass == 0, second = VERT_PASSES == 1 || pass == 1;
            for (int p = 0; p < n; p++) {
                const V x1 = v_load((const uint16_t *)t->ref[k1[p]] + j);
                const V x2 = v_load((const uint16_t *)t->ref[k2[p]] + j);
                const V y1 = v_load((const uint16_t *)t->dis[k1[p]] + j);
                const V y2 = v_load((const uint16_t *)t->dis[k2[p]] + j);
                if (first) {
                    madd_pair(x1, x2, coef[p], &a[0], &b[0]);
                    madd_pair(y1, y2, coef[p], &a[1], &b[1]);
                    madd_pair(v_mullo16(x1, x1), v_mullo16(x2, x2), coef[p], &a[2], &b[2]);
                    madd_pair(v_mulhi16u(x1, x1), v_mulhi16u(x2, x2), coef[p], &a[3], &b[3]);
                }
                if (second) {
                    madd_pair(v_mullo16(y1, y1), v_mullo16(y2, y2), coef[p], &a[4], &b[4]);
                    madd_pair(v_mulhi16u(y1, y1), v_mulhi16u(y2, y2), coef[p], &a[5], &b[5]);
                    madd_pair(v_mullo16(x1, y1), v_mullo16(x2, y2), coef[p], &a[6], &b[6]);
                    madd_pair(v_mulhi16u(x1, y1), v_mulhi16u(x2, y2), coef[p], &a[7], &b[7]);
                }
            }
        }
        store2_centred(s->h[0] + j, mean16(a[0], mu_round, mu_shift),
                       mean16(b[0], mu_round, mu_shift));
        store2_centred(s->h[1] + j, mean16(a[1], mu_round, mu_shift),
                       mean16(b[1], mu_round, mu_shift));
        for (int c = 0; c < 3; c++) {
            V lo_a, hi_a, lo_b, hi_b;
            moment_halves(a[2 + 2 * c], a[3 + 2 * c], sq_round, sq_shift, sq_inv, &lo_a, &hi_a);
            moment_halves(b[2 + 2 * c], b[3 + 2 * c], sq_round, sq_shift, sq_inv, &lo_b, &hi_b);
            store2_centred(s->h[2 + 2 * c] + j, lo_a, lo_b);
            store2_centred(s->h[3 + 2 * c] + j, hi_a, hi_b);
        }
    }
}

/*
 * The vertical passes built per filter width (17 at scale 0, 9, 5, 3 above
 * it): the tap loops unroll with the width a constant.
 */
static void vert_u8(const IvifTaps *t, const IvifScratch *s)
{
    switch (t->fw) {
    case 17: vert_u8_fw(t, s, 17); break;
    case 9: vert_u8_fw(t, s, 9); break;
    default: vert_u8_fw(t, s, t->fw); break;
    }
}

static void vert_u16(const IvifTaps *t, const IvifScratch *s)
{
    switch (t->fw) {
    case 17: vert_u16_fw(t, s, 17); break;
    case 9: vert_u16_fw(t, s, 9); break;
    case 5: vert_u16_fw(t, s, 5); break;
    case 3: vert_u16_fw(t, s, 3); break;
    default: vert_u16_fw(t, s, t->fw); break;
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

/** The vertical pass of row_sums into s->h, padded. */
static void vert_pass(const IvifTaps *t, const IvifScratch *s)
{
    if (t->u8) {
        vert_u8(t, s);
        vert_tail_and_pad(t, s, t->w & ~(2 * LANES - 1));
    } else {
        vert_u16(t, s);
        vert_tail_and_pad(t, s, t->w & ~(2 * LANES - 1));
    }
}

/* ---- Horizontal pass and statistic ---- */

/** One channel's horizontal sum for LANES columns (base, base+2, ...), decoded (S). */
static inline V hsum_channel(const uint16_t *h, int base, int np, const int *off,
                                 const V *coef)
{
    V acc = v_madd16(v_load(h + base + off[0]), coef[0]);
    for (int i = 1; i < np; i++)
        acc = v_add(acc, v_madd16(v_load(h + base + off[i]), coef[i]));
    return v_xor(acc, v_set1(INT32_MIN));
}

/** The reference's horizontal moment: H + ((L + 32768) >> 16). */
static inline V hmoment(V l, V h)
{
    return v_add(h, v_srli(v_add(l, v_set1(32768)), 16));
}

/** The five filtered values of LANES columns (base, base+2, ...). */
static inline void filter_lanes(const IvifScratch *s, int base, int np, const int *off,
                                    const V *coef, V v[5])
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

/** The horizontal filter's pairs as vectors; their count. */
static inline int hcoef(const uint16_t *f, int fw, int off[IVIF_MAX_TAPS], V coef[IVIF_MAX_TAPS])
{
    int32_t c32[IVIF_MAX_TAPS];
    const int np = hpairs(f, fw, off, c32);
    for (int i = 0; i < np; i++)
        coef[i] = v_set1(c32[i]);
    return np;
}

static void filter_row(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int w = t->w;
    vert_pass(t, s);
    int off[IVIF_MAX_TAPS];
    V coef[IVIF_MAX_TAPS];
    const int np = hcoef(t->f, t->fw, off, coef);
    uint32_t *dst[5] = { out->mu1, out->mu2, out->xx, out->yy, out->xy };
    for (int j = 0; j < w; j += 2 * LANES) {
        V e[5], o[5];
        filter_lanes(s, j, np, off, coef, e);
        filter_lanes(s, j + 1, np, off, coef, o);
        const int n = w - j < 2 * LANES ? w - j : 2 * LANES;
        for (int c = 0; c < 5; c++) {
            uint32_t tmp[2 * LANES];
            store_interleaved(tmp, e[c], o[c]);     /* even and odd columns back in order */
            memcpy(dst[c] + j, tmp, (size_t)n * sizeof(uint32_t));
        }
    }
}

/** The pair offsets hpairs() gives the fixed filters of width fw (the 3-tap one split). */
static inline int canonical_off(int fw, int i)
{
    return fw == 3 ? i - 1 : 2 * i - fw / 2;
}

/*
 * The horizontal pass and the statistic of a row. Inlined with fw and np
 * known at compile time (`fixed`), the pair loop unrolls, its offsets become
 * constant displacements and its coefficients stay in registers.
 */
static inline __attribute__((always_inline)) void
hstat_row(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
          const uint16_t *log2_table, IvifAccum *acc, const int fixed, const int fw,
          const int np, const int *off_run, const V *coef)
{
    const int w = t->w;
    int off_fixed[IVIF_MAX_TAPS];
    for (int i = 0; i < np; i++)
        off_fixed[i] = canonical_off(fw, i);
    const int *off = fixed ? off_fixed : off_run;
    VD eglv[IVIF_MAX_GAIN_LIMITS];
    for (int e = 0; e < gl->n; e++)
        eglv[e] = vd_set1(gl->v[e]);
    StatAcc a = stat_start();
    int calls = 0;
    for (int j = 0; j < w; j += 2 * LANES) {
        for (int phase = 0; phase < 2; phase++) {
            V v[5];
            filter_lanes(s, j + phase, np, off, coef, v);
            stat_lanes(v[0], v[1], v[2], v[3], v[4], m_even_below(w, j + phase), eglv, gl->n,
                       log2_table, &a);
            if (++calls == FLUSH_EVERY) {
                stat_flush(&a, gl->n, acc);
                calls = 0;
            }
        }
    }
    stat_flush(&a, gl->n, acc);
}

static void row_sums(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
                            const uint16_t *log2_table, IvifAccum *acc)
{
    vert_pass(t, s);
    int off[IVIF_MAX_TAPS];
    V coef[IVIF_MAX_TAPS];
    const int np = hcoef(t->f, t->fw, off, coef);
    int fixed = np == (t->fw == 3 ? 2 : (t->fw + 1) / 2);
    for (int i = 0; fixed && i < np; i++)
        fixed = off[i] == canonical_off(t->fw, i);
    if (fixed && t->fw == 17)
        hstat_row(t, s, gl, log2_table, acc, 1, 17, 9, off, coef);
    else if (fixed && t->fw == 9)
        hstat_row(t, s, gl, log2_table, acc, 1, 9, 5, off, coef);
    else if (fixed && t->fw == 5)
        hstat_row(t, s, gl, log2_table, acc, 1, 5, 3, off, coef);
    else if (fixed && t->fw == 3)
        hstat_row(t, s, gl, log2_table, acc, 1, 3, 2, off, coef);
    else
        hstat_row(t, s, gl, log2_table, acc, 0, t->fw, np, off, coef);
}

/* ---- Decimation ---- */

/* The decimation for a filter width fw, a compile-time constant where inlined with one. */
static inline __attribute__((always_inline)) void
decimate_row_fw(const IvifTaps *t, const IvifScratch *s, uint16_t *out, const int fw)
{
    const int r = fw / 2, w = t->w;
    uint16_t *h = s->h[0];
    const V mu_round = v_set1((int32_t)t->mu_round);
    const VC mu_shift = v_count(t->mu_shift);
    int done;

    if (t->u8) {
        /* As vert_u8_fw: rows p and fw-1-p interleaved, the centre with 0. */
        V fpair[IVIF_MAX_TAPS / 2 + 1];
        for (int p = 0; p < r; p++)
            fpair[p] = v_set1(pair32(t->f[p], t->f[p]));
        fpair[r] = v_set1(pair32(t->f[r], 0));
        const V lo16 = v_set1(0xffff);
        done = w & ~(2 * LANES - 1);
        for (int j = 0; j < done; j += 2 * LANES) {
            V lo = v_zero(), hi = v_zero();
            for (int p = 0; p <= r; p++) {
                const uint8_t *a = (const uint8_t *)t->ref[p] + j;
                const uint8_t *b = (const uint8_t *)t->ref[fw - 1 - p] + j;
                __builtin_prefetch(a + VERT_PREFETCH);
                __builtin_prefetch(b + VERT_PREFETCH);
                const V x1 = v_u8_to_16(a), x2 = p < r ? v_u8_to_16(b) : v_zero();
                lo = v_add(lo, v_madd16(v_unpacklo16(x1, x2), fpair[p]));
                hi = v_add(hi, v_madd16(v_unpackhi16(x1, x2), fpair[p]));
            }
            store2_centred(h + j, v_and(v_srl(v_add(lo, mu_round), mu_shift), lo16),
                           v_and(v_srl(v_add(hi, mu_round), mu_shift), lo16));
        }
    } else {
        V coef[IVIF_MAX_TAPS / 2 + 1];
        for (int p = 0; p < r; p++)
            coef[p] = v_set1(pair32(t->f[p], t->f[p]));
        coef[r] = v_set1(pair32(t->f[r] - t->f[r] / 2u, t->f[r] / 2u));
        done = w & ~(2 * LANES - 1);
        for (int j = 0; j < done; j += 2 * LANES) {
            V lo = v_zero(), hi = v_zero();
            for (int p = 0; p <= r; p++)
                madd_pair(v_load((const uint16_t *)t->ref[p] + j),
                          v_load((const uint16_t *)t->ref[fw - 1 - p] + j), coef[p], &lo, &hi);
            store2_centred(h + j, mean16(lo, mu_round, mu_shift), mean16(hi, mu_round, mu_shift));
        }
    }
    for (int j = done; j < w; j++)
        h[j] = (uint16_t)(ivif_vert_mu_column(t, j) ^ CENTRE);
    for (int m = 1; m <= r; m++) {
        h[-m] = h[m];
        h[w - 1 + m] = h[w - 1 - m];
    }

    /* Horizontal taps at the even columns: output j reads h[2j - r ...]. */
    int off_run[IVIF_MAX_TAPS], off_fixed[IVIF_MAX_TAPS];
    V coef[IVIF_MAX_TAPS];
    const int np = hcoef(t->f, fw, off_run, coef);
    int fixed = np == (fw == 3 ? 2 : (fw + 1) / 2);
    for (int i = 0; i < np; i++) {
        off_fixed[i] = canonical_off(fw, i);
        fixed = fixed && off_run[i] == off_fixed[i];
    }
    const int *off = fixed ? off_fixed : off_run;
    const int n = w / 2, nv = n & ~(LANES - 1);
    for (int j = 0; j < nv; j += LANES)
        store_u16(out + j, v_srli(v_add(hsum_channel(h, 2 * j, np, off, coef), v_set1(32768)), 16));
    for (int j = nv; j < n; j++) {
        uint32_t m = 0;
        for (int k = 0; k < fw; k++)
            m += t->f[k] * (uint32_t)(h[2 * j - r + k] ^ CENTRE);
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

static void decimate_row(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    switch (t->fw) {
    case 9: decimate_row_fw(t, s, out, 9); break;
    case 5: decimate_row_fw(t, s, out, 5); break;
    case 3: decimate_row_fw(t, s, out, 3); break;
    default: decimate_row_fw(t, s, out, t->fw); break;
    }
}

#endif

const IvifDsp EV_SIMD_NAME(ivif_dsp) = {
    row_sums, decimate_row, filter_row,
#if EV_SIMD_IS_C
    ivif_stat_row_c,    /* the C build's statistic is the reference's own */
#else
    stat_row,
#endif
};
