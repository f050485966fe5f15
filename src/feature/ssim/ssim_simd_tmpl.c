/*
 * The SSIM engine's loops (ssim_host.h says what each computes), built once
 * per instruction set (src/simd.h): the same operations per element at
 * every width, no contraction, so every build gives the same bits. The
 * statistic's square root is SSE's sqrtps where the baseline has it: the
 * IEEE root, as sqrtf.
 */
#include <stddef.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "simd.h"
#include "ssim_host.h"

static const float win[SSIM_WIN] = SSIM_WIN_TAPS_INIT;

/** out[x] = sum_u win[u] * a[x+u], x in [0, n): the horizontal pass of one row. */
static inline void hpass(const float *restrict a, float *restrict out, int n)
{
    for (int x = 0; x < n; x++) {
        double acc = 0.0;
        for (int u = 0; u < SSIM_WIN; u++)
            acc = ssim_tap(acc, a[x + u], win[u]);
        out[x] = ssim_round(acc);
    }
}

/** Horizontal pass of the per-sample product a*b (the square when a == b). */
static inline void hpass_prod(const float *a, const float *b, float *restrict out, int n)
{
    for (int x = 0; x < n; x++) {
        double acc = 0.0;
        for (int u = 0; u < SSIM_WIN; u++)
            acc = ssim_tap(acc, ssim_prod(a[x + u], b[x + u]), win[u]);
        out[x] = ssim_round(acc);
    }
}

/**
 * Vertical pass: out[x] = sum_v win[v] * rows[v][x] with rows[v] =
 * ring + off[v] (the ring slots of the 11 rows, top to bottom).
 */
static inline void vpass(const float *restrict ring, const size_t *off,
                         float *restrict out, int n)
{
    const float *r0 = ring + off[0], *r1 = ring + off[1], *r2 = ring + off[2];
    const float *r3 = ring + off[3], *r4 = ring + off[4], *r5 = ring + off[5];
    const float *r6 = ring + off[6], *r7 = ring + off[7], *r8 = ring + off[8];
    const float *r9 = ring + off[9], *r10 = ring + off[10];
    for (int x = 0; x < n; x++) {
        double acc = 0.0;
        acc = ssim_tap(acc, r0[x], win[0]);
        acc = ssim_tap(acc, r1[x], win[1]);
        acc = ssim_tap(acc, r2[x], win[2]);
        acc = ssim_tap(acc, r3[x], win[3]);
        acc = ssim_tap(acc, r4[x], win[4]);
        acc = ssim_tap(acc, r5[x], win[5]);
        acc = ssim_tap(acc, r6[x], win[6]);
        acc = ssim_tap(acc, r7[x], win[7]);
        acc = ssim_tap(acc, r8[x], win[8]);
        acc = ssim_tap(acc, r9[x], win[9]);
        acc = ssim_tap(acc, r10[x], win[10]);
        out[x] = ssim_round(acc);
    }
}

/**
 * The root of every pixel of a row: IEEE fp32 sqrt, four at a time where SSE2
 * has it (the same correctly rounded root). With errno-setting libm semantics
 * (the build's default) GCC will not vectorise a sqrtf call.
 */
static inline void sqrt_row(const float *p, float *out, int n)
{
    int x = 0;
#if defined(__SSE2__)
    for (; x + 4 <= n; x += 4)
        _mm_storeu_ps(out + x, _mm_sqrt_ps(_mm_loadu_ps(p + x)));
#endif
    for (; x < n; x++)
        out[x] = ssim_sqrt(p[x]);
}

typedef struct SsimSums {
    double lcs, l, c, s;
} SsimSums;

/** Variances, covariance and the root's argument of one row. */
static inline void sigma_row(const float *restrict mu1, const float *restrict mu2,
                             const float *restrict xx, const float *restrict yy,
                             const float *restrict xy, float *restrict s1,
                             float *restrict s2, float *restrict s12,
                             float *restrict arg, int n)
{
    for (int x = 0; x < n; x++) {
        const float a = ssim_variance(xx[x], mu1[x]);
        const float b = ssim_variance(yy[x], mu2[x]);
        s1[x] = a;
        s2[x] = b;
        s12[x] = ssim_covariance(xy[x], mu1[x], mu2[x]);
        arg[x] = ssim_sigma_prod(a, b);
    }
}

/** The root of every pixel of a row, then the covariance clamped where the root is 0. */
static inline void root_row(float *restrict root, float *restrict s12, int n)
{
    sqrt_row(root, root, n);
    /* A loop of its own: fused with the terms, GCC would move the C3 sum
     * into the branches and could no longer vectorise. */
    for (int x = 0; x < n; x++)
        s12[x] = ssim_clamp_cov(s12[x], root[x]);
}

/** The l, c and s terms of one row. */
static inline void lcs_row(const float *restrict mu1, const float *restrict mu2,
                           const float *restrict s1, const float *restrict s2,
                           const float *restrict s12c, const float *restrict root,
                           const SsimConst *k, double *restrict l, double *restrict c,
                           double *restrict s, int n)
{
    const SsimConst kk = *k;
    for (int x = 0; x < n; x++)
        ssim_lcs(mu1[x], mu2[x], s1[x], s2[x], s12c[x], root[x], &kk, &l[x], &c[x], &s[x]);
}

/** Add a row's terms to the four fp64 running sums, x ascending (raster order). */
static inline void sum_row(const double *restrict l, const double *restrict c,
                           const double *restrict s, int n, SsimSums *sums)
{
    /* Four independent chains; each keeps the reference's order. */
    double a = sums->lcs, bl = sums->l, bc = sums->c, bs = sums->s;
    for (int x = 0; x < n; x++) {
        a = DADD(a, ssim_lcs_product(l[x], c[x], s[x]));
        bl = DADD(bl, l[x]);
        bc = DADD(bc, c[x]);
        bs = DADD(bs, s[x]);
    }
    sums->lcs = a;
    sums->l = bl;
    sums->c = bc;
    sums->s = bs;
}

/** The statistic of one valid row and its terms added to the running sums. */
static inline void stat_row(const SsimEngine *e, const SsimConst *k, int n, SsimSums *sums)
{
    const size_t st = e->row_stride;
    const float *mu1 = e->vrow + Q_MU1 * st, *mu2 = e->vrow + Q_MU2 * st;
    float *s1 = e->stat + S_SIG1 * st, *s2 = e->stat + S_SIG2 * st;
    float *s12 = e->stat + S_SIG12 * st, *root = e->stat + S_ROOT * st;
    double *l = e->terms + T_L * st, *c = e->terms + T_C * st, *s = e->terms + T_S * st;

    sigma_row(mu1, mu2, e->vrow + Q_XX * st, e->vrow + Q_YY * st, e->vrow + Q_XY * st,
              s1, s2, s12, root, n);
    root_row(root, s12, n);
    lcs_row(mu1, mu2, s1, s2, s12, root, k, l, c, s, n);
    sum_row(l, c, s, n, sums);
}

/**
 * Even and odd samples of a padded row p (p[i] is column i - MS_SSIM_PAD):
 * e[j] = p[2j], o[j] = p[2j + 1], as far as the taps of n outputs reach.
 */
static inline void split_row(const float *restrict p, float *restrict e,
                             float *restrict o, int n)
{
    for (int j = 0; j < n + MS_SSIM_PAD; j++)
        e[j] = p[2 * j];
    /* The odd taps reach one sample less far; the last one is never read. */
    for (int j = 0; j < n + MS_SSIM_PAD - 1; j++)
        o[j] = p[2 * j + 1];
    o[n + MS_SSIM_PAD - 1] = 0.0f;
}

/** acc[x] += the fp32 product p[x] * t, for a whole row of outputs. */
static inline void tap_row(double *restrict acc, const float *restrict p, float t, int n)
{
    for (int x = 0; x < n; x++)
        acc[x] = ssim_tap(acc[x], p[x], t);
}

/**
 * One decimated row: out[x] = the 81 taps around column 2x of the split
 * rows at split + off[v]. Every output keeps its own fp64 sum from 0.0 with
 * the taps in the reference's order (rows outer, columns inner); the
 * outputs of the row advance together, one tap at a time.
 */
static inline void lpf_row(const float *split, const size_t *off, size_t half,
                           double *restrict acc, float *restrict out, int n)
{
    static const float lpf[MS_SSIM_LPF][MS_SSIM_LPF] = MS_SSIM_LPF_INIT;
    for (int x = 0; x < n; x++)
        acc[x] = 0.0;
    for (int v = 0; v < MS_SSIM_LPF; v++) {
        /* Tap u is padded sample 2x + u: even half at x + u/2, odd half at x + (u-1)/2. */
        const float *e = split + off[v], *o = e + half;
        for (int u = 0; u < MS_SSIM_LPF; u++)
            tap_row(acc, (u & 1) ? o + u / 2 : e + u / 2, lpf[v][u], n);
    }
    for (int x = 0; x < n; x++)
        out[x] = ssim_round(acc[x]);
}


static void engine_means(const SsimEngine *e, const float *ref, const float *cmp,
                              size_t stride, int w, int h, SsimMeans *out)
{
    const SsimConst k = ssim_const();
    const int wv = w - (SSIM_WIN - 1), hv = h - (SSIM_WIN - 1);
    const size_t st = e->row_stride;
    float *ring[Q_COUNT];
    for (int q = 0; q < Q_COUNT; q++)
        ring[q] = e->ring + (size_t)q * SSIM_WIN * st;

    SsimSums sums = { 0.0, 0.0, 0.0, 0.0 };
    for (int r = 0; r < h; r++) {
        const float *a = ref + (size_t)r * stride, *b = cmp + (size_t)r * stride;
        const size_t slot = (size_t)(r % SSIM_WIN) * st;
        hpass(a, ring[Q_MU1] + slot, wv);
        hpass(b, ring[Q_MU2] + slot, wv);
        hpass_prod(a, a, ring[Q_XX] + slot, wv);
        hpass_prod(b, b, ring[Q_YY] + slot, wv);
        hpass_prod(a, b, ring[Q_XY] + slot, wv);
        if (r < SSIM_WIN - 1)
            continue;

        /* Output row y = r - 10 takes input rows y .. y + 10. */
        const int y = r - (SSIM_WIN - 1);
        size_t off[SSIM_WIN];
        for (int v = 0; v < SSIM_WIN; v++)
            off[v] = (size_t)((y + v) % SSIM_WIN) * st;
        for (int q = 0; q < Q_COUNT; q++)
            vpass(ring[q], off, e->vrow + (size_t)q * st, wv);
        stat_row(e, &k, wv, &sums);
    }

    out->ssim = ssim_mean(sums.lcs, wv, hv);
    out->l = ssim_mean(sums.l, wv, hv);
    out->c = ssim_mean(sums.c, wv, hv);
    out->s = ssim_mean(sums.s, wv, hv);
}

static void box_decimate(const float *src, size_t src_stride, int w, int h, int f,
                              const int *cols, float *dst, double *restrict acc)
{
    const float wt = 1.0f / (float)(f * f);
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);

    for (int y = 0; y < sh; y++) {
        for (int x = 0; x < sw; x++)
            acc[x] = 0.0;
        /* Taps in the reference's order for every output: rows outer,
         * columns inner; the outputs of a row advance together. */
        for (int v = lo; v <= hi; v++) {
            const float *restrict row = src + (size_t)ssim_mirror(y * f + v, h) * src_stride;
            for (int u = 0; u <= hi - lo; u++) {
                const int *restrict cu = cols + (size_t)u * sw;
                for (int x = 0; x < sw; x++)
                    acc[x] = ssim_tap(acc[x], row[cu[x]], wt);
            }
        }
        float *restrict d = dst + (size_t)y * sw;
        for (int x = 0; x < sw; x++)
            d[x] = ssim_round(acc[x]);
    }
}

static void ms_decimate(const float *src, size_t src_stride, int w, int h,
                             float *dst, size_t dst_stride, float *split, double *acc)
{
    const int r = MS_SSIM_LPF / 2;
    const int sw = ssim_decimated_size(w, 2), sh = ssim_decimated_size(h, 2);
    const size_t ss = ms_ssim_split_stride(w), half = ss / 2;

    for (int y = 0; y < h; y++)
        split_row(src + (size_t)y * src_stride - MS_SSIM_PAD, split + (size_t)y * ss,
                  split + (size_t)y * ss + half, sw);

    for (int y = 0; y < sh; y++) {
        size_t off[MS_SSIM_LPF];
        for (int v = 0; v < MS_SSIM_LPF; v++)
            off[v] = (size_t)ssim_mirror(2 * y + v - r, h) * ss;
        lpf_row(split, off, half, acc, dst + (size_t)y * dst_stride, sw);
    }
}

const SsimKern EV_SIMD_NAME(ssim_kern) = { engine_means, box_decimate, ms_decimate };
