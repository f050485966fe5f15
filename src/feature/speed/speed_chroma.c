/*
 * speed_chroma: Netflix libvmaf v3.2.0's SpEED on the U and V planes, bit
 * for bit (C path). The estimator is speed_core.c; this file holds the
 * descriptor, the option table and the per-frame combination of U and V.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "log.h"
#include "speed_core.h"
#include "speed_gpu.h"
#include "speed_options.h"
#include "speed_state.h"
#include "os/os.h"

static const VmafOption options[] = {
    SPEED_SHARED_OPTIONS(SpeedChromaState,
                         "maximum value allowed; larger values will be clipped to this value"),
    {
        .name = "speed_weight_var_mode",
        .alias = "wvm",
        .help = "different approaches to perform variance-based weighting (0..6)",
        .offset = offsetof(SpeedChromaState, speed_weight_var_mode),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 6,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

#define NAME_U "Speed_chroma_feature_speed_chroma_u_score"
#define NAME_V "Speed_chroma_feature_speed_chroma_v_score"
#define NAME_UV "Speed_chroma_feature_speed_chroma_uv_score"

static const char *const provided_features[] = { NAME_U, NAME_V, NAME_UV, NULL };

static void close_fex(VmafFex *fex)
{
    SpeedChromaState *s = fex->priv;
    speed_core_close(&s->core);
    vmaf_os_aligned_free(s->plane);
    s->plane = NULL;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    SpeedChromaState *s = fex->priv;
    unsigned cw = w, ch = h;

    switch (pix_fmt) {
    case VMAF_PIX_FMT_YUV420P:
        cw = w / 2;
        ch = h / 2;
        break;
    case VMAF_PIX_FMT_YUV422P:
        cw = w / 2;
        break;
    case VMAF_PIX_FMT_YUV444P:
        break;
    default:
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_chroma: needs the chroma planes (4:2:0, 4:2:2 or 4:4:4 input)");
        return -EINVAL;
    }
    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_chroma: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }

    const SpeedParams p = {
        .kernelscale = s->speed_kernelscale,
        .prescale = s->speed_prescale,
        .prescale_method = s->speed_prescale_method,
        .sigma_nn = s->speed_sigma_nn,
        .nn_floor = s->speed_nn_floor,
        .weight_var_mode = s->speed_weight_var_mode,
    };
    int err = speed_core_init(&s->core, "speed_chroma", &p, (int)cw, (int)ch);
    if (err)
        return err;

    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->stride = ((size_t)cw + 7) & ~(size_t)7;
    s->plane = vmaf_os_aligned_alloc(32, (sizeof(float) * s->stride * ch + 31) & ~(size_t)31);
    if (!s->plane) {
        close_fex(fex);
        return -ENOMEM;
    }
    return 0;
}

/* SpEED score of chroma plane p; *singular when either estimate is. */
static float plane_score(SpeedChromaState *s, const VmafPicture *ref,
                         const VmafPicture *dist, unsigned p, bool *singular)
{
    speed_core_load(&s->core, ref, p, s->plane, s->stride);
    speed_core_estimate(&s->core, s->plane, s->stride, &s->core.ref);
    speed_core_load(&s->core, dist, p, s->plane, s->stride);
    speed_core_estimate(&s->core, s->plane, s->stride, &s->core.dis);
    return speed_core_score(&s->core, singular);
}

/* The reference's MIN(score, max_val): a float score against the double
 * option, the result a double. */
static double clip(float score, double max_val)
{
    return score < max_val ? (double)score : max_val;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    SpeedChromaState *s = fex->priv;

    /* The luma geometry is the framework's check (vmaf_fex_extract). */
    if (ref->w[1] != (unsigned)s->core.w || ref->h[1] != (unsigned)s->core.h ||
        dist->w[1] != (unsigned)s->core.w || dist->h[1] != (unsigned)s->core.h) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_chroma: frame %u does not match the %ux%u %u-bit geometry "
                 "given at init", index, s->w, s->h, s->bpc);
        return -EINVAL;
    }

    bool sing_u, sing_v;
    const float u = plane_score(s, ref, dist, 1, &sing_u);
    const float v = plane_score(s, ref, dist, 2, &sing_v);
    return speed_chroma_emit(fex, u, v, sing_u, sing_v, index);
}

int speed_chroma_emit(VmafFex *fex, float u, float v, bool sing_u, bool sing_v,
                      unsigned index)
{
    const SpeedChromaState *s = fex->priv;
    /* A plane whose covariance is singular (e.g. flat) takes the other
     * plane's score for uv; otherwise uv is the mean, (u + v) in fp32
     * divided by 2.0 in double, stored as float. */
    float uv;
    if (sing_u && !sing_v)
        uv = v;
    else if (sing_v && !sing_u)
        uv = u;
    else
        uv = (float)((double)FADD(u, v) / 2.0);

    int err = vmaf_fex_emit(fex, NAME_U, clip(u, s->speed_max_val), index);
    if (!err)
        err = vmaf_fex_emit(fex, NAME_V, clip(v, s->speed_max_val), index);
    if (!err)
        err = vmaf_fex_emit(fex, NAME_UV, clip(uv, s->speed_max_val), index);
    return err;
}

const VmafFeatureExtractor vmaf_fex_speed_chroma = {
    .name = "speed_chroma",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(SpeedChromaState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_speed_chroma_gpu),
};
