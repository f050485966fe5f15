/*
 * cambi's GPU twin (one kernel text for CUDA and OpenCL, cambi_kernels.h):
 * host side, in the GPU frame pipeline. Per picture the kernels take the
 * luma to the c-values of the five scales; the host pools each scale with
 * the CPU path's cambi_pool_scale() (the reference's quickselect, whose
 * order the fp64 top-k sum follows) and concludes with cambi_conclude().
 *
 * Declined, the CPU runs the instance, where a scale is narrower than half
 * the window: the reference then counts columns past the scale's width,
 * left there by earlier scales in its in-place buffers.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cambi_state.h"
#include "feature/extractor.h"
#include "gpu/pipeline.h"
#include "log.h"

VMAF_GPU_PROGRAM_DECLARE(cambi);
static const VmafGpuProgram program = { "cambi", VMAF_GPU_CUDA(cambi), VMAF_GPU_OPENCL(cambi) };

/* Rows of a scale per group of the c-value kernel: a group fills its
 * window for 2 * pad + 1 rows first, so taller segments waste less; shorter
 * ones make more groups for small scales. */
#define CV_ROWS 64

/** One picture kind (0 dist at the encode size, 1 ref at the source size). */
typedef struct CambiPic {
    const CambiGeometry *g;
    unsigned w[CAMBI_NUM_SCALES], h[CAMBI_NUM_SCALES];
    size_t c_off[CAMBI_NUM_SCALES];   /**< floats before each scale's c-values */
    size_t c_count;                   /**< floats of all scales */
} CambiPic;

typedef struct CambiGpu {
    unsigned bpc, pic_w, pic_h, n_pic;
    unsigned pitch, alloc_h;
    bool empty_band;                  /**< nothing visible: every c-value is +0 */
    CambiPic pic[2];
} CambiGpu;

typedef struct CambiLane {
    VmafGpuPtr img[2], mask[2], cs, band, c, flag;
    VmafGpuPtr xs[2], ys[2], active, weight, rcp;
    float *h_c;
    uint32_t *h_flag;
    VmafGpuKernel *k_load, *k_range, *k_cols, *k_rows, *k_decimate, *k_mode, *k_c_values;
} CambiLane;

static bool narrow(const CambiGeometry *g, bool hrs)
{
    unsigned w = g->w;
    for (int s = 0; s < CAMBI_NUM_SCALES; s++) {
        if (s > 0 || hrs) w = (w + 1) >> 1;
        if (w < (g->window >> 1)) return true;
    }
    return false;
}

static void scales(CambiPic *p, const CambiGeometry *g, bool hrs)
{
    unsigned w = g->w, h = g->h;
    size_t off = 0;
    p->g = g;
    for (int s = 0; s < CAMBI_NUM_SCALES; s++) {
        if (s > 0 || hrs) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        p->w[s] = w;
        p->h[s] = h;
        p->c_off[s] = off;
        off += (size_t)w * h;
    }
    p->c_count = off;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    CambiState *s = fex->priv;
    CambiGpu *g = fex->twin_priv;
    (void)pix_fmt;
    if (narrow(&s->enc, s->hrs) || (s->full_ref && narrow(&s->src, s->hrs))) {
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "cambi: a scale narrower than half the window: "
                 "computed on the CPU");
        return VMAF_FEX_TWIN_DECLINED;
    }
    g->bpc = bpc;
    g->pic_w = w;
    g->pic_h = h;
    g->n_pic = s->full_ref ? 2 : 1;
    g->empty_band = s->params.band_hi < s->params.band_lo;
    scales(&g->pic[0], &s->enc, s->hrs);
    if (s->full_ref) scales(&g->pic[1], &s->src, s->hrs);
    const unsigned aw = g->n_pic > 1 && s->src.w > s->enc.w ? s->src.w : s->enc.w;
    g->alloc_h = g->n_pic > 1 && s->src.h > s->enc.h ? s->src.h : s->enc.h;
    g->pitch = (aw + 63) & ~63u;
    vmaf_gpu_use_plane(fex->env.gpu, s->full_ref ? 3 : 2, 0);
    /* The CPU path's working buffers are not used in a GPU run. */
    cambi_cpu_free(&s->cpu);
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const CambiState *s = fex->priv;
    const CambiGpu *g = fex->twin_priv;
    CambiLane *q = lp;
    const size_t px = (size_t)g->pitch * g->alloc_h;
    const size_t c_count = g->pic[0].c_count + (g->n_pic > 1 ? g->pic[1].c_count : 0);
    int err = 0;
    for (int k = 0; k < 2 && !err; k++) {
        err = vmaf_gpu_alloc(l, &q->img[k], px * sizeof(uint16_t));
        if (!err) err = vmaf_gpu_alloc(l, &q->mask[k], px);
    }
    if (!err) err = vmaf_gpu_alloc(l, &q->cs, px);
    if (!err) err = vmaf_gpu_alloc(l, &q->band, px * sizeof(uint16_t));
    if (!err) err = vmaf_gpu_alloc(l, &q->c, c_count * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->flag, 2 * sizeof(uint32_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_c, c_count * sizeof(float));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_flag, 2 * sizeof(uint32_t));
    for (unsigned k = 0; k < g->n_pic && !err; k++) {
        const CambiResample *rs = &g->pic[k].g->rs;
        /* unsigned is the kernels' uint32_t. */
        err = vmaf_gpu_const(l, &q->xs[k], rs->x, rs->out_w * sizeof(*rs->x));
        if (!err) err = vmaf_gpu_const(l, &q->ys[k], rs->y, rs->out_h * sizeof(*rs->y));
    }
    if (!err)
        err = vmaf_gpu_const(l, &q->active, s->params.active, sizeof(s->params.active));
    if (!err)
        err = vmaf_gpu_const(l, &q->weight, s->params.weight, sizeof(s->params.weight));
    if (!err) err = vmaf_gpu_const(l, &q->rcp, s->params.rcp, sizeof(s->params.rcp));
    if (!err)
        err = vmaf_gpu_kernel(l, &program, g->bpc == 8 ? "cambi_k_load_u8" : "cambi_k_load_u16",
                              &q->k_load);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_range", &q->k_range);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_mask_cols", &q->k_cols);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_mask_rows", &q->k_rows);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_decimate", &q->k_decimate);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_mode", &q->k_mode);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_c_values", &q->k_c_values);
    return err;
}

/* The c-values of picture k (0 dist, 1 ref) into q->c at c_base floats. */
static int picture_c_values(const CambiState *s, const CambiGpu *g, CambiLane *q,
                            VmafGpuLane *l, const VmafGpuFrame *fr, unsigned k, size_t c_base)
{
    const CambiPic *cp = &g->pic[k];
    VmafGpuPtr raw, c = vmaf_gpu_at(q->c, c_base * sizeof(float));
    int err = vmaf_gpu_plane(fr, k ? VMAF_GPU_REF : VMAF_GPU_DIST, 0, &raw);
    int pw = (int)g->pic_w, ph = (int)g->pic_h, p = (int)g->pitch;
    if (!err && g->bpc > 8 && g->bpc < 16) {
        VmafGpuPtr flag = vmaf_gpu_at(q->flag, k * sizeof(uint32_t));
        unsigned max = (1u << g->bpc) - 1;
        VmafGpuArg a[] = { VMAF_GPU_ARG(raw), VMAF_GPU_ARG(pw), VMAF_GPU_ARG(ph),
                           VMAF_GPU_ARG(max), VMAF_GPU_ARG(flag) };
        err = vmaf_gpu_launch(l, q->k_range, g->pic_w, g->pic_h, 1, 32, 8, a);
    }
    if (!err) err = vmaf_gpu_memset(l, c, cp->c_count * sizeof(float));
    if (err || g->empty_band) return err;

    int w = (int)cp->g->w, h = (int)cp->g->h, bpc = (int)g->bpc, ad = s->antidither;
    {
        VmafGpuArg a[] = { VMAF_GPU_ARG(raw), VMAF_GPU_ARG(pw), VMAF_GPU_ARG(q->xs[k]),
                           VMAF_GPU_ARG(q->ys[k]), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                           VMAF_GPU_ARG(bpc), VMAF_GPU_ARG(ad), VMAF_GPU_ARG(q->img[0]),
                           VMAF_GPU_ARG(p) };
        err = vmaf_gpu_launch(l, q->k_load, (unsigned)w, (unsigned)h, 1, 32, 8, a);
    }
    if (!err) {
        VmafGpuArg a[] = { VMAF_GPU_ARG(q->img[0]), VMAF_GPU_ARG(p), VMAF_GPU_ARG(w),
                           VMAF_GPU_ARG(h), VMAF_GPU_ARG(q->cs) };
        err = vmaf_gpu_launch(l, q->k_cols, (unsigned)w, (unsigned)h, 1, 32, 8, a);
    }
    if (!err) {
        unsigned thr = cambi_mask_threshold((unsigned)w, (unsigned)h);
        VmafGpuArg a[] = { VMAF_GPU_ARG(q->cs), VMAF_GPU_ARG(p), VMAF_GPU_ARG(w),
                           VMAF_GPU_ARG(h), VMAF_GPU_ARG(thr), VMAF_GPU_ARG(q->mask[0]) };
        err = vmaf_gpu_launch(l, q->k_rows, (unsigned)w, (unsigned)h, 1, 32, 8, a);
    }
    /* img[cur] holds the current scale's luma, mask[cm] its mask. */
    unsigned cur = 0, cm = 0;
    int band_lo = s->params.band_lo, band_size = s->params.band_hi - s->params.band_lo + 1;
    int pad = (int)(cp->g->window >> 1), rows = CV_ROWS, nd = s->params.num_diffs;
    for (int sc = 0; sc < CAMBI_NUM_SCALES && !err; sc++) {
        w = (int)cp->w[sc];
        h = (int)cp->h[sc];
        if (sc > 0 || s->hrs) {
            VmafGpuArg a[] = { VMAF_GPU_ARG(q->img[cur]), VMAF_GPU_ARG(q->mask[cm]),
                               VMAF_GPU_ARG(p), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                               VMAF_GPU_ARG(q->img[cur ^ 1]), VMAF_GPU_ARG(q->mask[cm ^ 1]) };
            err = vmaf_gpu_launch(l, q->k_decimate, (unsigned)w, (unsigned)h, 1, 32, 8, a);
            cur ^= 1;
            cm ^= 1;
        }
        if (!err) {
            VmafGpuArg a[] = { VMAF_GPU_ARG(q->img[cur]), VMAF_GPU_ARG(q->mask[cm]),
                               VMAF_GPU_ARG(p), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                               VMAF_GPU_ARG(band_lo), VMAF_GPU_ARG(band_size),
                               VMAF_GPU_ARG(q->img[cur ^ 1]), VMAF_GPU_ARG(q->band) };
            err = vmaf_gpu_launch(l, q->k_mode, (unsigned)w, (unsigned)h, 1, 32, 8, a);
            cur ^= 1;
        }
        if (!err) {
            VmafGpuPtr cs = vmaf_gpu_at(c, cp->c_off[sc] * sizeof(float));
            VmafGpuArg a[] = { VMAF_GPU_ARG(q->band), VMAF_GPU_ARG(p), VMAF_GPU_ARG(w),
                               VMAF_GPU_ARG(h), VMAF_GPU_ARG(pad), VMAF_GPU_ARG(rows),
                               VMAF_GPU_ARG(band_lo), VMAF_GPU_ARG(nd),
                               VMAF_GPU_ARG(q->active), VMAF_GPU_ARG(q->weight),
                               VMAF_GPU_ARG(q->rcp), VMAF_GPU_ARG(cs) };
            const unsigned strips = ((unsigned)w + CAMBI_CV_COLS - 1) / CAMBI_CV_COLS;
            const unsigned segs = ((unsigned)h + CV_ROWS - 1) / CV_ROWS;
            err = vmaf_gpu_launch(l, q->k_c_values, strips * CAMBI_CV_COLS, segs, 1,
                                  CAMBI_CV_COLS, 1, a);
        }
    }
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CambiState *s = fex->priv;
    const CambiGpu *g = fex->twin_priv;
    CambiLane *q = lp;
    VmafGpuLane *l = fr->lane;
    const size_t c_count = g->pic[0].c_count + (g->n_pic > 1 ? g->pic[1].c_count : 0);
    int err = vmaf_gpu_memset(l, q->flag, 2 * sizeof(uint32_t));
    for (unsigned k = 0; k < g->n_pic && !err; k++)
        err = picture_c_values(s, g, q, l, fr, k, k ? g->pic[0].c_count : 0);
    if (!err) err = vmaf_gpu_download(l, q->h_c, q->c, c_count * sizeof(float));
    if (!err) err = vmaf_gpu_download(l, q->h_flag, q->flag, 2 * sizeof(uint32_t));
    return err;
}

/* The CPU path's conclusion of picture k from its c-values (pooled in place). */
static int picture_score(const CambiState *s, const CambiGpu *g, const CambiLane *q,
                         unsigned k, double *score)
{
    if (q->h_flag[k]) return cambi_range_error(g->bpc);
    const CambiPic *cp = &g->pic[k];
    float *c = q->h_c + (k ? g->pic[0].c_count : 0);
    double scale_score[CAMBI_NUM_SCALES];
    for (int sc = 0; sc < CAMBI_NUM_SCALES; sc++)
        scale_score[sc] = cambi_pool_scale(c + cp->c_off[sc], (int)(cp->w[sc] * cp->h[sc]),
                                           s->pool_topk);
    *score = cambi_conclude(scale_score, cp->g->window);
    return 0;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CambiState *s = fex->priv;
    const CambiGpu *g = fex->twin_priv;
    const CambiLane *q = lp;
    double dist_score = 0.0, src_score = 0.0;
    int err = picture_score(s, g, q, 0, &dist_score);
    if (!err) err = cambi_emit_dist(fex, s, dist_score, fr->index);
    if (err || g->n_pic < 2) return err;
    err = picture_score(s, g, q, 1, &src_score);
    if (!err) err = cambi_emit_src(fex, s, dist_score, src_score, fr->index);
    return err;
}

const VmafFexTwin vmaf_fex_cambi_gpu = {
    .program = &program,
    .priv_size = sizeof(CambiGpu),
    .lane_size = sizeof(CambiLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
