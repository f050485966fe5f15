/*
 * float_motion's CUDA twin: host side. The CPU path's init validates the
 * geometry and options; the blurs of the frames stay on the device, one
 * thread per row forms each row's SAD (float_motion_cuda.cu), and here the
 * rows are added top to bottom with motion_sum_rows() and the frame is
 * concluded by motion_conclude_frame() / motion_conclude_flush(), the CPU's.
 * motion_force_zero reads no samples: the CPU path computes it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "feature/extractor.h"
#include "gpu/cuda/cuda_common.h"
#include "log.h"

#include "motion_arith.h"
#include "motion_conclude.h"

extern const VmafFeatureExtractor vmaf_fex_float_motion;
extern const EvcFatbin evc_fatbin_float_motion;

/* Same layout as float_motion_cuda.cu's kernel argument. */
typedef struct MotionTaps {
    float f[MOTION_MAX_TAPS];
    int n;
} MotionTaps;

typedef struct MotionCudaPlane {
    int alloc_w, alloc_h;   /**< largest size the plane may have */
    int w, h;               /**< size at frame 0 (kept for every frame) */
    int pitch;
    EvcBuf blur[2];         /**< blur of frame n in blur[n & 1] */
    EvcBuf s1[2];           /**< its scale-1 downscale */
} MotionCudaPlane;

typedef struct MotionCuda {
    VmafCudaState *st;
    bool force_zero, scale1;
    unsigned n_planes, bpc;
    MotionTaps taps;
    MotionCudaPlane plane[3];
    int s1w, s1h, s1pitch;
    EvcBuf x1, x2, dx, y1, y2, dy;
    EvcBuf tmp, rows;
    float *h_rows;
    int rows_per_plane;
    unsigned next_index;
    MotionConclusion conc;
    CUfunction k_blur_v, k_blur_h, k_sad, k_down;
} MotionCuda;

static void twin_close(VmafFex *fex)
{
    MotionCuda *g = fex->twin_priv;
    if (g && g->st) {
        VmafCudaState *st = g->st;
        if (!evc_push(st)) {
            evc_sync(st);
            for (unsigned p = 0; p < 3; p++) {
                for (int k = 0; k < 2; k++) {
                    evc_buf_free(st, &g->plane[p].blur[k]);
                    evc_buf_free(st, &g->plane[p].s1[k]);
                }
            }
            EvcBuf *b[] = { &g->x1, &g->x2, &g->dx, &g->y1, &g->y2, &g->dy, &g->tmp, &g->rows };
            for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
                evc_buf_free(st, b[i]);
            evc_host_free(st, (void **)&g->h_rows);
            evc_pop(st);
        }
    }
    free(g);
    fex->twin_priv = NULL;
    if (vmaf_fex_float_motion.close) vmaf_fex_float_motion.close(fex);
}

static int upload_table(VmafCudaState *st, EvcBuf *b, const void *host, size_t bytes)
{
    int err = evc_buf_alloc(st, b, bytes);
    if (!err) err = evc_upload(st, b->p, host, bytes);
    return err;
}

/* motion_add_scale1: the CPU's column / row positions (float_motion.c init_scale1). */
static int setup_scale1(MotionCuda *g, int w, int h)
{
    VmafCudaState *st = g->st;
    g->s1w = motion_scale1_size(w);
    g->s1h = motion_scale1_size(h);
    g->s1pitch = (int)evc_pitch_floats((unsigned)g->s1w);
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
        err = upload_table(st, &g->x1, x1, sizeof(int) * g->s1w);
        if (!err) err = upload_table(st, &g->x2, x2, sizeof(int) * g->s1w);
        if (!err) err = upload_table(st, &g->dx, dx, sizeof(float) * g->s1w);
        if (!err) err = upload_table(st, &g->y1, y1, sizeof(int) * g->s1h);
        if (!err) err = upload_table(st, &g->y2, y2, sizeof(int) * g->s1h);
        if (!err) err = upload_table(st, &g->dy, dy, sizeof(float) * g->s1h);
        /* The host tables are read by the copies: wait before freeing them. */
        if (!err) err = evc_sync(st);
    }
    free(x1);
    free(x2);
    free(y1);
    free(y2);
    free(dx);
    free(dy);
    for (unsigned p = 0; p < g->n_planes && !err; p++) {
        const size_t bytes = (size_t)g->s1pitch * g->s1h * sizeof(float);
        err = evc_buf_alloc(st, &g->plane[p].s1[0], bytes);
        if (!err) err = evc_buf_alloc(st, &g->plane[p].s1[1], bytes);
    }
    return err;
}

static int setup(MotionCuda *g, enum VmafPixelFormat pix_fmt, unsigned w, unsigned h)
{
    VmafCudaState *st = g->st;
    g->plane[0].alloc_w = (int)w;
    g->plane[0].alloc_h = (int)h;
    if (g->n_planes == 3) {
        /* Room for rounded-up chroma, as the CPU path allocates. */
        const unsigned ss_x = pix_fmt != VMAF_PIX_FMT_YUV444P;
        const unsigned ss_y = pix_fmt == VMAF_PIX_FMT_YUV420P;
        for (unsigned p = 1; p < 3; p++) {
            g->plane[p].alloc_w = (int)((w + ss_x) >> ss_x);
            g->plane[p].alloc_h = (int)((h + ss_y) >> ss_y);
        }
    }
    int err = 0, max_rows = 0;
    size_t max_plane = 0;
    for (unsigned p = 0; p < g->n_planes && !err; p++) {
        MotionCudaPlane *pl = &g->plane[p];
        pl->pitch = (int)evc_pitch_floats((unsigned)pl->alloc_w);
        const size_t bytes = (size_t)pl->pitch * pl->alloc_h * sizeof(float);
        if (bytes > max_plane) max_plane = bytes;
        err = evc_buf_alloc(st, &pl->blur[0], bytes);
        if (!err) err = evc_buf_alloc(st, &pl->blur[1], bytes);
        if (pl->alloc_h > max_rows) max_rows = pl->alloc_h;
    }
    if (!err && g->scale1) err = setup_scale1(g, (int)w, (int)h);
    /* Per plane: its rows, then its scale-1 rows. */
    g->rows_per_plane = max_rows + (g->scale1 ? g->s1h : 0);
    const size_t row_bytes = (size_t)g->rows_per_plane * g->n_planes * sizeof(float);
    if (!err) err = evc_buf_alloc(st, &g->tmp, max_plane);
    if (!err) err = evc_buf_alloc(st, &g->rows, row_bytes);
    if (!err) err = evc_host_alloc(st, (void **)&g->h_rows, row_bytes);
    if (!err) err = evc_function(st, &evc_fatbin_float_motion, "motion_blur_v", &g->k_blur_v);
    if (!err) err = evc_function(st, &evc_fatbin_float_motion, "motion_blur_h", &g->k_blur_h);
    if (!err) err = evc_function(st, &evc_fatbin_float_motion, "motion_sad_rows", &g->k_sad);
    if (!err) err = evc_function(st, &evc_fatbin_float_motion, "motion_downscale", &g->k_down);
    return err;
}

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h)
{
    /* The CPU path validates the geometry and the options, with its messages. */
    int err = vmaf_fex_float_motion.init(fex, pix_fmt, bpc, w, h);
    if (err) return err;
    MotionCuda *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    fex->twin_priv = g;
    bool debug, uv;
    int filter_size;
    err = evc_opt_bool(fex, "debug", &debug);
    if (!err) err = evc_opt_bool(fex, "motion_force_zero", &g->force_zero);
    if (!err) err = evc_opt_double(fex, "motion_fps_weight", &g->conc.p.fps_weight);
    if (!err) err = evc_opt_double(fex, "motion_blend_factor", &g->conc.p.blend_factor);
    if (!err) err = evc_opt_double(fex, "motion_blend_offset", &g->conc.p.blend_offset);
    if (!err) err = evc_opt_double(fex, "motion_max_val", &g->conc.p.max_val);
    if (!err) err = evc_opt_bool(fex, "motion_add_scale1", &g->scale1);
    if (!err) err = evc_opt_int(fex, "motion_filter_size", &filter_size);
    if (!err) err = evc_opt_bool(fex, "motion_add_uv", &uv);
    if (err) return err;
    g->conc.debug = debug;
    if (g->force_zero) return 0;    /* no samples read: the CPU path does it */

    g->st = fex->env.cuda;
    g->bpc = bpc;
    g->n_planes = uv ? 3 : 1;
    g->taps.n = motion_filter_taps(filter_size, g->taps.f);
    err = evc_push(g->st);
    if (err) {
        g->st = NULL;
        return err;
    }
    err = setup(g, pix_fmt, w, h);
    const int err2 = evc_pop(g->st);
    return err ? err : err2;
}

static int check_plane(MotionCuda *g, const VmafPicture *pic, unsigned p, unsigned index)
{
    MotionCudaPlane *pl = &g->plane[p];
    const int w = (int)pic->w[p], h = (int)pic->h[p];
    const int min = g->taps.n / 2 + 1;
    bool ok;
    if (p == 0 || g->scale1)
        ok = w == pl->alloc_w && h == pl->alloc_h;
    else
        ok = w >= min && h >= min && w <= pl->alloc_w && h <= pl->alloc_h &&
             (index == 0 || (w == pl->w && h == pl->h));
    if (!ok) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: frame %u plane %u is %dx%d, which does not match "
                 "the size given at init", index, p, w, h);
        return -EINVAL;
    }
    pl->w = w;
    pl->h = h;
    return 0;
}

/* Queue plane p's blur (and downscale), and its SADs against the previous frame. */
static int queue_plane(MotionCuda *g, const VmafPicture *ref, unsigned p, unsigned index)
{
    VmafCudaState *st = g->st;
    MotionCudaPlane *pl = &g->plane[p];
    CUdeviceptr src;
    size_t sp_sz;
    int err = evc_plane_float(st, ref, p, index, -128.0f, &src, &sp_sz);
    if (err) return err;
    evc_phase(st, EVC_PHASE_KERNELS);
    int sp = (int)sp_sz, w = pl->w, h = pl->h;
    CUdeviceptr cur = pl->blur[index & 1].p, prev = pl->blur[(index + 1) & 1].p;
    void *va[] = { &src, &sp, &w, &h, &g->taps, &g->tmp.p, &pl->pitch };
    err = evc_launch(st, g->k_blur_v, (unsigned)w, (unsigned)h, 1, 32, 8, va);
    void *ha[] = { &g->tmp.p, &pl->pitch, &w, &h, &g->taps, &cur, &pl->pitch };
    if (!err) err = evc_launch(st, g->k_blur_h, (unsigned)w, (unsigned)h, 1, 32, 8, ha);
    CUdeviceptr rows = g->rows.p + (size_t)p * g->rows_per_plane * sizeof(float);
    if (!err && index) {
        void *sa[] = { &prev, &cur, &pl->pitch, &w, &h, &rows };
        err = evc_launch(st, g->k_sad, (unsigned)h, 1, 1, 64, 1, sa);
    }
    if (err || !g->scale1) return err;

    CUdeviceptr s1cur = pl->s1[index & 1].p, s1prev = pl->s1[(index + 1) & 1].p;
    void *da[] = { &cur, &pl->pitch, &g->s1w, &g->s1h, &g->x1.p, &g->x2.p, &g->dx.p,
                   &g->y1.p, &g->y2.p, &g->dy.p, &s1cur, &g->s1pitch };
    err = evc_launch(st, g->k_down, (unsigned)g->s1w, (unsigned)g->s1h, 1, 32, 8, da);
    if (!err && index) {
        CUdeviceptr s1rows = rows + (size_t)pl->alloc_h * sizeof(float);
        void *sa[] = { &s1prev, &s1cur, &g->s1pitch, &g->s1w, &g->s1h, &s1rows };
        err = evc_launch(st, g->k_sad, (unsigned)g->s1h, 1, 1, 64, 1, sa);
    }
    return err;
}

static int twin_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    MotionCuda *g = fex->twin_priv;
    if (g->force_zero)
        return vmaf_fex_float_motion.extract(fex, ref, dist, index);
    /* The blur ring and the schedule assume frames 0, 1, 2, ... */
    if (index != g->next_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: got frame %u, expected frame %u (frames must come in order)",
                 index, g->next_index);
        return -EINVAL;
    }
    if (ref->bpc != g->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_motion: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, g->bpc);
        return -EINVAL;
    }
    int err = 0;
    for (unsigned p = 0; p < g->n_planes && !err; p++)
        err = check_plane(g, ref, p, index);
    if (err) return err;

    VmafCudaState *st = g->st;
    evc_twin_begin(st, "float_motion");
    err = evc_push(st);
    if (err) return err;
    for (unsigned p = 0; p < g->n_planes && !err; p++)
        err = queue_plane(g, ref, p, index);
    if (!err && index) {
        evc_phase(st, EVC_PHASE_READBACK);
        err = evc_download(st, g->h_rows, g->rows.p,
                           (size_t)g->rows_per_plane * g->n_planes * sizeof(float));
    }
    if (!err) err = evc_sync(st);
    const int err2 = evc_pop(st);
    if (err || err2) return err ? err : err2;

    float m[3] = { 0.0f, 0.0f, 0.0f };
    for (unsigned p = 0; index && p < g->n_planes; p++) {
        const MotionCudaPlane *pl = &g->plane[p];
        const float *rows = g->h_rows + (size_t)p * g->rows_per_plane;
        m[p] = motion_mean(motion_sum_rows(rows, pl->h), pl->w, pl->h);
        if (g->scale1) {
            const float *r1 = rows + pl->alloc_h;
            m[p] = motion_add_scales(m[p], motion_mean(motion_sum_rows(r1, g->s1h),
                                                       g->s1w, g->s1h));
        }
    }
    const double score = g->n_planes == 3 ? motion_add_planes(m[0], m[1], m[2]) : (double)m[0];
    evc_twin_end(st);
    err = motion_conclude_frame(fex, &g->conc, index, score);
    if (!err) g->next_index++;
    return err;
}

static int twin_flush(VmafFex *fex)
{
    MotionCuda *g = fex->twin_priv;
    if (g->force_zero)
        return vmaf_fex_float_motion.flush ? vmaf_fex_float_motion.flush(fex) : 0;
    return motion_conclude_flush(fex, &g->conc);
}

const VmafFexTwin vmaf_fex_float_motion_cuda = {
    .backend = "cuda",
    .init = twin_init,
    .extract = twin_extract,
    .flush = twin_flush,
    .close = twin_close,
};
