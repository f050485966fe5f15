/*
 * Integer ADM CPU pipeline (Netflix integer_adm.c integer_compute_adm). Each
 * scale is one pass over the band rows: DWT of ref and dis, denominator,
 * decoupling and CSF of row i, then the masking of row i - 1, whose 3x3
 * thresholds need the CSF rows around it. The reference runs each stage over
 * the whole scale; the stages only meet through the rows named here, and
 * integer sums do not depend on their order, so the results are the same
 * while the working set stays in cache. This file decides which rows and
 * columns are visited and applies the reference's per-row shifts; the
 * arithmetic is in iadm_arith.h, the row kernels in iadm_kern_tmpl.c.
 *
 * Frames of 17 to 32 samples on a side: there the reference's scale-3 DWT
 * input is 3 or 4 samples, and its tap index table puts -1 at output 0
 * (dwt2_src_indices_filt). Its C code then reads one row above its input
 * buffer and one element before its row buffers: memory that, in its buffer
 * layout, holds the tail of the scale-0 CSF band csf_f.band_d (rows), and
 * its heap's chunk header or the previous row buffer (columns). The golden
 * outputs (akiyo 18x22) are those of a fresh, zeroed heap. We reproduce
 * exactly those values, from our own data, without reading outside ours:
 *   row -1 of ref = int16 pairs of csf_f.band_d row h0 - 2 (0 where the
 *                   reference never writes them), of dis = 0;
 *   lo_ref[-1] = 0, hi_ref[-1] = lo_ref[n-1], lo_dis[-1] = hi_ref[n-1],
 *   hi_dis[-1] = lo_dis[n-1] (its four row buffers are consecutive).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iadm_arith.h"
#include "iadm_cpu.h"
#include "mem.h"

#define IADM_ALIGN 64
/* Leading slack of a padded row, in elements: keeps [0] aligned. */
#define IADM_FRONT 16

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

void iadm_dsp_init(IadmDsp *d)
{
    static const IadmDsp *const dsp[EV_ISA_COUNT] = EV_SIMD_TABLE(iadm_dsp);
    *d = *dsp[ev_cpu_isa()];
}

int iadm_cpu_init(IadmCpu *c, int w, int h, int n_lim)
{
    memset(c, 0, sizeof(*c));
    c->w = w;
    c->h = h;
    if (n_lim < 1 || n_lim > IADM_MAX_GAIN_LIMITS || iadm_geometry(w, h, c->geom) < 0)
        return -EINVAL;
    c->n_lim = n_lim;
    /* The reference's row -1 at scale 3 (inputs of 3 or 4 rows). */
    c->emu = (c->geom[3].in_h + 1) / 2 == 2;
    iadm_dsp_init(&c->dsp);

    const size_t w1 = (size_t)c->geom[0].w, h1 = (size_t)c->geom[0].h;
    /* Two a planes per picture plus a few dozen rows of the frame width. */
    if ((size_t)w > SIZE_MAX / 64 / 4 || (w1 + 64) * h1 > SIZE_MAX / 16 / 4)
        return -ENOMEM;
    c->s32 = align_up(w1, IADM_ALIGN / sizeof(int32_t));

    const size_t plane = c->s32 * h1 * sizeof(int32_t);
    const size_t row = align_up(c->s32 * sizeof(int32_t), IADM_ALIGN);
    const size_t row16 = align_up(((size_t)w + IADM_FRONT + 2) * sizeof(int16_t), IADM_ALIGN);
    const size_t row32 = align_up((w1 + IADM_FRONT + 2) * sizeof(int32_t), IADM_ALIGN);
    const size_t div_sz = align_up(IADM_DIV_TABLE_SIZE * sizeof(int32_t), IADM_ALIGN);
    size_t idx_sz = 0;
    for (int s = 0; s < IADM_NUM_SCALES; s++)
        idx_sz += align_up(4 * (size_t)c->geom[s].h * sizeof(int), IADM_ALIGN);
    /* 6 band rows, 24 per gain limit and scale group, 10 of scratch. */
    const size_t rows = 6 + 48 * (size_t)n_lim + 10;
    const size_t total = 4 * plane + rows * row + 2 * row16 + 4 * row32 + div_sz + idx_sz;

    /* Zeroed, as fresh mapped pages are (the reference reads zeros where it
     * never writes, see above), without touching them here: a page is
     * cleared when first written, and the parts a frame never uses are
     * never cleared at all. */
    char *m = vmaf_mem_map(total);
    if (!m)
        return -ENOMEM;
    c->block = m;
    c->block_size = total;

#define TAKE(ptr, type, bytes) do { ptr = (type *)(void *)m; m += (bytes); } while (0)
    for (int k = 0; k < 2; k++) {
        TAKE(c->a_ref[k], int32_t, plane);
        TAKE(c->a_dis[k], int32_t, plane);
    }
    for (int b = 0; b < 3; b++) {
        TAKE(c->ref_b[b], void, row);
        TAKE(c->dis_b[b], void, row);
        for (int e = 0; e < 2 * n_lim; e++) {
            IadmLimitRows *l = e < n_lim ? &c->lim[e] : &c->lim1[e - n_lim];
            for (int k = 0; k < 2; k++) {
                TAKE(l->rst[k][b], void, row);
                TAKE(l->add[k][b], void, row);
            }
            TAKE(l->fa[b], int32_t, row);
            TAKE(l->ga[b], int32_t, row);
            TAKE(l->fr[b], int32_t, row);
            TAKE(l->gr[b], int32_t, row);
        }
    }
    TAKE(c->tmp, int32_t, 8 * row);
    TAKE(c->emu_ref, int32_t, row);
    TAKE(c->emu_dis, int32_t, row);
    TAKE(c->lo16, int16_t, row16);
    TAKE(c->hi16, int16_t, row16);
    TAKE(c->lo_ref, int32_t, row32);
    TAKE(c->hi_ref, int32_t, row32);
    TAKE(c->lo_dis, int32_t, row32);
    TAKE(c->hi_dis, int32_t, row32);
    TAKE(c->div_lookup, int32_t, div_sz);
    for (int s = 0; s < IADM_NUM_SCALES; s++)
        TAKE(c->idx_y[s], int, align_up(4 * (size_t)c->geom[s].h * sizeof(int), IADM_ALIGN));
#undef TAKE
    c->lo16 += IADM_FRONT;
    c->hi16 += IADM_FRONT;
    c->lo_ref += IADM_FRONT;
    c->hi_ref += IADM_FRONT;
    c->lo_dis += IADM_FRONT;
    c->hi_dis += IADM_FRONT;

    iadm_div_table(c->div_lookup);
    for (int s = 0; s < IADM_NUM_SCALES; s++)
        iadm_dwt_indices(c->geom[s].in_h, c->idx_y[s]);
    return 0;
}

int iadm_cpu_can_share(const IadmCpu *c)
{
    return !c->emu;
}

void iadm_cpu_close(IadmCpu *c)
{
    vmaf_mem_unmap(c->block, c->block_size);
    memset(c, 0, sizeof(*c));
}

/* The far-edge reflection of the tap indices (2n - i - 1) as padding, and
 * the near edge's -1 -> 1; the horizontal kernels then read 2j-1 .. 2j+2. */
static void pad16(int16_t *row, int n)
{
    row[-1] = row[1];
    row[n] = row[n - 1];
    row[n + 1] = row[n - 2];
}

static void pad32(int32_t *row, int n)
{
    row[-1] = row[1];
    row[n] = row[n - 1];
    row[n + 1] = row[n - 2];
}


/* Threshold rows of masking row r: the reference reads row 1 above row 0
 * and row h-1 below row h-1. */
static int row_up(int r)
{
    return r == 0 ? 1 : r - 1;
}

static int row_dn(int r, int h)
{
    return r == h - 1 ? h - 1 : r + 1;
}

static int in_rows(int i, const IadmRect *r)
{
    return i >= r->top && i < r->bottom;
}

static void cm_params(const IadmScaleGeom *g, const IadmParams *p, int s, IadmCmParams *cp)
{
    for (int b = 0; b < 3; b++) {
        cp->rf0[b] = s == 0 ? p->rf0[b] : 0;
        cp->rf123[b] = s == 0 ? 0 : p->rf123[s][b];
        cp->cub_shift[b] = g->cm_cub_shift[b];
        cp->cub_add[b] = g->cm_cub_add[b];
    }
}

/* ---- scale 0 ---------------------------------------------------------- */

/* DWT output row i of one picture: band a into `a`, h, v, d into b. */
static void dwt0_row(IadmCpu *c, const VmafPicture *pic, int i, int lo_only, int32_t *a,
                     int16_t *const b[3])
{
    const IadmScaleGeom *g = &c->geom[0];
    const int n = g->in_w, rows = g->h;
    const int *iy = c->idx_y[0];
    const int y0 = iy[i], y1 = iy[rows + i], y2 = iy[2 * rows + i], y3 = iy[3 * rows + i];
    int16_t *hi = lo_only ? NULL : c->hi16;
    if (pic->bpc == 8) {
        const uint8_t *p = pic->data[0];
        const ptrdiff_t st = pic->stride[0];
        c->dsp.dwt0_vert_8(p + y0 * st, p + y1 * st, p + y2 * st, p + y3 * st, n, c->lo16, hi);
    } else {
        const uint16_t *p = pic->data[0];
        const ptrdiff_t st = pic->stride[0] / 2;
        c->dsp.dwt0_vert_16(p + y0 * st, p + y1 * st, p + y2 * st, p + y3 * st, n,
                            (int)pic->bpc, c->lo16, hi);
    }
    pad16(c->lo16, n);
    if (lo_only) {
        c->dsp.dwt0_horiz(c->lo16, NULL, g->w, a, NULL, NULL, NULL);
    } else {
        pad16(hi, n);
        /* Band order of the reference: v = lo then hi, h = hi then lo. */
        c->dsp.dwt0_horiz(c->lo16, hi, g->w, a, b[1], b[0], b[2]);
    }
}

/* Row -1 of the reference's scale-3 ref input: its int32 view of the two
 * int16 values csf_f.band_d[h0 - 2][2j], [2j + 1] (little endian). That
 * band holds, after scale 0, the restored part's CSF (written last, by the
 * AIM pass), or without AIM the additive part's filtered CSF; 0 outside the
 * columns it writes. rd / ad: restored and additive band d of row h0 - 2. */
static void build_emu_row(IadmCpu *c, const IadmParams *p, const int16_t *rd,
                          const int16_t *ad)
{
    const IadmRect *e = &c->geom[0].ext;
    const int n = c->geom[3].in_w;
    for (int j = 0; j < n; j++) {
        uint32_t word = 0;
        for (int k = 0; k < 2; k++) {
            const int col = 2 * j + k;
            int16_t v = 0;
            if (col >= e->left && col < e->right)
                v = p->skip_aim ? iadm_s0_flt(iadm_s0_csf(ad[col], p->rf0[2], 65535, 17))
                                : iadm_s0_csf(rd[col], p->rf0[2], 65535, 17);
            word |= (uint32_t)(uint16_t)v << (16 * k);
        }
        c->emu_ref[j] = (int32_t)word;
    }
}

static void cm0_row(IadmCpu *c, const IadmParams *p, const IadmLimitRows *l, int r,
                    const IadmCmParams *cp, IadmAccum *acc)
{
    const IadmScaleGeom *g = &c->geom[0];
    const IadmRect *m = &g->cm;
    const int u = row_up(r) % 3, mid = r % 3, d = row_dn(r, g->h) % 3;
    const int16_t *xr[3] = { l->rst[r & 1][0], l->rst[r & 1][1], l->rst[r & 1][2] };
    int64_t sum[3];
    c->dsp.cm0(xr, l->fa[u], l->fa[mid], l->fa[d], l->ga[mid], m->left, m->right, g->w,
               cp, c->tmp, sum);
    for (int b = 0; b < 3; b++)
        iadm_acc_add(&acc->num[b], iadm_row_i64(sum[b], g->cm_row_add, g->cm_row_shift));
    if (p->skip_aim)
        return;
    const int16_t *xa[3] = { l->add[r & 1][0], l->add[r & 1][1], l->add[r & 1][2] };
    c->dsp.cm0(xa, l->fr[u], l->fr[mid], l->fr[d], l->gr[mid], m->left, m->right, g->w,
               cp, c->tmp, sum);
    for (int b = 0; b < 3; b++)
        iadm_acc_add(&acc->aim[b], iadm_row_i64(sum[b], g->cm_row_add, g->cm_row_shift));
}

/* ---- scales 1-3 ------------------------------------------------------- */

/* Input row y of scale s: scale 1 reads scale 0's ring of band a rows. */
static const int32_t *in_row(const IadmCpu *c, int s, const int32_t *plane,
                             const int32_t *emu, int y)
{
    if (y < 0)
        return emu;
    return plane + (size_t)(s == 1 ? y & (IADM_RING0 - 1) : y) * c->s32;
}

/* DWT output row i of scale s, ref and dis together (the reference's
 * column -1 reads cross between their row buffers). */
static void dwt_row(IadmCpu *c, int s, int i, int32_t *a_ref, int32_t *a_dis,
                    int32_t *const rb[3], int32_t *const db[3])
{
    const IadmScaleGeom *g = &c->geom[s];
    const int n = g->in_w, rows = g->h;
    const int *iy = c->idx_y[s];
    const int32_t *in_ref = c->a_ref[(s - 1) & 1], *in_dis = c->a_dis[(s - 1) & 1];
    /* adm_dwt2_s123_combined's rounding, by scale. */
    const int64_t add_v = s == 1 ? 0 : 32768;
    const int sh_v = s == 1 ? 0 : 16;
    const int64_t add_h = s == 2 ? 32768 : 16384;
    const int sh_h = s == 2 ? 16 : 15;

    const int y[4] = { iy[i], iy[rows + i], iy[2 * rows + i], iy[3 * rows + i] };
    const int32_t *rr[4], *dr[4];
    for (int k = 0; k < 4; k++) {
        rr[k] = in_row(c, s, in_ref, c->emu_ref, y[k]);
        dr[k] = in_row(c, s, in_dis, c->emu_dis, y[k]);
    }
    if (s == 1) {
        /* Scale 1's input is band a of scale 0: int16 values. */
        c->dsp.dwt1_vert(rr[0], rr[1], rr[2], rr[3], n, c->lo_ref, c->hi_ref);
        c->dsp.dwt1_vert(dr[0], dr[1], dr[2], dr[3], n, c->lo_dis, c->hi_dis);
    } else {
        c->dsp.dwt_vert(rr[0], rr[1], rr[2], rr[3], n, add_v, sh_v, c->lo_ref, c->hi_ref);
        c->dsp.dwt_vert(dr[0], dr[1], dr[2], dr[3], n, add_v, sh_v, c->lo_dis, c->hi_dis);
    }
    pad32(c->lo_ref, n);
    pad32(c->hi_ref, n);
    pad32(c->lo_dis, n);
    pad32(c->hi_dis, n);
    if ((n + 1) / 2 == 2) {
        /* Column -1 as the reference reads it (see the top of the file). */
        c->lo_ref[-1] = 0;
        c->hi_ref[-1] = c->lo_ref[n - 1];
        c->lo_dis[-1] = c->hi_ref[n - 1];
        c->hi_dis[-1] = c->lo_dis[n - 1];
    }
    c->dsp.dwt_horiz(c->lo_ref, c->hi_ref, g->w, add_h, sh_h, a_ref, rb[1], rb[0], rb[2]);
    c->dsp.dwt_horiz(c->lo_dis, c->hi_dis, g->w, add_h, sh_h, a_dis, db[1], db[0], db[2]);
}

static void cm_row(IadmCpu *c, const IadmParams *p, const IadmLimitRows *l, int s, int r,
                   const IadmCmParams *cp, IadmAccum *acc)
{
    const IadmScaleGeom *g = &c->geom[s];
    const IadmRect *m = &g->cm;
    const int u = row_up(r) % 3, mid = r % 3, d = row_dn(r, g->h) % 3;
    const int32_t *xr[3] = { l->rst[r & 1][0], l->rst[r & 1][1], l->rst[r & 1][2] };
    int64_t sum[3];
    c->dsp.cm(xr, l->fa[u], l->fa[mid], l->fa[d], l->ga[mid], m->left, m->right, g->w, cp,
              c->tmp, sum);
    for (int b = 0; b < 3; b++)
        iadm_acc_add(&acc->num[b], iadm_row_i64(sum[b], g->cm_row_add, g->cm_row_shift));
    if (p->skip_aim)
        return;
    const int32_t *xa[3] = { l->add[r & 1][0], l->add[r & 1][1], l->add[r & 1][2] };
    c->dsp.cm(xa, l->fr[u], l->fr[mid], l->fr[d], l->gr[mid], m->left, m->right, g->w, cp,
              c->tmp, sum);
    for (int b = 0; b < 3; b++)
        iadm_acc_add(&acc->aim[b], iadm_row_i64(sum[b], g->cm_row_add, g->cm_row_shift));
}

/* Scale s (1 to 3), DWT output row i, under each gain limit. Scale 1 runs
 * within scale 0's loop, so it has its own gain-limit rows. */
static IadmLimitRows *scale_lims(IadmCpu *c, int s)
{
    return s == 1 ? c->lim1 : c->lim;
}

static void scale123_row(IadmCpu *c, const IadmParams *p, const double *egl, int n_egl,
                         int s, int i, IadmAccum acc[][IADM_NUM_SCALES])
{
    const IadmScaleGeom *g = &c->geom[s];
    const IadmRect *e = &g->ext, *m = &g->cm;
    const IadmDsp *d = &c->dsp;
    int32_t *const rb[3] = { c->ref_b[0], c->ref_b[1], c->ref_b[2] };
    int32_t *const db[3] = { c->dis_b[0], c->dis_b[1], c->dis_b[2] };
    int32_t *out_ref = c->a_ref[s & 1], *out_dis = c->a_dis[s & 1];
    IadmLimitRows *lims = scale_lims(c, s);
    IadmCmParams cp;
    cm_params(g, p, s, &cp);

    dwt_row(c, s, i, out_ref + (size_t)i * c->s32, out_dis + (size_t)i * c->s32, rb, db);

    if (in_rows(i, m)) {
        uint64_t den[3];
        d->den((const int32_t *const *)rb, m->left, m->right, g->den_sq_shift,
               g->den_cub_add, g->den_cub_shift, den);
        for (int b = 0; b < 3; b++) {
            const uint64_t v = iadm_row_u64(den[b], g->den_row_add, g->den_row_shift);
            for (int k = 0; k < n_egl; k++)
                acc[k][s].den[b] += v;
        }
    }
    if (!in_rows(i, e))
        return;

    for (int k = 0; k < n_egl; k++) {
        const IadmLimitRows *l = &lims[k];
        int32_t *const r[3] = { l->rst[i & 1][0], l->rst[i & 1][1], l->rst[i & 1][2] };
        int32_t *const a[3] = { l->add[i & 1][0], l->add[i & 1][1], l->add[i & 1][2] };
        d->decouple((const int32_t *const *)rb, (const int32_t *const *)db, e->left,
                    e->right, c->div_lookup, p->cos2, egl[k], c->tmp, r, a);
        d->csf((const int32_t *const *)a, p->rf123[s], e->left, e->right, l->fa[i % 3],
               l->ga[i % 3]);
        if (!p->skip_aim)
            d->csf((const int32_t *const *)r, p->rf123[s], e->left, e->right,
                   l->fr[i % 3], l->gr[i % 3]);
        if (in_rows(i - 1, m))
            cm_row(c, p, l, s, i - 1, &cp, &acc[k][s]);
    }
}

/* The masking rows of scale s left after its last DWT row. */
static void scale123_finish(IadmCpu *c, const IadmParams *p, int n_egl, int s,
                            IadmAccum acc[][IADM_NUM_SCALES])
{
    const IadmScaleGeom *g = &c->geom[s];
    const IadmRect *e = &g->ext, *m = &g->cm;
    IadmLimitRows *lims = scale_lims(c, s);
    IadmCmParams cp;
    cm_params(g, p, s, &cp);
    for (int r = e->bottom - 1 > m->top ? e->bottom - 1 : m->top; r < m->bottom; r++)
        for (int k = 0; k < n_egl; k++)
            cm_row(c, p, &lims[k], s, r, &cp, &acc[k][s]);
}

/* The last input row that scale s's DWT output row i reads. */
static int last_input_row(const IadmCpu *c, int s, int i)
{
    const int *iy = c->idx_y[s];
    const int rows = c->geom[s].h;
    int y = iy[i];
    for (int k = 1; k < 4; k++)
        y = iy[k * rows + i] > y ? iy[k * rows + i] : y;
    return y;
}

/* Scale 0, DWT output row i, under each gain limit. */
static void scale0_row(IadmCpu *c, const IadmParams *p, const double *egl, int n_egl,
                       const VmafPicture *ref, const VmafPicture *dis, int i,
                       const IadmCmParams *cp, IadmAccum acc[][IADM_NUM_SCALES])
{
    const IadmScaleGeom *g = &c->geom[0];
    const IadmRect *e = &g->ext, *m = &g->cm;
    const IadmDsp *d = &c->dsp;
    int16_t *const rb[3] = { c->ref_b[0], c->ref_b[1], c->ref_b[2] };
    int16_t *const db[3] = { c->dis_b[0], c->dis_b[1], c->dis_b[2] };
    /* Band a, widened to int32 as the reference's i16_to_i32 does, is
     * scale 1's input. */
    const size_t slot = (size_t)(i & (IADM_RING0 - 1)) * c->s32;
    dwt0_row(c, ref, i, p->skip_scale0, c->a_ref[0] + slot, rb);
    dwt0_row(c, dis, i, p->skip_scale0, c->a_dis[0] + slot, db);
    if (p->skip_scale0)
        return;

    if (in_rows(i, m)) {
        uint64_t den[3];
        d->den0((const int16_t *const *)rb, m->left, m->right, den);
        for (int b = 0; b < 3; b++) {
            const uint64_t v = iadm_row_u64(den[b], g->den_row_add, g->den_row_shift);
            for (int k = 0; k < n_egl; k++)
                acc[k][0].den[b] += v;
        }
    }
    if (!in_rows(i, e))
        return;

    for (int k = 0; k < n_egl; k++) {
        const IadmLimitRows *l = &c->lim[k];
        int16_t *const r[3] = { l->rst[i & 1][0], l->rst[i & 1][1], l->rst[i & 1][2] };
        int16_t *const a[3] = { l->add[i & 1][0], l->add[i & 1][1], l->add[i & 1][2] };
        d->decouple0((const int16_t *const *)rb, (const int16_t *const *)db, e->left,
                     e->right, c->div_lookup, p->cos2, egl[k], c->tmp, r, a);
        d->csf0((const int16_t *const *)a, p->rf0, e->left, e->right, l->fa[i % 3],
                l->ga[i % 3]);
        if (!p->skip_aim)
            d->csf0((const int16_t *const *)r, p->rf0, e->left, e->right, l->fr[i % 3],
                    l->gr[i % 3]);
        /* Only ever one limit here (iadm_cpu_can_share). */
        if (c->emu && i == g->h - 2)
            build_emu_row(c, p, r[2], a[2]);
        if (in_rows(i - 1, m))
            cm0_row(c, p, l, i - 1, cp, &acc[k][0]);
    }
}

/*
 * Scales 0 and 1 under each gain limit: acc[e][0], acc[e][1]. Scale 1's
 * rows are computed as soon as scale 0 has produced the band a rows they
 * read, so those stay in cache (IADM_RING0 rows: each reads rows 2i - 1 to
 * 2i + 2, mirrored within the last rows at the bottom).
 */
static void scale01(IadmCpu *c, const IadmParams *p, const double *egl, int n_egl,
                    const VmafPicture *ref, const VmafPicture *dis,
                    IadmAccum acc[][IADM_NUM_SCALES])
{
    const IadmScaleGeom *g = &c->geom[0];
    const IadmRect *e = &g->ext, *m = &g->cm;
    const int h1 = c->geom[1].h;
    IadmCmParams cp;
    cm_params(g, p, 0, &cp);

    int i1 = 0;
    for (int i = 0; i < g->h; i++) {
        scale0_row(c, p, egl, n_egl, ref, dis, i, &cp, acc);
        for (; i1 < h1 && last_input_row(c, 1, i1) <= i; i1++)
            scale123_row(c, p, egl, n_egl, 1, i1, acc);
    }
    for (; i1 < h1; i1++)
        scale123_row(c, p, egl, n_egl, 1, i1, acc);
    scale123_finish(c, p, n_egl, 1, acc);
    if (p->skip_scale0)
        return;
    /* Masking rows whose next row is outside the CSF region (at most the
     * last row, when the region reaches the bottom edge). */
    for (int r = e->bottom - 1 > m->top ? e->bottom - 1 : m->top; r < m->bottom; r++)
        for (int k = 0; k < n_egl; k++)
            cm0_row(c, p, &c->lim[k], r, &cp, &acc[k][0]);
}

void iadm_cpu_frame(IadmCpu *c, const IadmParams *p, const double *egl, int n_egl,
                    const VmafPicture *ref, const VmafPicture *dis,
                    IadmAccum acc[][IADM_NUM_SCALES])
{
    memset(acc, 0, (size_t)n_egl * sizeof(*acc));
    scale01(c, p, egl, n_egl, ref, dis, acc);
    for (int s = 2; s < IADM_NUM_SCALES; s++) {
        for (int i = 0; i < c->geom[s].h; i++)
            scale123_row(c, p, egl, n_egl, s, i, acc);
        scale123_finish(c, p, n_egl, s, acc);
    }
}
