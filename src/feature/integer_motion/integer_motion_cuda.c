/*
 * Integer motion's CUDA twin: host side. The CPU path's init validates the
 * geometry and options. The luma of the previous call (two calls back with
 * the five-frame window) stays on the device; per frame the kernels
 * (integer_motion_cuda.cu) give each row's uint32 SAD, which are added here
 * in uint64, then the frame score is imotion_score() and the end of stream
 * imotion_conclude(), the CPU's. motion_force_zero reads no samples: the
 * CPU path computes it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "imotion_arith.h"
#include "imotion_conclude.h"

extern const VmafFeatureExtractor vmaf_fex_integer_motion;
extern const EvcFatbin evc_fatbin_integer_motion;

#define NAME_SAD "VMAF_integer_feature_motion_sad_score"
#define NAME_MOTION "VMAF_integer_feature_motion_score"

typedef struct ImotionCuda {
    VmafCudaState *st;
    bool force_zero, debug;
    ImotionParams p;
    double fps_weight;
    unsigned w, h, bpc, n_prev, calls;
    size_t plane_bytes;
    EvcBuf prev[2];         /**< luma of earlier calls, ring indexed by call count */
    EvcBuf y, rows;
    uint32_t *h_rows;
    CUfunction k_vert, k_horz, k_copy;
    /* Scores of frames 0, 1, ... while they come consecutively (as the CPU keeps them). */
    double *score;
    unsigned n_score, cap_score;
    bool score_gap;
} ImotionCuda;

static void twin_close(VmafFex *fex)
{
    ImotionCuda *g = fex->twin_priv;
    if (g && g->st && !evc_push(g->st)) {
        evc_sync(g->st);
        evc_buf_free(g->st, &g->prev[0]);
        evc_buf_free(g->st, &g->prev[1]);
        evc_buf_free(g->st, &g->y);
        evc_buf_free(g->st, &g->rows);
        evc_host_free(g->st, (void **)&g->h_rows);
        evc_pop(g->st);
    }
    if (g) free(g->score);
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_integer_motion.close) vmaf_fex_integer_motion.close(fex);
}

static int setup(ImotionCuda *g)
{
    VmafCudaState *st = g->st;
    const size_t n = (size_t)g->w * g->h;
    g->plane_bytes = n * (g->bpc > 8 ? 2 : 1);
    int err = 0;
    for (unsigned k = 0; k < g->n_prev && !err; k++)
        err = evc_buf_alloc(st, &g->prev[k], g->plane_bytes);
    if (!err) err = evc_buf_alloc(st, &g->y, n * sizeof(int32_t));
    if (!err) err = evc_buf_alloc(st, &g->rows, (size_t)g->h * sizeof(uint32_t));
    if (!err) err = evc_host_alloc(st, (void **)&g->h_rows, (size_t)g->h * sizeof(uint32_t));
    if (!err)
        err = evc_function(st, &evc_fatbin_integer_motion,
                           g->bpc > 8 ? "imotion_vert_u16" : "imotion_vert_u8", &g->k_vert);
    if (!err) err = evc_function(st, &evc_fatbin_integer_motion, "imotion_horz", &g->k_horz);
    if (!err) err = evc_function(st, &evc_fatbin_integer_motion, "imotion_copy", &g->k_copy);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_integer_motion.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    ImotionCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    err = evc_opt_bool(fex, "debug", &g->debug);
    if (!err) err = evc_opt_bool(fex, "motion_force_zero", &g->force_zero);
    if (!err) err = evc_opt_double(fex, "motion_fps_weight", &g->fps_weight);
    if (!err) err = evc_opt_double(fex, "motion_blend_factor", &g->p.blend_factor);
    if (!err) err = evc_opt_double(fex, "motion_blend_offset", &g->p.blend_offset);
    if (!err) err = evc_opt_double(fex, "motion_max_val", &g->p.max_val);
    if (!err) err = evc_opt_bool(fex, "motion_five_frame_window", &g->p.five_frame_window);
    if (!err) err = evc_opt_bool(fex, "motion_moving_average", &g->p.moving_average);
    if (err) return err;
    if (g->force_zero) return 0;    /* no samples read: the CPU path does it */

    g->st = fex->env.cuda;
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    g->n_prev = g->p.five_frame_window ? 2 : 1;
    err = evc_push(g->st);
    if (err) {
        g->st = NULL;
        return err;
    }
    err = setup(g);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

/** Keep frame `index`'s score for the flush while indices run 0, 1, 2, ... */
static int keep_score(ImotionCuda *g, unsigned index, double score)
{
    if (g->score_gap || index != g->n_score) {
        g->score_gap = true;
        return 0;
    }
    if (g->n_score == g->cap_score) {
        const unsigned cap = g->cap_score ? 2 * g->cap_score : 256;
        double *p = realloc(g->score, cap * sizeof(*p));
        if (!p) return -ENOMEM;
        g->score = p;
        g->cap_score = cap;
    }
    g->score[g->n_score++] = score;
    return 0;
}

/* Queue the SAD of cur against prev (when `sad`), then keep cur in slot `keep`. */
static int queue(ImotionCuda *g, CUdeviceptr cur, bool sad, CUdeviceptr prev, CUdeviceptr keep)
{
    VmafCudaState *st = g->st;
    int w = (int)g->w, h = (int)g->h;
    unsigned bpc = g->bpc;
    int err = 0;
    evc_phase(st, EVC_PHASE_KERNELS);
    if (sad) {
        err = evc_memset(st, g->rows.p, (size_t)g->h * sizeof(uint32_t));
        void *va[] = { &prev, &cur, &w, &h, &bpc, &g->y.p };
        if (!err) err = evc_launch(st, g->k_vert, g->w, g->h, 1, 32, 8, va);
        void *ha[] = { &g->y.p, &w, &h, &g->rows.p };
        if (!err) err = evc_launch(st, g->k_horz, g->w, g->h, 1, 256, 1, ha);
    }
    size_t n = g->plane_bytes;
    void *ca[] = { &cur, &keep, &n };
    if (!err) err = evc_launch(st, g->k_copy, (unsigned)n, 1, 1, 256, 1, ca);
    if (!err && sad) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_rows, g->rows.p, (size_t)g->h * sizeof(uint32_t));
    }
    if (!err) err = evc_sync(st);
    return err;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    ImotionCuda *g = fex->twin_priv;
    if (g->force_zero)
        return vmaf_fex_integer_motion.extract(fex, ref, dist, index);
    if (ref->w[0] != g->w || ref->h[0] != g->h || ref->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "motion: frame %u does not match the %ux%u %u-bit geometry given at init",
                 index, g->w, g->h, g->bpc);
        return -EINVAL;
    }
    /* As the CPU: frame `index` is compared with the picture of the previous
     * call (two calls back with the five-frame window) from index 1 (2) on. */
    const unsigned first = g->p.five_frame_window ? 2 : 1;
    const bool sad = index >= first;
    if (sad && g->calls < g->n_prev) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "motion: frame %u has no earlier picture to compare with "
                 "(the first frame must have index 0)", index);
        return -EINVAL;
    }
    VmafCudaState *st = g->st;
    evc_twin_begin(st, "motion");
    int err = evc_push(st);
    if (err) return err;
    CUdeviceptr cur;
    err = evc_plane_raw(st, ref, 0, index, &cur);
    if (!err)
        err = queue(g, cur, sad, g->prev[sad ? (g->calls - g->n_prev) % g->n_prev : 0].p,
                    g->prev[g->calls % g->n_prev].p);
    const int err2 = evc_pop(st);
    if (err || err2) return err ? err : err2;

    double score = 0.0;
    if (sad) {
        uint64_t total = 0;
        for (unsigned i = 0; i < g->h; i++)
            total += g->h_rows[i];
        score = imotion_score(total, g->w, g->h, g->fps_weight, g->p.max_val);
    }
    evc_twin_end(st);
    g->calls++;
    err = keep_score(g, index, score);
    if (!err) err = vmaf_fex_emit(fex, NAME_SAD, score, index);
    if (!err && g->debug) err = vmaf_fex_emit(fex, NAME_MOTION, score, index);
    return err;
}

static int twin_flush(VmafFex *fex)
{
    ImotionCuda *g = fex->twin_priv;
    if (g->force_zero)
        return vmaf_fex_integer_motion.flush ? vmaf_fex_integer_motion.flush(fex) : 0;
    return imotion_conclude(fex, g->score, g->n_score, &g->p);
}

const VmafFexTwin vmaf_fex_integer_motion_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .flush = twin_flush,
    .close = twin_close,
};
