/*
 * Integer VIF's CUDA twin: host side, in the GPU frame pipeline. Per frame,
 * for each scale, the kernels (integer_vif_cuda.cu) make the scale from the
 * previous one (decimation) and add the statistic's four integer sums of
 * every pixel; those sums are read back and ivif_conclude(), the CPU's,
 * gives the outputs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/pipeline.h"
#include "log.h"

#include "ivif_arith.h"
#include "ivif_host.h"

extern const EvcFatbin evc_fatbin_integer_vif;

typedef struct IvifCuda {
    bool debug, skip0;
    double egl;
    unsigned w, h, bpc;
    int sw[IVIF_NUM_SCALES], sh[IVIF_NUM_SCALES];
} IvifCuda;

/** One frame in flight. */
typedef struct IvifLane {
    CUdeviceptr filter;                 /**< IVIF_NUM_SCALES x IVIF_MAX_TAPS uint32 */
    CUdeviceptr table;                  /**< the log2 table, as the CPU's */
    CUdeviceptr img[IVIF_NUM_SCALES][2];/**< scales 1..3 (uint16), ref and dis */
    CUdeviceptr v;                      /**< five vertical results per pixel */
    CUdeviceptr tmp;                    /**< decimation's vertical pass */
    CUdeviceptr acc;                    /**< IVIF_NUM_SCALES x 4 int64 sums */
    int64_t *h_acc;
    CUfunction k_vert0, k_vert16, k_stat, k_dec_v0, k_dec_v16, k_dec_h;
} IvifLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    IvifCuda *g = fex->twin_priv;
    int err = evc_opt_bool(fex, "debug", &g->debug);
    if (!err) err = evc_opt_bool(fex, "vif_skip_scale0", &g->skip0);
    if (!err) err = evc_opt_double(fex, "vif_enhn_gain_limit", &g->egl);
    if (err) return err;
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    g->sw[0] = (int)w;
    g->sh[0] = (int)h;
    for (int sc = 1; sc < IVIF_NUM_SCALES; sc++) {
        g->sw[sc] = g->sw[sc - 1] / 2;
        g->sh[sc] = g->sh[sc - 1] / 2;
    }
    vmaf_gpu_use_plane(fex->env.gpu, 3, 0);
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const IvifCuda *g = fex->twin_priv;
    IvifLane *q = lp;
    static const uint16_t taps[IVIF_NUM_SCALES][IVIF_MAX_TAPS] = IVIF_FILTER_TABLE;
    uint32_t f[IVIF_NUM_SCALES][IVIF_MAX_TAPS];
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++)
        for (int k = 0; k < IVIF_MAX_TAPS; k++)
            f[sc][k] = taps[sc][k];
    /* The CPU's table: [32767, 65535] from libm's log2f, the rest 0. */
    uint16_t *t = calloc(IVIF_LOG2_TABLE_SIZE + 2, sizeof(uint16_t));
    if (!t) return -ENOMEM;
    for (unsigned i = IVIF_LOG2_TABLE_MIN - 1; i < IVIF_LOG2_TABLE_SIZE; i++)
        t[i] = ivif_log2_table_entry(i);
    int err = vmaf_gpu_const(l, &q->filter, f, sizeof(f));
    if (!err) err = vmaf_gpu_const(l, &q->table, t, (IVIF_LOG2_TABLE_SIZE + 2) * sizeof(uint16_t));
    free(t);

    for (int sc = 1; sc < IVIF_NUM_SCALES && !err; sc++) {
        const size_t n = (size_t)g->sw[sc] * (size_t)g->sh[sc];
        err = vmaf_gpu_alloc(l, &q->img[sc][0], (n ? n : 1) * sizeof(uint16_t));
        if (!err) err = vmaf_gpu_alloc(l, &q->img[sc][1], (n ? n : 1) * sizeof(uint16_t));
    }
    const size_t n0 = (size_t)g->w * g->h;
    if (!err) err = vmaf_gpu_alloc(l, &q->v, 5 * n0 * sizeof(uint32_t));
    if (!err) err = vmaf_gpu_alloc(l, &q->tmp, (n0 / 2 + 1) * sizeof(uint32_t));
    if (!err) err = vmaf_gpu_alloc(l, &q->acc, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_acc, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    const EvcFatbin *fb = &evc_fatbin_integer_vif;
    const bool u8 = g->bpc == 8;
    if (!err) err = vmaf_gpu_kernel(l, fb, u8 ? "ivif_vert_u8" : "ivif_vert_u16", &q->k_vert0);
    if (!err) err = vmaf_gpu_kernel(l, fb, "ivif_vert_u16", &q->k_vert16);
    if (!err) err = vmaf_gpu_kernel(l, fb, "ivif_horz_stat", &q->k_stat);
    if (!err) err = vmaf_gpu_kernel(l, fb, u8 ? "ivif_dec_v_u8" : "ivif_dec_v_u16", &q->k_dec_v0);
    if (!err) err = vmaf_gpu_kernel(l, fb, "ivif_dec_v_u16", &q->k_dec_v16);
    if (!err) err = vmaf_gpu_kernel(l, fb, "ivif_dec_h", &q->k_dec_h);
    return err;
}

/** The vertical rounding of the pass that reads scale sc (the CPU's taps_setup). */
static void rounding(const IvifCuda *g, int sc, uint32_t *mu_round, int *mu_shift,
                     uint32_t *sq_round, int *sq_shift)
{
    if (sc == 0) {
        *mu_shift = (int)g->bpc;
        *mu_round = 1u << (g->bpc - 1);
        *sq_shift = 2 * ((int)g->bpc - 8);
        *sq_round = *sq_shift ? 1u << (*sq_shift - 1) : 0;
    } else {
        *mu_shift = 16;
        *mu_round = 32768;
        *sq_shift = 16;
        *sq_round = 32768;
    }
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const IvifCuda *g = fex->twin_priv;
    IvifLane *q = lp;
    VmafGpuLane *l = fr->lane;
    CUdeviceptr ref0, dis0;
    int err = vmaf_gpu_plane(fr, VMAF_GPU_REF, 0, &ref0);
    if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, 0, &dis0);
    if (!err) err = vmaf_gpu_memset(l, q->acc, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    for (int sc = 0; sc < IVIF_NUM_SCALES && !err; sc++) {
        if (sc > 0) {
            /* Scale sc from scale sc-1 with scale sc's filter. */
            CUdeviceptr f = q->filter + (size_t)sc * IVIF_MAX_TAPS * sizeof(uint32_t);
            int fw = ivif_filter_width(sc), w = g->sw[sc - 1], h = g->sh[sc - 1], oh = g->sh[sc];
            uint32_t mu_round, sq_round;
            int mu_shift, sq_shift;
            rounding(g, sc - 1, &mu_round, &mu_shift, &sq_round, &sq_shift);
            for (int p = 0; p < 2 && !err; p++) {
                CUdeviceptr src = sc == 1 ? (p ? dis0 : ref0) : q->img[sc - 1][p];
                void *va[] = { &src, &w, &h, &f, &fw, &mu_round, &mu_shift, &q->tmp };
                err = vmaf_gpu_launch(l, sc == 1 ? q->k_dec_v0 : q->k_dec_v16, (unsigned)w,
                                      (unsigned)oh, 1, 32, 8, va);
                void *ha[] = { &q->tmp, &w, &oh, &f, &fw, (void *)&q->img[sc][p] };
                if (!err)
                    err = vmaf_gpu_launch(l, q->k_dec_h, (unsigned)(w / 2), (unsigned)oh, 1,
                                          32, 8, ha);
            }
        }
        if (err || sc < (g->skip0 ? 1 : 0)) continue;
        CUdeviceptr f = q->filter + (size_t)sc * IVIF_MAX_TAPS * sizeof(uint32_t);
        int fw = ivif_filter_width(sc), w = g->sw[sc], h = g->sh[sc];
        uint32_t mu_round, sq_round;
        int mu_shift, sq_shift;
        rounding(g, sc, &mu_round, &mu_shift, &sq_round, &sq_shift);
        CUdeviceptr r = sc ? q->img[sc][0] : ref0, d = sc ? q->img[sc][1] : dis0;
        size_t plane = (size_t)w * h;
        double egl = g->egl;
        void *va[] = { &r, &d, &w, &h, &f, &fw, &mu_round, &mu_shift, &sq_round, &sq_shift,
                       &q->v, &plane };
        err = vmaf_gpu_launch(l, sc ? q->k_vert16 : q->k_vert0, (unsigned)w, (unsigned)h, 1,
                              32, 8, va);
        CUdeviceptr acc = q->acc + (size_t)sc * 4 * sizeof(int64_t);
        void *sa[] = { &q->v, &plane, &w, &h, &f, &fw, &egl, &q->table, &acc };
        if (!err) err = vmaf_gpu_launch(l, q->k_stat, (unsigned)w, (unsigned)h, 1, 256, 1, sa);
    }
    if (!err)
        err = vmaf_gpu_download(l, q->h_acc, q->acc, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const IvifCuda *g = fex->twin_priv;
    const IvifLane *q = lp;
    IvifAccum acc[IVIF_NUM_SCALES];
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        const int64_t *a = q->h_acc + 4 * sc;
        acc[sc] = (IvifAccum){ a[0], a[1], a[2], a[3] };
    }
    double out[IVIF_OUT_COUNT];
    ivif_conclude(acc, g->skip0, out);
    const int n_out = g->debug ? IVIF_OUT_COUNT : IVIF_OUT_SCALES;
    int err = 0;
    for (int i = 0; i < n_out && !err; i++)
        err = vmaf_fex_emit(fex, ivif_output_names[i], out[i], fr->index);
    return err;
}

const VmafFexTwin vmaf_fex_integer_vif_cuda = {
    .backend = "cuda",
    .priv_size = sizeof(IvifCuda),
    .lane_size = sizeof(IvifLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
