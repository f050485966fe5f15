/*
 * float_motion: Netflix libvmaf v3.2.0's float motion feature, bit for bit
 * (docs/numerics.md section 5). Temporal: only the reference picture is
 * read; each frame's blur is kept to be compared with the next frame's.
 *
 * Differences in structure from the reference, none in arithmetic:
 * - m[n-1] is kept instead of being recomputed as SAD(blur[n-1], blur[n-2])
 *   (|a-b| == |b-a| exactly, so the recomputation is the cached value), so
 *   only two blurred frames are kept, and with motion_add_scale1 each frame is
 *   downscaled once.
 * - The blur is computed a row at a time (vertical taps into a padded row
 *   buffer, then the horizontal taps), and each block of 8 finished rows is
 *   compared with the previous blur at once, its 8 row sums interleaved;
 *   every sum has the reference's terms in the reference's order.
 * - motion_add_scale1 with motion_add_uv on subsampled chroma is refused
 *   (the reference reads undefined memory there; see init), and scale-1
 *   widths above 7680, which the reference refuses, are supported.
 * - Frames must come as 0, 1, 2, ...; the reference silently reads stale
 *   blurs otherwise.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "float_motion_state.h"
#include "log.h"
#include "motion_arith.h"
#include "motion_conclude.h"
#include "cpu.h"
#include "os/os.h"

/* Input offset of the float extractors ADM, VIF and motion (docs/numerics.md §2). */
#define MOTION_OFFSET (-128.0f)

static const VmafOption options[] = {
    {
        .name = "debug",
        .help = "debug mode: enable additional output",
        .offset = offsetof(MotionState, debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = true,
    },
    {
        .name = "motion_force_zero",
        .alias = "force_0",
        .help = "forcing motion score to zero",
        .offset = offsetof(MotionState, motion_force_zero),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_fps_weight",
        .alias = "mfw",
        .help = "fps-aware multiplicative weight/correction",
        .offset = offsetof(MotionState, motion_fps_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 5.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_blend_factor",
        .alias = "mbf",
        .help = "blend motion score given an offset",
        .offset = offsetof(MotionState, motion_blend_factor),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_blend_offset",
        .alias = "mbo",
        .help = "blend motion score starting from this offset",
        .offset = offsetof(MotionState, motion_blend_offset),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 40.0,
        .min = 0.0,
        .max = 1000.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_add_scale1",
        .alias = "mdc",
        .help = "add motion score from scale1",
        .offset = offsetof(MotionState, motion_add_scale1),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_filter_size",
        .alias = "mfs",
        .help = "filtering size",
        .offset = offsetof(MotionState, motion_filter_size),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 5,
        .min = 0,
        .max = 9,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_add_uv",
        .alias = "mau",
        .help = "include U and V terms",
        .offset = offsetof(MotionState, motion_add_uv),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_max_val",
        .alias = "mmxv",
        .help = "maximum value allowed; larger values will be clipped to this value",
        .offset = offsetof(MotionState, motion_max_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 10000.0,
        .min = 0.0,
        .max = 10000.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

static const char *const provided_features[] = {
    "VMAF_feature_motion_score",
    "VMAF_feature_motion2_score",
    "VMAF_feature_motion3_score",
    NULL
};

/* ---- Emission schedule (motion_conclude.h) ---- */

#define NAME_MOTION "VMAF_feature_motion_score"
#define NAME_MOTION2 "VMAF_feature_motion2_score"
#define NAME_MOTION3 "VMAF_feature_motion3_score"

int motion_conclude_frame(VmafFex *fex, MotionConclusion *c, unsigned index,
                          double score)
{
    int err;

    if (index == 0) {
        /* Frame 0 has no predecessor: motion2 and motion are 0, and motion3[0]
         * waits for m1 (or for the flush). */
        err = vmaf_fex_emit(fex, NAME_MOTION2, 0.0, 0);
        if (!err && c->debug)
            err = vmaf_fex_emit(fex, NAME_MOTION, 0.0, 0);
        c->last_score = 0.0;
    } else {
        err = c->debug ? vmaf_fex_emit(fex, NAME_MOTION, motion_clip(score, &c->p), index) : 0;
        if (!err && index == 1) {
            /* motion3[0] is the blended m1, although motion2[0] was 0. */
            err = vmaf_fex_emit(fex, NAME_MOTION3, motion_blended(score, &c->p), 0);
        } else if (!err) {
            const double lo = motion_min(c->last_score, score);
            err = vmaf_fex_emit(fex, NAME_MOTION2, motion_clip(lo, &c->p), index - 1);
            if (!err)
                err = vmaf_fex_emit(fex, NAME_MOTION3, motion_blended(lo, &c->p), index - 1);
        }
        c->last_score = score;
    }
    c->last_index = index;
    c->started = true;
    /* Frame index's motion2 and motion3 wait for the next frame's score. */
    vmaf_fex_hold(fex, index);
    return err;
}

int motion_conclude_flush(VmafFex *fex, const MotionConclusion *c)
{
    int err;

    if (!c->started)
        return 0;
    if (c->last_index == 0)
        return vmaf_fex_emit(fex, NAME_MOTION3, 0.0, 0);
    err = vmaf_fex_emit(fex, NAME_MOTION2, motion_clip(c->last_score, &c->p), c->last_index);
    if (!err)
        err = vmaf_fex_emit(fex, NAME_MOTION3, motion_blended(c->last_score, &c->p),
                            c->last_index);
    return err;
}

/* ---- CPU reference ---- */

static void *alloc_floats(size_t n)
{
    /* 32-byte aligned rows help the vectorised loops; whole 32-byte blocks,
     * so that a vector load of the last one stays inside. */
    const size_t bytes = (n * sizeof(float) + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

static void free_state(MotionState *s)
{
    for (unsigned p = 0; p < 3; p++) {
        vmaf_os_aligned_free(s->plane[p].src);
        vmaf_os_aligned_free(s->plane[p].blur[0]);
        vmaf_os_aligned_free(s->plane[p].blur[1]);
        s->plane[p].src = s->plane[p].blur[0] = s->plane[p].blur[1] = NULL;
    }
    free(s->s1.x1);
    free(s->s1.x2);
    free(s->s1.y1);
    free(s->s1.y2);
    free(s->s1.dx);
    free(s->s1.dy);
    s->s1.x1 = s->s1.x2 = s->s1.y1 = s->s1.y2 = NULL;
    s->s1.dx = s->s1.dy = NULL;
    for (unsigned p = 0; p < 3; p++) {
        vmaf_os_aligned_free(s->s1.img[p][0]);
        vmaf_os_aligned_free(s->s1.img[p][1]);
        s->s1.img[p][0] = s->s1.img[p][1] = NULL;
    }
    vmaf_os_aligned_free(s->row);
    vmaf_os_aligned_free(s->row_sums);
    s->row = s->row_sums = NULL;
}

/** The loops for the processor's instruction set (src/simd.h). */
static const MotionKern *motion_kern(void)
{
    static const MotionKern *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE(motion_kern);
    return kern[ev_cpu_isa()];
}

/** Bilinear half-size downscale of a blur into dst (s1->w floats per row). */
static void downscale(const MotionScale1 *s1, const float *src, size_t stride,
                      float *dst)
{
    for (int y = 0; y < s1->h; y++) {
        const float *r1 = src + (size_t)s1->y1[y] * stride;
        const float *r2 = src + (size_t)s1->y2[y] * stride;
        const float dy = s1->dy[y];
        float *d = dst + (size_t)y * s1->w;
        for (int x = 0; x < s1->w; x++) {
            const int x1 = s1->x1[x], x2 = s1->x2[x];
            d[x] = motion_bilinear_px(r1[x1], r1[x2], r2[x1], r2[x2], s1->dx[x], dy);
        }
    }
}

static int init_scale1(MotionState *s, unsigned w, unsigned h)
{
    MotionScale1 *s1 = &s->s1;

    s1->w = motion_scale1_size((int)w);
    s1->h = motion_scale1_size((int)h);
    s1->x1 = malloc(s1->w * sizeof(int));
    s1->x2 = malloc(s1->w * sizeof(int));
    s1->dx = malloc(s1->w * sizeof(float));
    s1->y1 = malloc(s1->h * sizeof(int));
    s1->y2 = malloc(s1->h * sizeof(int));
    s1->dy = malloc(s1->h * sizeof(float));
    if (!s1->x1 || !s1->x2 || !s1->dx || !s1->y1 || !s1->y2 || !s1->dy)
        return -ENOMEM;
    for (unsigned p = 0; p < s->n_planes; p++) {
        s1->img[p][0] = alloc_floats((size_t)s1->w * s1->h);
        s1->img[p][1] = alloc_floats((size_t)s1->w * s1->h);
        if (!s1->img[p][0] || !s1->img[p][1])
            return -ENOMEM;
    }

    /* The reference's column/row positions; they depend only on the sizes. */
    const float rx = motion_bilinear_ratio((int)w, s1->w);
    const float ry = motion_bilinear_ratio((int)h, s1->h);
    for (int x = 0; x < s1->w; x++)
        motion_bilinear_coord(x, rx, (int)w, &s1->x1[x], &s1->x2[x], &s1->dx[x]);
    for (int y = 0; y < s1->h; y++)
        motion_bilinear_coord(y, ry, (int)h, &s1->y1[y], &s1->y2[y], &s1->dy[y]);
    return 0;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    MotionState *s = fex->priv;
    int err;

    s->conc = (MotionConclusion){
        .p = {
            .fps_weight = s->motion_fps_weight,
            .blend_factor = s->motion_blend_factor,
            .blend_offset = s->motion_blend_offset,
            .max_val = s->motion_max_val,
        },
        .debug = s->debug,
    };
    s->next_index = 0;
    s->bpc = bpc;

    /* Forced zero reads no samples: the reference emits zeros for any size. */
    if (s->motion_force_zero)
        return 0;

    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    if (w > INT_MAX || h > INT_MAX || (uint64_t)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_motion: frame %ux%u is too large", w, h);
        return -EINVAL;
    }

    s->n_taps = motion_filter_taps(s->motion_filter_size, s->taps);
    s->n_planes = 1;
    s->plane[0].alloc_w = w;
    s->plane[0].alloc_h = h;
    if (s->motion_add_uv) {
        unsigned ss_x, ss_y;
        switch (pix_fmt) {
        case VMAF_PIX_FMT_YUV420P: ss_x = 1; ss_y = 1; break;
        case VMAF_PIX_FMT_YUV422P: ss_x = 1; ss_y = 0; break;
        case VMAF_PIX_FMT_YUV444P: ss_x = 0; ss_y = 0; break;
        default:
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "float_motion: motion_add_uv needs a 4:2:0, 4:2:2 or 4:4:4 picture");
            return -EINVAL;
        }
        /* The reference's scale-1 SAD of a chroma plane is handed a row
         * stride computed from the chroma width, while its chroma buffers are
         * laid out with the luma stride. With subsampled chroma the two
         * differ: it downscales rows that are not the plane's, partly from
         * never-written row padding, so its result is not a defined value.
         * Refused rather than silently "fixed". In 4:4:4 the strides agree
         * and the reference is well defined, so that is supported. */
        if (s->motion_add_scale1 && pix_fmt != VMAF_PIX_FMT_YUV444P) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "float_motion: motion_add_uv with motion_add_scale1 is supported for "
                     "4:4:4 only (the reference reads subsampled chroma with a wrong "
                     "stride there, so its result is undefined)");
            return -EINVAL;
        }
        /* Room for the rounded-up chroma size; a picture with rounded-down
         * chroma (libvmaf's own allocator) fits too. */
        for (unsigned p = 1; p < 3; p++) {
            s->plane[p].alloc_w = (w + ss_x) >> ss_x;
            s->plane[p].alloc_h = (h + ss_y) >> ss_y;
        }
        s->n_planes = 3;
    }

    /* Reflect-101 reaches `radius` samples past an edge, which stays inside
     * a plane of at least radius + 1 samples: 3 for the 5-tap kernels, 2 for
     * the 3-tap one. Smaller planes make the reference read out of bounds. */
    s->min_size = (unsigned)(s->n_taps / 2) + 1;
    unsigned max_w = 0, max_h = 0;
    for (unsigned p = 0; p < s->n_planes; p++) {
        MotionPlane *pl = &s->plane[p];
        /* A chroma plane may come rounded down (libvmaf's allocator), so
         * check the rounded-down size. */
        const unsigned min_w = p ? (pix_fmt == VMAF_PIX_FMT_YUV444P ? w : w >> 1) : w;
        const unsigned min_h = p ? (pix_fmt == VMAF_PIX_FMT_YUV420P ? h >> 1 : h) : h;
        if (min_w < s->min_size || min_h < s->min_size) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "float_motion: the %s plane of a %ux%u picture is smaller than "
                     "%ux%u, which the %d-tap blur needs", p ? "chroma" : "luma", w, h,
                     s->min_size, s->min_size, s->n_taps);
            err = -EINVAL;
            goto fail;
        }
        pl->w = pl->alloc_w;
        pl->h = pl->alloc_h;
        pl->stride = (pl->alloc_w + 7) & ~7u;
        pl->src = alloc_floats(pl->stride * pl->alloc_h);
        pl->blur[0] = alloc_floats(pl->stride * pl->alloc_h);
        pl->blur[1] = alloc_floats(pl->stride * pl->alloc_h);
        if (!pl->src || !pl->blur[0] || !pl->blur[1]) {
            err = -ENOMEM;
            goto fail;
        }
        if (pl->alloc_w > max_w) max_w = pl->alloc_w;
        if (pl->alloc_h > max_h) max_h = pl->alloc_h;
    }
    s->row = alloc_floats(max_w + 2 * (MOTION_MAX_TAPS / 2));
    s->row_sums = alloc_floats(max_h);
    if (!s->row || !s->row_sums) {
        err = -ENOMEM;
        goto fail;
    }
    /* The reference refuses scaled widths above 7680 only because its column
     * tables live on the stack; these live on the heap, so any width works. */
    if (s->motion_add_scale1) {
        err = init_scale1(s, w, h);
        if (err) goto fail;
    }
    return 0;

fail:
    free_state(s);
    return err;
}

/** Check one plane of the picture against what init set up. */
static int check_plane(MotionState *s, const VmafPicture *pic, unsigned p, unsigned index)
{
    MotionPlane *pl = &s->plane[p];
    const unsigned w = pic->w[p], h = pic->h[p];

    /* Chroma may come rounded up (FFmpeg, our allocator) or down (libvmaf's
     * allocator); with scale1 the column/row tables are the luma ones. */
    const bool exact = p == 0 || s->motion_add_scale1;
    const bool ok = exact ? w == pl->alloc_w && h == pl->alloc_h
                          : w >= s->min_size && h >= s->min_size &&
                            w <= pl->alloc_w && h <= pl->alloc_h &&
                            (index == 0 || (w == pl->w && h == pl->h));
    if (!ok) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: frame %u plane %u is %ux%u, which does not match "
                 "the size given at init", index, p, w, h);
        return -EINVAL;
    }
    pl->w = w;
    pl->h = h;
    return 0;
}

/** Motion of one plane for frame `index`, leaving its blur in blur[index & 1]. */
static float plane_motion(MotionState *s, const VmafPicture *pic, unsigned p,
                          unsigned index)
{
    MotionPlane *pl = &s->plane[p];
    float *cur = pl->blur[index & 1];
    const float *prev = index ? pl->blur[(index - 1) & 1] : NULL;

    vmaf_picture_to_float(pic, p, MOTION_OFFSET, pl->src, pl->stride);
    motion_kern()->blur_plane(s->taps, s->n_taps, pl->src, cur, prev, s->row, s->row_sums,
               pl->w, pl->h, pl->stride);
    float m = 0.0f;
    if (prev)
        m = motion_mean(motion_sum_rows(s->row_sums, (int)pl->h), (int)pl->w, (int)pl->h);

    if (s->motion_add_scale1) {
        /* Every plane has the luma size here: init allows chroma with
         * scale1 only for 4:4:4. */
        const MotionScale1 *s1 = &s->s1;
        downscale(s1, cur, pl->stride, s1->img[p][index & 1]);
        if (prev) {
            motion_kern()->sad_rows(s1->img[p][(index - 1) & 1], s1->img[p][index & 1], (size_t)s1->w,
                     (unsigned)s1->w, (unsigned)s1->h, s->row_sums);
            m = motion_add_scales(m, motion_mean(motion_sum_rows(s->row_sums, s1->h),
                                                 s1->w, s1->h));
        }
    }
    return m;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    MotionState *s = fex->priv;
    int err;
    (void)dist;

    /* The blur ring and the schedule assume frames 0, 1, 2, ... */
    if (index != s->next_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: got frame %u, expected frame %u (frames must come in order)",
                 index, s->next_index);
        return -EINVAL;
    }

    if (s->motion_force_zero) {
        err = vmaf_fex_emit(fex, NAME_MOTION2, 0.0, index);
        if (!err)
            err = vmaf_fex_emit(fex, NAME_MOTION3, 0.0, index);
        if (!err && s->debug)
            err = vmaf_fex_emit(fex, NAME_MOTION, 0.0, index);
        if (!err)
            s->next_index++;
        return err;
    }

    if (ref->bpc != s->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_motion: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, s->bpc);
        return -EINVAL;
    }
    for (unsigned p = 0; p < s->n_planes; p++) {
        err = check_plane(s, ref, p, index);
        if (err) return err;
    }

    float m[3] = { 0.0f, 0.0f, 0.0f };
    for (unsigned p = 0; p < s->n_planes; p++)
        m[p] = plane_motion(s, ref, p, index);
    const double score = s->n_planes == 3 ? motion_add_planes(m[0], m[1], m[2]) : (double)m[0];

    err = motion_conclude_frame(fex, &s->conc, index, score);
    if (!err)
        s->next_index++;
    return err;
}

void motion_resume(VmafFex *fex, const MotionConclusion *c)
{
    MotionState *s = fex->priv;
    s->conc = *c;
}

/* A frame the GPU computed, as history: its blur for the next frame. */
static int prime(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                 unsigned index)
{
    MotionState *s = fex->priv;
    (void)dist;
    s->next_index = index + 1;
    if (s->motion_force_zero)
        return 0;
    for (unsigned p = 0; p < s->n_planes; p++) {
        /* As for a first frame: the chroma size is taken from the picture. */
        const int err = check_plane(s, ref, p, 0);
        if (err)
            return err;
        MotionPlane *pl = &s->plane[p];
        float *cur = pl->blur[index & 1];
        vmaf_picture_to_float(ref, p, MOTION_OFFSET, pl->src, pl->stride);
        motion_kern()->blur_plane(s->taps, s->n_taps, pl->src, cur, NULL, s->row,
                                     s->row_sums, pl->w, pl->h, pl->stride);
        if (s->motion_add_scale1)
            downscale(&s->s1, cur, pl->stride, s->s1.img[p][index & 1]);
    }
    return 0;
}

static int flush(VmafFex *fex)
{
    MotionState *s = fex->priv;

    /* The reference removes its flush callback when motion is forced to 0. */
    if (s->motion_force_zero)
        return 0;
    return motion_conclude_flush(fex, &s->conc);
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

/* Luma, and the chroma planes with motion_add_uv. */
static unsigned planes(const VmafFex *fex)
{
    const MotionState *s = fex->priv;
    return s->motion_add_uv ? 7u : 1u;
}

const VmafFeatureExtractor vmaf_fex_float_motion = {
    .name = "float_motion",
    .init = init,
    .extract = extract,
    .flush = flush,
    .prime = prime,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(MotionState),
    .flags = VMAF_FEX_TEMPORAL,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_motion_gpu),
    .planes = planes,
};
