/*
 * Integer VIF row kernels: the plain-C reference and the vectorisable C
 * versions (see ivif_dsp.h), and the dispatch. The vectorisable versions
 * are built for the baseline instruction set; with AVX2 the intrinsics of
 * ivif_avx2.c replace them.
 *
 * The reference kernels follow the reference's per-pixel loops: vertical
 * taps into a padded row (ivif_vert_column: uint32 means, uint64 moments),
 * reflect-101 padding, horizontal taps.
 *
 * The fast kernels compute the same integers with 32-bit lanes only, which
 * GCC vectorises:
 * - symmetric taps are paired, f*(a + b), and columns are processed in
 *   blocks with the taps outer, so the accumulators stay in L1;
 * - a 64-bit moment sum S = sum f*v (v < 2^32, sum f = 65536) is kept as two
 *   exact 32-bit sums over the 16-bit halves of v, H = sum f*hi and
 *   L = sum f*lo (each < 65536 * 65535 < 2^32), and
 *   (uint32)((S + round) >> s) = (H << (16 - s)) + ((L + round) >> s)
 *   (mod 2^32) for s <= 16, because 2^16 * H is a multiple of 2^s;
 * - the 16-bit halves of a square x*x < 2^32 are summed the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "ivif_dsp.h"
#include "os/os.h"

/** reflect-101 padding of r entries on each side of v[0..w). */
static inline void pad_row(uint32_t *v, int w, int r)
{
    for (int m = 1; m <= r; m++) {
        v[-m] = v[m];
        v[w - 1 + m] = v[w - 1 - m];
    }
}

/* ---- Reference kernels ---- */

static void filter_row_c(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint32_t *vm1 = s->v[0], *vm2 = s->v[1];
    uint32_t *vxx = s->v[2], *vyy = s->v[3], *vxy = s->v[4];

    for (int j = 0; j < w; j++) {
        uint32_t v[5];
        ivif_vert_column(t, j, v);
        vm1[j] = v[0];
        vm2[j] = v[1];
        vxx[j] = v[2];
        vyy[j] = v[3];
        vxy[j] = v[4];
    }
    for (int c = 0; c < 5; c++)
        pad_row(s->v[c], w, r);

    for (int j = 0; j < w; j++) {
        uint32_t m1 = 0, m2 = 0;
        uint64_t xx = 0, yy = 0, xy = 0;
        for (int k = 0; k < fw; k++) {
            const int jj = j - r + k;
            const uint32_t f = t->f[k];
            m1 += f * vm1[jj];
            m2 += f * vm2[jj];
            xx += (uint64_t)f * vxx[jj];
            yy += (uint64_t)f * vyy[jj];
            xy += (uint64_t)f * vxy[jj];
        }
        out->mu1[j] = m1;
        out->mu2[j] = m2;
        out->xx[j] = ivif_horz_sq(xx);
        out->yy[j] = ivif_horz_sq(yy);
        out->xy[j] = ivif_horz_sq(xy);
    }
}

void ivif_stat_row_c(const IvifRow *in, int n, const IvifGainLimits *gl,
                     const uint16_t *log2_table, IvifAccum *acc)
{
    IvifAccum common = { 0, 0, 0, 0 };
    int64_t num_log[IVIF_MAX_GAIN_LIMITS] = { 0 };
    for (int j = 0; j < n; j++) {
        IvifGain gain;
        if (!ivif_stat_common(in->mu1[j], in->mu2[j], in->xx[j], in->yy[j], in->xy[j],
                              log2_table, &common, &gain))
            continue;
        for (int e = 0; e < gl->n; e++)
            num_log[e] += ivif_stat_num_log(&gain, gl->v[e], log2_table);
    }
    for (int e = 0; e < gl->n; e++) {
        acc[e].num_log += num_log[e];
        acc[e].den_log += common.den_log;
        acc[e].num_non_log += common.num_non_log;
        acc[e].den_non_log += common.den_non_log;
    }
}

static void row_sums_c(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
                       const uint16_t *log2_table, IvifAccum *acc)
{
    filter_row_c(t, s, &s->row);
    ivif_stat_row_c(&s->row, t->w, gl, log2_table, acc);
}

static void decimate_row_c(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint32_t *v = s->v[0];

    for (int j = 0; j < w; j++)
        v[j] = ivif_vert_mu_column(t, j);
    pad_row(v, w, r);
    for (int j = 0; j < w / 2; j++) {
        uint32_t m = 0;
        for (int k = 0; k < fw; k++)
            m += t->f[k] * v[2 * j - r + k];
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

/* ---- Fast kernels (auto-vectorised) ---- */

/*
 * The loops below take their rows as restrict parameters (GCC keeps that
 * no-alias information when it inlines them, but not for restrict locals),
 * so that each vectorises without run-time alias checks.
 */

static inline const uint8_t *row8(const void *row, int j0)
{
    return (const uint8_t *)row + j0;
}

static inline const uint16_t *row16(const void *row, int j0)
{
    return (const uint16_t *)row + j0;
}

/** One centre tap, 8-bit: a = f*x, f*y, f*x*x, f*y*y, f*x*y. */
static inline void vtap0_u8(uint32_t f, const uint8_t *restrict x, const uint8_t *restrict y,
                            uint32_t *restrict a0, uint32_t *restrict a1,
                            uint32_t *restrict a2, uint32_t *restrict a3,
                            uint32_t *restrict a4, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x[j], b = y[j];
        a0[j] = f * a;
        a1[j] = f * b;
        a2[j] = f * (a * a);
        a3[j] = f * (b * b);
        a4[j] = f * (a * b);
    }
}

/** One pair of symmetric taps, 8-bit (x1/y1 and x2/y2 share the coefficient). */
static inline void vtap2_u8(uint32_t f, const uint8_t *restrict x1,
                            const uint8_t *restrict x2, const uint8_t *restrict y1,
                            const uint8_t *restrict y2, uint32_t *restrict a0,
                            uint32_t *restrict a1, uint32_t *restrict a2,
                            uint32_t *restrict a3, uint32_t *restrict a4, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x1[j], b = y1[j], c = x2[j], d = y2[j];
        a0[j] += f * (a + c);
        a1[j] += f * (b + d);
        a2[j] += f * (a * a + c * c);
        a3[j] += f * (b * b + d * d);
        a4[j] += f * (a * b + c * d);
    }
}

/**
 * Vertical taps of columns [j0, j0+n) into the scratch rows, 8-bit samples:
 * x*x < 2^16, so every moment sum is exact in 32 bits.
 * Channels: 0 mu1, 1 mu2, 2 xx, 4 yy, 6 xy (whole sums; vert_finish splits
 * them into 2/3, 4/5, 6/7).
 */
static inline void vert_block_u8(const IvifTaps *t, int j0, int n, uint32_t *const *v)
{
    const int fw = t->fw, r = fw / 2;
    vtap0_u8(t->f[r], row8(t->ref[r], j0), row8(t->dis[r], j0), v[0] + j0, v[1] + j0,
             v[2] + j0, v[4] + j0, v[6] + j0, n);
    for (int p = 0; p < r; p++)
        vtap2_u8(t->f[p], row8(t->ref[p], j0), row8(t->ref[fw - 1 - p], j0),
                 row8(t->dis[p], j0), row8(t->dis[fw - 1 - p], j0),
                 v[0] + j0, v[1] + j0, v[2] + j0, v[4] + j0, v[6] + j0, n);
}

/** One centre tap, 16-bit: the moments as sums over their 16-bit halves. */
static inline void vtap0_u16(uint32_t f, const uint16_t *restrict x,
                             const uint16_t *restrict y, uint32_t *restrict a0,
                             uint32_t *restrict a1, uint32_t *restrict a2,
                             uint32_t *restrict a3, uint32_t *restrict a4,
                             uint32_t *restrict a5, uint32_t *restrict a6,
                             uint32_t *restrict a7, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x[j], b = y[j];
        const uint32_t aa = a * a, bb = b * b, ab = a * b;
        a0[j] = f * a;
        a1[j] = f * b;
        a2[j] = f * (aa & 0xffff);
        a3[j] = f * (aa >> 16);
        a4[j] = f * (bb & 0xffff);
        a5[j] = f * (bb >> 16);
        a6[j] = f * (ab & 0xffff);
        a7[j] = f * (ab >> 16);
    }
}

/** One pair of symmetric taps, 16-bit. */
static inline void vtap2_u16(uint32_t f, const uint16_t *restrict x1,
                             const uint16_t *restrict x2, const uint16_t *restrict y1,
                             const uint16_t *restrict y2, uint32_t *restrict a0,
                             uint32_t *restrict a1, uint32_t *restrict a2,
                             uint32_t *restrict a3, uint32_t *restrict a4,
                             uint32_t *restrict a5, uint32_t *restrict a6,
                             uint32_t *restrict a7, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t a = x1[j], b = y1[j], c = x2[j], d = y2[j];
        const uint32_t aa = a * a, bb = b * b, ab = a * b;
        const uint32_t cc = c * c, dd = d * d, cd = c * d;
        a0[j] += f * (a + c);
        a1[j] += f * (b + d);
        a2[j] += f * ((aa & 0xffff) + (cc & 0xffff));
        a3[j] += f * ((aa >> 16) + (cc >> 16));
        a4[j] += f * ((bb & 0xffff) + (dd & 0xffff));
        a5[j] += f * ((bb >> 16) + (dd >> 16));
        a6[j] += f * ((ab & 0xffff) + (cd & 0xffff));
        a7[j] += f * ((ab >> 16) + (cd >> 16));
    }
}

/**
 * Vertical taps of columns [j0, j0+n), 16-bit samples: each moment as the
 * sums of the 16-bit halves of the products (module comment).
 * Channels: 0 mu1, 1 mu2, 2/3 xx lo/hi, 4/5 yy lo/hi, 6/7 xy lo/hi.
 */
static inline void vert_block_u16(const IvifTaps *t, int j0, int n, uint32_t *const *v)
{
    const int fw = t->fw, r = fw / 2;
    vtap0_u16(t->f[r], row16(t->ref[r], j0), row16(t->dis[r], j0), v[0] + j0, v[1] + j0,
              v[2] + j0, v[3] + j0, v[4] + j0, v[5] + j0, v[6] + j0, v[7] + j0, n);
    for (int p = 0; p < r; p++)
        vtap2_u16(t->f[p], row16(t->ref[p], j0), row16(t->ref[fw - 1 - p], j0),
                  row16(t->dis[p], j0), row16(t->dis[fw - 1 - p], j0),
                  v[0] + j0, v[1] + j0, v[2] + j0, v[3] + j0, v[4] + j0, v[5] + j0,
                  v[6] + j0, v[7] + j0, n);
}

/** a = (uint16)((a + round) >> shift): the vertical mean. */
static inline void round_mu(uint32_t *restrict a, uint32_t round, int shift, int n)
{
    for (int j = 0; j < n; j++)
        a[j] = (uint16_t)((a[j] + round) >> shift);
}

/** Round whole 32-bit moment sums (8-bit input) and split them into halves. */
static inline void finish_u8(uint32_t *restrict lo, uint32_t *restrict hi, uint32_t round,
                             int shift, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t q = (uint32_t)(((uint64_t)lo[j] + round) >> shift);
        lo[j] = q & 0xffff;
        hi[j] = q >> 16;
    }
}

/** Round moment sums held as halves (module comment) and split the result again. */
static inline void finish_u16(uint32_t *restrict lo, uint32_t *restrict hi, uint32_t round,
                              int shift, int n)
{
    for (int j = 0; j < n; j++) {
        const uint32_t q = (hi[j] << (16 - shift)) + ((lo[j] + round) >> shift);
        lo[j] = q & 0xffff;
        hi[j] = q >> 16;
    }
}

/** Round the vertical sums of [j0, j0+n); moments end as 16-bit halves in 2/3, 4/5, 6/7. */
static inline void vert_finish(const IvifTaps *t, int j0, int n, uint32_t *const *v)
{
    round_mu(v[0] + j0, t->mu_round, t->mu_shift, n);
    round_mu(v[1] + j0, t->mu_round, t->mu_shift, n);
    for (int c = 0; c < 3; c++) {
        if (t->u8)
            finish_u8(v[2 + 2 * c] + j0, v[3 + 2 * c] + j0, t->sq_round, t->sq_shift, n);
        else
            finish_u16(v[2 + 2 * c] + j0, v[3 + 2 * c] + j0, t->sq_round, t->sq_shift, n);
    }
}

/** a = fc * x[0..n) (centre tap). */
static inline void htap0(uint32_t fc, const uint32_t *restrict x, uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] = fc * x[j];
}

/** a += f * (x1 + x2) (a pair of symmetric taps). */
static inline void htap2(uint32_t f, const uint32_t *restrict x1, const uint32_t *restrict x2,
                         uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] += f * (x1[j] + x2[j]);
}

/** Horizontal taps of output columns [j0, j0+n): 8 channels of 16-bit values. */
static inline void horz_block(const IvifTaps *t, int j0, int n, uint32_t *const *v,
                              uint32_t *const *acc)
{
    const int fw = t->fw, r = fw / 2;
    for (int c = 0; c < 8; c++) {
        const uint32_t *x = v[c] + j0;
        htap0(t->f[r], x, acc[c], n);
        for (int p = 0; p < r; p++)
            htap2(t->f[p], x - r + p, x + r - p, acc[c], n);
    }
}

/** The horizontal results of a block: the means as they are, the moments recombined. */
static inline void horz_finish(const uint32_t *restrict m1, const uint32_t *restrict m2,
                               const uint32_t *restrict xl, const uint32_t *restrict xh,
                               const uint32_t *restrict yl, const uint32_t *restrict yh,
                               const uint32_t *restrict pl, const uint32_t *restrict ph,
                               uint32_t *restrict o1, uint32_t *restrict o2,
                               uint32_t *restrict oxx, uint32_t *restrict oyy,
                               uint32_t *restrict oxy, int n)
{
    for (int j = 0; j < n; j++) {
        o1[j] = m1[j];
        o2[j] = m2[j];
        oxx[j] = xh[j] + ((xl[j] + 32768) >> 16);
        oyy[j] = yh[j] + ((yl[j] + 32768) >> 16);
        oxy[j] = ph[j] + ((pl[j] + 32768) >> 16);
    }
}

static void filter_row_fast(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int w = t->w, r = t->fw / 2;
    uint32_t *const *v = s->v;

    for (int j0 = 0; j0 < w; j0 += IVIF_BLOCK) {
        const int n = w - j0 < IVIF_BLOCK ? w - j0 : IVIF_BLOCK;
        if (t->u8)
            vert_block_u8(t, j0, n, v);
        else
            vert_block_u16(t, j0, n, v);
        vert_finish(t, j0, n, v);
    }
    for (int c = 0; c < 8; c++)
        pad_row(v[c], w, r);

    for (int j0 = 0; j0 < w; j0 += IVIF_BLOCK) {
        const int n = w - j0 < IVIF_BLOCK ? w - j0 : IVIF_BLOCK;
        horz_block(t, j0, n, v, s->blk);
        uint32_t *const *b = s->blk;
        horz_finish(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], out->mu1 + j0,
                    out->mu2 + j0, out->xx + j0, out->yy + j0, out->xy + j0, n);
    }
}

static inline void dtap0_u8(uint32_t f, const uint8_t *restrict x, uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] = f * x[j];
}

static inline void dtap2_u8(uint32_t f, const uint8_t *restrict x1, const uint8_t *restrict x2,
                            uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] += f * ((uint32_t)x1[j] + x2[j]);
}

static inline void dtap0_u16(uint32_t f, const uint16_t *restrict x, uint32_t *restrict a,
                             int n)
{
    for (int j = 0; j < n; j++)
        a[j] = f * x[j];
}

static inline void dtap2_u16(uint32_t f, const uint16_t *restrict x1,
                             const uint16_t *restrict x2, uint32_t *restrict a, int n)
{
    for (int j = 0; j < n; j++)
        a[j] += f * ((uint32_t)x1[j] + x2[j]);
}

/** Horizontal taps at the even columns: out[j] from v[2j - r .. 2j + r]. */
static inline void decimate_horz(const uint16_t *f, int r, const uint32_t *restrict v,
                                 uint16_t *restrict out, int n)
{
    const uint32_t fc = f[r];
    for (int j = 0; j < n; j++) {
        uint32_t m = fc * v[2 * j];
        for (int p = 0; p < r; p++)
            m += f[p] * (v[2 * j - r + p] + v[2 * j + r - p]);
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

static void row_sums_fast(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
                          const uint16_t *log2_table, IvifAccum *acc)
{
    filter_row_fast(t, s, &s->row);
    ivif_stat_row_c(&s->row, t->w, gl, log2_table, acc);
}

static void decimate_row_fast(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint32_t *v = s->v[0];

    for (int j0 = 0; j0 < w; j0 += IVIF_BLOCK) {
        const int n = w - j0 < IVIF_BLOCK ? w - j0 : IVIF_BLOCK;
        if (t->u8) {
            dtap0_u8(t->f[r], row8(t->ref[r], j0), v + j0, n);
            for (int p = 0; p < r; p++)
                dtap2_u8(t->f[p], row8(t->ref[p], j0), row8(t->ref[fw - 1 - p], j0),
                         v + j0, n);
        } else {
            dtap0_u16(t->f[r], row16(t->ref[r], j0), v + j0, n);
            for (int p = 0; p < r; p++)
                dtap2_u16(t->f[p], row16(t->ref[p], j0), row16(t->ref[fw - 1 - p], j0),
                          v + j0, n);
        }
        round_mu(v + j0, t->mu_round, t->mu_shift, n);
    }
    pad_row(v, w, r);
    decimate_horz(t->f, r, v, out, w / 2);
}

/* ---- Dispatch and scratch ---- */

int ivif_dsp_init_level(IvifDsp *dsp, int max_level)
{
    dsp->row_sums = row_sums_c;
    dsp->decimate_row = decimate_row_c;
    dsp->filter_row = filter_row_c;
    if (max_level < IVIF_DSP_VEC)
        return IVIF_DSP_C;
    dsp->row_sums = row_sums_fast;
    dsp->decimate_row = decimate_row_fast;
    dsp->filter_row = filter_row_fast;
#if IVIF_HAVE_AVX2
    const int isa = ev_cpu_isa();
    if (max_level >= IVIF_DSP_AVX512 && isa >= EV_ISA_AVX512) {
        dsp->row_sums = ivif_row_sums_avx512;
        dsp->decimate_row = ivif_decimate_row_avx512;
        dsp->filter_row = ivif_filter_row_avx512;
        return IVIF_DSP_AVX512;
    }
    if (max_level >= IVIF_DSP_AVX2 && isa >= EV_ISA_AVX2) {
        dsp->row_sums = ivif_row_sums_avx2;
        dsp->decimate_row = ivif_decimate_row_avx2;
        dsp->filter_row = ivif_filter_row_avx2;
        return IVIF_DSP_AVX2;
    }
#elif IVIF_HAVE_NEON
    if (max_level >= IVIF_DSP_NEON && ev_cpu_isa() >= EV_ISA_NEON) {
        dsp->row_sums = ivif_row_sums_neon;
        dsp->decimate_row = ivif_decimate_row_neon;
        dsp->filter_row = ivif_filter_row_neon;
        return IVIF_DSP_NEON;
    }
#endif
    return IVIF_DSP_VEC;
}

void ivif_dsp_init(IvifDsp *dsp)
{
    ivif_dsp_init_level(dsp, IVIF_DSP_COUNT - 1);
}

const char *ivif_dsp_level_name(int level)
{
#if IVIF_HAVE_AVX2
    static const char *const names[IVIF_DSP_COUNT] = { "c", "vec", "avx2", "avx512" };
#elif IVIF_HAVE_NEON
    static const char *const names[IVIF_DSP_COUNT] = { "c", "vec", "neon" };
#else
    static const char *const names[IVIF_DSP_COUNT] = { "c", "vec" };
#endif
    return level >= 0 && level < IVIF_DSP_COUNT ? names[level] : "?";
}

/* A scratch row (ivif_dsp.h): IVIF_PAD entries, then w_max + IVIF_PAD + 48,
 * zeroed so that the lanes SIMD kernels read and drop are initialised. */
static void *alloc_row(size_t elem, int w_max)
{
    const size_t n = (size_t)w_max + 2 * IVIF_PAD + 48;
    const size_t bytes = (n * elem + 63) & ~(size_t)63;
    void *p = vmaf_os_aligned_alloc(64, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

int ivif_scratch_alloc(IvifScratch *s, int w_max)
{
    memset(s, 0, sizeof(*s));
    for (int c = 0; c < 8; c++) {
        uint32_t *v = alloc_row(sizeof(uint32_t), w_max);
        uint16_t *h = alloc_row(sizeof(uint16_t), w_max);
        s->v[c] = v ? v + IVIF_PAD : NULL;
        s->h[c] = h ? h + IVIF_PAD : NULL;
        s->blk[c] = alloc_row(sizeof(uint32_t), IVIF_BLOCK);
        if (!v || !h || !s->blk[c])
            goto fail;
    }
    uint32_t **row[5] = { &s->row.mu1, &s->row.mu2, &s->row.xx, &s->row.yy, &s->row.xy };
    for (int c = 0; c < 5; c++) {
        *row[c] = alloc_row(sizeof(uint32_t), w_max);
        if (!*row[c])
            goto fail;
    }
    return 0;

fail:
    ivif_scratch_free(s);
    return -ENOMEM;
}

void ivif_scratch_free(IvifScratch *s)
{
    for (int c = 0; c < 8; c++) {
        vmaf_os_aligned_free(s->v[c] ? s->v[c] - IVIF_PAD : NULL);
        vmaf_os_aligned_free(s->h[c] ? s->h[c] - IVIF_PAD : NULL);
        vmaf_os_aligned_free(s->blk[c]);
        s->v[c] = s->blk[c] = NULL;
        s->h[c] = NULL;
    }
    vmaf_os_aligned_free(s->row.mu1);
    vmaf_os_aligned_free(s->row.mu2);
    vmaf_os_aligned_free(s->row.xx);
    vmaf_os_aligned_free(s->row.yy);
    vmaf_os_aligned_free(s->row.xy);
    s->row = (IvifRow){ NULL, NULL, NULL, NULL, NULL };
}
