/*
 * float_adm's CUDA twin: host side. The CPU path's init validates and reads
 * the options; the device runs the per-sample arithmetic of adm_arith.h
 * (float_adm_cuda.cu) and one thread per row sums each row; here the rows
 * are added top to bottom in fp32 and adm_conclude() - the CPU's own -
 * turns the accumulators into scores.
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

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "adm_csf.h"
#include "adm_pool.h"
#include "adm_rcp_model.h"

extern const VmafFeatureExtractor vmaf_fex_float_adm;
extern const EvcFatbin evc_fatbin_float_adm;

/* Division modes (float_adm_cuda.cu). */
enum { ADM_DIV_IEEE = 0, ADM_DIV_TABLE = 1, ADM_DIV_RCP_IEEE = 2 };
enum { ADM_SLOTS = 9 };

typedef struct AdmCuda {
    VmafCudaState *st;
    int w, h;
    bool debug, bypass, skip0, cube;
    float pf;
    double egl;
    int mode;
    float rf[ADM_NUM_SCALES][3];
    AdmScaleGeom geom[ADM_NUM_SCALES];
    AdmPoolParams pool;

    int bp;                 /**< floats per band row */
    long long ps;           /**< floats per band plane */
    int tp;                 /**< floats per term row */
    long long tps;          /**< floats per term plane */
    size_t row_off[ADM_NUM_SCALES], n_rows;
    EvcBuf a[2][2];         /**< band a, [scale parity][ref, dis] */
    EvcBuf band[2];         /**< h, v, d of [ref, dis] */
    EvcBuf rst, add, flt_rst, flt_add, terms, rows, table;
    float *h_rows;          /**< pinned: every scale's row sums */
    float *h_terms;         /**< pinned: one scale's terms (p != 3 only) */
    CUfunction k_dwt, k_decouple, k_terms, k_rows;
} AdmCuda;

static void twin_close(VmafFex *fex)
{
    AdmCuda *g = fex->twin_priv;
    if (g) {
        VmafCudaState *st = g->st;
        if (!evc_push(st)) {
            evc_sync(st);
            for (int p = 0; p < 2; p++) {
                evc_buf_free(st, &g->a[p][0]);
                evc_buf_free(st, &g->a[p][1]);
                evc_buf_free(st, &g->band[p]);
            }
            evc_buf_free(st, &g->rst);
            evc_buf_free(st, &g->add);
            evc_buf_free(st, &g->flt_rst);
            evc_buf_free(st, &g->flt_add);
            evc_buf_free(st, &g->terms);
            evc_buf_free(st, &g->rows);
            evc_buf_free(st, &g->table);
            evc_host_free(st, (void **)&g->h_rows);
            evc_host_free(st, (void **)&g->h_terms);
            evc_pop(st);
        }
        free(g);
        fex->twin_priv = NULL;
    }
    if (vmaf_fex_float_adm.close) vmaf_fex_float_adm.close(fex);
}

static int read_options(VmafFex *fex, AdmCuda *g)
{
    AdmCsfParams csf;
    double p_norm;
    int bypass;
    int err = evc_opt_bool(fex, "debug", &g->debug);
    if (!err) err = evc_opt_double(fex, "adm_enhn_gain_limit", &g->egl);
    if (!err) err = evc_opt_double(fex, "adm_norm_view_dist", &csf.norm_view_dist);
    if (!err) err = evc_opt_int(fex, "adm_ref_display_height", &csf.ref_display_height);
    if (!err) err = evc_opt_int(fex, "adm_csf_mode", &csf.csf_mode);
    if (!err) err = evc_opt_double(fex, "adm_csf_scale", &csf.csf_scale);
    if (!err) err = evc_opt_double(fex, "adm_csf_diag_scale", &csf.csf_diag_scale);
    static const char *const f1[] = { "adm_f1s0", "adm_f1s1", "adm_f1s2", "adm_f1s3" };
    static const char *const f2[] = { "adm_f2s0", "adm_f2s1", "adm_f2s2", "adm_f2s3" };
    for (int s = 0; s < ADM_NUM_SCALES && !err; s++) {
        err = evc_opt_double(fex, f1[s], &csf.f1[s]);
        if (!err) err = evc_opt_double(fex, f2[s], &csf.f2[s]);
    }
    if (!err) err = evc_opt_int(fex, "adm_bypass_cm", &bypass);
    if (!err) err = evc_opt_double(fex, "adm_p_norm", &p_norm);
    if (!err) err = evc_opt_double(fex, "adm_noise_weight", &g->pool.noise_weight);
    if (!err) err = evc_opt_double(fex, "adm_dlm_weight", &g->pool.dlm_weight);
    if (!err) err = evc_opt_double(fex, "adm_min_val", &g->pool.min_val);
    if (!err) err = evc_opt_bool(fex, "adm_adm3_apply_hm", &g->pool.adm3_apply_hm);
    if (!err) err = evc_opt_int(fex, "adm_skip_aim_scale", &g->pool.skip_aim_scale);
    if (!err) err = evc_opt_bool(fex, "adm_skip_scale0", &g->skip0);
    if (err) return err;

    adm_csf_rfactors(&csf, g->rf);
    g->bypass = bypass != 0;
    g->pool.p_norm = p_norm;
    g->pool.skip_scale0 = g->skip0;
    /* As adm_cpu_scales: the cube when p is 3, else powf with (float)p. */
    g->cube = p_norm == 3.0;
    g->pf = (float)p_norm;
    return 0;
}

static int setup_division(VmafFex *fex, AdmCuda *g)
{
    g->mode = ADM_DIV_IEEE;
    if (fex->env.division != EXACTVMAF_DIVISION_RCP)
        return 0;
    const uint32_t *table;
    const int proven = adm_rcp_model_probe(&table);
    if (proven < 0)
        return proven;  /* the CPU path's init has refused rcp already */
    if (!proven) {
        vmaf_log(VMAF_LOG_LEVEL_WARNING,
                 "float_adm (cuda): this processor's RCPSS estimate does not follow the "
                 "table model; dividing by the IEEE reciprocal plus one Newton step, so "
                 "the scores are close to, not equal to, the CPU's");
        g->mode = ADM_DIV_RCP_IEEE;
        return 0;
    }
    g->mode = ADM_DIV_TABLE;
    const size_t bytes = ADM_RCP_TABLE_SIZE * sizeof(uint32_t);
    int err = evc_buf_alloc(g->st, &g->table, bytes);
    if (!err) err = evc_upload(g->st, g->table.p, table, bytes);
    if (!err) err = evc_sync(g->st);
    return err;
}

static int alloc_buffers(AdmCuda *g)
{
    VmafCudaState *st = g->st;
    const AdmScaleGeom *g0 = &g->geom[0];
    g->bp = (int)evc_pitch_floats((unsigned)g0->w);
    g->ps = (long long)g->bp * g0->h;
    const size_t plane = (size_t)g->ps * sizeof(float);
    const int cw = g0->cm.r - g0->cm.l, ch = g0->cm.b - g0->cm.t;
    g->tp = (int)evc_pitch_floats((unsigned)cw);
    g->tps = (long long)g->tp * ch;

    g->n_rows = 0;
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        g->row_off[s] = g->n_rows;
        g->n_rows += (size_t)ADM_SLOTS * (size_t)(g->geom[s].cm.b - g->geom[s].cm.t);
    }
    int err = 0;
    for (int p = 0; p < 2 && !err; p++) {
        err = evc_buf_alloc(st, &g->a[p][0], plane);
        if (!err) err = evc_buf_alloc(st, &g->a[p][1], plane);
        if (!err) err = evc_buf_alloc(st, &g->band[p], 3 * plane);
    }
    if (!err) err = evc_buf_alloc(st, &g->rst, 3 * plane);
    if (!err) err = evc_buf_alloc(st, &g->add, 3 * plane);
    if (!err) err = evc_buf_alloc(st, &g->flt_rst, 3 * plane);
    if (!err) err = evc_buf_alloc(st, &g->flt_add, 3 * plane);
    if (!err) err = evc_buf_alloc(st, &g->terms, ADM_SLOTS * (size_t)g->tps * sizeof(float));
    if (!err) err = evc_buf_alloc(st, &g->rows, g->n_rows * sizeof(float));
    if (!err) err = evc_host_alloc(st, (void **)&g->h_rows, g->n_rows * sizeof(float));
    if (!err && !g->cube)
        err = evc_host_alloc(st, (void **)&g->h_terms, ADM_SLOTS * (size_t)g->tps * sizeof(float));
    if (!err) err = evc_function(st, &evc_fatbin_float_adm, "adm_dwt", &g->k_dwt);
    if (!err) err = evc_function(st, &evc_fatbin_float_adm, "adm_decouple", &g->k_decouple);
    if (!err) err = evc_function(st, &evc_fatbin_float_adm, "adm_terms", &g->k_terms);
    if (!err) err = evc_function(st, &evc_fatbin_float_adm, "adm_row_sums", &g->k_rows);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_float_adm.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    AdmCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    g->st = fex->env.cuda;
    g->w = (int)w;
    g->h = (int)h;
    adm_geometry(g->w, g->h, g->geom);
    err = read_options(fex, g);
    if (err) return err;
    err = evc_push(g->st);
    if (err) return err;
    err = setup_division(fex, g);
    if (!err) err = alloc_buffers(g);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

/* Queue one scale: DWT, decouple, terms, row sums. src is the scale's input. */
static int queue_scale(AdmCuda *g, int s, CUdeviceptr src_ref, CUdeviceptr src_dis, int sp)
{
    VmafCudaState *st = g->st;
    const AdmScaleGeom *geo = &g->geom[s];
    const int full = !(s == 0 && g->skip0);
    int in_w = geo->in_w, in_h = geo->in_h;
    CUdeviceptr a_ref = g->a[s & 1][0].p, a_dis = g->a[s & 1][1].p;
    CUdeviceptr b_ref = g->band[0].p, b_dis = g->band[1].p;
    void *dwt_args[] = { &src_ref, &src_dis, &sp, &in_w, &in_h, &a_ref, &a_dis, &b_ref,
                         &b_dis, &g->bp, &g->ps, (void *)&full };
    int err = evc_launch(st, g->k_dwt, (unsigned)geo->w, (unsigned)geo->h, 2, 32, 8, dwt_args);
    if (err || !full) return err;

    const AdmRect *d = &geo->dec;
    float rf0 = g->rf[s][0], rf1 = g->rf[s][1], rf2 = g->rf[s][2];
    void *dec_args[] = { &b_ref, &b_dis, &g->bp, &g->ps, (void *)&d->l, (void *)&d->t,
                         (void *)&d->r, (void *)&d->b, &rf0, &rf1, &rf2, &g->egl, &g->mode,
                         &g->table.p, &g->rst.p, &g->add.p, &g->flt_rst.p, &g->flt_add.p };
    err = evc_launch(st, g->k_decouple, (unsigned)(d->r - d->l), (unsigned)(d->b - d->t), 1,
                     32, 8, dec_args);
    if (err) return err;

    const AdmRect *c = &geo->cm;
    int bw = geo->w, bh = geo->h, bypass = g->bypass, cube = g->cube;
    void *term_args[] = { &b_ref, &g->rst.p, &g->add.p, &g->flt_rst.p, &g->flt_add.p, &g->bp,
                          &g->ps, &bw, &bh, (void *)&c->l, (void *)&c->t, (void *)&c->r,
                          (void *)&c->b, &rf0, &rf1, &rf2, &bypass, &cube, &g->terms.p,
                          &g->tp, &g->tps };
    int cw = c->r - c->l, ch = c->b - c->t;
    err = evc_launch(st, g->k_terms, (unsigned)cw, (unsigned)ch, 1, 32, 8, term_args);
    if (err || !g->cube) return err;

    CUdeviceptr rows = g->rows.p + g->row_off[s] * sizeof(float);
    void *row_args[] = { &g->terms.p, &g->tp, &g->tps, &cw, &ch, &rows };
    return evc_launch(st, g->k_rows, (unsigned)ch, 1, ADM_SLOTS, 64, 1, row_args);
}

/* p != 3: this scale's unraised terms come back; the host raises and sums
 * them with its powf, rows left to right then top to bottom, as the CPU. */
static int host_pow_sums(AdmCuda *g, int s, float acc[ADM_SLOTS])
{
    VmafCudaState *st = g->st;
    const AdmRect *c = &g->geom[s].cm;
    const int cw = c->r - c->l, ch = c->b - c->t;
    evc_phase(st, EVC_PHASE_READBACK);
    int err = evc_download(st, g->h_terms, g->terms.p,
                           ADM_SLOTS * (size_t)g->tps * sizeof(float));
    if (!err) err = evc_sync(st);
    if (err) return err;
    for (int k = 0; k < ADM_SLOTS; k++) {
        float total = 0.0f;
        for (int i = 0; i < ch; i++) {
            const float *t = g->h_terms + k * g->tps + (size_t)i * g->tp;
            float row = 0.0f;
            for (int j = 0; j < cw; j++)
                row = FADD(row, powf(t[j], g->pf));
            total = FADD(total, row);
        }
        acc[k] = total;
    }
    return 0;
}

static int run_frame(AdmCuda *g, const VmafPicture *ref, const VmafPicture *dist,
                     unsigned index, AdmScaleAccum acc[ADM_NUM_SCALES])
{
    VmafCudaState *st = g->st;
    CUdeviceptr src_ref, src_dis;
    size_t pitch;
    int err = evc_plane_float(st, ref, 0, index, -128.0f, &src_ref, &pitch);
    if (!err) err = evc_plane_float(st, dist, 0, index, -128.0f, &src_dis, &pitch);
    if (err) return err;

    float sums[ADM_NUM_SCALES][ADM_SLOTS];
    memset(sums, 0, sizeof(sums));
    int sp = (int)pitch;
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        evc_phase(st, EVC_PHASE_KERNELS);
        err = queue_scale(g, s, src_ref, src_dis, sp);
        if (err) return err;
        if (!g->cube && !(s == 0 && g->skip0)) {
            err = host_pow_sums(g, s, sums[s]);
            if (err) return err;
        }
        /* The next scale reads this scale's band a. */
        src_ref = g->a[s & 1][0].p;
        src_dis = g->a[s & 1][1].p;
        sp = g->bp;
    }
    if (g->cube) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_rows, g->rows.p, g->n_rows * sizeof(float));
        if (!err) err = evc_sync(st);
        if (err) return err;
        for (int s = 0; s < ADM_NUM_SCALES; s++) {
            if (s == 0 && g->skip0) continue;
            const int ch = g->geom[s].cm.b - g->geom[s].cm.t;
            for (int k = 0; k < ADM_SLOTS; k++) {
                const float *r = g->h_rows + g->row_off[s] + (size_t)k * ch;
                float total = 0.0f;
                for (int i = 0; i < ch; i++)
                    total = FADD(total, r[i]);
                sums[s][k] = total;
            }
        }
    }
    for (int s = 0; s < ADM_NUM_SCALES; s++) {
        for (int b = 0; b < 3; b++) {
            acc[s].den[b] = sums[s][b];
            acc[s].num[b] = sums[s][3 + b];
            acc[s].aim[b] = sums[s][6 + b];
        }
    }
    return 0;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    AdmCuda *g = fex->twin_priv;
    if (ref->w[0] != (unsigned)g->w || ref->h[0] != (unsigned)g->h ||
        dist->w[0] != (unsigned)g->w || dist->h[0] != (unsigned)g->h) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_adm: frame %u is %ux%u, init had %dx%d",
                 index, ref->w[0], ref->h[0], g->w, g->h);
        return -EINVAL;
    }
    AdmScaleAccum acc[ADM_NUM_SCALES];
    evc_twin_begin(g->st, "float_adm");
    int err = evc_push(g->st);
    if (err) return err;
    err = run_frame(g, ref, dist, index, acc);
    const int err2 = evc_pop(g->st);
    if (err || err2) return err ? err : err2;

    AdmScores sc;
    adm_conclude(acc, g->geom, &g->pool, g->w, g->h, &sc);
    evc_twin_end(g->st);

    return adm_emit(fex, &sc, g->debug, index);
}

const VmafFexTwin vmaf_fex_float_adm_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .close = twin_close,
};
