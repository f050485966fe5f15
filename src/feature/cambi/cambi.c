/*
 * cambi: Netflix libvmaf v3.2.0's CAMBI banding metric, bit for bit with its
 * C path (src/feature/cambi.c). Arithmetic in cambi_arith.h, the host-side
 * constants and the frame conclusion in cambi_host.c, the CPU stages in
 * cambi_cpu.c.
 *
 * Per picture: luma -> 10 bits (nearest-neighbour resampled to the encode
 * size, anti-dithered for encodes below 10 bits) -> spatial mask of flat
 * areas -> five scales of [decimate] -> 3x3 mode filter -> per-pixel
 * contrast (c-value) from window histograms -> mean of the top-k c-values.
 * The score is the weighted sum of the scale means over the window size.
 *
 * Differences in structure from the reference, none in the results:
 * - The window counts are plain counts of each luma value, kept per strip
 *   of columns and updated per run of equal pixels; the reference's
 *   per-pixel range updates give the same counts.
 * - A scale's mean is found from the statistics of its c-values where the
 *   reference's fp64 sum of its top k cannot round, in any order
 *   (cambi_pool_exact()); elsewhere its top-k select is run, pairing its
 *   swaps branch-free: the reference's swaps in its order (cambi_select_top()).
 *
 * Where the reference's result is not defined, this refuses at init, saying
 * why: a scale shorter than half the window (it reads and writes rows
 * before its buffers), full_ref at 10 bits with a source wider than the
 * picture (it copies rows with the wrong stride), resampling coordinates
 * that drift past the picture's edge. A visibility floor above every
 * threshold gives 0 with a warning (the reference writes outside its
 * histograms there and usually crashes; when it survives, it gives 0).
 * heatmaps_path (debug dumps of the c-values) is not supported.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cambi_arith.h"
#include "cambi_cpu.h"
#include "cambi_host.h"
#include "cambi_state.h"
#include "feature/extractor.h"
#include "log.h"

/* The reference's default ratio of pixels pooled; "topk" wins over
 * "cambi_topk" whenever it is set to anything else. */
#define DEFAULT_TOPK 0.6
#define DEFAULT_EOTF "bt1886"
/* Below this in both directions the reference refuses the frame. */
#define MIN_WIDTH_HEIGHT 216

static const char *const eotf_names[] = { "bt1886", "pq", NULL };

static const VmafOption options[] = {
    {
        .name = "cambi_max_val",
        .alias = "cmxv",
        .help = "maximum value allowed; larger values will be clipped to this value",
        .offset = offsetof(CambiState, cambi_max_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1000.0,
        .min = 0.0,
        .max = 1000.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "enc_width",
        .alias = "encw",
        .help = "Encoding width",
        .offset = offsetof(CambiState, enc_width),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 180,
        .max = 7680,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "enc_height",
        .alias = "ench",
        .help = "Encoding height",
        .offset = offsetof(CambiState, enc_height),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 150,
        .max = 7680,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "enc_bitdepth",
        .alias = "encbd",
        .help = "Encoding bitdepth",
        .offset = offsetof(CambiState, enc_bitdepth),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 6,
        .max = 16,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "src_width",
        .alias = "srcw",
        .help = "Source width. Only used when full_ref=true.",
        .offset = offsetof(CambiState, src_width),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 320,
        .max = 7680,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "src_height",
        .alias = "srch",
        .help = "Source height. Only used when full_ref=true.",
        .offset = offsetof(CambiState, src_height),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 200,
        .max = 4320,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "window_size",
        .alias = "ws",
        .help = "Window size to compute CAMBI: 65 corresponds to ~1 degree at 4k",
        .offset = offsetof(CambiState, window_size),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 65,
        .min = 15,
        .max = 127,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "topk",
        .help = "Ratio of pixels for the spatial pooling computation, must be 0 < topk <= 1.0",
        .offset = offsetof(CambiState, topk),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = DEFAULT_TOPK,
        .min = 0.0001,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "cambi_topk",
        .alias = "ctpk",
        .help = "Ratio of pixels for the spatial pooling computation, must be 0 < cambi_topk <= 1.0",
        .offset = offsetof(CambiState, cambi_topk),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = DEFAULT_TOPK,
        .min = 0.0001,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "tvi_threshold",
        .alias = "tvit",
        .help = "Visibilty threshold for luminance ΔL < tvi_threshold*L_mean",
        .offset = offsetof(CambiState, tvi_threshold),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.019,
        .min = 0.0001,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "cambi_vis_lum_threshold",
        .alias = "vlt",
        .help = "Luminance value below which we assume any banding is not visible",
        .offset = offsetof(CambiState, cambi_vis_lum_threshold),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 300.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "max_log_contrast",
        .alias = "mlc",
        .help = "Maximum contrast in log luma level (2^max_log_contrast) at 10-bits, "
                "e.g., 2 is equivalent to 4 luma levels at 10-bit and 1 luma level at 8-bit. "
                "From 0 to 5: default 2 is recommended for banding from compression.",
        .offset = offsetof(CambiState, max_log_contrast),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 2,
        .min = 0,
        .max = 5,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        /* Accepted by name, refused by value: no `choices`. */
        .name = "heatmaps_path",
        .help = "Path where heatmaps will be dumped (not supported by exactvmaf)",
        .offset = offsetof(CambiState, heatmaps_path),
        .type = VMAF_OPT_TYPE_STRING,
        .default_val.s = "",
    },
    {
        .name = "full_ref",
        .help = "If true, CAMBI will be run in full-reference mode and will be computed on "
                "both the reference and distorted inputs",
        .offset = offsetof(CambiState, full_ref),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "eotf",
        .help = "Determines the EOTF used to compute the visibility thresholds. "
                "Possible values: ['bt1886', 'pq']. Default: 'bt1886'",
        .offset = offsetof(CambiState, eotf),
        .type = VMAF_OPT_TYPE_STRING,
        .default_val.s = DEFAULT_EOTF,
        .choices = eotf_names,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "cambi_eotf",
        .alias = "ceot",
        .help = "Determines the EOTF used to compute the visibility thresholds. "
                "Possible values: ['bt1886', 'pq']. Default: 'bt1886'. "
                "If both eotf and cambi_eotf are set, cambi_eotf takes precedence.",
        .offset = offsetof(CambiState, cambi_eotf),
        .type = VMAF_OPT_TYPE_STRING,
        .default_val.s = DEFAULT_EOTF,
        .choices = eotf_names,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "cambi_high_res_speedup",
        .alias = "hrs",
        .help = "Speed up the processing by downsampling post spatial mask for resolutions "
                ">= 1080p. Min speed-up resolution possible values: [1080, 1440, 2160, 0]. "
                "Default: 0 (not applied)Note some loss of accuracy is expected with this speedup.",
        .offset = offsetof(CambiState, cambi_high_res_speedup),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 2160,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

static const char *const provided_features[] = {
    "Cambi_feature_cambi_score",
    NULL
};

/* ---- init ---- */

/**
 * The window side at a processing size: window * (w + h) / 6000 (3840 +
 * 2160 = 6000 = 375 << 4), halved (rounding up) with the high-res speed-up,
 * made odd.
 */
static unsigned scaled_window(int window, unsigned w, unsigned h, bool hrs)
{
    unsigned ws = (uint16_t)(((unsigned)window * (w + h) / 375) >> 4);
    if (hrs) ws = (ws + 1) >> 1;
    return ws | 1;
}

/**
 * The reference keeps every scale's data in place in picture-sized buffers
 * and visits max(height, window / 2) rows of each scale: a scale shorter
 * than half the window makes it read and write rows before its buffers, and
 * an undecimated scale 0 exactly that short one row past them. Those results
 * are not defined: refused. (Narrow scales are: see cambi_cpu_c_values().)
 */
static int check_geometry(const CambiGeometry *g, bool hrs, const char *what)
{
    const unsigned pad = g->window >> 1;
    unsigned w = g->w, h = g->h;
    for (int s = 0; s < CAMBI_NUM_SCALES; s++) {
        const bool decimated = s > 0 || hrs;
        if (decimated) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        if (h < pad || (!decimated && h == pad)) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "cambi: the %s size %ux%u is too short for its %u-pixel window "
                     "(scale %d is %ux%u); the reference reads outside its buffers there",
                     what, g->w, g->h, g->window, s, w, h);
            return -EINVAL;
        }
    }
    return 0;
}

static void free_state(CambiState *s)
{
    cambi_cpu_free(&s->cpu);
    cambi_resample_free(&s->enc.rs);
    cambi_resample_free(&s->src.rs);
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    CambiState *s = fex->priv;
    int err;
    (void)pix_fmt;

    /* The option fields keep the user's values (they name the outputs);
     * what init derives from them goes to the fields below. */
    s->pic_w = w;
    s->pic_h = h;
    const int enc_bitdepth = s->enc_bitdepth ? s->enc_bitdepth : (int)bpc;
    s->antidither = enc_bitdepth < 10;
    s->enc.w = s->enc_width && s->enc_height ? (unsigned)s->enc_width : w;
    s->enc.h = s->enc_width && s->enc_height ? (unsigned)s->enc_height : h;
    s->src.w = s->src_width && s->src_height ? (unsigned)s->src_width : w;
    s->src.h = s->src_width && s->src_height ? (unsigned)s->src_height : h;
    /* An encode larger than the picture is not upscaled back. */
    if (s->enc.h > h || s->enc.w > w) {
        s->enc.w = w;
        s->enc.h = h;
    }

    if (s->enc.w < MIN_WIDTH_HEIGHT && s->enc.h < MIN_WIDTH_HEIGHT) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: the encode is %ux%u; CAMBI needs a width or a height of at least %d "
                 "(Netflix libvmaf refuses it too)", s->enc.w, s->enc.h, MIN_WIDTH_HEIGHT);
        return -EINVAL;
    }
    if (s->src.w < MIN_WIDTH_HEIGHT && s->src.h < MIN_WIDTH_HEIGHT) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: the source is %ux%u; CAMBI needs a width or a height of at least %d "
                 "(Netflix libvmaf refuses it too)", s->src.w, s->src.h, MIN_WIDTH_HEIGHT);
        return -EINVAL;
    }
    if ((s->src.w > s->enc.w && s->src.h < s->enc.h) ||
        (s->src.w < s->enc.w && s->src.h > s->enc.h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: the source %ux%u and the encode %ux%u are not scaled in the same "
                 "direction in width and height", s->src.w, s->src.h, s->enc.w, s->enc.h);
        return -EINVAL;
    }

    /* The speed-up applies from its resolution up; other values disable it
     * (still naming the output). */
    const unsigned long enc_pix = (unsigned long)s->enc.w * s->enc.h;
    switch (s->cambi_high_res_speedup) {
    case 1080: s->hrs = enc_pix >= 1920ul * 1080; break;
    case 1440: s->hrs = enc_pix >= 2560ul * 1440; break;
    case 2160: s->hrs = enc_pix >= 3840ul * 2160; break;
    default: s->hrs = false; break;
    }

    s->enc.window = scaled_window(s->window_size, s->enc.w, s->enc.h, s->hrs);
    s->src.window = scaled_window(s->window_size, s->src.w, s->src.h, s->hrs);
    const unsigned max_window = s->enc.window > s->src.window ? s->enc.window : s->src.window;
    if (max_window * max_window >= CAMBI_RCP_SIZE) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: window_size %d gives a %u-pixel window at this resolution; "
                 "the reference's reciprocal table covers windows up to 65",
                 s->window_size, max_window);
        return -EINVAL;
    }

    /* cambi_eotf wins when set to anything but its default. */
    const char *eotf = strcmp(s->cambi_eotf, DEFAULT_EOTF) ? s->cambi_eotf : s->eotf;
    err = cambi_params_init(&s->params, eotf, s->tvi_threshold, s->cambi_vis_lum_threshold,
                            s->max_log_contrast);
    if (err) return err;
    s->pool_topk = s->topk != DEFAULT_TOPK ? s->topk : s->cambi_topk;

    err = check_geometry(&s->enc, s->hrs, "encode");
    if (!err && s->full_ref) err = check_geometry(&s->src, s->hrs, "source");
    if (err) return err;

    const unsigned alloc_w = s->full_ref && s->src.w > s->enc.w ? s->src.w : s->enc.w;
    const unsigned alloc_h = s->full_ref && s->src.h > s->enc.h ? s->src.h : s->enc.h;
    /* A 10-bit picture at the encode size is copied whole, rows laid out
     * with the picture's stride, into buffers whose stride follows alloc_w
     * (32-sample rows in Netflix's allocator); where those differ the rows
     * land shifted and partly from unset memory. */
    if (s->full_ref && bpc == 10 && s->enc.w == w && s->enc.h == h &&
        ((alloc_w + 31) & ~31u) != ((w + 31) & ~31u)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: full_ref with a %ux%u source on a %ux%u 10-bit picture is not "
                 "supported; the reference copies the encode with the wrong row stride there",
                 s->src.w, s->src.h, w, h);
        return -EINVAL;
    }

    err = cambi_resample_init(&s->enc.rs, w, h, s->enc.w, s->enc.h);
    if (!err && s->full_ref) err = cambi_resample_init(&s->src.rs, w, h, s->src.w, s->src.h);
    if (!err) err = cambi_cpu_alloc(&s->cpu, alloc_w, alloc_h, &s->params);
    if (err) goto fail;
    return 0;

fail:
    free_state(s);
    return err;
}

/* ---- extract ---- */

/*
 * Whether every scale is at least half the window wide. Otherwise the
 * c-values of a narrow scale take in columns past its width, which hold
 * what earlier scales, the full-size luma and mask included, left there.
 */
static bool scales_hold_window(const CambiGeometry *g, bool hrs)
{
    unsigned w = g->w;
    for (int scale = 0; scale < CAMBI_NUM_SCALES; scale++)
        if (scale > 0 || hrs) w = (w + 1) >> 1;
    return w >= g->window >> 1;
}

/*
 * How a scale's c-values are pooled. Each way gives the reference's result;
 * the mode only saves work, guessing from the previous picture's scale:
 * the statistics alone (they did), the statistics with the c-values stored
 * for the select (they did not), or the c-values stored without statistics
 * (more nonzero values than the top k: the statistics cannot do).
 */
enum { POOL_STATS, POOL_STATS_STORED, POOL_STORED };

static double pool(CambiState *s, CambiGeometry *g, int scale, unsigned w, unsigned h)
{
    CambiCpu *cpu = &s->cpu;
    const int n = (int)(w * h), k = cambi_topk_count(s->pool_topk, n);
    const int mode = g->pool_mode[scale];
    double mean;
    if (mode != POOL_STORED) {
        cambi_cpu_c_values(cpu, &s->params, w, h, g->window, mode == POOL_STATS_STORED, true);
        if (cambi_pool_exact(&cpu->pool, n, s->pool_topk, &mean)) {
            g->pool_mode[scale] = POOL_STATS;
            return mean;
        }
        if (mode == POOL_STATS)
            cambi_cpu_c_values(cpu, &s->params, w, h, g->window, true, false);
        g->pool_mode[scale] = cpu->pool.nonzero > k ? POOL_STORED : POOL_STATS_STORED;
    } else {
        cambi_cpu_c_values(cpu, &s->params, w, h, g->window, true, false);
    }
    mean = cambi_pool_scale(cpu->c, n, s->pool_topk);
    if (mode == POOL_STORED) {
        /* A zero in the top k: no more nonzero values than k, this time. */
        int nonzero = 0;
        while (nonzero < k && cpu->c[nonzero] != 0.0f)
            nonzero++;
        if (nonzero < k)
            g->pool_mode[scale] = POOL_STATS_STORED;
    }
    return mean;
}

static int picture_score(CambiState *s, const VmafPicture *pic, CambiGeometry *g,
                         double *score)
{
    CambiCpu *cpu = &s->cpu;
    /* The speed-up's decimation along with the load, where nothing reads
     * the full-size planes afterwards. */
    const bool decimated = s->hrs && scales_hold_window(g, s->hrs);
    int err = cambi_cpu_load_mask(cpu, pic, &g->rs, s->antidither, decimated);
    if (err) return err;

    unsigned w = g->w, h = g->h;
    double scale_score[CAMBI_NUM_SCALES];
    for (int scale = 0; scale < CAMBI_NUM_SCALES; scale++) {
        if (scale > 0 || s->hrs) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
            if (scale > 0 || !decimated)
                cambi_cpu_decimate(cpu, w, h);
        }
        cambi_cpu_mode_filter(cpu, &s->params, w, h, g->window);
        scale_score[scale] = pool(s, g, scale, w, h);
    }
    *score = cambi_conclude(scale_score, g->window);
    return 0;
}

static int check_picture(const CambiState *s, const VmafPicture *pic, unsigned index)
{
    if (pic->w[0] != s->pic_w || pic->h[0] != s->pic_h || pic->bpc < 8 || pic->bpc > 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: frame %u is %ux%u at %u bits, which does not match the size given "
                 "at init", index, pic->w[0], pic->h[0], pic->bpc);
        return -EINVAL;
    }
    return 0;
}

int cambi_emit_dist(VmafFex *fex, const CambiState *s, double dist_score, unsigned index)
{
    return vmaf_fex_emit(fex, "Cambi_feature_cambi_score",
                         cambi_clip_max(dist_score, s->cambi_max_val), index);
}

int cambi_emit_src(VmafFex *fex, const CambiState *s, double dist_score, double src_score,
                   unsigned index)
{
    int err = vmaf_fex_emit(fex, "cambi_source", cambi_clip_max(src_score, s->cambi_max_val),
                            index);
    if (!err)
        err = vmaf_fex_emit(fex, "cambi_full_reference",
                            cambi_clip_max(cambi_full_ref(dist_score, src_score),
                                           s->cambi_max_val), index);
    return err;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    CambiState *s = fex->priv;
    double dist_score, src_score;

    int err = check_picture(s, dist, index);
    if (!err) err = picture_score(s, dist, &s->enc, &dist_score);
    if (!err) err = cambi_emit_dist(fex, s, dist_score, index);
    if (err || !s->full_ref) return err;

    err = check_picture(s, ref, index);
    if (!err) err = picture_score(s, ref, &s->src, &src_score);
    if (!err) err = cambi_emit_src(fex, s, dist_score, src_score, index);
    return err;
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_cambi = {
    .name = "cambi",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(CambiState),
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_cambi_gpu),
    .planes = vmaf_fex_planes_luma,
};
