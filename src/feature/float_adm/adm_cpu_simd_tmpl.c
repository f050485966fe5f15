/*
 * float_adm's loops (adm_cpu.c), built once per instruction set
 * (src/simd.h). Element loops keep every output element's own operation
 * sequence and the running sums are scalar loops over finished term rows,
 * so only the vector width differs between builds, never an operation or
 * the order of a sum (the build forbids contraction and reassociation).
 */
#include <stddef.h>
#include <stdint.h>

#include "math/ev_math.h"
#include "adm_arith.h"
#include "adm_cpu.h"
#include "adm_rcp.h"
#include "simd.h"

/*
 * Source index of a DWT tap (dwt2_src_indices_filt_s): -1 reflects to 1
 * (whole-sample), and n >= size reflects half-sample, to 2 * size - n - 1.
 */
static int dwt_mirror(int n, int size)
{
    if (n < 0)
        return -n;
    return n >= size ? 2 * size - n - 1 : n;
}
/* ---- DWT (adm_dwt2_s / adm_dwt2_lo_s) ---------------------------------- */

static void dwt_vertical(const float *s0, const float *s1, const float *s2,
                         const float *s3, int w, float *restrict lo,
                         float *restrict hi)
{
    for (int j = 0; j < w; j++)
        lo[j] = adm_dwt_lo(s0[j], s1[j], s2[j], s3[j]);
    if (!hi)
        return;
    for (int j = 0; j < w; j++)
        hi[j] = adm_dwt_hi(s0[j], s1[j], s2[j], s3[j]);
}

/* Column mirror as values: row[-1] = row[1], row[w] = row[w-1],
 * row[w+1] = row[w-2]; the horizontal taps 2j-1 .. 2j+2 then never leave it. */
static void dwt_pad(float *row, int w)
{
    row[-1] = row[1];
    row[w] = row[w - 1];
    row[w + 1] = row[w - 2];
}

static void dwt_horizontal(const float *restrict lo, const float *restrict hi,
                           int ow, float *restrict a, float *restrict v,
                           float *restrict hb, float *restrict d)
{
    for (int j = 0; j < ow; j++) {
        const float *l = lo + 2 * j - 1;
        a[j] = adm_dwt_lo(l[0], l[1], l[2], l[3]);
        v[j] = adm_dwt_hi(l[0], l[1], l[2], l[3]);
    }
    for (int j = 0; j < ow; j++) {
        const float *q = hi + 2 * j - 1;
        hb[j] = adm_dwt_lo(q[0], q[1], q[2], q[3]);
        d[j] = adm_dwt_hi(q[0], q[1], q[2], q[3]);
    }
}

static void dwt_horizontal_lo(const float *restrict lo, int ow, float *restrict a)
{
    for (int j = 0; j < ow; j++) {
        const float *l = lo + 2 * j - 1;
        a[j] = adm_dwt_lo(l[0], l[1], l[2], l[3]);
    }
}

/*
 * One db2 analysis step of a w x h input into (w+1)/2 x (h+1)/2 bands. `b`
 * is {h, v, d} or NULL for band_a only. src may be `a` itself (the next
 * scale's input is this scale's band_a): output row i is written after its
 * four source rows have been read, and no later output row reads a source
 * row < i + 1, so the in-place update reads only unmodified samples.
 */
static void dwt_scale(AdmCpu *c, const float *src, size_t sstride, int w, int h,
                      float *a, float *const b[3])
{
    const int ow = (w + 1) / 2, oh = (h + 1) / 2;
    const size_t ds = c->band_stride;
    float *lo = c->row_lo, *hi = b ? c->row_hi : NULL;

    for (int i = 0; i < oh; i++) {
        const float *s0 = src + (size_t)dwt_mirror(2 * i - 1, h) * sstride;
        const float *s1 = src + (size_t)dwt_mirror(2 * i, h) * sstride;
        const float *s2 = src + (size_t)dwt_mirror(2 * i + 1, h) * sstride;
        const float *s3 = src + (size_t)dwt_mirror(2 * i + 2, h) * sstride;
        dwt_vertical(s0, s1, s2, s3, w, lo, hi);
        dwt_pad(lo, w);
        if (!b) {
            dwt_horizontal_lo(lo, ow, a + i * ds);
            continue;
        }
        dwt_pad(hi, w);
        dwt_horizontal(lo, hi, ow, a + i * ds, b[ADM_BAND_V] + i * ds,
                       b[ADM_BAND_H] + i * ds, b[ADM_BAND_D] + i * ds);
    }
}

/* ---- Decouple and CSF (adm_decouple_s, adm_csf_s) ---------------------- */

static inline float gain_ratio(float t, float o, int rcp)
{
#if ADM_HAVE_RCPSS
    if (rcp) {
        const float d = adm_ratio_denominator(o);
        return adm_ratio_rcp(t, d, adm_rcpss(d));
    }
#endif
    return adm_ratio_ieee(t, o);
}

static inline void decouple_row(const float *restrict oh, const float *restrict ov,
                                const float *restrict od, const float *restrict th,
                                const float *restrict tv, const float *restrict td,
                                int l, int r, double egl, int rcp,
                                float *restrict rh, float *restrict rv,
                                float *restrict rd, float *restrict ah,
                                float *restrict av, float *restrict ad)
{
    for (int j = l; j < r; j++) {
        const float o_h = oh[j], o_v = ov[j], o_d = od[j];
        const float t_h = th[j], t_v = tv[j], t_d = td[j];
        const float k_h = adm_clamp01(gain_ratio(t_h, o_h, rcp));
        const float k_v = adm_clamp01(gain_ratio(t_v, o_v, rcp));
        const float k_d = adm_clamp01(gain_ratio(t_d, o_d, rcp));
        const int flag = adm_angle_flag(o_h, o_v, t_h, t_v);
        const float r_h = adm_restore(k_h, o_h, t_h, flag, egl);
        const float r_v = adm_restore(k_v, o_v, t_v, flag, egl);
        const float r_d = adm_restore(k_d, o_d, t_d, flag, egl);
        rh[j] = r_h;
        rv[j] = r_v;
        rd[j] = r_d;
        ah[j] = adm_additive(t_h, r_h);
        av[j] = adm_additive(t_v, r_v);
        ad[j] = adm_additive(t_d, r_d);
    }
}

static void csf_flt_row(const float *restrict x, float rf, int l, int r,
                        float *restrict flt)
{
    for (int j = l; j < r; j++)
        flt[j] = adm_csf_flt(adm_csf(rf, x[j]));
}

static void decouple_scale(AdmCpu *c, const AdmScaleGeom *g, const float rf[3],
                           double egl, int rcp)
{
    const size_t bs = c->band_stride;
    const AdmRect *dec = &g->dec;
    for (int i = dec->t; i < dec->b; i++) {
        const size_t o = (size_t)i * bs;
        if (rcp)
            decouple_row(c->ref_b[0] + o, c->ref_b[1] + o, c->ref_b[2] + o,
                         c->dis_b[0] + o, c->dis_b[1] + o, c->dis_b[2] + o,
                         dec->l, dec->r, egl, 1,
                         c->rst[0] + o, c->rst[1] + o, c->rst[2] + o,
                         c->add[0] + o, c->add[1] + o, c->add[2] + o);
        else
            decouple_row(c->ref_b[0] + o, c->ref_b[1] + o, c->ref_b[2] + o,
                         c->dis_b[0] + o, c->dis_b[1] + o, c->dis_b[2] + o,
                         dec->l, dec->r, egl, 0,
                         c->rst[0] + o, c->rst[1] + o, c->rst[2] + o,
                         c->add[0] + o, c->add[1] + o, c->add[2] + o);
        for (int b = 0; b < 3; b++) {
            csf_flt_row(c->add[b] + o, rf[b], dec->l, dec->r, c->flt_add[b] + o);
            csf_flt_row(c->rst[b] + o, rf[b], dec->l, dec->r, c->flt_rst[b] + o);
        }
    }
}

/* ---- Sums (adm_csf_den_scale_s, adm_cm_s) ------------------------------ */

/*
 * The reference's per-row partials, one per band: +0, then each term left
 * to right; then each partial is added to its band's running total. The
 * three independent chains share one loop so that their latencies overlap.
 */
static void add_row_sums(float *const t[3], int l, int r, float acc[3])
{
    const float *t0 = t[0], *t1 = t[1], *t2 = t[2];
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f;
    for (int j = l; j < r; j++) {
        s0 = FADD(s0, t0[j]);
        s1 = FADD(s1, t1[j]);
        s2 = FADD(s2, t2[j]);
    }
    acc[0] = FADD(acc[0], s0);
    acc[1] = FADD(acc[1], s1);
    acc[2] = FADD(acc[2], s2);
}

static void den_terms(const float *restrict o, float rf, int l, int r, int cube,
                      float pf, float *restrict t)
{
    if (cube) {
        for (int j = l; j < r; j++)
            t[j] = adm_cube(adm_den_value(rf, o[j]));
    } else {
        for (int j = l; j < r; j++)
            t[j] = ev_powf(adm_den_value(rf, o[j]), pf);
    }
}

static float thr_at(const float *u, const float *m, const float *d, const float *x,
                    float rf, int jl, int j, int jr)
{
    return adm_cm_band_sum(u[jl], u[j], u[jr], m[jl], adm_csf(rf, x[j]), m[jr],
                           d[jl], d[j], d[jr]);
}

static void thr_interior(const float *restrict u, const float *restrict m,
                         const float *restrict d, const float *restrict x,
                         float rf, int l, int r, float *restrict thr)
{
    for (int j = l; j < r; j++)
        thr[j] = FADD(thr[j], adm_cm_band_sum(u[j - 1], u[j], u[j + 1], m[j - 1],
                                              adm_csf(rf, x[j]), m[j + 1],
                                              d[j - 1], d[j], d[j + 1]));
}

/*
 * Masking threshold of row i over the cm region: one value per sample, the
 * fp32 sum over bands h, v, d (from +0) of each band's 3x3 sum (ADM_CM_THRESH_S_*).
 * `flt` are the filtered CSF bands of the other signal, `x` its raw bands
 * (the centre's unfiltered CSF is recomputed from them). Outside the band the
 * reference reads row/column 1 above/left and repeats the last one below/right.
 */
static void cm_threshold_row(const AdmCpu *c, const AdmScaleGeom *g, int i,
                             float *const flt[3], float *const x[3],
                             const float rf[3], float *thr)
{
    const size_t bs = c->band_stride;
    const int w = g->w, h = g->h, l = g->cm.l, r = g->cm.r;
    const int iu = i == 0 ? 1 : i - 1;
    const int id = i == h - 1 ? h - 1 : i + 1;
    const int j0 = l > 1 ? l : 1;
    const int j1 = r < w - 1 ? r : w - 1;

    for (int j = l; j < r; j++)
        thr[j] = 0.0f;
    for (int b = 0; b < 3; b++) {
        const float *fu = flt[b] + (size_t)iu * bs;
        const float *fm = flt[b] + (size_t)i * bs;
        const float *fd = flt[b] + (size_t)id * bs;
        const float *xm = x[b] + (size_t)i * bs;
        if (l == 0)
            thr[0] = FADD(thr[0], thr_at(fu, fm, fd, xm, rf[b], 1, 0, 1));
        thr_interior(fu, fm, fd, xm, rf[b], j0, j1, thr);
        if (r == w)
            thr[w - 1] = FADD(thr[w - 1],
                              thr_at(fu, fm, fd, xm, rf[b], w - 2, w - 1, w - 1));
    }
}

static void cm_terms(const float *restrict src, float rf, const float *restrict thr,
                     int l, int r, int cube, float pf, float *restrict t)
{
    if (cube) {
        for (int j = l; j < r; j++)
            t[j] = adm_cube(adm_cm_masked(src[j], rf, thr[j]));
    } else {
        for (int j = l; j < r; j++)
            t[j] = ev_powf(adm_cm_masked(src[j], rf, thr[j]), pf);
    }
}

/*
 * adm_cm_s: sum over the cm region of max(|src * rf| - thr, 0)^p per band,
 * the threshold coming from the other signal's CSF.
 */
static void cm_scale(AdmCpu *c, const AdmScaleGeom *g, float *const src[3],
                     float *const flt[3], float *const other[3], const float rf[3],
                     int bypass, int cube, float pf, float acc[3])
{
    const size_t bs = c->band_stride;
    const AdmRect *cm = &g->cm;
    float *thr = c->thr;

    if (bypass) {
        for (int j = cm->l; j < cm->r; j++)
            thr[j] = 0.0f;
    }
    acc[0] = acc[1] = acc[2] = 0.0f;
    for (int i = cm->t; i < cm->b; i++) {
        if (!bypass)
            cm_threshold_row(c, g, i, flt, other, rf, thr);
        for (int b = 0; b < 3; b++)
            cm_terms(src[b] + (size_t)i * bs, rf[b], thr, cm->l, cm->r, cube, pf,
                     c->term[b]);
        add_row_sums(c->term, cm->l, cm->r, acc);
    }
}

static void den_scale(AdmCpu *c, const AdmScaleGeom *g, const float rf[3],
                      int cube, float pf, float acc[3])
{
    const size_t bs = c->band_stride;
    const AdmRect *cm = &g->cm;
    acc[0] = acc[1] = acc[2] = 0.0f;
    for (int i = cm->t; i < cm->b; i++) {
        for (int b = 0; b < 3; b++)
            den_terms(c->ref_b[b] + (size_t)i * bs, rf[b], cm->l, cm->r, cube, pf,
                      c->term[b]);
        add_row_sums(c->term, cm->l, cm->r, acc);
    }
}

static void scales(AdmCpu *c, const AdmCpuParams *p, AdmScaleAccum acc[ADM_NUM_SCALES])
{
    const int cube = p->p_norm == 3.0;
    /* powf(x, adm_p_norm) takes the double option converted to float. */
    const float pf = (float)p->p_norm;
    const int rcp = ADM_HAVE_RCPSS && p->rcp_division;

    const float *src_ref = c->ref, *src_dis = c->dis;
    size_t sstride = c->frame_stride;

    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        const AdmScaleGeom *g = &c->geom[s];
        const float *rf = p->rfactor[s];

        if (s == 0 && p->skip_scale0) {
            dwt_scale(c, src_ref, sstride, g->in_w, g->in_h, c->ref_a, NULL);
            dwt_scale(c, src_dis, sstride, g->in_w, g->in_h, c->dis_a, NULL);
            memset(&acc[s], 0, sizeof(acc[s]));
        } else {
            dwt_scale(c, src_ref, sstride, g->in_w, g->in_h, c->ref_a, c->ref_b);
            dwt_scale(c, src_dis, sstride, g->in_w, g->in_h, c->dis_a, c->dis_b);
            decouple_scale(c, g, rf, p->enhn_gain_limit, rcp);
            den_scale(c, g, rf, cube, pf, acc[s].den);
            /* DLM: the restored signal, masked by the additive one's CSF. */
            cm_scale(c, g, c->rst, c->flt_add, c->add, rf, p->bypass_cm, cube, pf,
                     acc[s].num);
            /* AIM: the additive signal, masked by the restored one's CSF. */
            cm_scale(c, g, c->add, c->flt_rst, c->rst, rf, p->bypass_cm, cube, pf,
                     acc[s].aim);
        }
        src_ref = c->ref_a;
        src_dis = c->dis_a;
        sstride = c->band_stride;
    }
}

const AdmScalesFn EV_SIMD_NAME(adm_cpu_scales) = scales;
