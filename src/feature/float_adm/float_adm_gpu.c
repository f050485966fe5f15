/*
 * float_adm's GPU twin (CUDA and OpenCL kernels): host side, in the GPU
 * frame pipeline. The device runs the per-sample arithmetic of adm_arith.h
 * (float_adm_kernels.h) and one thread per row sums each row; here the rows are added top to bottom in fp32 and adm_conclude() - the
 * CPU's own - turns the accumulators into scores.
 *
 * adm_p_norm other than 3: the device leaves the terms unraised, the host
 * raises them with its powf and sums them, so the libm is the CPU's.
 * rcp division: the device reads this processor's RCPSS estimate from the
 * probed table (adm_rcp_model.h); when the model does not hold it uses the
 * IEEE reciprocal plus the Newton step, and says that the scores are then
 * close to, not equal to, the CPU's.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "math/ev_math.h"
#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "adm_csf.h"
#include "adm_pool.h"
#include "adm_rcp_model.h"
#include "float_adm_state.h"

VMAF_GPU_PROGRAM_DECLARE(float_adm);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(float_adm);

/* Division modes (float_adm_kernels.h). */
enum { ADM_DIV_IEEE = 0, ADM_DIV_TABLE = 1, ADM_DIV_RCP_IEEE = 2 };
enum { ADM_SLOTS = 9 };

typedef struct AdmGpu {
    int w, h;
    bool debug, bypass, skip0, cube;
    float pf;
    double egl;
    int mode;
    const uint32_t *rcp_table;  /**< the probed RCPSS table (ADM_DIV_TABLE) */
    float rf[ADM_NUM_SCALES][3];
    AdmScaleGeom geom[ADM_NUM_SCALES];
    AdmPoolParams pool;

    int bp;                 /**< floats per band row */
    long long ps;           /**< floats per band plane */
    /* Terms of each scale: tp floats per row, tps per plane, from term_off. */
    int tp[ADM_NUM_SCALES];
    long long tps[ADM_NUM_SCALES];
    size_t term_off[ADM_NUM_SCALES], n_terms;
    size_t row_off[ADM_NUM_SCALES], n_rows;
} AdmGpu;

/** One frame in flight. */
typedef struct AdmLane {
    VmafGpuPtr a[2][2];    /**< band a, [scale parity][ref, dis] */
    VmafGpuPtr band[2];    /**< h, v, d of [ref, dis] */
    VmafGpuPtr rst, add, flt_rst, flt_add, terms, rows, table;
    float *h_rows;          /**< pinned: every scale's row sums (p = 3) */
    float *h_terms;         /**< pinned: every scale's terms (p != 3 only) */
    VmafGpuKernel *k_dwt, *k_decouple, *k_terms, *k_rows;
} AdmLane;

/* What the CPU path's init derived from the options (float_adm.c init()). */
static void from_state(const AdmState *s, AdmGpu *g)
{
    g->debug = s->debug;
    g->egl = s->cpu_params.enhn_gain_limit;
    memcpy(g->rf, s->cpu_params.rfactor, sizeof(g->rf));
    g->bypass = s->cpu_params.bypass_cm;
    g->skip0 = s->cpu_params.skip_scale0;
    g->pool = s->pool_params;
    /* As adm_cpu_scales: the cube when p is 3, else powf with (float)p. */
    g->cube = s->cpu_params.p_norm == 3.0;
    g->pf = (float)s->cpu_params.p_norm;
}

static int setup_division(VmafFex *fex, AdmGpu *g)
{
    g->mode = ADM_DIV_IEEE;
    if (fex->env.division != EXACTVMAF_DIVISION_RCP)
        return 0;
    const int proven = adm_rcp_model_probe(&g->rcp_table);
    if (proven < 0)
        return proven;  /* the CPU path's init has refused rcp already */
    if (!proven) {
        vmaf_log(VMAF_LOG_LEVEL_WARNING,
                 "float_adm (gpu): this processor's RCPSS estimate does not follow the "
                 "table model; dividing by the IEEE reciprocal plus one Newton step, so "
                 "the scores are close to, not equal to, the CPU's");
        g->mode = ADM_DIV_RCP_IEEE;
        return 0;
    }
    g->mode = ADM_DIV_TABLE;
    return 0;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    AdmGpu *g = fex->twin_priv;
    g->w = (int)w;
    g->h = (int)h;
    adm_geometry(g->w, g->h, g->geom);
    from_state(fex->priv, g);
    const int err = setup_division(fex, g);
    if (err) return err;
    const AdmScaleGeom *g0 = &g->geom[0];
    g->bp = (int)vmaf_gpu_pitch_floats((unsigned)g0->w);
    g->ps = (long long)g->bp * g0->h;
    /* p = 3 sums rows on the device, so one scale's terms at a time; else
     * every scale's terms come back for the host's powf. */
    g->n_rows = g->n_terms = 0;
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        const AdmRect *c = &g->geom[g->cube ? 0 : s].cm;
        const int cw = c->r - c->l, ch = c->b - c->t;
        g->tp[s] = (int)vmaf_gpu_pitch_floats((unsigned)cw);
        g->tps[s] = (long long)g->tp[s] * ch;
        g->term_off[s] = g->cube ? 0 : g->n_terms;
        if (!g->cube || s == 0) g->n_terms += ADM_SLOTS * (size_t)g->tps[s];
        g->row_off[s] = g->n_rows;
        g->n_rows += (size_t)ADM_SLOTS * (size_t)(g->geom[s].cm.b - g->geom[s].cm.t);
    }
    (void)pix_fmt, (void)bpc;
    return vmaf_gpu_use_float(needs, 3, 0, -128.0f);
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const AdmGpu *g = fex->twin_priv;
    AdmLane *q = lp;
    const size_t plane = (size_t)g->ps * sizeof(float);
    int err = 0;
    for (int p = 0; p < 2 && !err; p++) {
        err = vmaf_gpu_alloc(l, &q->a[p][0], plane);
        if (!err) err = vmaf_gpu_alloc(l, &q->a[p][1], plane);
        if (!err) err = vmaf_gpu_alloc(l, &q->band[p], 3 * plane);
    }
    if (!err) err = vmaf_gpu_alloc(l, &q->rst, 3 * plane);
    if (!err) err = vmaf_gpu_alloc(l, &q->add, 3 * plane);
    if (!err) err = vmaf_gpu_alloc(l, &q->flt_rst, 3 * plane);
    if (!err) err = vmaf_gpu_alloc(l, &q->flt_add, 3 * plane);
    if (!err) err = vmaf_gpu_alloc(l, &q->terms, g->n_terms * sizeof(float));
    if (!err && g->cube) err = vmaf_gpu_alloc(l, &q->rows, g->n_rows * sizeof(float));
    if (!err && g->cube)
        err = vmaf_gpu_alloc_host(l, (void **)&q->h_rows, g->n_rows * sizeof(float));
    if (!err && !g->cube)
        err = vmaf_gpu_alloc_host(l, (void **)&q->h_terms, g->n_terms * sizeof(float));
    if (!err && g->mode == ADM_DIV_TABLE)
        err = vmaf_gpu_const(l, &q->table, g->rcp_table, ADM_RCP_TABLE_SIZE * sizeof(uint32_t));
    const VmafGpuProgram *fb = &program;
    if (!err) err = vmaf_gpu_kernel(l, fb, "adm_dwt", &q->k_dwt);
    if (!err) err = vmaf_gpu_kernel(l, fb, "adm_decouple", &q->k_decouple);
    if (!err) err = vmaf_gpu_kernel(l, fb, "adm_terms", &q->k_terms);
    if (!err) err = vmaf_gpu_kernel(l, fb, "adm_row_sums", &q->k_rows);
    return err;
}

/* Queue one scale: DWT, decouple, terms, row sums. src is the scale's input. */
static int queue_scale(const AdmGpu *g, VmafGpuLane *l, AdmLane *q, int s,
                       VmafGpuPtr src_ref, VmafGpuPtr src_dis, int sp)
{
    const AdmScaleGeom *geo = &g->geom[s];
    int full = !(s == 0 && g->skip0);
    int in_w = geo->in_w, in_h = geo->in_h, bp = g->bp;
    long long ps = g->ps;
    VmafGpuPtr a_ref = q->a[s & 1][0], a_dis = q->a[s & 1][1];
    VmafGpuPtr b_ref = q->band[0], b_dis = q->band[1];
    VmafGpuArg dwt_args[] = { VMAF_GPU_ARG(src_ref), VMAF_GPU_ARG(src_dis), VMAF_GPU_ARG(sp),
                              VMAF_GPU_ARG(in_w), VMAF_GPU_ARG(in_h), VMAF_GPU_ARG(a_ref),
                              VMAF_GPU_ARG(a_dis), VMAF_GPU_ARG(b_ref), VMAF_GPU_ARG(b_dis),
                              VMAF_GPU_ARG(bp), VMAF_GPU_ARG(ps), VMAF_GPU_ARG(full) };
    int err = vmaf_gpu_launch(l, q->k_dwt, (unsigned)geo->w, (unsigned)geo->h, 2, 32, 8,
                              dwt_args);
    if (err || !full) return err;

    AdmRect d = geo->dec;
    float rf0 = g->rf[s][0], rf1 = g->rf[s][1], rf2 = g->rf[s][2];
    double egl = g->egl;
    int mode = g->mode;
    VmafGpuArg dec_args[] = { VMAF_GPU_ARG(b_ref), VMAF_GPU_ARG(b_dis), VMAF_GPU_ARG(bp),
                              VMAF_GPU_ARG(ps), VMAF_GPU_ARG(d.l), VMAF_GPU_ARG(d.t),
                              VMAF_GPU_ARG(d.r), VMAF_GPU_ARG(d.b), VMAF_GPU_ARG(rf0),
                              VMAF_GPU_ARG(rf1), VMAF_GPU_ARG(rf2), VMAF_GPU_ARG(egl),
                              VMAF_GPU_ARG(mode), VMAF_GPU_ARG(q->table), VMAF_GPU_ARG(q->rst),
                              VMAF_GPU_ARG(q->add), VMAF_GPU_ARG(q->flt_rst),
                              VMAF_GPU_ARG(q->flt_add) };
    err = vmaf_gpu_launch(l, q->k_decouple, (unsigned)(d.r - d.l), (unsigned)(d.b - d.t), 1,
                          32, 8, dec_args);
    if (err) return err;

    AdmRect c = geo->cm;
    int bw = geo->w, bh = geo->h, bypass = g->bypass, cube = g->cube, tp = g->tp[s];
    long long tps = g->tps[s];
    VmafGpuPtr terms = vmaf_gpu_at(q->terms, g->term_off[s] * sizeof(float));
    VmafGpuArg term_args[] = { VMAF_GPU_ARG(b_ref), VMAF_GPU_ARG(q->rst), VMAF_GPU_ARG(q->add),
                               VMAF_GPU_ARG(q->flt_rst), VMAF_GPU_ARG(q->flt_add),
                               VMAF_GPU_ARG(bp), VMAF_GPU_ARG(ps), VMAF_GPU_ARG(bw),
                               VMAF_GPU_ARG(bh), VMAF_GPU_ARG(c.l), VMAF_GPU_ARG(c.t),
                               VMAF_GPU_ARG(c.r), VMAF_GPU_ARG(c.b), VMAF_GPU_ARG(rf0),
                               VMAF_GPU_ARG(rf1), VMAF_GPU_ARG(rf2), VMAF_GPU_ARG(bypass),
                               VMAF_GPU_ARG(cube), VMAF_GPU_ARG(terms), VMAF_GPU_ARG(tp),
                               VMAF_GPU_ARG(tps) };
    int cw = c.r - c.l, ch = c.b - c.t;
    err = vmaf_gpu_launch(l, q->k_terms, (unsigned)cw, (unsigned)ch, 1, 32, 8, term_args);
    if (err || !g->cube) return err;

    VmafGpuPtr rows = vmaf_gpu_at(q->rows, g->row_off[s] * sizeof(float));
    VmafGpuArg row_args[] = { VMAF_GPU_ARG(terms), VMAF_GPU_ARG(tp), VMAF_GPU_ARG(tps),
                              VMAF_GPU_ARG(cw), VMAF_GPU_ARG(ch), VMAF_GPU_ARG(rows) };
    return vmaf_gpu_launch(l, q->k_rows, RS_THREADS(ch), 1, ADM_SLOTS, RS_BLOCK, 1, row_args);
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const AdmGpu *g = fex->twin_priv;
    AdmLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr src_ref, src_dis;
    size_t pitch;
    int err = vmaf_gpu_plane_float(fr, VMAF_GPU_REF, 0, -128.0f, &src_ref, &pitch);
    if (!err) err = vmaf_gpu_plane_float(fr, VMAF_GPU_DIST, 0, -128.0f, &src_dis, &pitch);
    int sp = (int)pitch;
    for (int s = 0; s < ADM_NUM_SCALES && !err; s++) {
        err = queue_scale(g, l, q, s, src_ref, src_dis, sp);
        /* The next scale reads this scale's band a. */
        src_ref = q->a[s & 1][0];
        src_dis = q->a[s & 1][1];
        sp = g->bp;
    }
    if (!err && g->cube)
        err = vmaf_gpu_download(l, q->h_rows, q->rows, g->n_rows * sizeof(float));
    if (!err && !g->cube)
        err = vmaf_gpu_download(l, q->h_terms, q->terms, g->n_terms * sizeof(float));
    return err;
}

/* One slot's total over scale s: p = 3, the device's row sums added top to
 * bottom; else the host raises each term with its powf and sums rows left
 * to right, then top to bottom, as the CPU. */
static float slot_total(const AdmGpu *g, const AdmLane *q, int s, int k)
{
    const AdmRect *c = &g->geom[s].cm;
    const int cw = c->r - c->l, ch = c->b - c->t;
    float total = 0.0f;
    if (g->cube) {
        const float *r = q->h_rows + g->row_off[s] + (size_t)k * ch;
        for (int i = 0; i < ch; i++)
            total = FADD(total, r[i]);
        return total;
    }
    for (int i = 0; i < ch; i++) {
        const float *t = q->h_terms + g->term_off[s] + k * g->tps[s] + (size_t)i * g->tp[s];
        float row = 0.0f;
        for (int j = 0; j < cw; j++)
            row = FADD(row, ev_powf(t[j], g->pf));
        total = FADD(total, row);
    }
    return total;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const AdmGpu *g = fex->twin_priv;
    const AdmLane *q = lp;
    AdmScaleAccum acc[ADM_NUM_SCALES];
    memset(acc, 0, sizeof(acc));
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        if (s == 0 && g->skip0) continue;
        for (int b = 0; b < 3; b++) {
            acc[s].den[b] = slot_total(g, q, s, b);
            acc[s].num[b] = slot_total(g, q, s, 3 + b);
            acc[s].aim[b] = slot_total(g, q, s, 6 + b);
        }
    }
    AdmScores sc;
    adm_conclude(acc, g->geom, &g->pool, g->w, g->h, &sc);
    return adm_emit(fex, &sc, g->debug, fr->index);
}

const VmafFexTwin vmaf_fex_float_adm_gpu = {
    .program = &program,
    .priv_size = sizeof(AdmGpu),
    .lane_size = sizeof(AdmLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
