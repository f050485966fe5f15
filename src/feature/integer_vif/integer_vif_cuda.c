/*
 * Integer VIF's CUDA twin: host side. The CPU path's init validates the
 * geometry and options. Per frame, for each scale, the kernels
 * (integer_vif_cuda.cu) make the scale from the previous one (decimation)
 * and add the statistic's four integer sums of every pixel; those sums are
 * read back and ivif_conclude(), the CPU's, gives the outputs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "ivif_arith.h"
#include "ivif_host.h"

extern const VmafFeatureExtractor vmaf_fex_integer_vif;
extern const EvcFatbin evc_fatbin_integer_vif;

typedef struct IvifCuda {
    VmafCudaState *st;
    bool debug, skip0;
    double egl;
    unsigned w, h, bpc;
    int sw[IVIF_NUM_SCALES], sh[IVIF_NUM_SCALES];
    EvcBuf filter;                      /**< IVIF_NUM_SCALES x IVIF_MAX_TAPS uint32 */
    EvcBuf table;                       /**< the log2 table, as the CPU's */
    EvcBuf img[IVIF_NUM_SCALES][2];     /**< scales 1..3 (uint16), ref and dis */
    EvcBuf v;                           /**< five vertical results per pixel */
    EvcBuf tmp;                         /**< decimation's vertical pass */
    EvcBuf acc;                         /**< IVIF_NUM_SCALES x 4 int64 sums */
    int64_t *h_acc;
    CUfunction k_vert0, k_vert16, k_stat, k_dec_v0, k_dec_v16, k_dec_h;
} IvifCuda;

static void twin_close(VmafFex *fex)
{
    IvifCuda *g = fex->twin_priv;
    if (g && g->st && !evc_push(g->st)) {
        evc_sync(g->st);
        for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
            evc_buf_free(g->st, &g->img[sc][0]);
            evc_buf_free(g->st, &g->img[sc][1]);
        }
        EvcBuf *b[] = { &g->filter, &g->table, &g->v, &g->tmp, &g->acc };
        for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
            evc_buf_free(g->st, b[i]);
        evc_host_free(g->st, (void **)&g->h_acc);
        evc_pop(g->st);
    }
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_integer_vif.close) vmaf_fex_integer_vif.close(fex);
}

static int upload_table(VmafCudaState *st, EvcBuf *b, const void *host, size_t bytes)
{
    int err = evc_buf_alloc(st, b, bytes);
    if (!err) err = evc_upload(st, b->p, host, bytes);
    return err;
}

static int setup(IvifCuda *g)
{
    VmafCudaState *st = g->st;
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
    int err = upload_table(st, &g->filter, f, sizeof(f));
    if (!err) err = upload_table(st, &g->table, t, (IVIF_LOG2_TABLE_SIZE + 2) * sizeof(uint16_t));
    /* The host tables are read by the copies: wait before freeing them. */
    if (!err) err = evc_sync(st);
    free(t);

    for (int sc = 1; sc < IVIF_NUM_SCALES && !err; sc++) {
        const size_t n = (size_t)g->sw[sc] * (size_t)g->sh[sc];
        err = evc_buf_alloc(st, &g->img[sc][0], (n ? n : 1) * sizeof(uint16_t));
        if (!err) err = evc_buf_alloc(st, &g->img[sc][1], (n ? n : 1) * sizeof(uint16_t));
    }
    const size_t n0 = (size_t)g->w * g->h;
    if (!err) err = evc_buf_alloc(st, &g->v, 5 * n0 * sizeof(uint32_t));
    if (!err) err = evc_buf_alloc(st, &g->tmp, (n0 / 2 + 1) * sizeof(uint32_t));
    if (!err) err = evc_buf_alloc(st, &g->acc, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    if (!err) err = evc_host_alloc(st, (void **)&g->h_acc, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    const EvcFatbin *fb = &evc_fatbin_integer_vif;
    const bool u8 = g->bpc == 8;
    if (!err) err = evc_function(st, fb, u8 ? "ivif_vert_u8" : "ivif_vert_u16", &g->k_vert0);
    if (!err) err = evc_function(st, fb, "ivif_vert_u16", &g->k_vert16);
    if (!err) err = evc_function(st, fb, "ivif_horz_stat", &g->k_stat);
    if (!err) err = evc_function(st, fb, u8 ? "ivif_dec_v_u8" : "ivif_dec_v_u16", &g->k_dec_v0);
    if (!err) err = evc_function(st, fb, "ivif_dec_v_u16", &g->k_dec_v16);
    if (!err) err = evc_function(st, fb, "ivif_dec_h", &g->k_dec_h);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_integer_vif.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    IvifCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    err = evc_opt_bool(fex, "debug", &g->debug);
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

static int queue_frame(IvifCuda *g, CUdeviceptr ref0, CUdeviceptr dis0)
{
    VmafCudaState *st = g->st;
    int err = evc_memset(st, g->acc.p, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    for (int sc = 0; sc < IVIF_NUM_SCALES && !err; sc++) {
        if (sc > 0) {
            /* Scale sc from scale sc-1 with scale sc's filter. */
            CUdeviceptr f = g->filter.p + (size_t)sc * IVIF_MAX_TAPS * sizeof(uint32_t);
            int fw = ivif_filter_width(sc), w = g->sw[sc - 1], h = g->sh[sc - 1], oh = g->sh[sc];
            uint32_t mu_round, sq_round;
            int mu_shift, sq_shift;
            rounding(g, sc - 1, &mu_round, &mu_shift, &sq_round, &sq_shift);
            for (int p = 0; p < 2 && !err; p++) {
                CUdeviceptr src = sc == 1 ? (p ? dis0 : ref0) : g->img[sc - 1][p].p;
                void *va[] = { &src, &w, &h, &f, &fw, &mu_round, &mu_shift, &g->tmp.p };
                err = evc_launch(st, sc == 1 ? g->k_dec_v0 : g->k_dec_v16, (unsigned)w,
                                 (unsigned)oh, 1, 32, 8, va);
                void *ha[] = { &g->tmp.p, &w, &oh, &f, &fw, &g->img[sc][p].p };
                if (!err)
                    err = evc_launch(st, g->k_dec_h, (unsigned)(w / 2), (unsigned)oh, 1, 32, 8, ha);
            }
        }
        if (err || sc < (g->skip0 ? 1 : 0)) continue;
        CUdeviceptr f = g->filter.p + (size_t)sc * IVIF_MAX_TAPS * sizeof(uint32_t);
        int fw = ivif_filter_width(sc), w = g->sw[sc], h = g->sh[sc];
        uint32_t mu_round, sq_round;
        int mu_shift, sq_shift;
        rounding(g, sc, &mu_round, &mu_shift, &sq_round, &sq_shift);
        CUdeviceptr r = sc ? g->img[sc][0].p : ref0, d = sc ? g->img[sc][1].p : dis0;
        size_t plane = (size_t)w * h;
        void *va[] = { &r, &d, &w, &h, &f, &fw, &mu_round, &mu_shift, &sq_round, &sq_shift,
                       &g->v.p, &plane };
        err = evc_launch(st, sc ? g->k_vert16 : g->k_vert0, (unsigned)w, (unsigned)h, 1, 32, 8, va);
        CUdeviceptr acc = g->acc.p + (size_t)sc * 4 * sizeof(int64_t);
        void *sa[] = { &g->v.p, &plane, &w, &h, &f, &fw, &g->egl, &g->table.p, &acc };
        if (!err) err = evc_launch(st, g->k_stat, (unsigned)w, (unsigned)h, 1, 256, 1, sa);
    }
    if (!err) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_acc, g->acc.p, IVIF_NUM_SCALES * 4 * sizeof(int64_t));
    }
    if (!err) err = evc_sync(st);
    return err;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    IvifCuda *g = fex->twin_priv;
    if (ref->w[0] != g->w || ref->h[0] != g->h || dist->w[0] != g->w ||
        dist->h[0] != g->h || ref->bpc != g->bpc || dist->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "vif: frame %u does not match the %ux%u %u-bit geometry given at init",
                 index, g->w, g->h, g->bpc);
        return -EINVAL;
    }
    VmafCudaState *st = g->st;
    evc_twin_begin(st, "vif");
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

    IvifAccum acc[IVIF_NUM_SCALES];
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        const int64_t *a = g->h_acc + 4 * sc;
        acc[sc] = (IvifAccum){ a[0], a[1], a[2], a[3] };
    }
    double out[IVIF_OUT_COUNT];
    ivif_conclude(acc, g->skip0, out);
    evc_twin_end(st);
    const int n_out = g->debug ? IVIF_OUT_COUNT : IVIF_OUT_SCALES;
    for (int i = 0; i < n_out && !err; i++)
        err = vmaf_fex_emit(fex, ivif_output_names[i], out[i], index);
    return err;
}

const VmafFexTwin vmaf_fex_integer_vif_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .close = twin_close,
};
