/*
 * float_motion's GPU twin (CUDA and OpenCL kernels): host side, a
 * temporal twin of the GPU frame pipeline. Each frame's blur stays on its
 * lane; the SAD against the previous frame's blur (read from that frame's
 * lane, or rebuilt from the picture the pipeline uploads at the start of a
 * device's block) is formed one thread per row (float_motion_kernels.h), and
 * here the rows are added top to bottom with motion_sum_rows() and the frame
 * is concluded by motion_conclude_frame() / motion_conclude_flush(), the
 * CPU's. motion_force_zero reads no samples: the twin queues nothing and
 * concludes with the CPU path's constants.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "float_motion_state.h"
#include "motion_arith.h"
#include "motion_conclude.h"

VMAF_GPU_PROGRAM_DECLARE(float_motion);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(float_motion);

/* Same layout as float_motion_kernels.h's kernel argument. */
typedef struct MotionTaps {
    float f[MOTION_MAX_TAPS];
    int n;
} MotionTaps;

typedef struct MotionGpu {
    bool scale1, force_zero;
    unsigned n_planes;
    int w[3], h[3], pitch[3];   /**< plane sizes (the pictures') and float pitch */
    MotionTaps taps;
    int s1w, s1h, s1pitch;
    int rows_per_plane;
    unsigned next_index;        /**< enqueue's: frames must come 0, 1, 2, ... */
    MotionConclusion conc;      /**< conclude's */
} MotionGpu;

/** One frame in flight. */
typedef struct MotionLane {
    VmafGpuPtr blur[3];        /**< this frame's blur, for the next frame */
    VmafGpuPtr s1[3];          /**< its scale-1 downscale */
    /** The previous frame's, rebuilt at a seam (several devices only). */
    VmafGpuPtr prime_blur[3], prime_s1[3];
    VmafGpuPtr x1, x2, dx, y1, y2, dy;
    VmafGpuPtr tmp, rows;
    float *h_rows;
    VmafGpuKernel *k_blur_v, *k_blur_h, *k_sad, *k_down;
} MotionLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const MotionState *s = fex->priv;
    MotionGpu *g = fex->twin_priv;
    g->force_zero = s->motion_force_zero;
    if (g->force_zero) return 0;    /* no samples read: nothing to queue */
    g->conc = s->conc;
    g->scale1 = s->motion_add_scale1;
    g->n_planes = s->n_planes;
    memcpy(g->taps.f, s->taps, sizeof(g->taps.f));
    g->taps.n = s->n_taps;
    /* The pictures' plane sizes (chroma rounded down); the CPU's init has
     * checked them against the blur's width. */
    const unsigned ss_x = pix_fmt != VMAF_PIX_FMT_YUV444P, ss_y = pix_fmt == VMAF_PIX_FMT_YUV420P;
    int max_rows = 0;
    for (unsigned p = 0; p < g->n_planes; p++) {
        g->w[p] = (int)(p ? w >> ss_x : w);
        g->h[p] = (int)(p ? h >> ss_y : h);
        g->pitch[p] = (int)vmaf_gpu_pitch_floats((unsigned)g->w[p]);
        if (g->h[p] > max_rows) max_rows = g->h[p];
        const int err = vmaf_gpu_use_float(needs, 1, p, -128.0f);
        if (err) return err;
    }
    if (g->scale1) {
        g->s1w = s->s1.w;
        g->s1h = s->s1.h;
        g->s1pitch = (int)vmaf_gpu_pitch_floats((unsigned)g->s1w);
    }
    /* Per plane: its rows, then its scale-1 rows. */
    g->rows_per_plane = max_rows + (g->scale1 ? g->s1h : 0);
    vmaf_gpu_use_history(needs, 1);
    (void)bpc;
    return 0;
}

/* motion_add_scale1: the CPU's column / row positions (float_motion.c init_scale1). */
static int lane_scale1(const MotionGpu *g, VmafGpuLane *l, MotionLane *q, bool prime)
{
    const int w = g->w[0], h = g->h[0];
    int *x1 = malloc(sizeof(int) * g->s1w), *x2 = malloc(sizeof(int) * g->s1w);
    int *y1 = malloc(sizeof(int) * g->s1h), *y2 = malloc(sizeof(int) * g->s1h);
    float *dx = malloc(sizeof(float) * g->s1w), *dy = malloc(sizeof(float) * g->s1h);
    int err = -ENOMEM;
    if (x1 && x2 && y1 && y2 && dx && dy) {
        const float rx = motion_bilinear_ratio(w, g->s1w);
        const float ry = motion_bilinear_ratio(h, g->s1h);
        for (int x = 0; x < g->s1w; x++)
            motion_bilinear_coord(x, rx, w, &x1[x], &x2[x], &dx[x]);
        for (int y = 0; y < g->s1h; y++)
            motion_bilinear_coord(y, ry, h, &y1[y], &y2[y], &dy[y]);
        err = vmaf_gpu_const(l, &q->x1, x1, sizeof(int) * g->s1w);
        if (!err) err = vmaf_gpu_const(l, &q->x2, x2, sizeof(int) * g->s1w);
        if (!err) err = vmaf_gpu_const(l, &q->dx, dx, sizeof(float) * g->s1w);
        if (!err) err = vmaf_gpu_const(l, &q->y1, y1, sizeof(int) * g->s1h);
        if (!err) err = vmaf_gpu_const(l, &q->y2, y2, sizeof(int) * g->s1h);
        if (!err) err = vmaf_gpu_const(l, &q->dy, dy, sizeof(float) * g->s1h);
    }
    free(x1);
    free(x2);
    free(y1);
    free(y2);
    free(dx);
    free(dy);
    const size_t bytes = (size_t)g->s1pitch * g->s1h * sizeof(float);
    for (unsigned p = 0; p < g->n_planes && !err; p++) {
        err = vmaf_gpu_alloc(l, &q->s1[p], bytes);
        if (!err && prime) err = vmaf_gpu_alloc(l, &q->prime_s1[p], bytes);
    }
    return err;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const MotionGpu *g = fex->twin_priv;
    MotionLane *q = lp;
    if (g->force_zero) return 0;
    int err = 0;
    size_t max_plane = 0;
    for (unsigned p = 0; p < g->n_planes && !err; p++) {
        const size_t bytes = (size_t)g->pitch[p] * g->h[p] * sizeof(float);
        if (bytes > max_plane) max_plane = bytes;
        err = vmaf_gpu_alloc(l, &q->blur[p], bytes);
        if (!err && vmaf_gpu_device_count(fex->env.gpu) > 1)
            err = vmaf_gpu_alloc(l, &q->prime_blur[p], bytes);
    }
    if (!err && g->scale1) err = lane_scale1(g, l, q, vmaf_gpu_device_count(fex->env.gpu) > 1);
    const size_t row_bytes = (size_t)g->rows_per_plane * g->n_planes * sizeof(float);
    if (!err) err = vmaf_gpu_alloc(l, &q->tmp, max_plane);
    if (!err) err = vmaf_gpu_alloc(l, &q->rows, row_bytes);
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_rows, row_bytes);
    const VmafGpuProgram *fb = &program;
    if (!err) err = vmaf_gpu_kernel(l, fb, "motion_blur_v", &q->k_blur_v);
    if (!err) err = vmaf_gpu_kernel(l, fb, "motion_blur_h", &q->k_blur_h);
    if (!err) err = vmaf_gpu_kernel(l, fb, "motion_sad_rows", &q->k_sad);
    if (!err) err = vmaf_gpu_kernel(l, fb, "motion_downscale", &q->k_down);
    return err;
}

/* Blur plane p of src (and downscale it with scale1) into blur / s1. */
static int blur(const MotionGpu *g, VmafGpuLane *l, MotionLane *q, unsigned p,
                VmafGpuPtr src, size_t src_pitch, VmafGpuPtr dst, VmafGpuPtr s1)
{
    int sp = (int)src_pitch, w = g->w[p], h = g->h[p], pitch = g->pitch[p];
    MotionTaps taps = g->taps;
    VmafGpuArg va[] = { VMAF_GPU_ARG(src), VMAF_GPU_ARG(sp), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                        VMAF_GPU_ARG(taps), VMAF_GPU_ARG(q->tmp), VMAF_GPU_ARG(pitch) };
    int err = vmaf_gpu_launch(l, q->k_blur_v, (unsigned)w, (unsigned)h, 1, 32, 8, va);
    VmafGpuArg ha[] = { VMAF_GPU_ARG(q->tmp), VMAF_GPU_ARG(pitch), VMAF_GPU_ARG(w),
                        VMAF_GPU_ARG(h), VMAF_GPU_ARG(taps), VMAF_GPU_ARG(dst),
                        VMAF_GPU_ARG(pitch) };
    if (!err) err = vmaf_gpu_launch(l, q->k_blur_h, (unsigned)w, (unsigned)h, 1, 32, 8, ha);
    if (err || !g->scale1) return err;
    int s1w = g->s1w, s1h = g->s1h, s1p = g->s1pitch;
    VmafGpuArg da[] = { VMAF_GPU_ARG(dst), VMAF_GPU_ARG(pitch), VMAF_GPU_ARG(s1w),
                        VMAF_GPU_ARG(s1h), VMAF_GPU_ARG(q->x1), VMAF_GPU_ARG(q->x2),
                        VMAF_GPU_ARG(q->dx), VMAF_GPU_ARG(q->y1), VMAF_GPU_ARG(q->y2),
                        VMAF_GPU_ARG(q->dy), VMAF_GPU_ARG(s1), VMAF_GPU_ARG(s1p) };
    return vmaf_gpu_launch(l, q->k_down, (unsigned)s1w, (unsigned)s1h, 1, 32, 8, da);
}

static int sad_rows(VmafGpuLane *l, const MotionLane *q, VmafGpuPtr prev, VmafGpuPtr cur,
                    int pitch, int w, int h, VmafGpuPtr rows)
{
    VmafGpuArg sa[] = { VMAF_GPU_ARG(prev), VMAF_GPU_ARG(cur), VMAF_GPU_ARG(pitch),
                        VMAF_GPU_ARG(w), VMAF_GPU_ARG(h), VMAF_GPU_ARG(rows) };
    return vmaf_gpu_launch(l, q->k_sad, RS_THREADS(h), 1, 1, RS_BLOCK, 1, sa);
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    MotionGpu *g = fex->twin_priv;
    MotionLane *q = lp;
    VmafGpuLane *l = fr->lane;
    if (g->force_zero) return 0;
    /* The blur ring and the schedule assume frames 0, 1, 2, ... */
    if (fr->index != g->next_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: got frame %u, expected frame %u (frames must come in order)",
                 fr->index, g->next_index);
        return -EINVAL;
    }
    g->next_index++;
    const MotionLane *pq = fr->index ? vmaf_gpu_prev(fex, fr, 1) : NULL;
    int err = 0;
    for (unsigned p = 0; p < g->n_planes && !err; p++) {
        VmafGpuPtr src;
        size_t sp;
        err = vmaf_gpu_plane_float(fr, VMAF_GPU_REF, p, -128.0f, &src, &sp);
        if (!err) err = blur(g, l, q, p, src, sp, q->blur[p], q->s1[p]);
        if (err || !fr->index) continue;
        VmafGpuPtr prev = pq ? pq->blur[p] : q->prime_blur[p];
        VmafGpuPtr prev_s1 = pq ? pq->s1[p] : q->prime_s1[p];
        if (!pq) {
            /* The previous frame was computed on another device: rebuild its blur. */
            err = vmaf_gpu_primed_float(fr, 1, VMAF_GPU_REF, p, -128.0f, &src, &sp);
            if (!err) err = blur(g, l, q, p, src, sp, prev, prev_s1);
            if (err) break;
        }
        const VmafGpuPtr rows =
            vmaf_gpu_at(q->rows, (size_t)p * g->rows_per_plane * sizeof(float));
        err = sad_rows(l, q, prev, q->blur[p], g->pitch[p], g->w[p], g->h[p], rows);
        if (!err && g->scale1)
            err = sad_rows(l, q, prev_s1, q->s1[p], g->s1pitch, g->s1w, g->s1h,
                           vmaf_gpu_at(rows, (size_t)g->h[p] * sizeof(float)));
    }
    if (!err && fr->index)
        err = vmaf_gpu_download(l, q->h_rows, q->rows,
                                (size_t)g->rows_per_plane * g->n_planes * sizeof(float));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    MotionGpu *g = fex->twin_priv;
    const MotionLane *q = lp;
    /* The CPU path's constants, in frame order. */
    if (g->force_zero) {
        const VmafPicture *hp[2];
        const int err = vmaf_gpu_host_pictures(fr, hp);
        return err ? err : fex->desc->extract(fex, hp[0], hp[1], fr->index);
    }
    float m[3] = { 0.0f, 0.0f, 0.0f };
    for (unsigned p = 0; fr->index && p < g->n_planes; p++) {
        const float *rows = q->h_rows + (size_t)p * g->rows_per_plane;
        m[p] = motion_mean(motion_sum_rows(rows, g->h[p]), g->w[p], g->h[p]);
        if (g->scale1) {
            const float *r1 = rows + g->h[p];
            m[p] = motion_add_scales(m[p], motion_mean(motion_sum_rows(r1, g->s1h),
                                                       g->s1w, g->s1h));
        }
    }
    const double score = g->n_planes == 3 ? motion_add_planes(m[0], m[1], m[2]) : (double)m[0];
    return motion_conclude_frame(fex, &g->conc, fr->index, score);
}

/* The emission schedule so far goes to the CPU path (force_zero ran it already). */
static int handover(VmafFex *fex)
{
    const MotionGpu *g = fex->twin_priv;
    if (!g->force_zero) motion_resume(fex, &g->conc);
    return 0;
}

static int twin_flush(VmafFex *fex)
{
    MotionGpu *g = fex->twin_priv;
    if (g->force_zero) return fex->desc->flush ? fex->desc->flush(fex) : 0;
    return motion_conclude_flush(fex, &g->conc);
}

const VmafFexTwin vmaf_fex_float_motion_gpu = {
    .program = &program,
    .priv_size = sizeof(MotionGpu),
    .lane_size = sizeof(MotionLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
    .flush = twin_flush,
    .handover = handover,
};
