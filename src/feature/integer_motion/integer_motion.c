/*
 * motion: Netflix libvmaf v3.2.0's integer motion feature, bit for bit with
 * its C path (docs/numerics.md section 9). Arithmetic in imotion_arith.h,
 * SAD kernels in imotion_dsp.c, end-of-stream values in imotion_conclude().
 *
 * The reference reads the previous call's reference picture (two calls back
 * with the five-frame window) from the framework; here the extractor is
 * temporal and keeps references to the pictures it needs. Each frame emits
 * its score (VMAF_integer_feature_motion_sad_score, and with debug
 * VMAF_integer_feature_motion_score). motion2 and motion3 come from the
 * scores of frames 0, 1, 2, ... as long as they are consecutive, as the
 * reference computes them at its flush; here each frame's are emitted as
 * soon as no later score can change them (one frame late, two with the
 * five-frame window before its first scored frame), the rest at the flush:
 * the same values, so that a stream's scores conclude as it goes.
 *
 * Differences from the reference: frames smaller than 3x3 (the blur reads
 * outside the picture there) are refused at init unless motion is forced
 * to zero.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/extractor.h"
#include "imotion_arith.h"
#include "imotion_conclude.h"
#include "imotion_dsp.h"
#include "integer_motion_state.h"
#include "log.h"
#include "picture_internal.h"

static const VmafOption options[] = {
    {
        .name = "motion_force_zero",
        .alias = "force_0",
        .help = "forcing motion score to zero",
        .offset = offsetof(ImotionState, motion_force_zero),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_blend_factor",
        .alias = "mbf",
        .help = "blend motion score given an offset",
        .offset = offsetof(ImotionState, motion_blend_factor),
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
        .offset = offsetof(ImotionState, motion_blend_offset),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 40.0,
        .min = 0.0,
        .max = 1000.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_fps_weight",
        .alias = "mfw",
        .help = "fps-aware multiplicative weight/correction",
        .offset = offsetof(ImotionState, motion_fps_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 5.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_max_val",
        .alias = "mmxv",
        .help = "maximum value allowed; larger values will be clipped to this value",
        .offset = offsetof(ImotionState, motion_max_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 10000.0,
        .min = 0.0,
        .max = 10000.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_five_frame_window",
        .alias = "mffw",
        .help = "use five-frame temporal window",
        .offset = offsetof(ImotionState, motion_five_frame_window),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_moving_average",
        .alias = "mma",
        .help = "use moving average for motion scores after first frame",
        .offset = offsetof(ImotionState, motion_moving_average),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "debug",
        .help = "debug mode: enable additional output",
        .offset = offsetof(ImotionState, debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    { 0 }
};

#define NAME_SAD "VMAF_integer_feature_motion_sad_score"
#define NAME_MOTION "VMAF_integer_feature_motion_score"
#define NAME_MOTION2 "VMAF_integer_feature_motion2_score"
#define NAME_MOTION3 "VMAF_integer_feature_motion3_score"

static const char *const provided_features[] = {
    NAME_SAD, NAME_MOTION, NAME_MOTION2, NAME_MOTION3, NULL
};

/* ---- motion2 and motion3 (every backend) ---- */

static unsigned first_scored(const ImotionParams *p)
{
    return p->five_frame_window ? 2 : 1;
}

/* Frame i's motion2 and motion3 from the first n scores, which hold every
 * score they read: score[i+1] (unless i is the last frame) and, below the
 * first scored frame, that frame's score (when it exists). */
static int emit_frame(VmafFex *fex, ImotionScores *sc, unsigned i, unsigned n,
                      const ImotionParams *p)
{
    const unsigned stride = p->five_frame_window ? 2 : 1;
    const unsigned first = first_scored(p);
    const double *score = sc->score;
    double motion2, motion3;

    if (i < first) {
        motion2 = 0.0;
    } else {
        const int lo = (int)i - (int)(stride - 1);
        if (i + 1 >= n)
            motion2 = score[i];
        else if (lo >= (int)first)
            motion2 = score[lo] < score[i + 1] ? score[lo] : score[i + 1];
        else
            motion2 = score[i + 1];
    }
    int err = vmaf_fex_emit(fex, NAME_MOTION2, motion2, i);
    if (err)
        return err;

    if (i < first) {
        const double stamp = n > first
            ? imotion_min(imotion_blend(score[first], p->blend_factor, p->blend_offset),
                          p->max_val)
            : 0.0;
        motion3 = stamp;
        sc->prev_processed = stamp;
    } else {
        const double processed = imotion_min(
            imotion_blend(motion2, p->blend_factor, p->blend_offset), p->max_val);
        motion3 = p->moving_average ? DDIV(DADD(processed, sc->prev_processed), 2.0)
                                    : processed;
        sc->prev_processed = processed;
    }
    err = vmaf_fex_emit(fex, NAME_MOTION3, motion3, i);
    if (!err)
        sc->emitted = i + 1;
    return err;
}

/* Emit frames [emitted, upto) as the flush would: under the flush's call,
 * so that the outputs are listed where the flush would list them. */
static int emit_upto(VmafFex *fex, ImotionScores *sc, unsigned upto, unsigned n,
                     const ImotionParams *p)
{
    const unsigned call = fex->call_index, seq = fex->emit_seq;
    int err = 0;
    fex->call_index = VMAF_FEX_CALL_END;
    fex->emit_seq = 0;
    while (!err && sc->emitted < upto)
        err = emit_frame(fex, sc, sc->emitted, n, p);
    fex->call_index = call;
    fex->emit_seq = seq;
    return err;
}

int imotion_keep(VmafFex *fex, ImotionScores *sc, unsigned index, double score,
                 const ImotionParams *p)
{
    if (sc->gap || index != sc->n) {
        /* Frames after the gap get no motion2: the flush ends the wait. */
        sc->gap = true;
        vmaf_fex_hold(fex, sc->emitted);
        return 0;
    }
    if (sc->n == sc->cap) {
        const unsigned cap = sc->cap ? 2 * sc->cap : 256;
        double *q = realloc(sc->score, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        sc->score = q;
        sc->cap = cap;
    }
    sc->score[sc->n++] = score;
    vmaf_fex_hold(fex, sc->emitted);
    /* Frame i is final once score[i+1] is known; the frames below the
     * first scored one also wait for that frame's score. */
    const unsigned n = sc->n;
    if (n <= first_scored(p))
        return 0;
    const int err = emit_upto(fex, sc, n - 1, n, p);
    vmaf_fex_hold(fex, sc->emitted);
    return err;
}

int imotion_conclude(VmafFex *fex, ImotionScores *sc, const ImotionParams *p)
{
    int err = 0;
    while (!err && sc->emitted < sc->n)
        err = emit_frame(fex, sc, sc->emitted, sc->n, p);
    return err;
}

unsigned imotion_concluded(const ImotionScores *sc)
{
    return sc->emitted;
}

/* ---- CPU ---- */

static ImotionParams params(const ImotionState *s)
{
    return (ImotionParams){
        .blend_factor = s->motion_blend_factor,
        .blend_offset = s->motion_blend_offset,
        .max_val = s->motion_max_val,
        .five_frame_window = s->motion_five_frame_window,
        .moving_average = s->motion_moving_average,
    };
}

static void free_state(ImotionState *s)
{
    for (unsigned k = 0; k < 2; k++)
        if (s->prev[k].ref) vmaf_picture_unref(&s->prev[k]);
    imotion_scratch_free(&s->scratch);
    free(s->scores.score);
    s->scores = (ImotionScores){ 0 };
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    ImotionState *s = fex->priv;
    int err = -ENOMEM;
    (void)pix_fmt;

    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->calls = 0;
    s->scores = (ImotionScores){ 0 };

    /* Forced zero reads no samples: the reference emits zeros for any size. */
    if (s->motion_force_zero)
        return 0;

    if (bpc < 8 || bpc > 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "motion: %u-bit input is not supported (8 to 16)", bpc);
        return -EINVAL;
    }
    /* The 5-tap reflect-101 blur reaches 2 samples past each edge. */
    if (w < 3 || h < 3) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "motion: a %ux%u frame is too small: integer motion's 5-tap filter needs "
                 "at least 3x3", w, h);
        return -EINVAL;
    }
    if (w > INT_MAX / 4 || h > INT_MAX / 4) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "motion: frame %ux%u is too large", w, h);
        return -EINVAL;
    }

    s->n_prev = s->motion_five_frame_window ? 2 : 1;
    err = imotion_scratch_alloc(&s->scratch, (int)w);
    if (err)
        goto fail;
    s->sad = imotion_sad_best();
    return 0;

fail:
    free_state(s);
    return err;
}

/* The reference picture of this call, for the calls that compare with it:
 * a reference to it rather than a copy of its luma. */
static int keep(ImotionState *s, const VmafPicture *ref)
{
    VmafPicture *slot = &s->prev[s->calls % s->n_prev];
    if (slot->ref) vmaf_picture_unref(slot);
    const int err = vmaf_picture_ref(slot, ref);
    if (err) {
        memset(slot, 0, sizeof(*slot));
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "motion: pictures must come from vmaf_picture_alloc()");
    }
    return err;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    ImotionState *s = fex->priv;
    double score = 0.0;
    int err;
    (void)dist;

    if (!s->motion_force_zero) {
        /* Frame `index` is compared with the picture of the previous call
         * (two calls back with the five-frame window), whatever its index,
         * from index 1 (2) on; the reference fails when there is none. */
        const unsigned first = s->motion_five_frame_window ? 2 : 1;
        if (index >= first) {
            if (s->calls < s->n_prev) {
                vmaf_log(VMAF_LOG_LEVEL_ERROR,
                         "motion: frame %u has no earlier picture to compare with "
                         "(the first frame must have index 0)", index);
                return -EINVAL;
            }
            const VmafPicture *prev = &s->prev[(s->calls - s->n_prev) % s->n_prev];
            const uint64_t sad = s->sad(prev->data[0], prev->stride[0], ref->data[0],
                                        ref->stride[0], (int)s->w, (int)s->h, s->bpc,
                                        &s->scratch);
            score = imotion_score(sad, s->w, s->h, s->motion_fps_weight, s->motion_max_val);
        }
        err = keep(s, ref);
        if (err)
            return err;
    }
    s->calls++;

    const ImotionParams p = params(s);
    err = vmaf_fex_emit(fex, NAME_SAD, score, index);
    if (!err && s->debug)
        err = vmaf_fex_emit(fex, NAME_MOTION, score, index);
    if (!err)
        err = imotion_keep(fex, &s->scores, index, score, &p);
    return err;
}

void imotion_resume(VmafFex *fex, ImotionScores *sc)
{
    ImotionState *s = fex->priv;
    free(s->scores.score);
    s->scores = *sc;
    *sc = (ImotionScores){ 0 };
}

/* A frame the GPU computed, as history: its luma for the next frames. */
static int prime(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                 unsigned index)
{
    ImotionState *s = fex->priv;
    (void)dist, (void)index;
    if (s->motion_force_zero)
        return 0;   /* the twin ran this path's extract itself */
    const int err = keep(s, ref);
    if (!err)
        s->calls++;
    return err;
}

static int flush(VmafFex *fex)
{
    ImotionState *s = fex->priv;
    const ImotionParams p = params(s);
    return imotion_conclude(fex, &s->scores, &p);
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_integer_motion = {
    .name = "motion",
    .init = init,
    .extract = extract,
    .flush = flush,
    .prime = prime,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(ImotionState),
    .flags = VMAF_FEX_TEMPORAL,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_integer_motion_gpu),
    .planes = vmaf_fex_planes_luma,
};
