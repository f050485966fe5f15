#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "math/ev_math.h"
#include "cambi_host.h"
#include "cambi_select.h"
#include "cpu.h"
#include "log.h"

/* ---- Luminance (host libm) ---- */

/* The thresholds are computed on 10-bit limited-range luma: [64, 940]. */
#define LUMA_FOOT 64
#define LUMA_HEAD 940
#define LUMA_MAX 1023

typedef double (*Eotf)(double v);

/* ITU-R BT.1886 with a 300 cd/m2 white and 0.01 cd/m2 black, in the
 * reference's expression shapes (the constants fold identically at
 * compile time and at run time with glibc). */
static double eotf_bt1886(double v)
{
    const double gamma = 2.4, lw = 300.0, lb = 0.01;
    const double a = ev_pow(ev_pow(lw, 1.0 / gamma) - ev_pow(lb, 1.0 / gamma), gamma);
    const double b = ev_pow(lb, 1.0 / gamma) / (ev_pow(lw, 1.0 / gamma) - ev_pow(lb, 1.0 / gamma));
    const double x = v + b;
    return a * ev_pow(x > 0 ? x : 0.0, gamma);
}

/* SMPTE ST 2084 (PQ). */
static double eotf_pq(double v)
{
    const double m1 = 0.1593017578125, m2 = 78.84375;
    const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    const double num = ev_pow(v, 1.0 / m2) - c1;
    const double den = c2 - c3 * ev_pow(v, 1.0 / m2);
    return 10000 * ev_pow((num > 0 ? num : 0.0) / den, 1.0 / m1);
}

static double luminance(int sample, Eotf eotf)
{
    const int s = sample < LUMA_FOOT ? LUMA_FOOT : (sample > LUMA_HEAD ? LUMA_HEAD : sample);
    return eotf((double)(s - LUMA_FOOT) / (LUMA_HEAD - LUMA_FOOT));
}

/** Whether stepping from `sample` to `sample + diff` changes luminance visibly. */
static bool visible(int sample, int diff, double tvi, Eotf eotf)
{
    const double mean = luminance(sample, eotf);
    const double step = luminance(sample + diff, eotf);
    return step - mean > tvi * mean;
}

enum Side { BELOW, AT, ABOVE };

/* Where `sample` lies against the last sample at which diff is visible. */
static enum Side side_of(int sample, int diff, double tvi, Eotf eotf)
{
    if (!visible(sample, diff, tvi, eotf)) return ABOVE;
    if (visible(sample + 1, diff, tvi, eotf)) return BELOW;
    return AT;
}

/**
 * The largest sample at which difference `diff` is still visible, found the
 * way the reference does: the two ends first, then bisection. The bisection
 * always ends: `lo` is BELOW (visible at lo + 1) and `hi` ABOVE (invisible
 * at hi), so hi - lo >= 2 and the midpoint is strictly inside.
 */
static int tvi_for_diff(int diff, double tvi, Eotf eotf)
{
    int lo = LUMA_FOOT, hi = LUMA_HEAD - diff - 1;

    enum Side s = side_of(lo, diff, tvi, eotf);
    if (s == ABOVE) return 0;
    if (s == AT) return lo;
    s = side_of(hi, diff, tvi, eotf);
    if (s == BELOW) return LUMA_MAX;
    if (s == AT) return hi;
    for (;;) {
        const int mid = lo + (hi - lo) / 2;
        s = side_of(mid, diff, tvi, eotf);
        if (s == AT) return mid;
        if (s == ABOVE) hi = mid;
        else lo = mid;
    }
}

/* ---- Reciprocal table ---- */

/**
 * The reference multiplies by a table of reciprocals written as 9
 * significant decimal digits, not by 1.0f/n: entry n is the float nearest to
 * 1/n rounded to 9 significant digits (42 of the 4225 entries differ from
 * 1.0f/n). Built here by that rule; the decimal rounding is exact integer
 * arithmetic, and the decimal -> float step was checked against every entry
 * of the reference's table.
 */
static void reciprocal_table(float rcp[CAMBI_RCP_SIZE])
{
    rcp[0] = 0.0f;
    for (uint64_t n = 1; n < CAMBI_RCP_SIZE; n++) {
        uint64_t scale = 1;
        while (scale / n < 100000000u)
            scale *= 10;
        uint64_t q = scale / n;
        const uint64_t r2 = 2 * (scale % n);
        if (r2 > n || (r2 == n && (q & 1)))
            q++;
        rcp[n] = (float)((double)q / (double)scale);
    }
}

/* ---- Parameters ---- */

int cambi_params_init(CambiParams *p, const char *eotf_name, double tvi_threshold,
                      double vis_lum_threshold, int max_log_contrast)
{
    Eotf eotf;
    if (!strcmp(eotf_name, "bt1886")) {
        eotf = eotf_bt1886;
    } else if (!strcmp(eotf_name, "pq")) {
        eotf = eotf_pq;
    } else {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "cambi: unknown EOTF \"%s\" (bt1886 or pq)", eotf_name);
        return -EINVAL;
    }

    memset(p, 0, sizeof(*p));
    const int nd = 1 << max_log_contrast;
    p->num_diffs = nd;
    for (int d = 0; d < nd; d++) {
        p->tvi[d] = (uint16_t)(tvi_for_diff(d + 1, tvi_threshold, eotf) + nd);
        p->weight[d] = cambi_contrast_weight(d);
    }

    /* The smallest luma whose luminance reaches the floor (0 for the foot).
     * Past the head the luminance stays at the head's: a floor above it
     * would make the reference search forever. */
    int v = LUMA_FOOT;
    while (luminance(v, eotf) < vis_lum_threshold) {
        if (v > LUMA_HEAD) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "cambi: cambi_vis_lum_threshold %g is above the EOTF's peak luminance",
                     vis_lum_threshold);
            return -EINVAL;
        }
        v++;
    }
    p->vlt_luma = (uint16_t)(v == LUMA_FOOT ? 0 : v);

    /* Counts are read at v, v + d + 1 (v <= tvi[d] - nd) and v - d - 1
     * (v + nd + d + 1 > vlt): all inside [vlt - 3nd + 1, tvi[nd - 1]] when
     * no threshold exceeds the last one. The reference sizes its histograms
     * to that band; were a threshold above the last, it would read past them. */
    for (int d = 0; d < nd; d++) {
        if (p->tvi[d] > p->tvi[nd - 1]) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "cambi: tvi_threshold %g gives a visibility threshold for luma "
                     "difference %d above the one for %d, which the reference cannot handle",
                     tvi_threshold, d + 1, nd);
            return -EINVAL;
        }
    }
    const int lo = (int)p->vlt_luma - 3 * nd + 1;
    p->band_lo = lo > 0 ? lo : 0;
    p->band_hi = p->tvi[nd - 1];
    /* A floor above every threshold leaves nothing visible: every c-value,
     * so every score, is 0. The reference's band size then wraps around
     * (uint16) and its sliding histogram update writes outside the buffer,
     * which crashes it on most content; where it survives it returns 0. */
    if (p->band_hi + 1 < p->band_lo)
        vmaf_log(VMAF_LOG_LEVEL_WARNING,
                 "cambi: with cambi_vis_lum_threshold %g no luma difference is visible at "
                 "any level, every score is 0 (Netflix libvmaf v3.2.0 writes outside its "
                 "buffers with this setting and usually crashes)", vis_lum_threshold);

    for (int u = 0; u <= 1024; u++) {
        uint32_t bits = 0;
        for (int d = 0; d < nd; d++)
            if (cambi_diff_active((unsigned)(u + nd), d, p->tvi[d], p->vlt_luma))
                bits |= 1u << d;
        p->active[u] = bits;
    }
    reciprocal_table(p->rcp);
    return 0;
}

/* ---- Conclusion ---- */

/**
 * The reference's quickselect, step for step: Hoare partitions around the
 * value at index k, narrowing to the side that holds k. The order it leaves
 * the top k in is the order they are summed in, so every swap matters.
 *
 * One partition pass pairs the "left stoppers" (from the left, values <=
 * pivot) with the "right stoppers" (from the right, values >= pivot) and
 * swaps each pair, until the two cross. Until they cross, the stoppers are
 * those of the values the pass started with: a pass only swaps positions
 * its scans have passed. So the stoppers are collected branch-free, a block
 * at a time, and paired. At the crossing, the scans would also stop at the
 * last swapped positions (which now hold stoppers): the final i and j are
 * clamped to them, as the scans' own stops would be.
 */
#define SELECT_BLOCK 256

typedef struct StopperScan {
    int buf[SELECT_BLOCK + CAMBI_STOPPER_SLACK];
    int n, t;          /**< entries in buf, next entry to use */
    int next;          /**< next position to scan */
    int end;           /**< scanning stops here (inclusive) */
    CambiStopperScan scan;
} StopperScan;

/* Refill with the left stoppers of the next block; 0 when none is left. */
static int refill_left(StopperScan *s, const float *a, float pivot)
{
    while (s->t == s->n) {
        if (s->next > s->end) return 0;
        const int stop = s->next + SELECT_BLOCK - 1 < s->end ? s->next + SELECT_BLOCK - 1 : s->end;
        s->n = s->scan(a, s->next, stop, pivot, s->buf);
        s->t = 0;
        s->next = stop + 1;
    }
    return 1;
}

/* Refill with the right stoppers of the next block; 0 when none is left. */
static int refill_right(StopperScan *s, const float *a, float pivot)
{
    while (s->t == s->n) {
        if (s->next < s->end) return 0;
        const int stop = s->next - SELECT_BLOCK + 1 > s->end ? s->next - SELECT_BLOCK + 1 : s->end;
        s->n = s->scan(a, s->next, stop, pivot, s->buf);
        s->t = 0;
        s->next = stop - 1;
    }
    return 1;
}

/*
 * One partition pass over [lo, hi]; returns the final i and j. While the
 * next stoppers have not crossed, they are the reference's stops and are
 * swapped. Once they cross, the reference's scans stop at the first of the
 * next stopper and the last swapped position, and do not swap.
 */
static void partition(float *a, int lo, int hi, float pivot, int *pi, int *pj,
                      StopperScan *ls, StopperScan *rs)
{
    ls->n = ls->t = 0;
    ls->next = lo;
    ls->end = hi;
    rs->n = rs->t = 0;
    rs->next = hi;
    rs->end = lo;
    int last_i = INT_MIN, last_j = INT_MAX;   /* the last swapped pair */
    for (;;) {
        const int have_l = refill_left(ls, a, pivot), have_r = refill_right(rs, a, pivot);
        if (!have_l || !have_r) {
            /* No stopper left on a side: that scan stops at the last swap. */
            const int i = have_l ? ls->buf[ls->t] : INT_MAX;
            const int j = have_r ? rs->buf[rs->t] : INT_MIN;
            *pi = i < last_j ? i : last_j;
            *pj = j > last_i ? j : last_i;
            return;
        }
        const int m = ls->n - ls->t < rs->n - rs->t ? ls->n - ls->t : rs->n - rs->t;
        const int *lb = ls->buf + ls->t, *rb = rs->buf + rs->t;
        for (int q = 0; q < m; q++) {
            const int i = lb[q], j = rb[q];
            if (i > j) {
                *pi = i < last_j ? i : last_j;
                *pj = j > last_i ? j : last_i;
                return;
            }
            const float t = a[i];
            a[i] = a[j];
            a[j] = t;
            if (j - i < 2) {
                *pi = i + 1;
                *pj = j - 1;
                return;
            }
            last_i = i;
            last_j = j;
        }
        ls->t += m;
        rs->t += m;
    }
}

/* Ranges this short are partitioned the reference's own way. */
#define SELECT_SHORT 64

void cambi_select_top(float *a, int n, int k)
{
    if (n == k) return;
    StopperScan ls, rs;
    static const CambiStopperScans *const scans[EV_ISA_COUNT] = EV_SIMD_TABLE(cambi_stoppers);
    const CambiStopperScans *sc = scans[ev_cpu_isa()];
    ls.scan = sc->left;
    rs.scan = sc->right;
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const float pivot = a[k];
        int i = lo, j = hi;
        if (hi - lo >= SELECT_SHORT) {
            partition(a, lo, hi, pivot, &i, &j, &ls, &rs);
        } else {
            do {
                while (a[i] > pivot) i++;
                while (a[j] < pivot) j--;
                if (i <= j) {
                    const float t = a[i];
                    a[i] = a[j];
                    a[j] = t;
                    i++;
                    j--;
                }
            } while (i <= j);
        }
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
}

double cambi_pool_scale(float *c, int n, double topk)
{
    const int k = cambi_topk_count(topk, n);
    cambi_select_top(c, n, k);
    /* Adding +0 leaves the running sum (>= +0) unchanged: the zeros, most
     * of the c-values, are skipped. */
    double sum = 0.0;
    for (int i = 0; i < k; i++)
        if (c[i] != 0.0f)
            sum = cambi_sum_step(sum, c[i]);
    return cambi_topk_mean(sum, k);
}

bool cambi_pool_exact(const CambiPoolStats *st, int n, double topk, double *mean)
{
    const int k = cambi_topk_count(topk, n);
    /* Unit counts are below 2^38 (cambi_arith.h): the sum of up to 2^25 of
     * them stays below 2^63. */
    if (st->small || st->nonzero > k || n > (1 << 25)) return false;
    if (st->units) {
        const uint32_t tz = cambi_pool_tz(st->bits);
        /* Every partial sum is a multiple of 2^tz units, at most the total. */
        if (st->units >> tz >= (uint64_t)1 << 53) return false;
    }
    *mean = cambi_topk_mean(ldexp((double)st->units, -24), k);
    return true;
}

double cambi_conclude(const double scale_scores[CAMBI_NUM_SCALES], unsigned window)
{
    double acc = 0.0;
    for (int s = 0; s < CAMBI_NUM_SCALES; s++)
        acc = cambi_weight_step(acc, scale_scores[s], s);
    return cambi_normalise(acc, window);
}
