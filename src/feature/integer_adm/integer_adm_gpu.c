/*
 * Integer ADM's GPU twin: host side, in the GPU frame pipeline, for CUDA
 * and OpenCL. The twin derives the CPU path's geometry and
 * constants with iadm_geometry() and iadm_params(). Per frame and scale the
 * kernels (integer_adm_kernels.h) give the integer row sums of the denominator
 * and of the masked restored (DLM) and additive (AIM) parts; here each row is
 * rounded by the scale's row shift and added in the CPU's types
 * (iadm_row_u64, iadm_row_i64, iadm_acc_add), and iadm_conclude(), the CPU's,
 * gives the outputs.
 *
 * Instances that differ only in adm_enhn_gain_limit (VMAF and VMAF NEG)
 * share one pass, as on the CPU: the leader runs the DWT and the
 * denominators once, and decoupling and masking once per limit, into rows
 * of their own; the others conclude from its readback. Where the reference
 * emulates scale 3's row -1 (inputs of 17 to 32 rows) that row comes from
 * one limit's CSF band, so there every instance runs its own pass.
 *
 * The 16 planes of a scale are kernel arguments of their own (plane_args),
 * on every backend. IadmScaleArgs is passed by value, one layout on both
 * sides (iadm_gpu_args.h, sizes checked on both).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "iadm_arith.h"
#include "iadm_cpu.h"
#include "iadm_gpu_args.h"
#include "iadm_host.h"
#include "integer_adm_state.h"

VMAF_GPU_PROGRAM_DECLARE(integer_adm);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(integer_adm);

_Static_assert(offsetof(IadmScaleArgs, egl) == 136 && sizeof(double) == sizeof(uint64_t),
               "IadmScaleArgs: egl's place in the kernels' layout");

/* The planes of a scale, in the kernels' IadmPlanes order (integer_adm_kernels.h). */
#define IADM_N_PLANES 16
/* Row sums per row: den h, v, d; num h, v, d; aim h, v, d. */
#define IADM_ROW_SUMS 9

typedef struct IadmGpu {
    bool debug;
    unsigned w, h, bpc;
    IadmParams p;
    IadmScaleGeom geom[IADM_NUM_SCALES];
    int emu;
    VmafFex *leader;            /**< a follower's leader; NULL when leading */
    int limit;                  /**< this instance's gain limit in the leader's list */
    double egl[IADM_MAX_GAIN_LIMITS];   /**< a leader's: every limit of its pass */
    int n_egl;
    /* A leader's row layout, fixed in lane_init once every follower joined. */
    size_t den_off[IADM_NUM_SCALES], cm_off[IADM_NUM_SCALES][IADM_MAX_GAIN_LIMITS], n_rows;
} IadmGpu;

/** One frame in flight. */
typedef struct IadmLane {
    VmafGpuPtr a[IADM_NUM_SCALES][2];  /**< band a of each scale, ref and dis */
    VmafGpuPtr idx[IADM_NUM_SCALES];
    VmafGpuPtr div_lookup, emu_ref, emu_dis;
    VmafGpuPtr rows;   /**< by scale: den rows (3 each), then cm rows (6 each) per limit */
    uint64_t *h_rows;
    VmafGpuPtr plane[IADM_N_PLANES];   /**< in the kernels' IadmPlanes order */
    VmafGpuKernel *k_dwt0, *k_dwt, *k_den, *k_dec, *k_emu, *k_cm;
} IadmLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const IadmState *s = fex->priv;
    IadmGpu *g = fex->twin_priv;
    const double egl = s->adm_enhn_gain_limit;
    g->debug = s->debug;
    g->p = s->params;
    const int err = iadm_geometry((int)w, (int)h, g->geom);
    if (err) return err;
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    /* The reference's row -1 at scale 3 (inputs of 3 or 4 rows). */
    g->emu = (g->geom[3].in_h + 1) / 2 == 2;
    g->egl[0] = egl;
    g->n_egl = 1;
    (void)pix_fmt;

    if (!g->emu) {
        VmafFex *leader = vmaf_gpu_share(needs, s->pass_key);
        if (leader) {
            IadmGpu *lg = leader->twin_priv;
            int e = 0;
            while (e < lg->n_egl && lg->egl[e] != egl) e++;
            if (e == IADM_MAX_GAIN_LIMITS) return VMAF_FEX_TWIN_DECLINED;
            if (e == lg->n_egl) lg->egl[lg->n_egl++] = egl;
            g->leader = leader;
            g->limit = e;
            return 0;
        }
    }
    vmaf_gpu_use_plane(needs, 3, 0);
    return 0;
}

/** A leader's row layout for its n_egl limits (known once lanes are made). */
static void row_layout(IadmGpu *g)
{
    size_t n_rows = 0;
    for (int s = 0; s < IADM_NUM_SCALES; s++) {
        g->den_off[s] = n_rows;
        n_rows += 3 * (size_t)g->geom[s].h;
        for (int e = 0; e < g->n_egl; e++) {
            g->cm_off[s][e] = n_rows;
            n_rows += 6 * (size_t)g->geom[s].h;
        }
    }
    g->n_rows = n_rows;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    IadmGpu *g = fex->twin_priv;
    IadmLane *q = lp;
    if (g->leader) return 0;
    row_layout(g);
    const size_t n0 = (size_t)g->geom[0].w * g->geom[0].h;
    int err = 0;
    for (int k = 0; k < IADM_N_PLANES && !err; k++) {
        /* Zeroed once: the CPU's row buffers read 0 where nothing was written. */
        err = vmaf_gpu_alloc(l, &q->plane[k], n0 * sizeof(int32_t));
        if (!err) err = vmaf_gpu_memset(l, q->plane[k], n0 * sizeof(int32_t));
    }
    int32_t *div = malloc(IADM_DIV_TABLE_SIZE * sizeof(int32_t));
    if (!div && !err) err = -ENOMEM;
    for (int s = 0; s < IADM_NUM_SCALES && !err; s++) {
        const IadmScaleGeom *qg = &g->geom[s];
        int *idx = malloc(4 * (size_t)qg->h * sizeof(int));
        if (!idx) {
            err = -ENOMEM;
            break;
        }
        iadm_dwt_indices(qg->in_h, idx);
        err = vmaf_gpu_const(l, &q->idx[s], idx, 4 * (size_t)qg->h * sizeof(int));
        free(idx);
        const size_t n = (size_t)qg->w * qg->h;
        if (!err) err = vmaf_gpu_alloc(l, &q->a[s][0], n * sizeof(int32_t));
        if (!err) err = vmaf_gpu_alloc(l, &q->a[s][1], n * sizeof(int32_t));
    }
    if (!err) {
        iadm_div_table(div);
        err = vmaf_gpu_const(l, &q->div_lookup, div, IADM_DIV_TABLE_SIZE * sizeof(int32_t));
    }
    free(div);

    const size_t emu_bytes = ((size_t)g->geom[3].in_w + 1) * sizeof(int32_t);
    if (!err) err = vmaf_gpu_alloc(l, &q->emu_ref, emu_bytes);
    if (!err) err = vmaf_gpu_memset(l, q->emu_ref, emu_bytes);
    if (!err) err = vmaf_gpu_alloc(l, &q->emu_dis, emu_bytes);
    if (!err) err = vmaf_gpu_memset(l, q->emu_dis, emu_bytes);
    if (!err) err = vmaf_gpu_alloc(l, &q->rows, g->n_rows * sizeof(uint64_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_rows, g->n_rows * sizeof(uint64_t));
    const VmafGpuProgram *fb = &program;
    if (!err)
        err = vmaf_gpu_kernel(l, fb, g->bpc > 8 ? "iadm_dwt0_u16" : "iadm_dwt0_u8", &q->k_dwt0);
    if (!err) err = vmaf_gpu_kernel(l, fb, "iadm_dwt", &q->k_dwt);
    if (!err) err = vmaf_gpu_kernel(l, fb, "iadm_den", &q->k_den);
    if (!err) err = vmaf_gpu_kernel(l, fb, "iadm_decouple", &q->k_dec);
    if (!err) err = vmaf_gpu_kernel(l, fb, "iadm_emu", &q->k_emu);
    if (!err) err = vmaf_gpu_kernel(l, fb, "iadm_cm", &q->k_cm);
    return err;
}

static void scale_args(const IadmGpu *g, int s, int e, IadmScaleArgs *a)
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
    a->egl = g->egl[e];
    a->egl_int = iadm_egl_int(g->egl[e]);
    a->skip_aim = g->p.skip_aim;
}

/** One launch's arguments, the planes expanded. */
typedef struct IadmArgs {
    VmafGpuArg v[12 + IADM_N_PLANES];
    unsigned n;
} IadmArgs;

static void arg(IadmArgs *x, VmafGpuArg a)
{
    x->v[x->n++] = a;
}

/** The 16 planes, where a kernel's signature has IADM_PLANE_PARAMS. */
static void plane_args(IadmArgs *x, const IadmLane *q)
{
    for (int k = 0; k < IADM_N_PLANES; k++) arg(x, VMAF_GPU_ARG(q->plane[k]));
}

static int launch(VmafGpuLane *l, VmafGpuKernel *k, unsigned nx, unsigned ny, unsigned bx,
                  unsigned by, const IadmArgs *x)
{
    return vmaf_gpu_launch_args(l, k, nx, ny, 1, bx, by, x->v, x->n);
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const IadmGpu *g = fex->twin_priv;
    IadmLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr ref, dis;
    int err = vmaf_gpu_plane(fr, VMAF_GPU_REF, 0, &ref);
    if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, 0, &dis);
    if (!err) err = vmaf_gpu_memset(l, q->rows, g->n_rows * sizeof(uint64_t));
    for (int s = 0; s < IADM_NUM_SCALES && !err; s++) {
        const IadmScaleGeom *qg = &g->geom[s];
        IadmScaleArgs a;
        scale_args(g, s, 0, &a);
        int w = qg->w, h = qg->h, n = qg->in_w, in_h = qg->in_h;
        if (s == 0) {
            int shift = g->bpc == 8 ? 8 : (int)g->bpc;
            IadmArgs da = { .n = 0 };
            arg(&da, VMAF_GPU_ARG(ref));
            arg(&da, VMAF_GPU_ARG(dis));
            arg(&da, VMAF_GPU_ARG(n));
            arg(&da, VMAF_GPU_ARG(in_h));
            arg(&da, VMAF_GPU_ARG(q->idx[0]));
            arg(&da, VMAF_GPU_ARG(shift));
            arg(&da, VMAF_GPU_ARG(w));
            arg(&da, VMAF_GPU_ARG(h));
            arg(&da, VMAF_GPU_ARG(q->a[0][0]));
            arg(&da, VMAF_GPU_ARG(q->a[0][1]));
            plane_args(&da, q);
            err = launch(l, q->k_dwt0, (unsigned)w, (unsigned)h, 32, 8, &da);
            if (err || g->p.skip_scale0) continue;
        } else {
            IadmArgs da = { .n = 0 };
            arg(&da, VMAF_GPU_ARG(q->a[s - 1][0]));
            arg(&da, VMAF_GPU_ARG(q->a[s - 1][1]));
            arg(&da, VMAF_GPU_ARG(q->emu_ref));
            arg(&da, VMAF_GPU_ARG(q->emu_dis));
            arg(&da, VMAF_GPU_ARG(n));
            arg(&da, VMAF_GPU_ARG(q->idx[s]));
            arg(&da, VMAF_GPU_ARG(s));
            arg(&da, VMAF_GPU_ARG(w));
            arg(&da, VMAF_GPU_ARG(h));
            arg(&da, VMAF_GPU_ARG(q->a[s][0]));
            arg(&da, VMAF_GPU_ARG(q->a[s][1]));
            plane_args(&da, q);
            err = launch(l, q->k_dwt, (unsigned)w, (unsigned)h, 32, 8, &da);
        }
        VmafGpuPtr den = vmaf_gpu_at(q->rows, g->den_off[s] * sizeof(uint64_t));
        const unsigned cm_w = (unsigned)(qg->cm.right - qg->cm.left);
        const unsigned cm_h = (unsigned)(qg->cm.bottom - qg->cm.top);
        const unsigned ext_w = (unsigned)(qg->ext.right - qg->ext.left);
        const unsigned ext_h = (unsigned)(qg->ext.bottom - qg->ext.top);
        /* den, decouple, emu, cm: (planes, scale args, one more). */
        IadmArgs na = { .n = 0 };
        plane_args(&na, q);
        arg(&na, VMAF_GPU_ARG(a));
        arg(&na, VMAF_GPU_ARG(den));
        if (!err && cm_w && cm_h) err = launch(l, q->k_den, cm_w, cm_h, 256, 1, &na);
        /* Per gain limit, in order on the stream: the restored and additive
         * planes are rewritten by each limit's decoupling. */
        for (int e = 0; e < g->n_egl && !err; e++) {
            scale_args(g, s, e, &a);
            VmafGpuPtr cm = vmaf_gpu_at(q->rows, g->cm_off[s][e] * sizeof(uint64_t));
            IadmArgs ca = { .n = 0 };
            plane_args(&ca, q);
            arg(&ca, VMAF_GPU_ARG(a));
            arg(&ca, VMAF_GPU_ARG(q->div_lookup));
            if (ext_w && ext_h) err = launch(l, q->k_dec, ext_w, ext_h, 32, 8, &ca);
            if (!err && s == 0 && g->emu) {     /* never shared (twin_init) */
                int n3 = g->geom[3].in_w;
                IadmArgs ea = { .n = 0 };
                plane_args(&ea, q);
                arg(&ea, VMAF_GPU_ARG(a));
                arg(&ea, VMAF_GPU_ARG(n3));
                arg(&ea, VMAF_GPU_ARG(q->emu_ref));
                err = launch(l, q->k_emu, (unsigned)n3, 1, 32, 1, &ea);
            }
            IadmArgs ma = { .n = 0 };
            plane_args(&ma, q);
            arg(&ma, VMAF_GPU_ARG(a));
            arg(&ma, VMAF_GPU_ARG(cm));
            if (!err && cm_w && cm_h) err = launch(l, q->k_cm, cm_w, cm_h, 256, 1, &ma);
        }
    }
    if (!err) err = vmaf_gpu_download(l, q->h_rows, q->rows, g->n_rows * sizeof(uint64_t));
    return err;
}

/**
 * The accumulators of gain limit e from leader g's row sums, in the CPU's
 * types and row shifts.
 */
static void accumulate(const IadmGpu *g, const IadmLane *lq, int e,
                       IadmAccum acc[IADM_NUM_SCALES])
{
    memset(acc, 0, IADM_NUM_SCALES * sizeof(*acc));
    for (int s = g->p.skip_scale0 ? 1 : 0; s < IADM_NUM_SCALES; s++) {
        const IadmScaleGeom *q = &g->geom[s];
        for (int i = q->cm.top; i < q->cm.bottom; i++) {
            const uint64_t *den = lq->h_rows + g->den_off[s] + 3 * (size_t)i;
            const uint64_t *cm = lq->h_rows + g->cm_off[s][e] + 6 * (size_t)i;
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

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const IadmGpu *g = fex->twin_priv;
    const IadmGpu *lg = g->leader ? g->leader->twin_priv : g;
    const IadmLane *q = g->leader ? vmaf_gpu_state_of(g->leader, fr) : lp;
    if (!q) return -EINVAL;
    IadmAccum acc[IADM_NUM_SCALES];
    AdmScores sc;
    accumulate(lg, q, g->limit, acc);
    iadm_conclude(acc, g->geom, &g->p, (int)g->w, (int)g->h, &sc);
    return iadm_emit(fex, &sc, g->debug, fr->index);
}

const VmafFexTwin vmaf_fex_integer_adm_gpu = {
    .program = &program,
    .priv_size = sizeof(IadmGpu),
    .lane_size = sizeof(IadmLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
