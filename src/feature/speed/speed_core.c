/*
 * The SpEED estimator (Netflix libvmaf v3.2.0 speed.c, C path), bit for bit.
 *
 * Differences in structure from the reference, none in arithmetic:
 * - The anti-alias filter is evaluated only at the samples that the
 *   decimation by 16 keeps (rows and columns 16k), and the prescaler and the
 *   picture conversion only on the rows that filter reads.
 * - The 325 covariance sums are accumulated together, one centred
 *   submatrix row at a time; each sum keeps the reference's raster order.
 * - Row-independent loops of the linear algebra (matrix products, back
 *   substitution) run across columns; every entry keeps its term order.
 * - Frames the reference cannot handle are refused at init with a message
 *   (the reference logs and then crashes or reads stale memory): decimated
 *   image without a 5x5 block, a prescale within 1e-3 of 1 that still
 *   changes the size.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "math/ev_math.h"
#include "cpu.h"
#include "log.h"
#include "speed_core.h"
#include "speed_options.h"
#include "os/os.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_E
#define M_E 2.7182818284590452354
#endif

/* ---- Options ---- */

/* The reference's accepted kernel scales (vif_tools.c), float expressions. */
static const float valid_kernelscales[] = {
    1.0f, 1.0f / 2.0f, 3.0f / 2.0f, 2.0f, 2.0f / 3.0f, 24.0f / 10.0f,
    360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f,
    5.0f / 3.0f, 3.0f, 1.0f / 2.25f, 1.4746f, 1.54f, 1.6f, 1.06667f,
    0.711111f, 0.740740f, 1.111111f,
};

static bool kernelscale_valid(float ks)
{
    /* fp32 difference against a double literal, as the reference compares. */
    for (size_t i = 0; i < sizeof(valid_kernelscales) / sizeof(valid_kernelscales[0]); i++)
        if (fabsf(ks - valid_kernelscales[i]) < 1e-3)
            return true;
    return false;
}

/* The reference's ALMOST_EQUAL(prescale, 1.0): within 1e-3 the prescale is skipped. */
static bool prescale_skipped(double ps)
{
    return fabs(ps - 1.0) < 1.0e-3;
}

/* ---- Filters (host constants, in the reference's float/double mix) ---- */

/** Taps at `scale` for kernel scale ks: max(odd ceiling of (2^(4-scale)+1) * ks, 3). */
static int filter_size(int scale, float ks)
{
    const int n = (1 << (4 - scale)) + 1;
    int c = (int)ceil((double)((float)n * ks));
    if (c % 2 == 0)
        c++;
    return c < 3 ? 3 : c;
}

/* Gaussian taps of the given size and (float) deviation, normalised by their
 * fp32 running sum. Each raw tap: exp() of the double expression
 * (-0.5 x)/sd * x / sd, rounded to float, divided in float by
 * f32(1 / (sd * sqrt(2 pi))). */
static void gaussian(float *out, int size, float sd)
{
    const int half = (size - 1) / 2;
    float sum = 0.0f;
    for (int i = 0; i < size; i++) {
        const float x = (float)(i - half) - 0.0f;
        const float num = (float)ev_exp(-0.5 * x / sd * x / sd);
        const float den = (float)(1 / (sd * sqrt(2 * M_PI)));
        out[i] = num / den;
        sum += out[i];
    }
    for (int i = 0; i < size; i++)
        out[i] /= sum;
}

/* ---- Init ---- */

static void *alloc_aligned(size_t bytes)
{
    bytes = (bytes + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

void speed_core_close(SpeedCore *c)
{
    ev_prescale_axis_free(&c->ax);
    ev_prescale_axis_free(&c->ay);
    free(c->src_rows);
    free(c->scaled_rows);
    vmaf_os_aligned_free(c->splane);
    vmaf_os_aligned_free(c->vrow);
    vmaf_os_aligned_free(c->dec);
    vmaf_os_aligned_free(c->blur);
    vmaf_os_aligned_free(c->tmp);
    vmaf_os_aligned_free(c->cent);
    vmaf_os_aligned_free(c->Y);
    vmaf_os_aligned_free(c->X);
    vmaf_os_aligned_free(c->B);
    vmaf_os_aligned_free(c->ref.entropy);
    vmaf_os_aligned_free(c->ref.variance);
    vmaf_os_aligned_free(c->dis.entropy);
    vmaf_os_aligned_free(c->dis.variance);
    c->src_rows = c->scaled_rows = NULL;
    c->splane = c->vrow = c->dec = c->blur = c->tmp = NULL;
    c->cent = NULL;
    c->Y = c->X = c->B = NULL;
    c->ref.entropy = c->ref.variance = c->dis.entropy = c->dis.variance = NULL;
}

/* Which rows the pipeline reads: the anti-alias taps of rows 16i of the
 * prescaled plane, then (when prescaling) every source row those are made
 * from. No other row can influence a score. */
static int mark_rows(SpeedCore *c)
{
    c->scaled_rows = calloc((size_t)c->sh, 1);
    c->src_rows = calloc((size_t)c->h, 1);
    if (!c->scaled_rows || !c->src_rows)
        return -ENOMEM;
    const int r = c->aa_n / 2;
    for (int i = 0; i < c->oh; i++)
        for (int k = 0; k < c->aa_n; k++)
            c->scaled_rows[speed_reflect(16 * i - r + k, c->sh)] = 1;
    for (int y = 0; y < c->sh; y++) {
        if (!c->scaled_rows[y])
            continue;
        if (!c->scaled) {
            c->src_rows[y] = 1;
            continue;
        }
        for (int t = 0; t < c->ay.taps; t++)
            c->src_rows[c->ay.idx[(size_t)y * c->ay.taps + t]] = 1;
    }
    return 0;
}

int speed_core_init(SpeedCore *c, const char *name, const SpeedParams *p, int w, int h)
{
    int err;

    c->name = name;
    c->p = *p;
    c->sigma_nn = (float)p->sigma_nn;
    c->nn_floor = (float)p->nn_floor;
    c->w = w;
    c->h = h;

    const float ks = (float)p->kernelscale;
    if (!kernelscale_valid(ks)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "%s: invalid speed_kernelscale %g: it must be within 1e-3 of "
                 "1, 1/2, 3/2, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, "
                 "3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.740740 or 1.111111",
                 name, p->kernelscale);
        return -EINVAL;
    }
    if (ev_prescale_method_parse(p->prescale_method, &c->method)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "%s: invalid speed_prescale_method \"%s\"; supported: nearest, "
                 "bilinear, bicubic, lanczos4", name,
                 p->prescale_method ? p->prescale_method : "(null)");
        return -EINVAL;
    }
    if (w <= 0 || h <= 0 || w > INT_MAX / 8 || h > INT_MAX / 8 ||
        (double)w * p->prescale > INT_MAX / 8 || (double)h * p->prescale > INT_MAX / 8) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: a %dx%d plane is out of range", name, w, h);
        return -EINVAL;
    }

    /* (int)(n * prescale + 0.5) in double, as the reference sizes the frame. */
    c->sw = (int)(w * p->prescale + 0.5);
    c->sh = (int)(h * p->prescale + 0.5);
    if (prescale_skipped(p->prescale) && (c->sw != w || c->sh != h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "%s: speed_prescale %.9g is within 1e-3 of 1, so the reference skips "
                 "the prescale, yet sizes the %dx%d plane as %dx%d (and reads samples "
                 "it never wrote); use 1.0 or a value farther from 1",
                 name, p->prescale, w, h, c->sw, c->sh);
        return -EINVAL;
    }
    c->ow = c->sw >> SPEED_SCALES;
    c->oh = c->sh >> SPEED_SCALES;
    c->nbh = c->ow / SPEED_BLOCK;
    c->nbv = c->oh / SPEED_BLOCK;
    if (c->nbh == 0 || c->nbv == 0) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "%s: a %dx%d plane is too small: SpEED decimates the (prescaled, "
                 "%dx%d) plane by 16 to %dx%d and needs at least one 5x5 block, so "
                 "the prescaled plane must be at least 80x80 (Netflix libvmaf logs "
                 "\"image too small\" here and then crashes on the first frame it scores)",
                 name, w, h, c->sw, c->sh, c->ow, c->oh);
        return -EINVAL;
    }
    c->nb = c->nbh * c->nbv;
    c->subw = c->nbh * SPEED_BLOCK - SPEED_BLOCK + 1;
    c->subh = c->nbv * SPEED_BLOCK - SPEED_BLOCK + 1;

    /* Anti-alias filter: the scale-1 size with sigma sqrt(4) * size / 5
     * (double, stored as float); local-mean filter: the scale-4 size with
     * sigma size / 5.0f. */
    c->aa_n = filter_size(1, ks);
    c->lm_n = filter_size(SPEED_SCALES, ks);
    if (c->aa_n > SPEED_MAX_TAPS || c->lm_n > SPEED_MAX_TAPS) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: speed_kernelscale %g gives a %d-tap filter, "
                 "more than the %d supported", name, p->kernelscale, c->aa_n, SPEED_MAX_TAPS);
        return -EINVAL;
    }
    gaussian(c->aa, c->aa_n, (float)(sqrt(SPEED_SCALES) * c->aa_n / 5.0f));
    gaussian(c->lm, c->lm_n, c->lm_n / 5.0f);
    /* Both borders mirror once (reflect-101): each image must exceed the
     * filter's radius; 80x80 and 5x5 minimums guarantee it for every
     * accepted kernel scale (at most 37 and 9 taps). */
    if (c->sw <= c->aa_n / 2 || c->sh <= c->aa_n / 2 ||
        c->ow <= c->lm_n / 2 || c->oh <= c->lm_n / 2) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: a %dx%d plane is too small for the "
                 "speed_kernelscale %g filters", name, w, h, p->kernelscale);
        return -EINVAL;
    }

    /* The reference prescales whenever the factor is not ~1; equal sizes are
     * then a plain copy, whatever the method. */
    c->scaled = !prescale_skipped(p->prescale) && (c->sw != w || c->sh != h);
    if (c->scaled) {
        err = ev_prescale_axis_build(&c->ax, c->method, w, c->sw);
        if (!err)
            err = ev_prescale_axis_build(&c->ay, c->method, h, c->sh);
        if (err == -EINVAL)
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "%s: a %dx%d plane is too small to prescale to %dx%d with %s "
                     "(its taps reach past the mirrored border)",
                     name, w, h, c->sw, c->sh, p->prescale_method);
        if (err)
            goto fail;
    }
    err = mark_rows(c);
    if (err)
        goto fail;

    err = -ENOMEM;
    c->sstride = ((size_t)c->sw + 7) & ~(size_t)7;
    if (c->scaled) {
        c->splane = alloc_aligned(sizeof(float) * c->sstride * c->sh);
        if (!c->splane)
            goto fail;
    }
    const int r = c->aa_n / 2;
    c->vrow = alloc_aligned(sizeof(float) * ((size_t)c->sw + 2 * r));
    c->dec = alloc_aligned(sizeof(float) * (size_t)c->ow * c->oh);
    c->blur = alloc_aligned(sizeof(float) * (size_t)c->ow * c->oh);
    c->tmp = alloc_aligned(sizeof(float) * (size_t)c->ow);
    c->cent = alloc_aligned(sizeof(double) * SPEED_CENT_LANES * (size_t)c->subw);
    c->Y = alloc_aligned(sizeof(float) * SPEED_N * (size_t)c->nb);
    c->X = alloc_aligned(sizeof(float) * SPEED_N * (size_t)c->nb);
    c->B = alloc_aligned(sizeof(float) * SPEED_N * (size_t)c->nb);
    c->ref.entropy = alloc_aligned(sizeof(float) * (size_t)c->nb);
    c->ref.variance = alloc_aligned(sizeof(float) * (size_t)c->nb);
    c->dis.entropy = alloc_aligned(sizeof(float) * (size_t)c->nb);
    c->dis.variance = alloc_aligned(sizeof(float) * (size_t)c->nb);
    if (!c->vrow || !c->dec || !c->blur || !c->tmp || !c->cent || !c->Y || !c->X ||
        !c->B || !c->ref.entropy || !c->ref.variance || !c->dis.entropy ||
        !c->dis.variance)
        goto fail;
    /* The padding lanes of the centred table are multiplied but never read
     * back; keep them finite. */
    memset(c->cent, 0, sizeof(double) * SPEED_CENT_LANES * (size_t)c->subw);
    return 0;

fail:
    speed_core_close(c);
    return err;
}

/* ---- Per-plane pipeline ---- */

void speed_core_diff(const SpeedCore *c, const float *a, const float *b, float *dst,
                     size_t stride)
{
    for (int i = 0; i < c->h; i++) {
        if (!c->src_rows[i])
            continue;
        const size_t o = (size_t)i * stride;
        for (int j = 0; j < c->w; j++)
            dst[o + j] = speed_sub(a[o + j], b[o + j]);
    }
}

/* Prescale the rows of the plane that the anti-alias filter reads. */
static void prescale_rows(SpeedCore *c, const float *src, size_t stride)
{
    for (int y = 0; y < c->sh; y++)
        if (c->scaled_rows[y])
            ev_prescale_row(c->method, &c->ax, &c->ay, y, c->sw, src, stride,
                            c->splane + (size_t)y * c->sstride);
}

static const SpeedKern *speed_kern(void)
{
    static const SpeedKern *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE(speed_kern);
    return kern[ev_cpu_isa()];
}

void speed_core_load(const SpeedCore *c, const VmafPicture *pic, unsigned plane,
                     float *dst, size_t stride)
{
    const SpeedKern *kern = speed_kern();
    for (int i = 0; i < c->h; i++) {
        if (!c->src_rows[i])
            continue;
        kern->load_row((const uint8_t *)pic->data[plane] + (size_t)i * pic->stride[plane],
                       pic->bpc, c->w, dst + (size_t)i * stride);
    }
}

/* Anti-alias filter at rows and columns 16k, then the local mean removed:
 * c->dec = D - blur(D). */
static void decimate(SpeedCore *c, const float *s, size_t stride)
{
    const SpeedKern *kern = speed_kern();
    const int r = c->aa_n / 2;
    float *row = c->vrow + r;
    for (int i = 0; i < c->oh; i++) {
        kern->vertical_taps(c->aa, c->aa_n, s, stride, c->sh, 16 * i, c->sw, row);
        for (int m = 1; m <= r; m++) {
            row[-m] = row[m];
            row[c->sw - 1 + m] = row[c->sw - 1 - m];
        }
        float *d = c->dec + (size_t)i * c->ow;
        for (int j = 0; j < c->ow; j++) {
            const float *p = c->vrow + 16 * j;
            float acc = 0.0f;
            for (int k = 0; k < c->aa_n; k++)
                acc = speed_tap(acc, c->aa[k], p[k]);
            d[j] = acc;
        }
    }

    const int lr = c->lm_n / 2;
    for (int i = 0; i < c->oh; i++) {
        kern->vertical_taps(c->lm, c->lm_n, c->dec, (size_t)c->ow, c->oh, i, c->ow, c->tmp);
        float *b = c->blur + (size_t)i * c->ow;
        for (int j = 0; j < c->ow; j++) {
            float acc = 0.0f;
            for (int k = 0; k < c->lm_n; k++)
                acc = speed_tap(acc, c->lm[k], c->tmp[speed_reflect(j - lr + k, c->ow)]);
            b[j] = acc;
        }
    }
    const size_t n = (size_t)c->ow * c->oh;
    for (size_t k = 0; k < n; k++)
        c->dec[k] = speed_sub(c->dec[k], c->blur[k]);
}

/* The covariance from its sums (those with y <= x are read). */
static void covariance_finish(SpeedCore *c)
{
    SpeedLinalg *la = &c->la;
    const int subw = c->subw, subh = c->subh;
    const double dcount = (double)((size_t)subw * (size_t)subh);
    for (int x = 0; x < SPEED_N; x++) {
        for (int y = 0; y <= x; y++) {
            const float v = speed_cov(la->cov_sum[x][y], dcount);
            la->cov[x * SPEED_N + y] = v;
            la->cov[y * SPEED_N + x] = v;
        }
    }
}

/* log2(2 pi e), as the reference evaluates it (the folded constant equals
 * glibc's log2 of the same double). */
static double log2_2pie(void)
{
    return ev_log2(2 * M_PI * M_E);
}

void speed_core_estimate(SpeedCore *c, const float *plane, size_t stride,
                         SpeedEstimate *out)
{
    if (c->scaled) {
        prescale_rows(c, plane, stride);
        decimate(c, c->splane, c->sstride);
    } else {
        decimate(c, plane, stride);
    }
    speed_core_conclude(c, out);
}

void speed_core_conclude(SpeedCore *c, SpeedEstimate *out)
{
    speed_kern()->covariance_sums(c);
    speed_core_conclude_sums(c, out);
}

/* The conclusion's own buffers, each rounded up to 64 bytes: dec, Y, X, B,
 * then the entropies and variances of ref and dis. */
static size_t round64(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

size_t speed_core_conclusion_bytes(const SpeedCore *c)
{
    const size_t nb = (size_t)c->nb;
    return round64(sizeof(float) * (size_t)c->ow * c->oh) +
           3 * round64(sizeof(float) * SPEED_N * nb) + 4 * round64(sizeof(float) * nb);
}

void speed_core_conclusion_bind(const SpeedCore *c, SpeedCore *out, void *mem)
{
    const size_t nb = (size_t)c->nb;
    unsigned char *p = mem;
    *out = *c;
    out->dec = (float *)p;
    p += round64(sizeof(float) * (size_t)c->ow * c->oh);
    float **yxb[3] = { &out->Y, &out->X, &out->B };
    for (int i = 0; i < 3; i++) {
        *yxb[i] = (float *)p;
        p += round64(sizeof(float) * SPEED_N * nb);
    }
    float **est[4] = { &out->ref.entropy, &out->ref.variance, &out->dis.entropy,
                       &out->dis.variance };
    for (int i = 0; i < 4; i++) {
        *est[i] = (float *)p;
        p += round64(sizeof(float) * nb);
    }
}

void speed_core_conclude_sums(SpeedCore *c, SpeedEstimate *out)
{
    SpeedLinalg *la = &c->la;
    const int nb = c->nb;

    covariance_finish(c);

    /* Eigenvalues of the covariance. */
    memcpy(la->a, la->cov, sizeof(la->cov));
    speed_tridiagonalize(la->a, SPEED_N, la->eig, la->sd, la->v, la->x);
    if (speed_tridiagonal_eigenvalues(la->eig, la->sd, SPEED_N) == SPEED_MAX_QR_ITERS)
        vmaf_log(VMAF_LOG_LEVEL_WARNING,
                 "%s: eigenvalue search reached %d iterations, possible "
                 "non-convergence", c->name, SPEED_MAX_QR_ITERS);

    /* Y[k][b]: sample k (row-major in the 5x5 block) of block b (raster). */
    for (int k = 0; k < SPEED_N; k++) {
        float *yk = c->Y + (size_t)k * nb;
        for (int bi = 0; bi < c->nbv; bi++) {
            const float *row = c->dec + (size_t)(bi * SPEED_BLOCK + k / SPEED_BLOCK) * c->ow;
            for (int bj = 0; bj < c->nbh; bj++)
                yk[bi * c->nbh + bj] = row[bj * SPEED_BLOCK + k % SPEED_BLOCK];
        }
    }

    /* Solve K X = Y when every eigenvalue reaches the tolerance. */
    bool singular = false;
    for (int k = 0; k < SPEED_N; k++)
        if ((double)la->eig[k] < SPEED_EPS)
            singular = true;
    if (!singular) {
        speed_qr(la->cov, SPEED_N, la->q, la->r, la->z, la->h, la->t, la->v);
        speed_matmul(c->B, la->q, c->Y, SPEED_N, SPEED_N, nb);
        singular = speed_back_substitute(la->r, c->B, c->X, SPEED_N, nb) != 0;
    }
    if (singular) {
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "%s: covariance matrix is singular", c->name);
        memset(c->X, 0, sizeof(float) * SPEED_N * (size_t)nb);
    }
    out->singular = singular;
    speed_block_variances(c->X, c->Y, SPEED_N, nb, out->variance);

    /* Entropies (host, libm log2): for each eigenvalue L (negative ones as
     * 0), e += log2(L * s + sigma_nn) + log2(2 pi e); the sum in double,
     * stored as float each time. */
    const double l2pie = log2_2pie();
    for (int b = 0; b < nb; b++)
        out->entropy[b] = 0.0f;
    for (int k = 0; k < SPEED_N; k++) {
        const float L = la->eig[k] < 0 ? 0.0f : la->eig[k];
        for (int b = 0; b < nb; b++) {
            const float arg = FADD(FMUL(L, out->variance[b]), c->sigma_nn);
            out->entropy[b] = (float)((double)out->entropy[b] + (ev_log2(arg) + l2pie));
        }
    }
}

/* The variance-weighted entropy pair of one block under weight mode m, each
 * a float entropy times a double log2, stored as float. */
static void weighted(int m, float re, float de, float rv, float dv, float *sr, float *sd)
{
    switch (m) {
    case 0:
        *sr = (float)(re * ev_log2(1 + rv));
        *sd = (float)(de * ev_log2(1 + dv));
        break;
    case 1:
        *sr = (float)(re * ev_log2(1 + rv));
        *sd = (float)(de * ev_log2(1 + rv));
        break;
    case 2:
        *sr = (float)(re * ev_log2(1 + dv));
        *sd = (float)(de * ev_log2(1 + dv));
        break;
    case 3:
        *sr = (float)(re * ev_log2(1 + (rv + dv) / 2.0));
        *sd = (float)(de * ev_log2(1 + (rv + dv) / 2.0));
        break;
    case 4:
        *sr = (float)(re * ev_log2(1 + rv));
        *sd = (float)(de * ev_log2(1 + (rv + dv) / 2.0));
        break;
    case 5:
        *sr = (float)(re * ev_log2(1 + rv));
        *sd = (float)(de * ev_log2(1 + (0.75 * rv + 0.25 * dv)));
        break;
    default:
        *sr = (float)(re * ev_log2(1 + rv));
        *sd = (float)(de * ev_log2(1 + (0.25 * rv + 0.75 * dv)));
        break;
    }
}

float speed_core_score(const SpeedCore *c, bool *singular)
{
    const SpeedEstimate *r = &c->ref, *d = &c->dis;
    *singular = r->singular || d->singular;
    /* One side singular: 0 rather than an inflated score. */
    if (r->singular != d->singular)
        return 0.0f;

    /* Entropy of a block at the noise floor:
     * 25 * (log2((1 + nn_floor) * sigma_nn) + log2(2 pi e)), stored as float. */
    const float base = (float)(SPEED_N * (ev_log2((double)FMUL(FADD(1.0f, c->nn_floor),
                                                             c->sigma_nn)) + log2_2pie()));
    float score = 0.0f;
    for (int b = 0; b < c->nb; b++) {
        if (r->entropy[b] < base && d->entropy[b] < base) {
            /* Both below the floor: no visible difference (adds +0). */
            score = FADD(score, 0.0f);
            continue;
        }
        float sr, sd;
        weighted(c->p.weight_var_mode, r->entropy[b], d->entropy[b], r->variance[b],
                 d->variance[b], &sr, &sd);
        score = FADD(score, fabsf(FSUB(sr, sd)));
    }
    return FDIV(score, (float)c->nb);
}
