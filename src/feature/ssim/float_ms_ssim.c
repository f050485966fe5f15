/*
 * float_ms_ssim: Netflix libvmaf v3.2.0's float MS-SSIM feature, bit for bit
 * (docs/numerics.md section 7). Five scales, each decimated from the one
 * before with the 9x9 table (ms_ssim_decimate), each reduced to fp32 means
 * by the SSIM engine, pooled on the host by ms_ssim_pool.
 *
 * Differences from the reference, none in arithmetic:
 * - Frames below 176x176 (where some scale would be under 11x11) are refused
 *   at init with a message; the reference fails every frame's extract.
 * - Scale images keep mirrored columns beside each row, so the decimation
 *   reads no edge cases; the values read are the reference's.
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
#include "float_ms_ssim_state.h"
#include "log.h"
#include "ssim_host.h"
#include "os/os.h"

/* Left padding of a scale row in floats: MS_SSIM_PAD rounded up to keep rows 32-byte aligned. */
#define ROW_LEFT 8

static const VmafOption options[] = {
    {
        .name = "enable_lcs",
        .help = "enable luminance, contrast and structure intermediate output",
        .offset = offsetof(MsSsimState, enable_lcs),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "enable_db",
        .help = "write MS-SSIM values as dB",
        .offset = offsetof(MsSsimState, enable_db),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "clip_db",
        .help = "clip dB scores",
        .offset = offsetof(MsSsimState, clip_db),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    { 0 }
};

/* No option is a feature parameter: names never change. */
static const char *const provided_features[] = {
    "float_ms_ssim",
    NULL
};

/* The reference's append order: l of every scale, then c, then s. */
static const char *const lcs_names[3][MS_SSIM_SCALES] = {
    { "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1", "float_ms_ssim_l_scale2",
      "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4" },
    { "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
      "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4" },
    { "float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2",
      "float_ms_ssim_s_scale3", "float_ms_ssim_s_scale4" },
};

static void free_state(MsSsimState *s)
{
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < MS_SSIM_SCALES; k++) {
            vmaf_os_aligned_free(s->buf[i][k]);
            s->buf[i][k] = NULL;
        }
    }
    vmaf_os_aligned_free(s->split);
    vmaf_os_aligned_free(s->acc);
    s->split = NULL;
    s->acc = NULL;
    ssim_engine_free(&s->engine);
}

static void *alloc_aligned(size_t bytes)
{
    bytes = (bytes + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

/** First sample of scale k's image of picture i (0 ref, 1 dist). */
static float *scale_image(const MsSsimState *s, int i, int k)
{
    return s->buf[i][k] + ROW_LEFT;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    MsSsimState *s = fex->priv;
    int err;
    (void)pix_fmt;

    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_ms_ssim: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    if (w > INT_MAX || h > INT_MAX || (uint64_t)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_ms_ssim: frame %ux%u is too large", w, h);
        return -EINVAL;
    }
    /* The reference's check: w/2^k and h/2^k (rounded down) at least 11 for
     * every scale k, i.e. 176x176; below it fails the frame ("scale below 1x1"). */
    for (unsigned k = 0, cw = w, ch = h; k < MS_SSIM_SCALES; k++, cw /= 2, ch /= 2) {
        if (cw < SSIM_WIN || ch < SSIM_WIN) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "float_ms_ssim: a %ux%u frame is too small: its five scales need "
                     "at least 176x176 (each halving must leave 11x11)", w, h);
            return -EINVAL;
        }
    }

    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->max_db = ssim_max_db(bpc, w, h, s->clip_db);

    err = -ENOMEM;
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        /* Scale k+1 is w/2 + (w&1): a ceiling for the factor 2. */
        s->sw[k] = k ? ssim_decimated_size(s->sw[k - 1], 2) : (int)w;
        s->sh[k] = k ? ssim_decimated_size(s->sh[k - 1], 2) : (int)h;
        s->stride[k] = ((size_t)ROW_LEFT + s->sw[k] + MS_SSIM_PAD + 7) & ~(size_t)7;
        for (int i = 0; i < 2; i++) {
            s->buf[i][k] = alloc_aligned(sizeof(float) * s->stride[k] * s->sh[k]);
            if (!s->buf[i][k])
                goto fail;
        }
    }
    s->split = alloc_aligned(sizeof(float) * ms_ssim_split_stride((int)w) * h);
    s->acc = alloc_aligned(sizeof(double) * (size_t)s->sw[1]);
    if (!s->split || !s->acc)
        goto fail;
    err = ssim_engine_init(&s->engine, (int)w);
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
    MsSsimState *s = fex->priv;
    int err;


    const VmafPicture *pic[2] = { ref, dist };
    for (int i = 0; i < 2; i++) {
        vmaf_picture_to_float(pic[i], 0, 0.0f, scale_image(s, i, 0), s->stride[0]);
        for (int k = 1; k < MS_SSIM_SCALES; k++) {
            ms_ssim_pad_columns(scale_image(s, i, k - 1), s->stride[k - 1], s->sw[k - 1],
                                s->sh[k - 1]);
            ms_ssim_decimate(scale_image(s, i, k - 1), s->stride[k - 1], s->sw[k - 1],
                             s->sh[k - 1], scale_image(s, i, k), s->stride[k], s->split,
                             s->acc);
        }
    }

    float l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], st[MS_SSIM_SCALES];
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        SsimMeans m;
        ssim_engine_means(&s->engine, scale_image(s, 0, k), scale_image(s, 1, k),
                          s->stride[k], s->sw[k], s->sh[k], &m);
        l[k] = m.l;
        c[k] = m.c;
        st[k] = m.s;
    }

    double score;
    err = ms_ssim_pool(l, c, st, &score);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_ms_ssim: frame %u: the MS-SSIM product is "
                 "infinite (the reference fails the frame there)", index);
        return err;
    }
    if (s->enable_db)
        score = ssim_to_db(score, s->max_db);

    err = vmaf_fex_emit(fex, "float_ms_ssim", score, index);
    const float *terms[3] = { l, c, st };
    for (int t = 0; t < 3 && !err && s->enable_lcs; t++)
        for (int k = 0; k < MS_SSIM_SCALES && !err; k++)
            err = vmaf_fex_emit(fex, lcs_names[t][k], (double)terms[t][k], index);
    return err;
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_float_ms_ssim = {
    .name = "float_ms_ssim",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(MsSsimState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_ms_ssim_gpu),
};
