/*
 * SpEED's GPU twins, speed_chroma and speed_temporal (one kernel text for
 * CUDA and OpenCL, speed_kernels.h): host side, in the GPU frame pipeline.
 * Per frame the kernels take each plane SpEED estimates (speed_chroma: U
 * and V of the reference and of the distorted picture; speed_temporal: the
 * previous minus the current luma of each) through the prescale, the
 * anti-alias filter and decimation, the local-mean removal, the submatrix
 * means and the covariance sums; the decimated planes and the sums come
 * back and the CPU path's speed_core_conclude_sums() (eigenvalues, linear
 * solve, libm entropies) and speed_core_score() finish the frame, emitted
 * by the CPU path's functions.
 */
#include <errno.h>
#include <string.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "speed_core.h"
#include "speed_gpu.h"
#include "speed_state.h"

VMAF_GPU_PROGRAM_DECLARE(speed);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(speed);

/* Pictures estimated per frame: U ref, U dist, V ref, V dist (speed_chroma);
 * ref and dist differences (speed_temporal). */
#define SPEED_PICS 4

typedef struct SpeedGpu {
    int w, h, sw, sh, ow, oh, subw, subh;
    bool scaled;
    int n_pics;             /**< SPEED_PICS or 2 */
    bool use_ref_diff;      /**< speed_temporal's option */
    unsigned next_index;    /**< speed_temporal: frames come in order */
} SpeedGpu;

/** One frame in flight. */
typedef struct SpeedLane {
    VmafGpuPtr aa, lm, xi, xw, yi, yw;     /**< filters and prescale tables */
    VmafGpuPtr spl, vert, dec, tmp, mean;  /**< scratch, every picture's side by side */
    VmafGpuPtr out, cov;                   /**< every picture's, side by side */
    VmafGpuPtr cur[2];                     /**< speed_temporal: this frame's luma, ref and dist */
    VmafGpuPtr diff;                       /**< speed_temporal: previous - current */
    float *h_out;
    ev_d *h_cov;
    VmafGpuKernel *k_pre, *k_v, *k_h, *k_mean, *k_cov, *k_diff;
    /* prepare's copy of the estimator for its host steps, and its results. */
    SpeedCore core;
    float score[2];
    bool singular[2];
} SpeedLane;

/* The instance's estimator: speed_chroma's or speed_temporal's. */
static SpeedCore *core_of(VmafFex *fex)
{
    if (fex->desc->gpu == &vmaf_fex_speed_chroma_gpu)
        return &((SpeedChromaState *)fex->priv)->core;
    return &((SpeedTemporalState *)fex->priv)->core;
}

static void geometry(SpeedGpu *g, const SpeedCore *c, int n_pics)
{
    g->n_pics = n_pics;
    g->w = c->w;
    g->h = c->h;
    g->sw = c->sw;
    g->sh = c->sh;
    g->ow = c->ow;
    g->oh = c->oh;
    g->subw = c->subw;
    g->subh = c->subh;
    g->scaled = c->scaled;
}

static int chroma_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                       unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    SpeedGpu *g = fex->twin_priv;
    (void)pix_fmt;
    (void)bpc;
    (void)w;
    (void)h;
    geometry(g, core_of(fex), SPEED_PICS);
    int err = vmaf_gpu_use_float(needs, 3, 1, SPEED_OFFSET);
    if (!err) err = vmaf_gpu_use_float(needs, 3, 2, SPEED_OFFSET);
    return err;
}

static int temporal_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                         unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const SpeedTemporalState *s = fex->priv;
    SpeedGpu *g = fex->twin_priv;
    (void)pix_fmt;
    (void)bpc;
    (void)w;
    (void)h;
    geometry(g, &s->core, 2);
    g->next_index = 0;
    g->use_ref_diff = s->speed_use_ref_diff;
    vmaf_gpu_use_history(needs, 1);
    return vmaf_gpu_use_float(needs, 3, 0, SPEED_OFFSET);
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const SpeedGpu *g = fex->twin_priv;
    const SpeedCore *c = core_of(fex);
    const bool temporal = fex->desc->gpu == &vmaf_fex_speed_temporal_gpu;
    SpeedLane *q = lp;
    const size_t dec = (size_t)g->ow * g->oh;
    int err = vmaf_gpu_const(l, &q->aa, c->aa, sizeof(float) * (size_t)c->aa_n);
    if (!err) err = vmaf_gpu_const(l, &q->lm, c->lm, sizeof(float) * (size_t)c->lm_n);
    if (!err && g->scaled) {
        err = vmaf_gpu_const(l, &q->xi, c->ax.idx, sizeof(int) * (size_t)g->sw * c->ax.taps);
        if (!err)
            err = vmaf_gpu_const(l, &q->xw, c->ax.wt, sizeof(float) * (size_t)g->sw * c->ax.taps);
        if (!err)
            err = vmaf_gpu_const(l, &q->yi, c->ay.idx, sizeof(int) * (size_t)g->sh * c->ay.taps);
        if (!err)
            err = vmaf_gpu_const(l, &q->yw, c->ay.wt, sizeof(float) * (size_t)g->sh * c->ay.taps);
        if (!err)
            err = vmaf_gpu_alloc(l, &q->spl, sizeof(float) * (size_t)g->sw * g->sh * g->n_pics);
    }
    const size_t np = (size_t)g->n_pics;
    if (!err) err = vmaf_gpu_alloc(l, &q->vert, sizeof(float) * (size_t)g->sw * g->oh * np);
    if (!err) err = vmaf_gpu_alloc(l, &q->dec, sizeof(float) * dec * np);
    if (!err) err = vmaf_gpu_alloc(l, &q->tmp, sizeof(float) * dec * np);
    if (!err) err = vmaf_gpu_alloc(l, &q->mean, sizeof(float) * SPEED_N * np);
    if (!err) err = vmaf_gpu_alloc(l, &q->out, sizeof(float) * dec * np);
    if (!err) err = vmaf_gpu_alloc(l, &q->cov, sizeof(ev_d) * SPEED_COV_TRI * np);
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_out, sizeof(float) * dec * np);
    if (!err)
        err = vmaf_gpu_alloc_host(l, (void **)&q->h_cov, sizeof(ev_d) * SPEED_COV_TRI * np);
    if (!err) err = vmaf_gpu_kernel(l, &program, "speed_k_prescale", &q->k_pre);
    if (!err) err = vmaf_gpu_kernel(l, &program, "speed_k_vtaps", &q->k_v);
    if (!err) err = vmaf_gpu_kernel(l, &program, "speed_k_htaps", &q->k_h);
    if (!err) err = vmaf_gpu_kernel(l, &program, "speed_k_means", &q->k_mean);
    if (!err) err = vmaf_gpu_kernel(l, &program, "speed_k_cov", &q->k_cov);
    void *scratch = NULL;
    if (!err) err = vmaf_gpu_alloc_host(l, &scratch, speed_core_conclusion_bytes(c));
    if (!err) speed_core_conclusion_bind(c, &q->core, scratch);
    if (temporal) {
        /* cur: the pipeline's float planes' pitch; diff: compact. */
        const size_t plane = sizeof(float) * vmaf_gpu_pitch_floats((unsigned)g->w) * g->h;
        for (int i = 0; i < 2 && !err; i++) err = vmaf_gpu_alloc(l, &q->cur[i], plane);
        if (!err) err = vmaf_gpu_alloc(l, &q->diff, sizeof(float) * (size_t)g->w * g->h * 2);
        if (!err) err = vmaf_gpu_kernel(l, &program, "speed_k_diff", &q->k_diff);
    }
    return err;
}

/*
 * The pictures' slots of buf, `floats` each, as the filter kernels take
 * their four inputs (the slots past n_pics repeat the first: never read).
 */
static void slots(const SpeedGpu *g, VmafGpuPtr buf, size_t floats, VmafGpuPtr out[SPEED_PICS])
{
    for (int e = 0; e < SPEED_PICS; e++)
        out[e] = vmaf_gpu_at(buf, sizeof(float) * floats * (size_t)(e < g->n_pics ? e : 0));
}

/*
 * Every picture's filters, side by side (grid z): src[e] is picture e's
 * plane (pitch floats per row), the results go to out, picture after
 * picture.
 */
static int estimate(const SpeedGpu *g, const SpeedCore *c, SpeedLane *q, VmafGpuLane *l,
                    const VmafGpuPtr src[SPEED_PICS], int pitch)
{
    const unsigned np = (unsigned)g->n_pics;
    int err = 0;
    VmafGpuPtr s[SPEED_PICS];
    for (int e = 0; e < SPEED_PICS; e++) s[e] = src[e < g->n_pics ? e : 0];
    int sp = pitch;
    if (g->scaled) {
        int method = (int)c->method, sw = g->sw, sh = g->sh, xt = c->ax.taps, yt = c->ay.taps;
        VmafGpuArg a[] = { VMAF_GPU_ARG(s[0]), VMAF_GPU_ARG(s[1]), VMAF_GPU_ARG(s[2]),
                           VMAF_GPU_ARG(s[3]), VMAF_GPU_ARG(pitch), VMAF_GPU_ARG(method),
                           VMAF_GPU_ARG(sw),    VMAF_GPU_ARG(sh),    VMAF_GPU_ARG(q->xi),
                           VMAF_GPU_ARG(q->xw), VMAF_GPU_ARG(xt),    VMAF_GPU_ARG(q->yi),
                           VMAF_GPU_ARG(q->yw), VMAF_GPU_ARG(yt),    VMAF_GPU_ARG(q->spl) };
        err = vmaf_gpu_launch(l, q->k_pre, (unsigned)sw, (unsigned)sh, np, 32, 8, a);
        slots(g, q->spl, (size_t)sw * sh, s);
        sp = g->sw;
    }
    /* Anti-alias filter at rows 16i (all columns), then at columns 16j. */
    int sw = g->sw, sh = g->sh, n = c->aa_n, sixteen = 16, one = 1, ow = g->ow, oh = g->oh;
    int no = 0, yes = 1;
    VmafGpuArg va[] = { VMAF_GPU_ARG(s[0]), VMAF_GPU_ARG(s[1]),  VMAF_GPU_ARG(s[2]),
                        VMAF_GPU_ARG(s[3]), VMAF_GPU_ARG(sp),    VMAF_GPU_ARG(sw),
                        VMAF_GPU_ARG(sh),   VMAF_GPU_ARG(q->aa), VMAF_GPU_ARG(n),
                        VMAF_GPU_ARG(sixteen), VMAF_GPU_ARG(oh), VMAF_GPU_ARG(q->vert) };
    if (!err) err = vmaf_gpu_launch(l, q->k_v, (unsigned)sw, (unsigned)oh, np, 32, 8, va);
    VmafGpuArg ha[] = { VMAF_GPU_ARG(q->vert), VMAF_GPU_ARG(sw), VMAF_GPU_ARG(q->aa),
                        VMAF_GPU_ARG(n),       VMAF_GPU_ARG(sixteen), VMAF_GPU_ARG(ow),
                        VMAF_GPU_ARG(oh),      VMAF_GPU_ARG(q->dec), VMAF_GPU_ARG(no),
                        VMAF_GPU_ARG(q->dec) };
    if (!err) err = vmaf_gpu_launch(l, q->k_h, (unsigned)ow, (unsigned)oh, np, 32, 8, ha);
    /* Local mean: vertical then horizontal taps, subtracted. */
    int ln = c->lm_n;
    VmafGpuPtr d[SPEED_PICS];
    slots(g, q->dec, (size_t)ow * oh, d);
    VmafGpuArg lva[] = { VMAF_GPU_ARG(d[0]), VMAF_GPU_ARG(d[1]),  VMAF_GPU_ARG(d[2]),
                         VMAF_GPU_ARG(d[3]), VMAF_GPU_ARG(ow),    VMAF_GPU_ARG(ow),
                         VMAF_GPU_ARG(oh),   VMAF_GPU_ARG(q->lm), VMAF_GPU_ARG(ln),
                         VMAF_GPU_ARG(one),  VMAF_GPU_ARG(oh),    VMAF_GPU_ARG(q->tmp) };
    if (!err) err = vmaf_gpu_launch(l, q->k_v, (unsigned)ow, (unsigned)oh, np, 32, 8, lva);
    VmafGpuArg lha[] = { VMAF_GPU_ARG(q->tmp), VMAF_GPU_ARG(ow), VMAF_GPU_ARG(q->lm),
                         VMAF_GPU_ARG(ln),     VMAF_GPU_ARG(one), VMAF_GPU_ARG(ow),
                         VMAF_GPU_ARG(oh),     VMAF_GPU_ARG(q->dec), VMAF_GPU_ARG(yes),
                         VMAF_GPU_ARG(q->out) };
    if (!err) err = vmaf_gpu_launch(l, q->k_h, (unsigned)ow, (unsigned)oh, np, 32, 8, lha);
    return err;
}

/*
 * The means, then the covariance sums of every picture, one serial chain
 * per item, all pictures at once; then everything the host steps read.
 */
static int sums(const SpeedGpu *g, SpeedLane *q, VmafGpuLane *l)
{
    int n = g->ow * g->oh, ow = g->ow, subw = g->subw, subh = g->subh;
    const unsigned np = (unsigned)g->n_pics;
    VmafGpuArg ma[] = { VMAF_GPU_ARG(q->out), VMAF_GPU_ARG(n), VMAF_GPU_ARG(ow),
                        VMAF_GPU_ARG(subw), VMAF_GPU_ARG(subh), VMAF_GPU_ARG(q->mean) };
    int err = vmaf_gpu_launch(l, q->k_mean, np * SPEED_MEAN_ITEMS, 1, 1, SPEED_MEAN_ITEMS, 1, ma);
    VmafGpuArg ca[] = { VMAF_GPU_ARG(q->out), VMAF_GPU_ARG(n), VMAF_GPU_ARG(ow),
                        VMAF_GPU_ARG(subw), VMAF_GPU_ARG(subh), VMAF_GPU_ARG(q->mean),
                        VMAF_GPU_ARG(q->cov) };
    if (!err) err = vmaf_gpu_launch(l, q->k_cov, np * SPEED_COV_ITEMS, 1, 1, 64, 1, ca);
    if (!err) err = vmaf_gpu_download(l, q->h_out, q->out, sizeof(float) * (size_t)n * np);
    if (!err)
        err = vmaf_gpu_download(l, q->h_cov, q->cov, sizeof(ev_d) * SPEED_COV_TRI * np);
    return err;
}

static int chroma_enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const SpeedGpu *g = fex->twin_priv;
    const SpeedCore *c = core_of(fex);
    SpeedLane *q = lp;
    int err = 0;
    VmafGpuPtr plane[SPEED_PICS];
    size_t pitch[SPEED_PICS];
    for (int e = 0; e < SPEED_PICS && !err; e++) {
        err = vmaf_gpu_plane_float(fr, e & 1 ? VMAF_GPU_DIST : VMAF_GPU_REF, 1 + (unsigned)e / 2,
                                   SPEED_OFFSET, &plane[e], &pitch[e]);
        /* U and V are one size: one pitch. */
        if (!err && pitch[e] != pitch[0]) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "speed_chroma: float plane pitches %zu and %zu differ",
                     pitch[0], pitch[e]);
            err = -EINVAL;
        }
    }
    if (!err) err = estimate(g, c, q, fr->lane, plane, (int)pitch[0]);
    return err ? err : sums(g, q, fr->lane);
}

/* Picture e's estimate from what came back, by the CPU path's host steps. */
static void finish(SpeedCore *c, const SpeedLane *q, int e, SpeedEstimate *out)
{
    const size_t n = (size_t)c->ow * c->oh;
    const ev_d *cov = q->h_cov + (size_t)e * SPEED_COV_TRI;
    memcpy(c->dec, q->h_out + (size_t)e * n, sizeof(float) * n);
    for (int x = 0; x < SPEED_N; x++)
        for (int y = 0; y <= x; y++) c->la.cov_sum[x][y] = cov[x * (x + 1) / 2 + y];
    speed_core_conclude_sums(c, out);
}

/* On a worker, in the lane's copy of the estimator: both planes' scores. */
static int chroma_prepare(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    SpeedLane *q = lp;
    SpeedCore *c = &q->core;
    (void)fex;
    (void)fr;
    for (int p = 0; p < 2; p++) {
        finish(c, q, 2 * p, &c->ref);
        finish(c, q, 2 * p + 1, &c->dis);
        q->score[p] = speed_core_score(c, &q->singular[p]);
    }
    return 0;
}

static int chroma_conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const SpeedLane *q = lp;
    return speed_chroma_emit(fex, q->score[0], q->score[1], q->singular[0], q->singular[1],
                             fr->index);
}

const VmafFexTwin vmaf_fex_speed_chroma_gpu = {
    .program = &program,
    .priv_size = sizeof(SpeedGpu),
    .lane_size = sizeof(SpeedLane),
    .init = chroma_init,
    .lane_init = lane_init,
    .enqueue = chroma_enqueue,
    .prepare = chroma_prepare,
    .conclude = chroma_conclude,
};

/* out = a - b over w x h (a, b: ap, bp floats per row; out compact). */
static int diff(const SpeedGpu *g, const SpeedLane *q, VmafGpuLane *l, VmafGpuPtr a, int ap,
                VmafGpuPtr b, int bp, VmafGpuPtr out)
{
    int w = g->w, h = g->h;
    VmafGpuArg a_[] = { VMAF_GPU_ARG(a), VMAF_GPU_ARG(ap), VMAF_GPU_ARG(b), VMAF_GPU_ARG(bp),
                        VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),  VMAF_GPU_ARG(out) };
    return vmaf_gpu_launch(l, q->k_diff, (unsigned)w, (unsigned)h, 1, 32, 8, a_);
}

/*
 * speed_temporal: this frame's luma (ref, dist) is kept in the lane for the
 * next frame; the previous frame's comes from its lane, or, at the start of
 * a device's block of frames, from the pictures the pipeline primed.
 */
static int temporal_enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    SpeedGpu *g = fex->twin_priv;
    const SpeedCore *c = core_of(fex);
    SpeedLane *q = lp;
    VmafGpuLane *l = fr->lane;
    if (fr->index != g->next_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_temporal: got frame %u, expected frame %u (frames must come in order)",
                 fr->index, g->next_index);
        return -EINVAL;
    }
    g->next_index++;
    const size_t fp = vmaf_gpu_pitch_floats((unsigned)g->w);
    int err = 0;
    for (int i = 0; i < 2 && !err; i++) {
        VmafGpuPtr cur;
        size_t pitch;
        err = vmaf_gpu_plane_float(fr, i ? VMAF_GPU_DIST : VMAF_GPU_REF, 0, SPEED_OFFSET, &cur,
                                   &pitch);
        if (!err && pitch != fp) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "speed_temporal: float plane pitch %zu, expected %zu",
                     pitch, fp);
            err = -EINVAL;
        }
        /* Kept for the next frame: the lane's float planes are reused. */
        if (!err) err = vmaf_gpu_copy(l, q->cur[i], cur, sizeof(float) * fp * (size_t)g->h);
    }
    if (err || !fr->index) return err;
    const SpeedLane *pq = vmaf_gpu_prev(fex, fr, 1);
    VmafGpuPtr prev[2];
    int pp[2] = { (int)fp, (int)fp };
    for (int i = 0; i < 2 && !err; i++) {
        if (pq) {
            prev[i] = pq->cur[i];
        } else {
            size_t p;
            err = vmaf_gpu_primed_float(fr, 1, i ? VMAF_GPU_DIST : VMAF_GPU_REF, 0, SPEED_OFFSET,
                                        &prev[i], &p);
            pp[i] = (int)p;
        }
    }
    /* The two differences side by side (ref, dist), as estimate() reads them. */
    VmafGpuPtr d[SPEED_PICS];
    slots(g, q->diff, (size_t)g->w * g->h, d);
    for (int i = 0; i < 2 && !err; i++) {
        /* previous - current; the distorted previous frame against the
         * reference's current one with speed_use_ref_diff. */
        const int ci = i && !g->use_ref_diff ? 1 : 0;
        err = diff(g, q, l, prev[i], pp[i], q->cur[ci], (int)fp, d[i]);
    }
    if (!err) err = estimate(g, c, q, l, d, g->w);
    return err ? err : sums(g, q, l);
}

/* On a worker, in the lane's copy of the estimator (the first frame scores 0). */
static int temporal_prepare(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    SpeedLane *q = lp;
    SpeedCore *c = &q->core;
    (void)fex;
    q->score[0] = 0.0f;
    if (!fr->index) return 0;
    finish(c, q, 0, &c->ref);
    finish(c, q, 1, &c->dis);
    q->score[0] = speed_core_score(c, &q->singular[0]);
    return 0;
}

static int temporal_conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const SpeedLane *q = lp;
    return speed_temporal_emit(fex, q->score[0], fr->index);
}

/* Nothing accumulates on the host across frames; the CPU path's prime
 * takes the previous frame. */
static int temporal_handover(VmafFex *fex)
{
    (void)fex;
    return 0;
}

const VmafFexTwin vmaf_fex_speed_temporal_gpu = {
    .program = &program,
    .priv_size = sizeof(SpeedGpu),
    .lane_size = sizeof(SpeedLane),
    .init = temporal_init,
    .lane_init = lane_init,
    .enqueue = temporal_enqueue,
    .prepare = temporal_prepare,
    .conclude = temporal_conclude,
    .handover = temporal_handover,
};
