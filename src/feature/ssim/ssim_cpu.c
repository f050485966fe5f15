/*
 * CPU engine of float_ssim and float_ms_ssim (ssim_host.h): the reference's
 * iqa convolution, statistic and sums, in the reference's arithmetic
 * (ssim_arith.h), restructured for speed without reordering any sum:
 *
 * - The five filtered planes are never stored. Each input row is filtered
 *   horizontally into an 11-row ring per quantity (mu1, mu2 and, with the
 *   product formed per tap, xx, yy, xy); as soon as 11 rows are there, the
 *   vertical taps give one output row. Every output keeps its own fp64 sum
 *   with the taps in ascending order, so vectorising across output columns
 *   changes no bits.
 * - The statistic runs a row at a time in three vectorisable pieces (the
 *   variances, the square root, the l/c/s terms); the four fp64 sums then
 *   take the row's terms in raster order, as the reference's one loop does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu.h"
#include "ssim_host.h"
#include "os/os.h"

/* Hot loops are plain C, built once per instruction set (ssim_simd_tmpl.c,
 * included at the end). Same operations per element, no contraction
 * (-ffp-contract=off, and neither target enables FMA), so every build gives
 * the same bits; only the vector width differs. */

enum { Q_MU1, Q_MU2, Q_XX, Q_YY, Q_XY, Q_COUNT };
enum { S_SIG1, S_SIG2, S_SIG12, S_ROOT, S_COUNT };
enum { T_L, T_C, T_S, T_COUNT };

static const float win[SSIM_WIN] = SSIM_WIN_TAPS_INIT;

static void *alloc_aligned(size_t bytes)
{
    /* Whole 32-byte blocks, so that a vector load of the last one stays inside. */
    bytes = (bytes + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

int ssim_engine_init(SsimEngine *e, int max_w)
{
    e->max_w = max_w;
    e->row_stride = ((size_t)(max_w - (SSIM_WIN - 1)) + 7) & ~(size_t)7;
    const size_t n = e->row_stride;
    e->ring = alloc_aligned(sizeof(float) * n * Q_COUNT * SSIM_WIN);
    e->vrow = alloc_aligned(sizeof(float) * n * Q_COUNT);
    e->stat = alloc_aligned(sizeof(float) * n * S_COUNT);
    e->terms = alloc_aligned(sizeof(double) * n * T_COUNT);
    if (!e->ring || !e->vrow || !e->stat || !e->terms) {
        ssim_engine_free(e);
        return -ENOMEM;
    }
    return 0;
}

void ssim_engine_free(SsimEngine *e)
{
    vmaf_os_aligned_free(e->ring);
    vmaf_os_aligned_free(e->vrow);
    vmaf_os_aligned_free(e->stat);
    vmaf_os_aligned_free(e->terms);
    e->ring = e->vrow = e->stat = NULL;
    e->terms = NULL;
}

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

/** The box's first and last tap offsets: [-(f/2), f/2 - (f even)], as the reference's kernel. */
static void box_reach(int f, int *lo, int *hi)
{
    *lo = -(f / 2);
    *hi = f / 2 - ((f & 1) ? 0 : 1);
}

void ssim_box_decimate_inplace(float *img, int w, int h, int f)
{
    const float wt = 1.0f / (float)(f * f);
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);

    /* The reference writes each output over the source before reading the
     * next one's taps; on small images a later output may read an earlier
     * one's result. The same loop on the same buffer keeps that. */
    for (int y = 0; y < sh; y++) {
        for (int x = 0; x < sw; x++) {
            double acc = 0.0;
            for (int v = lo; v <= hi; v++) {
                const float *row = img + (size_t)ssim_mirror(y * f + v, h) * w;
                for (int u = lo; u <= hi; u++)
                    acc = ssim_tap(acc, row[ssim_mirror(x * f + u, w)], wt);
            }
            img[(size_t)y * sw + x] = ssim_round(acc);
        }
    }
}

bool ssim_box_inplace_is_pure(int w, int h, int f)
{
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);

    /* Outputs 0 .. i-1 have overwritten exactly the samples 0 .. i-1 when
     * output i = y*sw + x reads its taps; its lowest tap index is the lowest
     * row times w plus the lowest column. */
    for (int y = 0; y < sh; y++) {
        int r_min = h;
        for (int v = lo; v <= hi; v++) {
            const int r = ssim_mirror(y * f + v, h);
            r_min = r < r_min ? r : r_min;
        }
        for (int x = 0; x < sw; x++) {
            int c_min = w;
            for (int u = lo; u <= hi; u++) {
                const int c = ssim_mirror(x * f + u, w);
                c_min = c < c_min ? c : c_min;
            }
            if ((int64_t)r_min * w + c_min < (int64_t)y * sw + x)
                return false;
        }
    }
    return true;
}

void ssim_box_columns(int w, int f, int *cols)
{
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f);
    for (int u = lo; u <= hi; u++)
        for (int x = 0; x < sw; x++)
            cols[(size_t)(u - lo) * sw + x] = ssim_mirror(x * f + u, w);
}

void ms_ssim_pad_columns(float *img, size_t stride, int w, int h)
{
    for (int y = 0; y < h; y++) {
        float *row = img + (size_t)y * stride;
        for (int m = 1; m <= MS_SSIM_PAD; m++) {
            row[-m] = row[m - 1];
            row[w - 1 + m] = row[w - m];
        }
    }
}

size_t ms_ssim_split_stride(int w)
{
    return 2 * (((size_t)ssim_decimated_size(w, 2) + MS_SSIM_PAD + 7) & ~(size_t)7);
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

#define EV_SIMD_TEMPLATE "feature/ssim/ssim_simd_tmpl.c"
#define EV_SIMD_AVX512
#include "cpu_builds.h"

const SsimKern *ssim_kern_for(int isa)
{
    static const SsimKern kern[EV_ISA_COUNT] = {
        { engine_means_c, box_decimate_c, ms_decimate_c },
#if EV_HAVE_X86_SIMD
        { engine_means_avx2, box_decimate_avx2, ms_decimate_avx2 },
        { engine_means_avx512, box_decimate_avx512, ms_decimate_avx512 },
#endif
    };
    return isa > EV_ISA_C && isa < EV_ISA_COUNT && EV_HAVE_X86_SIMD ? &kern[isa] : &kern[0];
}

void ssim_engine_means(const SsimEngine *e, const float *ref, const float *cmp,
                       size_t stride, int w, int h, SsimMeans *out)
{
    ssim_kern_for(ev_cpu_isa())->engine_means(e, ref, cmp, stride, w, h, out);
}

void ssim_box_decimate(const float *src, size_t src_stride, int w, int h, int f,
                       const int *cols, float *dst, double *restrict acc)
{
    ssim_kern_for(ev_cpu_isa())->box_decimate(src, src_stride, w, h, f, cols, dst, acc);
}

void ms_ssim_decimate(const float *src, size_t src_stride, int w, int h,
                      float *dst, size_t dst_stride, float *split, double *acc)
{
    ssim_kern_for(ev_cpu_isa())->ms_decimate(src, src_stride, w, h, dst, dst_stride, split,
                                             acc);
}
