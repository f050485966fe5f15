/*
 * float_vif's GPU twin (CUDA and OpenCL kernels): host side, in the
 * GPU frame pipeline. The kernels (float_vif_kernels.h)
 * filter, decimate and form the per-sample terms with vif_arith.h, one
 * thread per row sums each row, and here the rows are added top to bottom
 * in fp32 and pooled with vif_pool(), the CPU's own. A non-identity
 * vif_prescale runs on the host with the CPU's vif_prescale_apply() and the
 * result is uploaded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "float_vif_state.h"
#include "vif_arith.h"
#include "vif_gpu_args.h"
#include "vif_host.h"

VMAF_GPU_PROGRAM_DECLARE(float_vif);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(float_vif);

typedef struct VifGpu {
    unsigned w, h;
    bool debug;
    unsigned scale_start;
    VifStatConst stat;
    double min_val[3];
    float filter[VIF_NUM_SCALES][VIF_MAX_FWIDTH];
    int fw[VIF_NUM_SCALES];
    int sw[VIF_NUM_SCALES], sh[VIF_NUM_SCALES];
    int pitch[VIF_NUM_SCALES];
    VifPrescale prescale;
    float *in_ref, *in_dis;     /**< enqueue's host floats for a prescale */
    size_t in_stride;
    long long vps, nps;
    size_t row_off[VIF_NUM_SCALES], n_rows;
} VifGpu;

/** One frame in flight. */
typedef struct VifLane {
    VmafGpuPtr img[VIF_NUM_SCALES][2]; /**< [scale][ref, dis]; scale 0 only with a prescale */
    VmafGpuPtr filters;                /**< VIF_NUM_SCALES x VIF_MAX_FWIDTH taps */
    VmafGpuPtr tmp, v, nd, rows;
    float *h_rows;
    float *pre;                         /**< pinned: both prescaled images */
    VmafGpuKernel *k_dec_v, *k_dec_h, *k_stat_v, *k_stat_h, *k_rows;
    /** Per scale, the tiled kernels of its width, when there are (vif_gpu_args.h). */
    VmafGpuKernel *k_stat_tiled[VIF_NUM_SCALES], *k_dec_tiled[VIF_NUM_SCALES];
} VifLane;

static void twin_close(VmafFex *fex)
{
    VifGpu *g = fex->twin_priv;
    if (!g) return;
    vif_prescale_close(&g->prescale);
    free(g->in_ref);
    free(g->in_dis);
}

/* What the CPU path's init derived from the options (float_vif.c init()). */
static void from_state(const VifState *s, VifGpu *g)
{
    g->debug = s->debug;
    g->scale_start = s->scale_start;
    g->stat = s->stat;
    memcpy(g->min_val, s->min_val, sizeof(g->min_val));
    memcpy(g->filter, s->filter, sizeof(g->filter));
    memcpy(g->fw, s->fw, sizeof(g->fw));
    memcpy(g->sw, s->sw, sizeof(g->sw));
    memcpy(g->sh, s->sh, sizeof(g->sh));
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const VifState *s = fex->priv;
    VifGpu *g = fex->twin_priv;
    g->w = w;
    g->h = h;
    from_state(s, g);
    int err = vif_prescale_init(&g->prescale, s->prescale.method, (int)w, (int)h, g->sw[0],
                                g->sh[0]);
    if (err) return err;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++)
        g->pitch[sc] = (int)vmaf_gpu_pitch_floats((unsigned)g->sw[sc]);
    const size_t plane = (size_t)g->pitch[0] * g->sh[0];
    g->vps = (long long)plane;
    g->nps = (long long)plane;
    g->n_rows = 0;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) {
        g->row_off[sc] = g->n_rows;
        g->n_rows += 2 * (size_t)g->sh[sc];
    }
    if (!g->prescale.identity) {
        /* The prescale runs on the host with the CPU's own functions. */
        g->in_stride = g->w;
        g->in_ref = malloc(sizeof(float) * g->w * g->h);
        g->in_dis = malloc(sizeof(float) * g->w * g->h);
        if (!g->in_ref || !g->in_dis) return -ENOMEM;
        return 0;
    }
    (void)pix_fmt, (void)bpc;
    return vmaf_gpu_use_float(needs, 3, 0, -128.0f);
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const VifGpu *g = fex->twin_priv;
    VifLane *q = lp;
    int err = 0;
    for (int sc = 0; sc < VIF_NUM_SCALES && !err; sc++) {
        if (sc == 0 && g->prescale.identity) continue;
        const size_t bytes = (size_t)g->pitch[sc] * g->sh[sc] * sizeof(float);
        err = vmaf_gpu_alloc(l, &q->img[sc][0], bytes);
        if (!err) err = vmaf_gpu_alloc(l, &q->img[sc][1], bytes);
    }
    const size_t plane = (size_t)g->pitch[0] * g->sh[0];
    if (!err) err = vmaf_gpu_const(l, &q->filters, g->filter, sizeof(g->filter));
    /* The plain kernels' intermediate planes, for widths without a tiled kernel. */
    bool plain = false;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) plain = plain || !VIF_TILED_WIDTH(g->fw[sc]);
    if (!err && plain) err = vmaf_gpu_alloc(l, &q->tmp, plane * sizeof(float));
    if (!err && plain) err = vmaf_gpu_alloc(l, &q->v, 5 * plane * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->nd, 2 * plane * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->rows, g->n_rows * sizeof(float));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_rows, g->n_rows * sizeof(float));
    if (!err && !g->prescale.identity)
        err = vmaf_gpu_alloc_host(l, (void **)&q->pre, 2 * plane * sizeof(float));
    const VmafGpuProgram *fb = &program;
    if (!err) err = vmaf_gpu_kernel(l, fb, "vif_dec_v", &q->k_dec_v);
    if (!err) err = vmaf_gpu_kernel(l, fb, "vif_dec_h", &q->k_dec_h);
    if (!err) err = vmaf_gpu_kernel(l, fb, "vif_stat_v", &q->k_stat_v);
    if (!err) err = vmaf_gpu_kernel(l, fb, "vif_stat_h", &q->k_stat_h);
    if (!err) err = vmaf_gpu_kernel(l, fb, "vif_row_sums", &q->k_rows);
    for (int sc = 0; sc < VIF_NUM_SCALES && !err; sc++) {
        if (!VIF_TILED_WIDTH(g->fw[sc])) continue;
        char name[32];
        snprintf(name, sizeof(name), "vif_stat_tiled_%d", g->fw[sc]);
        err = vmaf_gpu_kernel(l, fb, name, &q->k_stat_tiled[sc]);
        snprintf(name, sizeof(name), "vif_dec_tiled_%d", g->fw[sc]);
        if (!err && sc) err = vmaf_gpu_kernel(l, fb, name, &q->k_dec_tiled[sc]);
    }
    return err;
}

/* Tiles of the tiled kernels (float_vif_kernels.h): 256 threads for 32 x 16 outputs. */
#define TILE_W 32u
#define TILE_H 16u

static unsigned tiles(unsigned n, unsigned tile)
{
    return (n + tile - 1) / tile;
}

static VifTaps taps_of(const VifGpu *g, int sc)
{
    VifTaps t;
    memset(&t, 0, sizeof(t));
    memcpy(t.f, g->filter[sc], (size_t)g->fw[sc] * sizeof(float));
    return t;
}

/* The scale-0 images: the pipeline's floats, or the host prescale uploaded. */
static int scale0(VifGpu *g, const VmafGpuFrame *fr, VifLane *q, VmafGpuPtr img[2],
                  int *pitch)
{
    if (g->prescale.identity) {
        size_t p;
        int err = vmaf_gpu_plane_float(fr, VMAF_GPU_REF, 0, -128.0f, &img[0], &p);
        if (!err) err = vmaf_gpu_plane_float(fr, VMAF_GPU_DIST, 0, -128.0f, &img[1], &p);
        *pitch = (int)p;
        return err;
    }
    const size_t plane = (size_t)g->pitch[0] * g->sh[0];
    const VmafPicture *hp[2];
    int err = vmaf_gpu_host_pictures(fr, hp);
    if (err) return err;
    vmaf_picture_to_float(hp[0], 0, -128.0f, g->in_ref, g->in_stride);
    vmaf_picture_to_float(hp[1], 0, -128.0f, g->in_dis, g->in_stride);
    vif_prescale_apply(&g->prescale, g->in_ref, g->in_stride, q->pre, (size_t)g->pitch[0]);
    vif_prescale_apply(&g->prescale, g->in_dis, g->in_stride, q->pre + plane,
                       (size_t)g->pitch[0]);
    err = vmaf_gpu_upload(fr->lane, q->img[0][0], q->pre, plane * sizeof(float));
    if (!err) err = vmaf_gpu_upload(fr->lane, q->img[0][1], q->pre + plane, plane * sizeof(float));
    img[0] = q->img[0][0];
    img[1] = q->img[0][1];
    *pitch = g->pitch[0];
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    VifGpu *g = fex->twin_priv;
    VifLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr img[VIF_NUM_SCALES][2];
    int pitch[VIF_NUM_SCALES];
    int err = scale0(g, fr, q, img[0], &pitch[0]);
    if (err) return err;

    /* Scale s is scale s-1 filtered with scale s's kernel and decimated. */
    for (int sc = 1; sc < VIF_NUM_SCALES && !err; sc++) {
        VmafGpuPtr f = vmaf_gpu_at(q->filters, (size_t)sc * VIF_MAX_FWIDTH * sizeof(float));
        int w = g->sw[sc - 1], h = g->sh[sc - 1], oh = g->sh[sc], fw = g->fw[sc];
        int tp = g->pitch[sc - 1];
        pitch[sc] = g->pitch[sc];
        img[sc][0] = q->img[sc][0];
        img[sc][1] = q->img[sc][1];
        if (q->k_dec_tiled[sc]) {
            VifTaps taps = taps_of(g, sc);
            VmafGpuArg a[] = { VMAF_GPU_ARG(img[sc - 1][0]), VMAF_GPU_ARG(img[sc - 1][1]),
                               VMAF_GPU_ARG(pitch[sc - 1]), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                               VMAF_GPU_ARG(taps), VMAF_GPU_ARG(img[sc][0]),
                               VMAF_GPU_ARG(img[sc][1]), VMAF_GPU_ARG(pitch[sc]) };
            err = vmaf_gpu_launch(l, q->k_dec_tiled[sc], tiles((unsigned)g->sw[sc], TILE_W) * 256,
                                  tiles((unsigned)oh, TILE_H), 2, 256, 1, a);
            continue;
        }
        for (int z = 0; z < 2 && !err; z++) {
            VmafGpuArg va[] = { VMAF_GPU_ARG(img[sc - 1][z]), VMAF_GPU_ARG(pitch[sc - 1]),
                                VMAF_GPU_ARG(w), VMAF_GPU_ARG(h), VMAF_GPU_ARG(f),
                                VMAF_GPU_ARG(fw), VMAF_GPU_ARG(q->tmp), VMAF_GPU_ARG(tp) };
            err = vmaf_gpu_launch(l, q->k_dec_v, (unsigned)w, (unsigned)(h / 2), 1, 32, 8, va);
            VmafGpuArg ha[] = { VMAF_GPU_ARG(q->tmp), VMAF_GPU_ARG(tp), VMAF_GPU_ARG(w),
                                VMAF_GPU_ARG(oh), VMAF_GPU_ARG(f), VMAF_GPU_ARG(fw),
                                VMAF_GPU_ARG(img[sc][z]), VMAF_GPU_ARG(pitch[sc]) };
            if (!err)
                err = vmaf_gpu_launch(l, q->k_dec_h, (unsigned)(w / 2), (unsigned)oh, 1, 32, 8, ha);
        }
    }
    for (int sc = (int)g->scale_start; sc < VIF_NUM_SCALES && !err; sc++) {
        VmafGpuPtr f = vmaf_gpu_at(q->filters, (size_t)sc * VIF_MAX_FWIDTH * sizeof(float));
        int w = g->sw[sc], h = g->sh[sc], fw = g->fw[sc], vp = g->pitch[sc];
        long long vps = g->vps, nps = g->nps;
        VifStatConst stat = g->stat;
        if (q->k_stat_tiled[sc]) {
            VifTaps taps = taps_of(g, sc);
            VmafGpuArg a[] = { VMAF_GPU_ARG(img[sc][0]), VMAF_GPU_ARG(img[sc][1]),
                               VMAF_GPU_ARG(pitch[sc]), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                               VMAF_GPU_ARG(taps), VMAF_GPU_ARG(stat), VMAF_GPU_ARG(q->nd),
                               VMAF_GPU_ARG(vp), VMAF_GPU_ARG(nps) };
            err = vmaf_gpu_launch(l, q->k_stat_tiled[sc], tiles((unsigned)w, TILE_W) * 256,
                                  tiles((unsigned)h, TILE_H), 1, 256, 1, a);
        } else {
            VmafGpuArg va[] = { VMAF_GPU_ARG(img[sc][0]), VMAF_GPU_ARG(img[sc][1]),
                                VMAF_GPU_ARG(pitch[sc]), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                                VMAF_GPU_ARG(f), VMAF_GPU_ARG(fw), VMAF_GPU_ARG(q->v),
                                VMAF_GPU_ARG(vp), VMAF_GPU_ARG(vps) };
            err = vmaf_gpu_launch(l, q->k_stat_v, (unsigned)w, (unsigned)h, 1, 32, 8, va);
            VmafGpuArg ha[] = { VMAF_GPU_ARG(q->v), VMAF_GPU_ARG(vp), VMAF_GPU_ARG(vps),
                                VMAF_GPU_ARG(w), VMAF_GPU_ARG(h), VMAF_GPU_ARG(f),
                                VMAF_GPU_ARG(fw), VMAF_GPU_ARG(stat), VMAF_GPU_ARG(q->nd),
                                VMAF_GPU_ARG(vp), VMAF_GPU_ARG(nps) };
            if (!err)
                err = vmaf_gpu_launch(l, q->k_stat_h, (unsigned)w, (unsigned)h, 1, 32, 8, ha);
        }
        VmafGpuPtr rows = vmaf_gpu_at(q->rows, g->row_off[sc] * sizeof(float));
        VmafGpuArg ra[] = { VMAF_GPU_ARG(q->nd), VMAF_GPU_ARG(vp), VMAF_GPU_ARG(nps),
                            VMAF_GPU_ARG(w), VMAF_GPU_ARG(h), VMAF_GPU_ARG(rows) };
        if (!err) err = vmaf_gpu_launch(l, q->k_rows, RS_THREADS(h), 1, 2, RS_BLOCK, 1, ra);
    }
    if (!err) err = vmaf_gpu_download(l, q->h_rows, q->rows, g->n_rows * sizeof(float));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const VifGpu *g = fex->twin_priv;
    const VifLane *q = lp;
    float num[VIF_NUM_SCALES], den[VIF_NUM_SCALES];
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) {
        num[sc] = den[sc] = 0.0f;
        if (sc < (int)g->scale_start) continue;
        const float *r = q->h_rows + g->row_off[sc];
        float tn = 0.0f, td = 0.0f;
        for (int i = 0; i < g->sh[sc]; i++) {
            tn = FADD(tn, r[i]);
            td = FADD(td, r[g->sh[sc] + i]);
        }
        num[sc] = tn;
        den[sc] = td;
    }
    return vif_emit(fex, num, den, g->scale_start, g->min_val, g->debug, fr->index);
}

const VmafFexTwin vmaf_fex_float_vif_gpu = {
    .program = &program,
    .priv_size = sizeof(VifGpu),
    .lane_size = sizeof(VifLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
    .close = twin_close,
};
