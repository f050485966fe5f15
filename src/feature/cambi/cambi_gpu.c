/*
 * cambi's GPU twin (one kernel text for CUDA and OpenCL, cambi_kernels.h):
 * host side, in the GPU frame pipeline. Per picture the kernels take the
 * luma to the c-values of the five scales and pool each scale; the host
 * concludes with cambi_conclude().
 *
 * Pooling. The reference adds the top k c-values in fp64 in the order its
 * quickselect leaves them. The GPU finds the k-th largest value T and the
 * exact integer sum (units of 2^-24) of the top-k multiset, and the
 * coarsest power of two 2^z units dividing every one of them. When that
 * sum is below 2^(53 + z) units, every partial sum in any order is a
 * multiple of 2^z units below 2^53 of them: exactly representable, so no
 * addition of the reference's rounds and its sum is this one, whatever its
 * order. Otherwise (a heavily banded frame, at 4K and up) the host reads
 * the scale's c-values back and pools them with the CPU path's
 * cambi_pool_scale(), the reference's order and all.
 *
 * Declined, the CPU runs the instance, where a scale is narrower than half
 * the window: the reference then counts columns past the scale's width,
 * left there by earlier scales in its in-place buffers.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cambi_state.h"
#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

VMAF_GPU_PROGRAM_DECLARE(cambi);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(cambi);

/* Rows of a scale per group of the c-value kernel: a group fills its
 * window for 2 * pad + 1 rows first, so taller segments waste less; shorter
 * ones make more groups, and a shorter serial chain, on small scales. */
#define CV_ROWS_MIN 16
#define CV_ROWS_MAX 64

/** One picture kind (0 dist at the encode size, 1 ref at the source size). */
typedef struct CambiPic {
    const CambiGeometry *g;
    unsigned w[CAMBI_NUM_SCALES], h[CAMBI_NUM_SCALES];
    size_t c_off[CAMBI_NUM_SCALES];   /**< floats before each scale's c-values */
    size_t c_count;                   /**< floats of all scales */
    int k[CAMBI_NUM_SCALES];          /**< c-values pooled per scale */
    /** Per scale: offset, count and k, the pooling kernel's groups. */
    uint32_t meta[3 * CAMBI_NUM_SCALES];
    bool gpu_pool;                    /**< sums fit the kernel's 64-bit integers */
} CambiPic;

typedef struct CambiGpu {
    unsigned bpc, pic_w, pic_h, n_pic;
    unsigned pitch, alloc_h;
    bool empty_band;                  /**< nothing visible: every c-value is +0 */
    CambiPic pic[2];
    /* Scale means pooled on the GPU and on the host (by the workers' prepare). */
    atomic_ullong pooled_gpu, pooled_host;
} CambiGpu;

typedef struct CambiLane {
    VmafGpuPtr img[2], mask, cs, band, c;
    VmafGpuPtr xs[2], ys[2], active, weight, rcp, meta[2], pool;
    uint32_t *h_pool;       /**< the pooling states, read back */
    /* prepare's results for conclude: each picture's score, or its error. */
    double score[2];
    int score_err[2];
    VmafGpuKernel *k_load, *k_range, *k_cols, *k_rows, *k_mode, *k_c_values,
        *k_pool_hist, *k_pool_sum;
} CambiLane;

/* The pooling state of one picture's five scales (cambi_kernels.h). */
#define POOL_BYTES ((size_t)CAMBI_NUM_SCALES * CAMBI_POOL_STRIDE * sizeof(uint32_t))

static bool narrow(const CambiGeometry *g, bool hrs)
{
    unsigned w = g->w;
    for (int s = 0; s < CAMBI_NUM_SCALES; s++) {
        if (s > 0 || hrs) w = (w + 1) >> 1;
        if (w < (g->window >> 1)) return true;
    }
    return false;
}

static void scales(CambiPic *p, const CambiGeometry *g, bool hrs, double topk)
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
        p->k[s] = cambi_topk_count(topk, (int)(w * h));
        p->meta[3 * s] = (uint32_t)off;
        p->meta[3 * s + 1] = w * h;
        p->meta[3 * s + 2] = (uint32_t)p->k[s];
        off += (size_t)w * h;
    }
    p->c_count = off;
    /* cambi_pool_units(): unit counts below 2^38, at most 2^25 of them. */
    p->gpu_pool = (size_t)g->w * g->h <= (size_t)1 << 25;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
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
    scales(&g->pic[0], &s->enc, s->hrs, s->pool_topk);
    if (s->full_ref) scales(&g->pic[1], &s->src, s->hrs, s->pool_topk);
    const unsigned aw = g->n_pic > 1 && s->src.w > s->enc.w ? s->src.w : s->enc.w;
    g->alloc_h = g->n_pic > 1 && s->src.h > s->enc.h ? s->src.h : s->enc.h;
    g->pitch = (aw + 63) & ~63u;
    vmaf_gpu_use_plane(needs, s->full_ref ? 3 : 2, 0);
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
    for (int k = 0; k < 2 && !err; k++) err = vmaf_gpu_alloc(l, &q->img[k], px * sizeof(uint16_t));
    if (!err) err = vmaf_gpu_alloc(l, &q->mask, px);
    if (!err) err = vmaf_gpu_alloc(l, &q->cs, px);
    if (!err) err = vmaf_gpu_alloc(l, &q->band, px * sizeof(uint16_t));
    if (!err) err = vmaf_gpu_alloc(l, &q->c, c_count * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->pool, 2 * POOL_BYTES);
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_pool, 2 * POOL_BYTES);
    for (unsigned k = 0; k < g->n_pic && !err; k++) {
        const CambiResample *rs = &g->pic[k].g->rs;
        /* unsigned is the kernels' uint32_t. */
        err = vmaf_gpu_const(l, &q->xs[k], rs->x, rs->out_w * sizeof(*rs->x));
        if (!err) err = vmaf_gpu_const(l, &q->ys[k], rs->y, rs->out_h * sizeof(*rs->y));
        if (!err) err = vmaf_gpu_const(l, &q->meta[k], g->pic[k].meta, sizeof(g->pic[k].meta));
    }
    if (!err) {
        /* Read at every band value: up to band_hi, which can pass 1024 (the
         * largest 10-bit luma) by num_diffs; the values past 1024 come only
         * from a picture the range check refuses, and are never active. */
        uint32_t active[1024 + CAMBI_MAX_DIFFS + 1] = { 0 };
        memcpy(active, s->params.active, sizeof(s->params.active));
        err = vmaf_gpu_const(l, &q->active, active, sizeof(active));
    }
    if (!err)
        err = vmaf_gpu_const(l, &q->weight, s->params.weight, sizeof(s->params.weight));
    if (!err) err = vmaf_gpu_const(l, &q->rcp, s->params.rcp, sizeof(s->params.rcp));
    if (!err)
        err = vmaf_gpu_kernel(l, &program, g->bpc == 8 ? "cambi_k_load_u8" : "cambi_k_load_u16",
                              &q->k_load);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_range", &q->k_range);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_mask_cols", &q->k_cols);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_mask_rows", &q->k_rows);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_mode", &q->k_mode);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_c_values", &q->k_c_values);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_pool_hist", &q->k_pool_hist);
    if (!err) err = vmaf_gpu_kernel(l, &program, "cambi_k_pool_sum", &q->k_pool_sum);
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
        VmafGpuPtr flag = vmaf_gpu_at(q->pool, k * POOL_BYTES + CAMBI_POOL_RANGE * sizeof(uint32_t));
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
                           VMAF_GPU_ARG(h), VMAF_GPU_ARG(thr), VMAF_GPU_ARG(q->mask) };
        err = vmaf_gpu_launch(l, q->k_rows, (unsigned)w, (unsigned)h, 1, 32, 8, a);
    }
    /* img[cur]: the previous scale's filtered luma (the loaded one first),
     * read with `step`; the mask of scale sc is every mstep-th sample. */
    unsigned cur = 0;
    int band_lo = s->params.band_lo, band_size = s->params.band_hi - s->params.band_lo + 1;
    int pad = (int)(cp->g->window >> 1), nd = s->params.num_diffs;
    for (int sc = 0; sc < CAMBI_NUM_SCALES && !err; sc++) {
        w = (int)cp->w[sc];
        h = (int)cp->h[sc];
        int step = sc > 0 || s->hrs ? 2 : 1, mstep = 1 << (sc + (s->hrs ? 1 : 0));
        VmafGpuArg a[] = { VMAF_GPU_ARG(q->img[cur]), VMAF_GPU_ARG(step), VMAF_GPU_ARG(q->mask),
                           VMAF_GPU_ARG(mstep), VMAF_GPU_ARG(p), VMAF_GPU_ARG(w),
                           VMAF_GPU_ARG(h), VMAF_GPU_ARG(band_lo), VMAF_GPU_ARG(band_size),
                           VMAF_GPU_ARG(q->img[cur ^ 1]), VMAF_GPU_ARG(q->band) };
        err = vmaf_gpu_launch(l, q->k_mode, (unsigned)w, (unsigned)h, 1, 32, 8, a);
        cur ^= 1;
        if (!err) {
            int rows = h / 8 < CV_ROWS_MIN ? CV_ROWS_MIN : h / 8 > CV_ROWS_MAX ? CV_ROWS_MAX : h / 8;
            VmafGpuPtr cs = vmaf_gpu_at(c, cp->c_off[sc] * sizeof(float));
            VmafGpuArg a[] = { VMAF_GPU_ARG(q->band), VMAF_GPU_ARG(p), VMAF_GPU_ARG(w),
                               VMAF_GPU_ARG(h), VMAF_GPU_ARG(pad), VMAF_GPU_ARG(rows),
                               VMAF_GPU_ARG(band_lo), VMAF_GPU_ARG(nd),
                               VMAF_GPU_ARG(q->active), VMAF_GPU_ARG(q->weight),
                               VMAF_GPU_ARG(q->rcp), VMAF_GPU_ARG(cs) };
            const unsigned strips = ((unsigned)w + CAMBI_CV_COLS - 1) / CAMBI_CV_COLS;
            const unsigned segs = ((unsigned)h + (unsigned)rows - 1) / (unsigned)rows;
            err = vmaf_gpu_launch(l, q->k_c_values, strips * CAMBI_CV_COLS, segs, 1,
                                  CAMBI_CV_COLS, 1, a);
        }
    }
    return err;
}

/* The select and the sums of picture k's scales (cambi_kernels.h's pooling). */
static int pool(const CambiGpu *g, CambiLane *q, VmafGpuLane *l, unsigned k, size_t base)
{
    VmafGpuPtr c = vmaf_gpu_at(q->c, base * sizeof(float));
    VmafGpuPtr st = vmaf_gpu_at(q->pool, k * POOL_BYTES);
    /* Groups along x over scale 0's chunks (the largest scale); one row per scale. */
    const unsigned groups =
        (unsigned)((g->pic[k].meta[1] + CAMBI_POOL_CHUNK - 1) / CAMBI_POOL_CHUNK);
    int err = 0;
    for (int pass = 0; pass < 3 && !err; pass++) {
        VmafGpuArg a[] = { VMAF_GPU_ARG(c), VMAF_GPU_ARG(q->meta[k]), VMAF_GPU_ARG(pass),
                           VMAF_GPU_ARG(st) };
        err = vmaf_gpu_launch(l, q->k_pool_hist, groups * CAMBI_POOL_ITEMS, CAMBI_NUM_SCALES, 1,
                              CAMBI_POOL_ITEMS, 1, a);
    }
    VmafGpuArg a[] = { VMAF_GPU_ARG(c), VMAF_GPU_ARG(q->meta[k]), VMAF_GPU_ARG(st) };
    if (!err)
        err = vmaf_gpu_launch(l, q->k_pool_sum, groups * CAMBI_POOL_ITEMS, CAMBI_NUM_SCALES, 1,
                              CAMBI_POOL_ITEMS, 1, a);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CambiState *s = fex->priv;
    const CambiGpu *g = fex->twin_priv;
    CambiLane *q = lp;
    VmafGpuLane *l = fr->lane;
    /* Every state zeroed once: the range check's count, then the pooling. */
    int err = vmaf_gpu_memset(l, q->pool, g->n_pic * POOL_BYTES);
    for (unsigned k = 0; k < g->n_pic && !err; k++) {
        const size_t base = k ? g->pic[0].c_count : 0;
        err = picture_c_values(s, g, q, l, fr, k, base);
        if (!err) err = pool(g, q, l, k, base);
    }
    if (!err) err = vmaf_gpu_download(l, q->h_pool, q->pool, g->n_pic * POOL_BYTES);
    return err;
}

/*
 * The top-k sum of one scale from the pooling kernel's result o (see the
 * top of this file): true with *sum the reference's, or false when the
 * reference's additions could round there.
 */
static bool gpu_sum(const uint32_t *o, int k, double *sum)
{
    const uint32_t tkey = o[CAMBI_POOL_T], above = o[CAMBI_POOL_COUNT];
    uint64_t total = o[CAMBI_POOL_SUM] | (uint64_t)o[CAMBI_POOL_SUM + 1] << 32;
    uint32_t tz = 64;
    for (uint32_t z = 0; z < 64; z++)
        if (o[CAMBI_POOL_TZ + z]) {
            tz = z;
            break;
        }
    if (o[CAMBI_POOL_SMALL]) return false;
    const uint32_t copies = (uint32_t)k - above;   /* of T, among the top k */
    if (copies && tkey) {
        if (tkey < 0x3f000000u) return false;      /* T below 0.5 */
        const uint64_t u = cambi_pool_units(tkey);
        total += copies * u;
        const uint32_t z = cambi_pool_tz(u);
        tz = z < tz ? z : tz;
    }
    if (total && total >> tz >= (uint64_t)1 << 53) return false;
    *sum = ldexp((double)total, -24);
    return true;
}

/* The CPU path's conclusion of picture k from the pooling results. */
static int picture_score(const CambiState *s, CambiGpu *g, CambiLane *q,
                         const VmafGpuFrame *fr, unsigned k, double *score)
{
    if (q->h_pool[k * CAMBI_NUM_SCALES * CAMBI_POOL_STRIDE + CAMBI_POOL_RANGE])
        return cambi_range_error(g->bpc);
    const CambiPic *cp = &g->pic[k];
    const size_t base = k ? g->pic[0].c_count : 0;
    double scale_score[CAMBI_NUM_SCALES];
    for (int sc = 0; sc < CAMBI_NUM_SCALES; sc++) {
        const uint32_t *o = q->h_pool + (k * CAMBI_NUM_SCALES + sc) * CAMBI_POOL_STRIDE;
        double sum;
        if (cp->gpu_pool && gpu_sum(o, cp->k[sc], &sum)) {
            scale_score[sc] = cambi_topk_mean(sum, cp->k[sc]);
            atomic_fetch_add(&g->pooled_gpu, 1);
            continue;
        }
        /* Rare (see the top of this file): the scale's c-values in ordinary
         * memory for this pooling only, not pinned in every lane. */
        const size_t n = (size_t)cp->w[sc] * cp->h[sc];
        float *c = malloc(n * sizeof(float));
        if (!c) return -ENOMEM;
        const int err = vmaf_gpu_read(fr, c, vmaf_gpu_at(q->c, (base + cp->c_off[sc]) * sizeof(float)),
                                      n * sizeof(float));
        if (!err) scale_score[sc] = cambi_pool_scale(c, (int)n, s->pool_topk);
        free(c);
        if (err) return err;
        atomic_fetch_add(&g->pooled_host, 1);
    }
    *score = cambi_conclude(scale_score, cp->g->window);
    return 0;
}

/* On a worker: both pictures' scores (a host pooling where needed). */
static int prepare(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CambiState *s = fex->priv;
    CambiGpu *g = fex->twin_priv;
    CambiLane *q = lp;
    for (unsigned k = 0; k < g->n_pic; k++)
        q->score_err[k] = picture_score(s, g, q, fr, k, &q->score[k]);
    return 0;
}

/* In frame order: the CPU path's emission, and its errors where it has them. */
static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CambiState *s = fex->priv;
    const CambiGpu *g = fex->twin_priv;
    const CambiLane *q = lp;
    int err = q->score_err[0];
    if (!err) err = cambi_emit_dist(fex, s, q->score[0], fr->index);
    if (err || g->n_pic < 2) return err;
    err = q->score_err[1];
    if (!err) err = cambi_emit_src(fex, s, q->score[0], q->score[1], fr->index);
    return err;
}

static void twin_close(VmafFex *fex)
{
    const CambiGpu *g = fex->twin_priv;
    const unsigned long long host = g ? atomic_load(&g->pooled_host) : 0;
    if (host)
        vmaf_log(VMAF_LOG_LEVEL_INFO, "cambi: %llu of %llu scale means pooled on the host "
                 "(their top-k sums could round)", host, host + atomic_load(&g->pooled_gpu));
}

const VmafFexTwin vmaf_fex_cambi_gpu = {
    .program = &program,
    .priv_size = sizeof(CambiGpu),
    .lane_size = sizeof(CambiLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .prepare = prepare,
    .conclude = conclude,
    .close = twin_close,
};
