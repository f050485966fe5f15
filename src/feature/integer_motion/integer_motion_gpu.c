/*
 * Integer motion's GPU twin (CUDA and OpenCL kernels): host side, a temporal
 * twin of the GPU frame pipeline. Each frame keeps its luma on its lane; the
 * frame is compared with the luma of the previous submission (two back with
 * the five-frame window), read from that frame's lane (or from the pictures
 * the pipeline uploads at the start of a device's block). The kernels
 * (integer_motion_cuda.cu) give each row's uint32 SAD, added here in uint64;
 * the frame score is imotion_score() and the end of stream
 * imotion_conclude(), the CPU's. motion_force_zero reads no samples: the twin
 * queues nothing and concludes with the CPU path's constants.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "imotion_arith.h"
#include "imotion_conclude.h"
#include "integer_motion_state.h"

VMAF_GPU_PROGRAM_DECLARE(integer_motion);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(integer_motion);

#define NAME_SAD "VMAF_integer_feature_motion_sad_score"
#define NAME_MOTION "VMAF_integer_feature_motion_score"

typedef struct ImotionGpu {
    bool debug, force_zero;
    ImotionParams p;
    double fps_weight;
    unsigned w, h, bpc, back;
    size_t plane_bytes;
    ImotionScores scores;   /**< as the CPU keeps them; written by conclude only */
} ImotionGpu;

/** One frame in flight. */
typedef struct ImotionLane {
    VmafGpuPtr keep;       /**< this frame's luma, for the frames after it */
    VmafGpuPtr y, rows;
    uint32_t *h_rows;
    VmafGpuKernel *k_vert, *k_horz;
} ImotionLane;

static void twin_close(VmafFex *fex)
{
    ImotionGpu *g = fex->twin_priv;
    if (g) free(g->scores.score);
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const ImotionState *s = fex->priv;
    ImotionGpu *g = fex->twin_priv;
    g->debug = s->debug;
    g->force_zero = s->motion_force_zero;
    g->fps_weight = s->motion_fps_weight;
    g->p = (ImotionParams){
        .blend_factor = s->motion_blend_factor,
        .blend_offset = s->motion_blend_offset,
        .max_val = s->motion_max_val,
        .five_frame_window = s->motion_five_frame_window,
        .moving_average = s->motion_moving_average,
    };
    if (g->force_zero) return 0;    /* no samples read: nothing to queue */
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    g->back = g->p.five_frame_window ? 2 : 1;
    g->plane_bytes = (size_t)w * h * (bpc > 8 ? 2 : 1);
    vmaf_gpu_use_plane(needs, 1, 0);
    vmaf_gpu_use_history(needs, g->back);
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const ImotionGpu *g = fex->twin_priv;
    ImotionLane *q = lp;
    if (g->force_zero) return 0;
    const size_t n = (size_t)g->w * g->h;
    int err = vmaf_gpu_alloc(l, &q->keep, g->plane_bytes);
    if (!err) err = vmaf_gpu_alloc(l, &q->y, n * sizeof(int32_t));
    if (!err) err = vmaf_gpu_alloc(l, &q->rows, (size_t)g->h * sizeof(uint32_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_rows, (size_t)g->h * sizeof(uint32_t));
    if (!err)
        err = vmaf_gpu_kernel(l, &program,
                              g->bpc > 8 ? "imotion_vert_u16" : "imotion_vert_u8", &q->k_vert);
    if (!err) err = vmaf_gpu_kernel(l, &program, "imotion_horz", &q->k_horz);
    return err;
}

/* As the CPU: frame `index` is compared with the picture of the previous
 * call (two calls back with the five-frame window) from index 1 (2) on. */
static bool has_sad(const ImotionGpu *g, unsigned index)
{
    return index >= (g->p.five_frame_window ? 2u : 1u);
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const ImotionGpu *g = fex->twin_priv;
    ImotionLane *q = lp;
    VmafGpuLane *l = fr->lane;
    if (g->force_zero) return 0;
    VmafGpuPtr cur;
    int err = vmaf_gpu_plane(fr, VMAF_GPU_REF, 0, &cur);
    if (err) return err;
    if (has_sad(g, fr->index)) {
        VmafGpuPtr prev;
        const ImotionLane *pq = vmaf_gpu_prev(fex, fr, g->back);
        if (pq) {
            prev = pq->keep;
        } else if (vmaf_gpu_primed_plane(fr, g->back, VMAF_GPU_REF, 0, &prev)) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "motion: frame %u has no earlier picture to compare with "
                     "(the first frame must have index 0)", fr->index);
            return -EINVAL;
        }
        int w = (int)g->w, h = (int)g->h;
        unsigned bpc = g->bpc;
        err = vmaf_gpu_memset(l, q->rows, (size_t)g->h * sizeof(uint32_t));
        VmafGpuArg va[] = { VMAF_GPU_ARG(prev), VMAF_GPU_ARG(cur), VMAF_GPU_ARG(w),
                            VMAF_GPU_ARG(h), VMAF_GPU_ARG(bpc), VMAF_GPU_ARG(q->y) };
        if (!err) err = vmaf_gpu_launch(l, q->k_vert, g->w, g->h, 1, 32, 8, va);
        VmafGpuArg ha[] = { VMAF_GPU_ARG(q->y), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                            VMAF_GPU_ARG(q->rows) };
        if (!err) err = vmaf_gpu_launch(l, q->k_horz, g->w, g->h, 1, 256, 1, ha);
        if (!err) err = vmaf_gpu_download(l, q->h_rows, q->rows, (size_t)g->h * sizeof(uint32_t));
    }
    /* The frames after this one read its luma from here. */
    if (!err) err = vmaf_gpu_copy(l, q->keep, cur, g->plane_bytes);
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    ImotionGpu *g = fex->twin_priv;
    const ImotionLane *q = lp;
    /* The CPU path's constants, in frame order. */
    if (g->force_zero) {
        const VmafPicture *hp[2];
        const int err = vmaf_gpu_host_pictures(fr, hp);
        return err ? err : fex->desc->extract(fex, hp[0], hp[1], fr->index);
    }
    double score = 0.0;
    if (has_sad(g, fr->index)) {
        uint64_t total = 0;
        for (unsigned i = 0; i < g->h; i++)
            total += q->h_rows[i];
        score = imotion_score(total, g->w, g->h, g->fps_weight, g->p.max_val);
    }
    int err = vmaf_fex_emit(fex, NAME_SAD, score, fr->index);
    if (!err && g->debug) err = vmaf_fex_emit(fex, NAME_MOTION, score, fr->index);
    if (!err) err = imotion_keep(fex, &g->scores, fr->index, score, &g->p);
    return err;
}

/* The scores kept so far go to the CPU path (force_zero ran it already). */
static int handover(VmafFex *fex)
{
    ImotionGpu *g = fex->twin_priv;
    if (g->force_zero) return 0;
    imotion_resume(fex, &g->scores);
    return 0;
}

static int twin_flush(VmafFex *fex)
{
    ImotionGpu *g = fex->twin_priv;
    if (g->force_zero) return fex->desc->flush ? fex->desc->flush(fex) : 0;
    return imotion_conclude(fex, &g->scores, &g->p);
}

const VmafFexTwin vmaf_fex_integer_motion_gpu = {
    .program = &program,
    .priv_size = sizeof(ImotionGpu),
    .lane_size = sizeof(ImotionLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
    .flush = twin_flush,
    .close = twin_close,
    .handover = handover,
};
