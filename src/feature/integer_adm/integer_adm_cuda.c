/*
 * Integer ADM's CUDA twin: host side. The CPU path's init validates the
 * geometry and options; the twin derives the same geometry and constants
 * with iadm_geometry() and iadm_params(). Per frame and scale the kernels
 * (integer_adm_cuda.cu) give the integer row sums of the denominator and of
 * the masked restored (DLM) and additive (AIM) parts; here each row is
 * rounded by the scale's row shift and added in the CPU's types
 * (iadm_row_u64, iadm_row_i64, iadm_acc_add), and iadm_conclude(), the
 * CPU's, gives the outputs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "iadm_arith.h"
#include "iadm_host.h"

extern const VmafFeatureExtractor vmaf_fex_integer_adm;
extern const EvcFatbin evc_fatbin_integer_adm;

/* Same layouts as integer_adm_cuda.cu's kernel arguments. */
typedef struct IadmPlanes {
    CUdeviceptr ref_b[3], dis_b[3];
    CUdeviceptr rst[3], add[3];
    CUdeviceptr fa, ga, fr, gr;
} IadmPlanes;

typedef struct IadmScaleArgs {
    int s;
    int w, h;
    int ext_l, ext_t, ext_r, ext_b;
    int cm_l, cm_t, cm_r, cm_b;
    int den_sq_shift, den_cub_shift;
    unsigned long long den_cub_add;
    int cub_shift[3];
    long long cub_add[3];
    int32_t rf0[3];
    uint32_t rf123[3];
    float cos2;
    double egl;
    int egl_int;
    int skip_aim;
} IadmScaleArgs;

#define IADM_N_PLANES 16
/* Row sums per row: den h, v, d; num h, v, d; aim h, v, d. */
#define IADM_ROW_SUMS 9

typedef struct IadmCuda {
    VmafCudaState *st;
    bool debug;
    unsigned w, h, bpc;
    IadmParams p;
    IadmScaleGeom geom[IADM_NUM_SCALES];
    int emu;
    EvcBuf plane[IADM_N_PLANES];
    EvcBuf a[IADM_NUM_SCALES][2];       /**< band a of each scale, ref and dis */
    EvcBuf idx[IADM_NUM_SCALES];
    EvcBuf div_lookup, emu_ref, emu_dis;
    EvcBuf rows;                        /**< den rows (3 each), then cm rows (6 each), by scale */
    size_t den_off[IADM_NUM_SCALES], cm_off[IADM_NUM_SCALES], n_rows;
    uint64_t *h_rows;
    IadmPlanes pl;
    CUfunction k_dwt0, k_dwt, k_den, k_dec, k_emu, k_cm;
} IadmCuda;

static void twin_close(VmafFex *fex)
{
    IadmCuda *g = fex->twin_priv;
    if (g && g->st && !evc_push(g->st)) {
        evc_sync(g->st);
        for (int k = 0; k < IADM_N_PLANES; k++)
            evc_buf_free(g->st, &g->plane[k]);
        for (int s = 0; s < IADM_NUM_SCALES; s++) {
            evc_buf_free(g->st, &g->a[s][0]);
            evc_buf_free(g->st, &g->a[s][1]);
            evc_buf_free(g->st, &g->idx[s]);
        }
        evc_buf_free(g->st, &g->div_lookup);
        evc_buf_free(g->st, &g->emu_ref);
        evc_buf_free(g->st, &g->emu_dis);
        evc_buf_free(g->st, &g->rows);
        evc_host_free(g->st, (void **)&g->h_rows);
        evc_pop(g->st);
    }
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_integer_adm.close) vmaf_fex_integer_adm.close(fex);
}

static int upload_table(VmafCudaState *st, EvcBuf *b, const void *host, size_t bytes)
{
    int err = evc_buf_alloc(st, b, bytes);
    if (!err) err = evc_upload(st, b->p, host, bytes);
    return err;
}

static int setup(IadmCuda *g)
{
    VmafCudaState *st = g->st;
    const size_t n0 = (size_t)g->geom[0].w * g->geom[0].h;
    int err = 0;
    for (int k = 0; k < IADM_N_PLANES && !err; k++) {
        /* Zeroed once: the CPU's row buffers read 0 where nothing was written. */
        err = evc_buf_alloc(st, &g->plane[k], n0 * sizeof(int32_t));
        if (!err) err = evc_memset(st, g->plane[k].p, n0 * sizeof(int32_t));
    }
    CUdeviceptr *slot[IADM_N_PLANES] = {
        &g->pl.ref_b[0], &g->pl.ref_b[1], &g->pl.ref_b[2], &g->pl.dis_b[0], &g->pl.dis_b[1],
        &g->pl.dis_b[2], &g->pl.rst[0], &g->pl.rst[1], &g->pl.rst[2], &g->pl.add[0],
        &g->pl.add[1], &g->pl.add[2], &g->pl.fa, &g->pl.ga, &g->pl.fr, &g->pl.gr };
    for (int k = 0; k < IADM_N_PLANES; k++)
        *slot[k] = g->plane[k].p;

    int32_t *div = malloc(IADM_DIV_TABLE_SIZE * sizeof(int32_t));
    int *idx[IADM_NUM_SCALES] = { NULL };
    if (!div) err = err ? err : -ENOMEM;
    for (int s = 0; s < IADM_NUM_SCALES && !err; s++) {
        const IadmScaleGeom *q = &g->geom[s];
        idx[s] = malloc(4 * (size_t)q->h * sizeof(int));
        if (!idx[s]) {
            err = -ENOMEM;
            break;
        }
        iadm_dwt_indices(q->in_h, idx[s]);
        const size_t n = (size_t)q->w * q->h;
        err = upload_table(st, &g->idx[s], idx[s], 4 * (size_t)q->h * sizeof(int));
        if (!err) err = evc_buf_alloc(st, &g->a[s][0], n * sizeof(int32_t));
        if (!err) err = evc_buf_alloc(st, &g->a[s][1], n * sizeof(int32_t));
    }
    if (!err) {
        iadm_div_table(div);
        err = upload_table(st, &g->div_lookup, div, IADM_DIV_TABLE_SIZE * sizeof(int32_t));
    }
    /* The host tables are read by the copies: wait before freeing them. */
    if (!err) err = evc_sync(st);
    free(div);
    for (int s = 0; s < IADM_NUM_SCALES; s++)
        free(idx[s]);

    const size_t emu_bytes = ((size_t)g->geom[3].in_w + 1) * sizeof(int32_t);
    if (!err) err = evc_buf_alloc(st, &g->emu_ref, emu_bytes);
    if (!err) err = evc_memset(st, g->emu_ref.p, emu_bytes);
    if (!err) err = evc_buf_alloc(st, &g->emu_dis, emu_bytes);
    if (!err) err = evc_memset(st, g->emu_dis.p, emu_bytes);

    size_t n_rows = 0;
    for (int s = 0; s < IADM_NUM_SCALES; s++) {
        g->den_off[s] = n_rows;
        n_rows += 3 * (size_t)g->geom[s].h;
        g->cm_off[s] = n_rows;
        n_rows += 6 * (size_t)g->geom[s].h;
    }
    g->n_rows = n_rows;
    if (!err) err = evc_buf_alloc(st, &g->rows, n_rows * sizeof(uint64_t));
    if (!err) err = evc_host_alloc(st, (void **)&g->h_rows, n_rows * sizeof(uint64_t));
    const EvcFatbin *fb = &evc_fatbin_integer_adm;
    if (!err) err = evc_function(st, fb, g->bpc > 8 ? "iadm_dwt0_u16" : "iadm_dwt0_u8", &g->k_dwt0);
    if (!err) err = evc_function(st, fb, "iadm_dwt", &g->k_dwt);
    if (!err) err = evc_function(st, fb, "iadm_den", &g->k_den);
    if (!err) err = evc_function(st, fb, "iadm_decouple", &g->k_dec);
    if (!err) err = evc_function(st, fb, "iadm_emu", &g->k_emu);
    if (!err) err = evc_function(st, fb, "iadm_cm", &g->k_cm);
    if (!err) err = evc_sync(st);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_integer_adm.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    IadmCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    IadmOptions o;
    err = evc_opt_bool(fex, "debug", &g->debug);
    if (!err) err = evc_opt_double(fex, "adm_enhn_gain_limit", &o.enhn_gain_limit);
    if (!err) err = evc_opt_double(fex, "adm_norm_view_dist", &o.norm_view_dist);
    if (!err) err = evc_opt_int(fex, "adm_ref_display_height", &o.ref_display_height);
    if (!err) err = evc_opt_int(fex, "adm_csf_mode", &o.csf_mode);
    if (!err) err = evc_opt_double(fex, "adm_csf_scale", &o.csf_scale);
    if (!err) err = evc_opt_double(fex, "adm_csf_diag_scale", &o.csf_diag_scale);
    if (!err) err = evc_opt_double(fex, "adm_noise_weight", &o.noise_weight);
    if (!err) err = evc_opt_double(fex, "adm_dlm_weight", &o.dlm_weight);
    if (!err) err = evc_opt_double(fex, "adm_min_val", &o.min_val);
    if (!err) err = evc_opt_bool(fex, "adm_skip_aim", &o.skip_aim);
    if (!err) err = evc_opt_bool(fex, "adm_skip_scale0", &o.skip_scale0);
    if (err) return err;
    iadm_params(&o, &g->p);
    err = iadm_geometry((int)w, (int)h, g->geom);
    if (err) return err;
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    /* The reference's row -1 at scale 3 (inputs of 3 or 4 rows). */
    g->emu = (g->geom[3].in_h + 1) / 2 == 2;
    g->st = fex->env.cuda;
    err = evc_push(g->st);
    if (err) {
        g->st = NULL;
        return err;
    }
    err = setup(g);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

static void scale_args(const IadmCuda *g, int s, IadmScaleArgs *a)
{
    const IadmScaleGeom *q = &g->geom[s];
    memset(a, 0, sizeof(*a));
    a->s = s;
    a->w = q->w;
    a->h = q->h;
    a->ext_l = q->ext.left;
    a->ext_t = q->ext.top;
    a->ext_r = q->ext.right;
    a->ext_b = q->ext.bottom;
    a->cm_l = q->cm.left;
    a->cm_t = q->cm.top;
    a->cm_r = q->cm.right;
    a->cm_b = q->cm.bottom;
    a->den_sq_shift = q->den_sq_shift;
    a->den_cub_shift = q->den_cub_shift;
    a->den_cub_add = q->den_cub_add;
    for (int b = 0; b < 3; b++) {
        a->cub_shift[b] = q->cm_cub_shift[b];
        a->cub_add[b] = q->cm_cub_add[b];
        a->rf0[b] = s == 0 ? g->p.rf0[b] : 0;
        a->rf123[b] = s == 0 ? 0 : g->p.rf123[s][b];
    }
    a->cos2 = g->p.cos2;
    a->egl = g->p.egl;
    a->egl_int = iadm_egl_int(g->p.egl);
    a->skip_aim = g->p.skip_aim;
}

static int queue_frame(IadmCuda *g, CUdeviceptr ref, CUdeviceptr dis)
{
    VmafCudaState *st = g->st;
    int err = evc_memset(st, g->rows.p, g->n_rows * sizeof(uint64_t));
    for (int s = 0; s < IADM_NUM_SCALES && !err; s++) {
        const IadmScaleGeom *q = &g->geom[s];
        IadmScaleArgs a;
        scale_args(g, s, &a);
        int w = q->w, h = q->h, n = q->in_w, in_h = q->in_h;
        if (s == 0) {
            int shift = g->bpc == 8 ? 8 : (int)g->bpc;
            void *da[] = { &ref, &dis, &n, &in_h, &g->idx[0].p, &shift, &w, &h,
                           &g->a[0][0].p, &g->a[0][1].p, &g->pl };
            err = evc_launch(st, g->k_dwt0, (unsigned)w, (unsigned)h, 1, 32, 8, da);
            if (err || g->p.skip_scale0) continue;
        } else {
            void *da[] = { &g->a[s - 1][0].p, &g->a[s - 1][1].p, &g->emu_ref.p, &g->emu_dis.p,
                           &n, &g->idx[s].p, &s, &w, &h, &g->a[s][0].p, &g->a[s][1].p,
                           &g->pl };
            err = evc_launch(st, g->k_dwt, (unsigned)w, (unsigned)h, 1, 32, 8, da);
        }
        CUdeviceptr den = g->rows.p + g->den_off[s] * sizeof(uint64_t);
        CUdeviceptr cm = g->rows.p + g->cm_off[s] * sizeof(uint64_t);
        const unsigned cm_w = (unsigned)(q->cm.right - q->cm.left);
        const unsigned cm_h = (unsigned)(q->cm.bottom - q->cm.top);
        const unsigned ext_w = (unsigned)(q->ext.right - q->ext.left);
        const unsigned ext_h = (unsigned)(q->ext.bottom - q->ext.top);
        void *na[] = { &g->pl, &a, &den };
        if (!err && cm_w && cm_h) err = evc_launch(st, g->k_den, cm_w, cm_h, 1, 256, 1, na);
        void *ca[] = { &g->pl, &a, &g->div_lookup.p };
        if (!err && ext_w && ext_h) err = evc_launch(st, g->k_dec, ext_w, ext_h, 1, 32, 8, ca);
        if (!err && s == 0 && g->emu) {
            int n3 = g->geom[3].in_w;
            void *ea[] = { &g->pl, &a, &n3, &g->emu_ref.p };
            err = evc_launch(st, g->k_emu, (unsigned)n3, 1, 1, 32, 1, ea);
        }
        void *ma[] = { &g->pl, &a, &cm };
        if (!err && cm_w && cm_h) err = evc_launch(st, g->k_cm, cm_w, cm_h, 1, 256, 1, ma);
    }
    if (!err) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_rows, g->rows.p, g->n_rows * sizeof(uint64_t));
    }
    if (!err) err = evc_sync(st);
    return err;
}

/** The accumulators from the row sums, in the CPU's types and row shifts. */
static void accumulate(const IadmCuda *g, IadmAccum acc[IADM_NUM_SCALES])
{
    memset(acc, 0, IADM_NUM_SCALES * sizeof(*acc));
    for (int s = g->p.skip_scale0 ? 1 : 0; s < IADM_NUM_SCALES; s++) {
        const IadmScaleGeom *q = &g->geom[s];
        for (int i = q->cm.top; i < q->cm.bottom; i++) {
            const uint64_t *den = g->h_rows + g->den_off[s] + 3 * (size_t)i;
            const uint64_t *cm = g->h_rows + g->cm_off[s] + 6 * (size_t)i;
            for (int b = 0; b < 3; b++) {
                acc[s].den[b] += iadm_row_u64(den[b], q->den_row_add, q->den_row_shift);
                iadm_acc_add(&acc[s].num[b],
                             iadm_row_i64((int64_t)cm[b], q->cm_row_add, q->cm_row_shift));
                if (!g->p.skip_aim)
                    iadm_acc_add(&acc[s].aim[b], iadm_row_i64((int64_t)cm[3 + b],
                                                              q->cm_row_add, q->cm_row_shift));
            }
        }
    }
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    IadmCuda *g = fex->twin_priv;
    if (ref->w[0] != g->w || ref->h[0] != g->h || dist->w[0] != g->w ||
        dist->h[0] != g->h || ref->bpc != g->bpc || dist->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "adm: frame %u does not match the %ux%u %u-bit geometry given at init",
                 index, g->w, g->h, g->bpc);
        return -EINVAL;
    }
    VmafCudaState *st = g->st;
    evc_twin_begin(st, "adm");
    int err = evc_push(st);
    if (err) return err;
    CUdeviceptr r, d;
    err = evc_plane_raw(st, ref, 0, index, &r);
    if (!err) err = evc_plane_raw(st, dist, 0, index, &d);
    if (!err) {
        evc_phase(st, EVC_PHASE_KERNELS);
        err = queue_frame(g, r, d);
    }
    const int err2 = evc_pop(st);
    if (err || err2) return err ? err : err2;

    IadmAccum acc[IADM_NUM_SCALES];
    IadmScores sc;
    accumulate(g, acc);
    iadm_conclude(acc, g->geom, &g->p, (int)g->w, (int)g->h, &sc);
    evc_twin_end(st);

    /* The CPU's emission order (integer_adm.c); debug outputs only with debug. */
    const struct { const char *name; double value; } out[] = {
        { "VMAF_integer_feature_adm2_score", sc.adm2 },
        { "VMAF_integer_feature_aim_score", sc.aim },
        { "VMAF_integer_feature_adm3_score", sc.adm3 },
        { "integer_adm_scale0", sc.scale[0] },
        { "integer_adm_scale1", sc.scale[1] },
        { "integer_adm_scale2", sc.scale[2] },
        { "integer_adm_scale3", sc.scale[3] },
        { "integer_adm", sc.adm2 },
        { "integer_adm_num", sc.num },
        { "integer_adm_den", sc.den },
        { "integer_adm_num_scale0", sc.num_scale[0] },
        { "integer_adm_den_scale0", sc.den_scale[0] },
        { "integer_adm_num_scale1", sc.num_scale[1] },
        { "integer_adm_den_scale1", sc.den_scale[1] },
        { "integer_adm_num_scale2", sc.num_scale[2] },
        { "integer_adm_den_scale2", sc.den_scale[2] },
        { "integer_adm_num_scale3", sc.num_scale[3] },
        { "integer_adm_den_scale3", sc.den_scale[3] },
    };
    const size_t n_out = g->debug ? sizeof(out) / sizeof(out[0]) : 7;
    for (size_t k = 0; k < n_out && !err; k++)
        err = vmaf_fex_emit(fex, out[k].name, out[k].value, index);
    return err;
}

const VmafFexTwin vmaf_fex_integer_adm_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .close = twin_close,
};
