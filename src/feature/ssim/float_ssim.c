/*
 * float_ssim: Netflix libvmaf v3.2.0's float SSIM feature, bit for bit
 * (docs/numerics.md section 6). Arithmetic in ssim_arith.h, the engine,
 * decimations and conclusions in ssim_cpu.c and ssim_host.c.
 *
 * Differences from the reference, none in arithmetic:
 * - Images that are smaller than the 11x11 window after the decimation are
 *   refused at init. The reference's loops are empty there and its "mean"
 *   divides an empty sum by a product of negative sizes (0, -0 or NaN).
 * - Bit depths other than 8, 10, 12 and 16 are refused (the reference reads
 *   them as 8-bit samples).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "log.h"
#include "ssim_host.h"
#include "float_ssim_conclude.h"
#include "float_ssim_state.h"
#include "os/os.h"

static const VmafOption options[] = {
    {
        .name = "enable_lcs",
        .help = "enable luminance, contrast and structure intermediate output",
        .offset = offsetof(SsimState, enable_lcs),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "enable_db",
        .help = "write SSIM values as dB",
        .offset = offsetof(SsimState, enable_db),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "clip_db",
        .help = "clip dB scores",
        .offset = offsetof(SsimState, clip_db),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "scale",
        .help = "decimation scale factor (0=auto, 1=no downscaling, 2-10=explicit)",
        .offset = offsetof(SsimState, scale),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 10,
    },
    { 0 }
};

/* No option is a feature parameter: names never change. */
static const char *const provided_features[] = {
    "float_ssim",
    NULL
};

static void free_state(SsimState *s)
{
    vmaf_os_aligned_free(s->ref);
    vmaf_os_aligned_free(s->dist);
    vmaf_os_aligned_free(s->dref);
    vmaf_os_aligned_free(s->ddist);
    free(s->cols);
    free(s->acc);
    s->ref = s->dist = s->dref = s->ddist = NULL;
    s->cols = NULL;
    s->acc = NULL;
    ssim_engine_free(&s->engine);
}

static float *alloc_floats(size_t n)
{
    const size_t bytes = (n * sizeof(float) + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    SsimState *s = fex->priv;
    int err;
    (void)pix_fmt;

    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_ssim: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    /* The reference indexes w*h samples with int. */
    if (w > INT_MAX || h > INT_MAX || (uint64_t)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_ssim: frame %ux%u is too large", w, h);
        return -EINVAL;
    }

    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->factor = ssim_scale_factor(s->scale, (int)w, (int)h);
    s->sw = s->factor > 1 ? ssim_decimated_size((int)w, s->factor) : (int)w;
    s->sh = s->factor > 1 ? ssim_decimated_size((int)h, s->factor) : (int)h;
    if (s->sw < SSIM_WIN || s->sh < SSIM_WIN) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_ssim: a %ux%u frame is too small: decimated by %d it is %dx%d, "
                 "smaller than the %dx%d window (the reference's result is not a "
                 "defined value there)", w, h, s->factor, s->sw, s->sh, SSIM_WIN, SSIM_WIN);
        return -EINVAL;
    }
    s->max_db = ssim_max_db(bpc, w, h, s->clip_db);

    err = -ENOMEM;
    s->ref = alloc_floats((size_t)w * h);
    s->dist = alloc_floats((size_t)w * h);
    if (!s->ref || !s->dist)
        goto fail;
    /* The reference decimates in place. Where that reads no sample an
     * earlier output overwrote (all but small images with a large factor),
     * the out-of-place decimation gives the same image and vectorises. */
    s->out_of_place = s->factor > 1 && ssim_box_inplace_is_pure((int)w, (int)h, s->factor);
    if (s->out_of_place) {
        s->dref = alloc_floats((size_t)s->sw * s->sh);
        s->ddist = alloc_floats((size_t)s->sw * s->sh);
        s->cols = malloc(sizeof(int) * (size_t)s->factor * s->sw);
        s->acc = malloc(sizeof(double) * (size_t)s->sw);
        if (!s->dref || !s->ddist || !s->cols || !s->acc)
            goto fail;
        ssim_box_columns((int)w, s->factor, s->cols);
    }
    err = ssim_engine_init(&s->engine, s->sw);
    if (err)
        goto fail;
    return 0;

fail:
    free_state(s);
    return err;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    SsimState *s = fex->priv;


    /* The reference copies each plane with offset 0 into a buffer whose
     * stride is the width, and decimates there in place. */
    vmaf_picture_to_float(ref, 0, 0.0f, s->ref, s->w);
    vmaf_picture_to_float(dist, 0, 0.0f, s->dist, s->w);
    const float *a = s->ref, *b = s->dist;
    if (s->out_of_place) {
        ssim_box_decimate(s->ref, s->w, (int)s->w, (int)s->h, s->factor, s->cols,
                          s->dref, s->acc);
        ssim_box_decimate(s->dist, s->w, (int)s->w, (int)s->h, s->factor, s->cols,
                          s->ddist, s->acc);
        a = s->dref;
        b = s->ddist;
    } else if (s->factor > 1) {
        ssim_box_decimate_inplace(s->ref, (int)s->w, (int)s->h, s->factor);
        ssim_box_decimate_inplace(s->dist, (int)s->w, (int)s->h, s->factor);
    }

    SsimMeans m;
    ssim_engine_means(&s->engine, a, b, (size_t)s->sw, s->sw, s->sh, &m);
    return float_ssim_emit(fex, &m, index);
}

int float_ssim_emit(VmafFex *fex, const SsimMeans *m, unsigned index)
{
    const SsimState *s = fex->priv;
    double score = (double)m->ssim;
    if (s->enable_db)
        score = ssim_to_db(score, s->max_db);

    int err = vmaf_fex_emit(fex, "float_ssim", score, index);
    if (!err && s->enable_lcs)
        err = vmaf_fex_emit(fex, "float_ssim_l", (double)m->l, index);
    if (!err && s->enable_lcs)
        err = vmaf_fex_emit(fex, "float_ssim_c", (double)m->c, index);
    if (!err && s->enable_lcs)
        err = vmaf_fex_emit(fex, "float_ssim_s", (double)m->s, index);
    return err;
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_float_ssim = {
    .name = "float_ssim",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(SsimState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_ssim_gpu),
};
