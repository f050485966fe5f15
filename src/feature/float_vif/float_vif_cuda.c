/*
 * float_vif's CUDA twin: host side. The CPU path's init validates and reads
 * the options; the kernels (float_vif_cuda.cu) filter, decimate and form the
 * per-sample terms with vif_arith.h, one thread per row sums each row, and
 * here the rows are added top to bottom in fp32 and pooled with vif_pool(),
 * the CPU's own. A non-identity vif_prescale runs on the host with the CPU's
 * vif_prescale_apply() and the result is uploaded.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "vif_arith.h"
#include "vif_host.h"

extern const VmafFeatureExtractor vmaf_fex_float_vif;
extern const EvcFatbin evc_fatbin_float_vif;

typedef struct VifCuda {
    VmafCudaState *st;
    unsigned w, h;
    bool debug;
    unsigned scale_start;
    VifStatConst stat;
    double min_val[3];
    int fw[VIF_NUM_SCALES];
    int sw[VIF_NUM_SCALES], sh[VIF_NUM_SCALES];
    int pitch[VIF_NUM_SCALES];
    VifPrescale prescale;
    float *in_ref, *in_dis;     /**< host floats for a prescale */
    size_t in_stride;
    float *pre;                 /**< pinned: one prescaled image */
    EvcBuf img[VIF_NUM_SCALES][2]; /**< [scale][ref, dis]; scale 0 only with a prescale */
    EvcBuf filters;             /**< VIF_NUM_SCALES x VIF_MAX_FWIDTH taps */
    EvcBuf tmp, v, nd, rows;
    long long vps, nps;
    size_t row_off[VIF_NUM_SCALES], n_rows;
    float *h_rows;
    CUfunction k_dec_v, k_dec_h, k_stat_v, k_stat_h, k_rows;
} VifCuda;

static void twin_close(VmafFex *fex)
{
    VifCuda *g = fex->twin_priv;
    if (g) {
        VmafCudaState *st = g->st;
        if (!evc_push(st)) {
            evc_sync(st);
            for (int s = 0; s < VIF_NUM_SCALES; s++) {
                evc_buf_free(st, &g->img[s][0]);
                evc_buf_free(st, &g->img[s][1]);
            }
            evc_buf_free(st, &g->filters);
            evc_buf_free(st, &g->tmp);
            evc_buf_free(st, &g->v);
            evc_buf_free(st, &g->nd);
            evc_buf_free(st, &g->rows);
            evc_host_free(st, (void **)&g->h_rows);
            evc_host_free(st, (void **)&g->pre);
            evc_pop(st);
        }
        vif_prescale_close(&g->prescale);
        free(g->in_ref);
        free(g->in_dis);
        free(g);
        fex->twin_priv = NULL;
    }
    if (vmaf_fex_float_vif.close) vmaf_fex_float_vif.close(fex);
}

static int read_options(VmafFex *fex, VifCuda *g, float filter[VIF_NUM_SCALES][VIF_MAX_FWIDTH],
                        enum VifPrescaleMethod *method)
{
    double egl, ks, ps, nsq;
    const char *method_name;
    bool skip0;
    int err = evc_opt_bool(fex, "debug", &g->debug);
    if (!err) err = evc_opt_double(fex, "vif_enhn_gain_limit", &egl);
    if (!err) err = evc_opt_double(fex, "vif_kernelscale", &ks);
    if (!err) err = evc_opt_double(fex, "vif_prescale", &ps);
    if (!err) err = evc_opt_double(fex, "vif_scale1_min_val", &g->min_val[0]);
    if (!err) err = evc_opt_double(fex, "vif_scale2_min_val", &g->min_val[1]);
    if (!err) err = evc_opt_double(fex, "vif_scale3_min_val", &g->min_val[2]);
    if (!err) err = evc_opt_string(fex, "vif_prescale_method", &method_name);
    if (!err) err = evc_opt_double(fex, "vif_sigma_nsq", &nsq);
    if (!err) err = evc_opt_bool(fex, "vif_skip_scale0", &skip0);
    if (!err) err = vif_prescale_method_parse(method_name, method);
    if (err) return err;

    /* The CPU init's expressions (float_vif.c init()), same types. */
    g->scale_start = skip0 ? 1 : 0;
    g->stat = (VifStatConst){
        .sigma_nsq = nsq,
        .gain_limit = (float)egl,
        .sigma_max_inv = (float)(powf((float)nsq, 2.0f) / (255.0 * 255.0)),
    };
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++)
        g->fw[sc] = vif_filter_taps(filter[sc], sc, (float)ks);
    g->sw[0] = (int)(g->w * ps + 0.5);
    g->sh[0] = (int)(g->h * ps + 0.5);
    for (int sc = 1; sc < VIF_NUM_SCALES; sc++) {
        g->sw[sc] = g->sw[sc - 1] / 2;
        g->sh[sc] = g->sh[sc - 1] / 2;
    }
    return 0;
}

static int setup(VifCuda *g, const float filter[VIF_NUM_SCALES][VIF_MAX_FWIDTH])
{
    VmafCudaState *st = g->st;
    const int h0 = g->sh[0];
    int err = 0;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++)
        g->pitch[sc] = (int)evc_pitch_floats((unsigned)g->sw[sc]);
    for (int sc = 0; sc < VIF_NUM_SCALES && !err; sc++) {
        if (sc == 0 && g->prescale.identity) continue;
        const size_t bytes = (size_t)g->pitch[sc] * g->sh[sc] * sizeof(float);
        err = evc_buf_alloc(st, &g->img[sc][0], bytes);
        if (!err) err = evc_buf_alloc(st, &g->img[sc][1], bytes);
    }
    const size_t plane = (size_t)g->pitch[0] * h0;
    g->vps = (long long)plane;
    g->nps = (long long)plane;
    g->n_rows = 0;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) {
        g->row_off[sc] = g->n_rows;
        g->n_rows += 2 * (size_t)g->sh[sc];
    }
    if (!err) err = evc_buf_alloc(st, &g->filters, sizeof(float) * VIF_NUM_SCALES * VIF_MAX_FWIDTH);
    if (!err) err = evc_upload(st, g->filters.p, filter,
                               sizeof(float) * VIF_NUM_SCALES * VIF_MAX_FWIDTH);
    if (!err) err = evc_buf_alloc(st, &g->tmp, plane * sizeof(float));
    if (!err) err = evc_buf_alloc(st, &g->v, 5 * plane * sizeof(float));
    if (!err) err = evc_buf_alloc(st, &g->nd, 2 * plane * sizeof(float));
    if (!err) err = evc_buf_alloc(st, &g->rows, g->n_rows * sizeof(float));
    if (!err) err = evc_host_alloc(st, (void **)&g->h_rows, g->n_rows * sizeof(float));
    if (!err && !g->prescale.identity) {
        g->in_stride = g->w;
        g->in_ref = malloc(sizeof(float) * g->w * g->h);
        g->in_dis = malloc(sizeof(float) * g->w * g->h);
        if (!g->in_ref || !g->in_dis) err = -ENOMEM;
        if (!err) err = evc_host_alloc(st, (void **)&g->pre, 2 * plane * sizeof(float));
    }
    if (!err) err = evc_function(st, &evc_fatbin_float_vif, "vif_dec_v", &g->k_dec_v);
    if (!err) err = evc_function(st, &evc_fatbin_float_vif, "vif_dec_h", &g->k_dec_h);
    if (!err) err = evc_function(st, &evc_fatbin_float_vif, "vif_stat_v", &g->k_stat_v);
    if (!err) err = evc_function(st, &evc_fatbin_float_vif, "vif_stat_h", &g->k_stat_h);
    if (!err) err = evc_function(st, &evc_fatbin_float_vif, "vif_row_sums", &g->k_rows);
    if (!err) err = evc_sync(st);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_float_vif.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    VifCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    g->st = fex->env.cuda;
    g->w = w;
    g->h = h;
    float (*taps)[VIF_MAX_FWIDTH] = calloc(VIF_NUM_SCALES, sizeof(*taps));
    if (!taps) return -ENOMEM;
    enum VifPrescaleMethod method;
    err = read_options(fex, g, taps, &method);
    if (!err)
        err = vif_prescale_init(&g->prescale, method, (int)w, (int)h, g->sw[0], g->sh[0]);
    if (!err) err = evc_push(g->st);
    if (!err) {
        err = setup(g, (const float (*)[VIF_MAX_FWIDTH])taps);
        const int err2 = evc_pop(g->st);
        if (!err) err = err2;
    }
    free(taps);
    return err;
}

/* The scale-0 images: the plane cache's floats, or the host prescale uploaded. */
static int scale0(VifCuda *g, const VmafPicture *ref, const VmafPicture *dist,
                  unsigned index, CUdeviceptr img[2], int *pitch)
{
    VmafCudaState *st = g->st;
    if (g->prescale.identity) {
        size_t p;
        int err = evc_plane_float(st, ref, 0, index, -128.0f, &img[0], &p);
        if (!err) err = evc_plane_float(st, dist, 0, index, -128.0f, &img[1], &p);
        *pitch = (int)p;
        return err;
    }
    const size_t plane = (size_t)g->pitch[0] * g->sh[0];
    vmaf_picture_to_float(ref, 0, -128.0f, g->in_ref, g->in_stride);
    vmaf_picture_to_float(dist, 0, -128.0f, g->in_dis, g->in_stride);
    vif_prescale_apply(&g->prescale, g->in_ref, g->in_stride, g->pre, (size_t)g->pitch[0]);
    vif_prescale_apply(&g->prescale, g->in_dis, g->in_stride, g->pre + plane,
                       (size_t)g->pitch[0]);
    evc_phase(st, EVC_PHASE_UPLOAD);
    int err = evc_upload(st, g->img[0][0].p, g->pre, plane * sizeof(float));
    if (!err) err = evc_upload(st, g->img[0][1].p, g->pre + plane, plane * sizeof(float));
    img[0] = g->img[0][0].p;
    img[1] = g->img[0][1].p;
    *pitch = g->pitch[0];
    return err;
}

static int run_frame(VifCuda *g, const VmafPicture *ref, const VmafPicture *dist,
                     unsigned index, float num[VIF_NUM_SCALES], float den[VIF_NUM_SCALES])
{
    VmafCudaState *st = g->st;
    CUdeviceptr img[VIF_NUM_SCALES][2];
    int pitch[VIF_NUM_SCALES];
    int err = scale0(g, ref, dist, index, img[0], &pitch[0]);
    if (err) return err;
    evc_phase(st, EVC_PHASE_KERNELS);

    /* Scale s is scale s-1 filtered with scale s's kernel and decimated. */
    for (int sc = 1; sc < VIF_NUM_SCALES && !err; sc++) {
        CUdeviceptr f = g->filters.p + (size_t)sc * VIF_MAX_FWIDTH * sizeof(float);
        int w = g->sw[sc - 1], h = g->sh[sc - 1], oh = g->sh[sc], fw = g->fw[sc];
        int tp = g->pitch[sc - 1];
        pitch[sc] = g->pitch[sc];
        for (int z = 0; z < 2 && !err; z++) {
            img[sc][z] = g->img[sc][z].p;
            void *va[] = { &img[sc - 1][z], &pitch[sc - 1], &w, &h, &f, &fw, &g->tmp.p, &tp };
            err = evc_launch(st, g->k_dec_v, (unsigned)w, (unsigned)(h / 2), 1, 32, 8, va);
            void *ha[] = { &g->tmp.p, &tp, &w, &oh, &f, &fw, &img[sc][z], &pitch[sc] };
            if (!err) err = evc_launch(st, g->k_dec_h, (unsigned)(w / 2), (unsigned)oh, 1, 32, 8, ha);
        }
    }
    for (int sc = (int)g->scale_start; sc < VIF_NUM_SCALES && !err; sc++) {
        CUdeviceptr f = g->filters.p + (size_t)sc * VIF_MAX_FWIDTH * sizeof(float);
        int w = g->sw[sc], h = g->sh[sc], fw = g->fw[sc], vp = g->pitch[sc];
        void *va[] = { &img[sc][0], &img[sc][1], &pitch[sc], &w, &h, &f, &fw, &g->v.p, &vp,
                       &g->vps };
        err = evc_launch(st, g->k_stat_v, (unsigned)w, (unsigned)h, 1, 32, 8, va);
        void *ha[] = { &g->v.p, &vp, &g->vps, &w, &h, &f, &fw, &g->stat, &g->nd.p, &vp,
                       &g->nps };
        if (!err) err = evc_launch(st, g->k_stat_h, (unsigned)w, (unsigned)h, 1, 32, 8, ha);
        CUdeviceptr rows = g->rows.p + g->row_off[sc] * sizeof(float);
        void *ra[] = { &g->nd.p, &vp, &g->nps, &w, &h, &rows };
        if (!err) err = evc_launch(st, g->k_rows, (unsigned)h, 1, 2, 64, 1, ra);
    }
    if (err) return err;
    evc_phase(st, EVC_PHASE_READBACK);
    err = evc_download(st, g->h_rows, g->rows.p, g->n_rows * sizeof(float));
    if (!err) err = evc_sync(st);
    if (err) return err;

    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) {
        num[sc] = den[sc] = 0.0f;
        if (sc < (int)g->scale_start) continue;
        const float *r = g->h_rows + g->row_off[sc];
        float tn = 0.0f, td = 0.0f;
        for (int i = 0; i < g->sh[sc]; i++) {
            tn = FADD(tn, r[i]);
            td = FADD(td, r[g->sh[sc] + i]);
        }
        num[sc] = tn;
        den[sc] = td;
    }
    return 0;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    VifCuda *g = fex->twin_priv;
    if (ref->w[0] != g->w || ref->h[0] != g->h || dist->w[0] != g->w || dist->h[0] != g->h ||
        ref->bpc != dist->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_vif: frame %u does not match the %ux%u geometry given at init",
                 index, g->w, g->h);
        return -EINVAL;
    }
    float num[VIF_NUM_SCALES], den[VIF_NUM_SCALES];
    evc_twin_begin(g->st, "float_vif");
    int err = evc_push(g->st);
    if (err) return err;
    err = run_frame(g, ref, dist, index, num, den);
    const int err2 = evc_pop(g->st);
    if (err || err2) return err ? err : err2;

    double out[VIF_OUT_COUNT];
    vif_pool(num, den, g->scale_start, g->min_val, out);
    evc_twin_end(g->st);
    const int n_out = g->debug ? VIF_OUT_COUNT : VIF_OUT_SCALES;
    for (int i = 0; i < n_out && !err; i++)
        err = vmaf_fex_emit(fex, vif_output_names[i], out[i], index);
    return err;
}

const VmafFexTwin vmaf_fex_float_vif_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .close = twin_close,
};
