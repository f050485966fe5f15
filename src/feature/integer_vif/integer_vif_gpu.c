/*
 * Integer VIF's GPU twin (CUDA and OpenCL kernels): host side, in the GPU
 * frame pipeline. Per frame, for each scale, the kernels
 * (integer_vif_kernels.h) make the scale from the
 * previous one (decimation) and add the statistic's integer sums of every
 * pixel; those sums are read back and ivif_conclude(), the CPU's, gives the
 * outputs. Instances that differ only in vif_enhn_gain_limit (VMAF and
 * VMAF NEG) share one pass: the first leads and computes the sums of every
 * limit, the others conclude from its readback.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "integer_vif_state.h"
#include "ivif_arith.h"
#include "ivif_gpu_args.h"
#include "ivif_host.h"

VMAF_GPU_PROGRAM_DECLARE(integer_vif);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(integer_vif);

typedef struct IvifGpu {
    bool debug, skip0;
    unsigned w, h, bpc;
    int sw[IVIF_NUM_SCALES], sh[IVIF_NUM_SCALES];
    VmafFex *leader;            /**< a follower's leader; NULL when leading */
    int limit;                  /**< this instance's gain limit in the leader's list */
    IvifGainLimits egl;         /**< a leader's: every limit of its pass */
} IvifGpu;

/** One frame in flight (a leader's). */
typedef struct IvifLane {
    VmafGpuPtr table;                  /**< the log2 table, as the CPU's */
    VmafGpuPtr img[IVIF_NUM_SCALES][2];/**< scales 1..3 (uint16), ref and dis */
    VmafGpuPtr acc;                    /**< IVIF_NUM_SCALES x IVIF_ACC int64 sums */
    int64_t *h_acc;
    VmafGpuKernel *k_stat[IVIF_NUM_SCALES], *k_dec[IVIF_NUM_SCALES];
} IvifLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const IvifState *s = fex->priv;
    IvifGpu *g = fex->twin_priv;
    const double egl = s->vif_enhn_gain_limit;
    g->debug = s->debug;
    g->skip0 = s->vif_skip_scale0;
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        g->sw[sc] = s->sw[sc];
        g->sh[sc] = s->sh[sc];
    }
    /* Everything but the gain limit decides the pass. */
    VmafFex *leader = vmaf_gpu_share(needs, g->skip0 ? "skip_scale0" : "all scales");
    IvifGpu *lg = leader ? leader->twin_priv : g;
    int e = 0;
    while (e < lg->egl.n && lg->egl.v[e] != egl) e++;
    if (e == IVIF_MAX_GAIN_LIMITS) return VMAF_FEX_TWIN_DECLINED;  /* a full pass: the CPU's */
    if (e == lg->egl.n) lg->egl.v[lg->egl.n++] = egl;
    g->leader = leader;
    g->limit = e;
    if (!leader) vmaf_gpu_use_plane(needs, 3, 0);
    (void)pix_fmt;
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const IvifGpu *g = fex->twin_priv;
    IvifLane *q = lp;
    if (g->leader) return 0;
    /* The CPU's table: [32767, 65535] from libm's log2f, the rest 0. */
    uint16_t *t = calloc(IVIF_LOG2_TABLE_SIZE + 2, sizeof(uint16_t));
    if (!t) return -ENOMEM;
    for (unsigned i = IVIF_LOG2_TABLE_MIN - 1; i < IVIF_LOG2_TABLE_SIZE; i++)
        t[i] = ivif_log2_table_entry(i);
    int err = vmaf_gpu_const(l, &q->table, t, (IVIF_LOG2_TABLE_SIZE + 2) * sizeof(uint16_t));
    free(t);
    for (int sc = 1; sc < IVIF_NUM_SCALES && !err; sc++) {
        const size_t n = (size_t)g->sw[sc] * (size_t)g->sh[sc];
        err = vmaf_gpu_alloc(l, &q->img[sc][0], (n ? n : 1) * sizeof(uint16_t));
        if (!err) err = vmaf_gpu_alloc(l, &q->img[sc][1], (n ? n : 1) * sizeof(uint16_t));
    }
    const size_t acc_bytes = IVIF_NUM_SCALES * IVIF_ACC * sizeof(int64_t);
    if (!err) err = vmaf_gpu_alloc(l, &q->acc, acc_bytes);
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_acc, acc_bytes);
    /* Scale 0 reads the pictures' samples, the others 16-bit scales. */
    const VmafGpuProgram *fb = &program;
    static const char *const stat16[IVIF_NUM_SCALES] = {
        "ivif_stat_u16_17", "ivif_stat_u16_9", "ivif_stat_u16_5", "ivif_stat_u16_3" };
    static const char *const dec16[IVIF_NUM_SCALES] = {
        NULL, "ivif_dec_u16_9", "ivif_dec_u16_5", "ivif_dec_u16_3" };
    const bool u8 = g->bpc == 8;
    for (int sc = 0; sc < IVIF_NUM_SCALES && !err; sc++) {
        err = vmaf_gpu_kernel(l, fb, sc == 0 && u8 ? "ivif_stat_u8_17" : stat16[sc],
                              &q->k_stat[sc]);
        if (!err && sc)
            err = vmaf_gpu_kernel(l, fb, sc == 1 && u8 ? "ivif_dec_u8_9" : dec16[sc],
                                  &q->k_dec[sc]);
    }
    return err;
}

/** The vertical rounding of the pass that reads scale sc (the CPU's taps_setup). */
static void rounding(const IvifGpu *g, int sc, uint32_t *mu_round, int *mu_shift,
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

static unsigned tiles(unsigned n, unsigned tile)
{
    return (n + tile - 1) / tile;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const IvifGpu *g = fex->twin_priv;
    IvifLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr ref0, dis0;
    int err = vmaf_gpu_plane(fr, VMAF_GPU_REF, 0, &ref0);
    if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, 0, &dis0);
    if (!err) err = vmaf_gpu_memset(l, q->acc, IVIF_NUM_SCALES * IVIF_ACC * sizeof(int64_t));
    IvifGainLimits egl = g->egl;
    for (int sc = 0; sc < IVIF_NUM_SCALES && !err; sc++) {
        uint32_t mu_round, sq_round;
        int mu_shift, sq_shift;
        if (sc > 0) {
            /* Scale sc from scale sc-1, both pictures in one launch. */
            int w = g->sw[sc - 1], h = g->sh[sc - 1];
            rounding(g, sc - 1, &mu_round, &mu_shift, &sq_round, &sq_shift);
            VmafGpuPtr s0 = sc == 1 ? ref0 : q->img[sc - 1][0];
            VmafGpuPtr s1 = sc == 1 ? dis0 : q->img[sc - 1][1];
            VmafGpuArg da[] = { VMAF_GPU_ARG(s0), VMAF_GPU_ARG(s1), VMAF_GPU_ARG(w),
                                VMAF_GPU_ARG(h), VMAF_GPU_ARG(mu_round), VMAF_GPU_ARG(mu_shift),
                                VMAF_GPU_ARG(q->img[sc][0]), VMAF_GPU_ARG(q->img[sc][1]) };
            err = vmaf_gpu_launch(l, q->k_dec[sc],
                                  tiles((unsigned)g->sw[sc], IVIF_DEC_TW) * IVIF_THREADS,
                                  tiles((unsigned)g->sh[sc], IVIF_DEC_TH), 2, IVIF_THREADS, 1,
                                  da);
        }
        if (err || (sc == 0 && g->skip0)) continue;
        int w = g->sw[sc], h = g->sh[sc];
        rounding(g, sc, &mu_round, &mu_shift, &sq_round, &sq_shift);
        VmafGpuPtr r = sc ? q->img[sc][0] : ref0, d = sc ? q->img[sc][1] : dis0;
        VmafGpuPtr acc = vmaf_gpu_at(q->acc, (size_t)sc * IVIF_ACC * sizeof(int64_t));
        VmafGpuArg sa[] = { VMAF_GPU_ARG(r), VMAF_GPU_ARG(d), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                            VMAF_GPU_ARG(mu_round), VMAF_GPU_ARG(mu_shift),
                            VMAF_GPU_ARG(sq_round), VMAF_GPU_ARG(sq_shift), VMAF_GPU_ARG(egl),
                            VMAF_GPU_ARG(q->table), VMAF_GPU_ARG(acc) };
        err = vmaf_gpu_launch(l, q->k_stat[sc], tiles((unsigned)w, IVIF_STAT_TW) * IVIF_THREADS,
                              tiles((unsigned)h, IVIF_STAT_TH), 1, IVIF_THREADS, 1, sa);
    }
    if (!err)
        err = vmaf_gpu_download(l, q->h_acc, q->acc,
                                IVIF_NUM_SCALES * IVIF_ACC * sizeof(int64_t));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const IvifGpu *g = fex->twin_priv;
    const IvifLane *q = g->leader ? vmaf_gpu_state_of(g->leader, fr) : lp;
    if (!q) return -EINVAL;
    IvifAccum acc[IVIF_NUM_SCALES];
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        const int64_t *a = q->h_acc + IVIF_ACC * sc;
        acc[sc] = (IvifAccum){ .num_log = a[IVIF_ACC_NUM_LOG + g->limit],
                               .den_log = a[IVIF_ACC_DEN_LOG],
                               .num_non_log = a[IVIF_ACC_NUM_NON_LOG],
                               .den_non_log = a[IVIF_ACC_DEN_NON_LOG] };
    }
    return ivif_emit(fex, acc, g->skip0, g->debug, fr->index);
}

const VmafFexTwin vmaf_fex_integer_vif_gpu = {
    .program = &program,
    .priv_size = sizeof(IvifGpu),
    .lane_size = sizeof(IvifLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
