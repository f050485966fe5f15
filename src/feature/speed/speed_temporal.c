/*
 * speed_temporal: Netflix libvmaf v3.2.0's temporal SpEED, bit for bit (C
 * path): SpEED of the frame differences (previous - current luma) of the
 * reference and of the distorted video. Temporal: frames come in order on
 * one instance; frame 0 scores 0.
 *
 * Differences from the reference:
 * - The previous frame is kept as float (only the rows SpEED reads); the
 *   difference goes to a work buffer instead of overwriting it.
 * - speed_max_val is accepted (it renames outputs) but, as in the
 *   reference, never applied.
 * - A prescale that makes the frame taller is refused: the reference then
 *   writes the prescaled frame past its frame buffers (heap corruption; its
 *   later scores depend on the heap layout and it aborts at exit).
 * - Frames must come as 0, 1, 2, ...; the reference silently reads a stale
 *   buffer otherwise.
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
    SPEED_SHARED_OPTIONS(SpeedTemporalState,
                         "maximum value allowed; larger values will be clipped to this value "
                         "(as in libvmaf, not applied by speed_temporal)"),
    {
        .name = "speed_use_ref_diff",
        .alias = "urd",
        .help = "distorted difference taken against the reference's current frame",
        .offset = offsetof(SpeedTemporalState, speed_use_ref_diff),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

#define NAME_TEMPORAL "Speed_temporal_feature_speed_temporal_score"

static const char *const provided_features[] = { NAME_TEMPORAL, NULL };

static void close_fex(VmafFex *fex)
{
    SpeedTemporalState *s = fex->priv;
    speed_core_close(&s->core);
    for (int i = 0; i < 2; i++) {
        vmaf_os_aligned_free(s->ref[i]);
        vmaf_os_aligned_free(s->dis[i]);
        s->ref[i] = s->dis[i] = NULL;
    }
    vmaf_os_aligned_free(s->dref);
    vmaf_os_aligned_free(s->ddis);
    s->dref = s->ddis = NULL;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    SpeedTemporalState *s = fex->priv;
    (void)pix_fmt;

    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_temporal: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    const SpeedParams p = {
        .kernelscale = s->speed_kernelscale,
        .prescale = s->speed_prescale,
        .prescale_method = s->speed_prescale_method,
        .sigma_nn = s->speed_sigma_nn,
        .nn_floor = s->speed_nn_floor,
        /* The reference leaves the weight mode of the temporal variant at 0. */
        .weight_var_mode = 0,
    };
    int err = speed_core_init(&s->core, "speed_temporal", &p, (int)w, (int)h);
    if (err)
        return err;
    if (s->core.sh > (int)h) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_temporal: speed_prescale %g makes the %ux%u frame %d rows "
                 "tall; Netflix libvmaf then writes past its frame buffers (heap "
                 "corruption, scores that depend on the heap layout), so a prescale "
                 "that adds rows is not supported", s->speed_prescale, w, h, s->core.sh);
        close_fex(fex);
        return -EINVAL;
    }

    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->next_index = 0;
    s->stride = ((size_t)w + 7) & ~(size_t)7;
    const size_t bytes = (sizeof(float) * s->stride * h + 31) & ~(size_t)31;
    for (int i = 0; i < 2; i++) {
        s->ref[i] = vmaf_os_aligned_alloc(32, bytes);
        s->dis[i] = vmaf_os_aligned_alloc(32, bytes);
    }
    s->dref = vmaf_os_aligned_alloc(32, bytes);
    s->ddis = vmaf_os_aligned_alloc(32, bytes);
    if (!s->ref[0] || !s->ref[1] || !s->dis[0] || !s->dis[1] || !s->dref || !s->ddis) {
        close_fex(fex);
        return -ENOMEM;
    }
    return 0;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    SpeedTemporalState *s = fex->priv;

    if (index != s->next_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "speed_temporal: got frame %u, expected frame %u (frames must come "
                 "in order)", index, s->next_index);
        return -EINVAL;
    }
    s->next_index++;

    const unsigned cur = index & 1, prev = cur ^ 1;
    speed_core_load(&s->core, ref, 0, s->ref[cur], s->stride);
    speed_core_load(&s->core, dist, 0, s->dis[cur], s->stride);
    if (index == 0)
        return speed_temporal_emit(fex, 0.0f, index);

    /* previous - current; the distorted previous frame against the
     * reference's current one with speed_use_ref_diff. */
    speed_core_diff(&s->core, s->ref[prev], s->ref[cur], s->dref, s->stride);
    speed_core_diff(&s->core, s->dis[prev], s->speed_use_ref_diff ? s->ref[cur] : s->dis[cur],
                    s->ddis, s->stride);
    speed_core_estimate(&s->core, s->dref, s->stride, &s->core.ref);
    speed_core_estimate(&s->core, s->ddis, s->stride, &s->core.dis);
    bool singular;
    return speed_temporal_emit(fex, speed_core_score(&s->core, &singular), index);
}

/* A frame the GPU computed, as history: the previous frame of the next one. */
static int prime(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                 unsigned index)
{
    SpeedTemporalState *s = fex->priv;
    const unsigned cur = index & 1;
    speed_core_load(&s->core, ref, 0, s->ref[cur], s->stride);
    speed_core_load(&s->core, dist, 0, s->dis[cur], s->stride);
    s->next_index = index + 1;
    return 0;
}

int speed_temporal_emit(VmafFex *fex, float score, unsigned index)
{
    return vmaf_fex_emit(fex, NAME_TEMPORAL, (double)score, index);
}

const VmafFeatureExtractor vmaf_fex_speed_temporal = {
    .name = "speed_temporal",
    .init = init,
    .extract = extract,
    .prime = prime,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(SpeedTemporalState),
    .flags = VMAF_FEX_TEMPORAL,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_speed_temporal_gpu),
};
