/*
 * adm: Netflix libvmaf v3.2.0's integer ADM (integer_adm2, integer_aim,
 * integer_adm3, the four scale scores and the debug outputs), bit for bit
 * with its C path (docs/numerics.md sections 9 and 12). iadm_arith.h holds the
 * per-sample arithmetic, iadm_kern_*.c the row kernels, iadm_cpu.c the
 * loops and iadm_host.c the constants and the per-frame conclusion.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "feature/extractor.h"
#include "log.h"

#include "iadm_cpu.h"
#include "iadm_host.h"
#include "integer_adm_state.h"

/* Netflix's table, in its order, with its ranges and flags. adm_skip_aim
 * has neither an alias nor the feature-parameter flag there. The csf modes
 * are integer ADM's own: 0 Watson97, 1 Barten, 2 Barten-Watson blend,
 * 3 blend (MAE). */
static const VmafOption options[] = {
    {
        .name = "debug",
        .help = "debug mode: enable additional output",
        .offset = offsetof(IadmState, debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_csf_scale",
        .alias = "scf",
        .help = "scale coefficient for the horizontal & vertical direction terms of CSF",
        .offset = offsetof(IadmState, adm_csf_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_diag_scale",
        .alias = "scfd",
        .help = "scale coefficient for the diagonal direction term of CSF",
        .offset = offsetof(IadmState, adm_csf_diag_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_dlm_weight",
        .alias = "dlmw",
        .help = "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
        .offset = offsetof(IadmState, adm_dlm_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.5,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_enhn_gain_limit",
        .alias = "egl",
        .help = "enhancement gain imposed on adm, must be >= 1.0, "
                "where 1.0 means the gain is completely disabled",
        .offset = offsetof(IadmState, adm_enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 100.0,
        .min = 1.0,
        .max = 100.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_norm_view_dist",
        .alias = "nvd",
        .help = "normalized viewing distance = viewing distance / ref display's physical height",
        .offset = offsetof(IadmState, adm_norm_view_dist),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 3.0,
        .min = 0.75,
        .max = 24.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_ref_display_height",
        .alias = "rdh",
        .help = "reference display height in pixels",
        .offset = offsetof(IadmState, adm_ref_display_height),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 1080,
        .min = 1,
        .max = 4320,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_mode",
        .alias = "csf",
        .help = "contrast sensitivity function",
        .offset = offsetof(IadmState, adm_csf_mode),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 3,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_noise_weight",
        .alias = "nw",
        .help = "noise weight",
        .offset = offsetof(IadmState, adm_noise_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.03125,
        .min = 0.0,
        .max = 1500.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_skip_aim",
        .help = "skip the calculation of AIM",
        .offset = offsetof(IadmState, adm_skip_aim),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_skip_scale0",
        .alias = "ssz",
        .help = "skip the calculation of scale 0",
        .offset = offsetof(IadmState, adm_skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_min_val",
        .alias = "min",
        .help = "minimum value allowed; lower values will be clipped to this value",
        .offset = offsetof(IadmState, adm_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    IadmState *s = fex->priv;
    (void)pix_fmt;

    if (w < IADM_MIN_SIZE || h < IADM_MIN_SIZE) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "adm: frame %ux%u is below the minimum %dx%d (the reference's "
                 "coarsest DWT would index outside its buffers)",
                 w, h, IADM_MIN_SIZE, IADM_MIN_SIZE);
        return -EINVAL;
    }
    if ((unsigned long long)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "adm: frame %ux%u has more than INT_MAX samples",
                 w, h);
        return -EINVAL;
    }
    if (bpc < 8 || bpc > 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "adm: %u bits per component is not supported (8 to 16)", bpc);
        return -EINVAL;
    }
    /* Netflix refuses every frame below this angular frequency: its 16-bit
     * scale-0 pipeline cannot represent it. Refuse it up front. */
    if (s->adm_norm_view_dist * s->adm_ref_display_height < 3.0 * 1080) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "adm: adm_norm_view_dist * adm_ref_display_height = %g is below "
                 "3 * 1080, which integer ADM cannot compute",
                 s->adm_norm_view_dist * s->adm_ref_display_height);
        return -EINVAL;
    }

    const IadmOptions o = {
        .enhn_gain_limit = s->adm_enhn_gain_limit,
        .norm_view_dist = s->adm_norm_view_dist,
        .ref_display_height = s->adm_ref_display_height,
        .csf_mode = s->adm_csf_mode,
        .csf_scale = s->adm_csf_scale,
        .csf_diag_scale = s->adm_csf_diag_scale,
        .noise_weight = s->adm_noise_weight,
        .dlm_weight = s->adm_dlm_weight,
        .min_val = s->adm_min_val,
        .skip_aim = s->adm_skip_aim,
        .skip_scale0 = s->adm_skip_scale0,
    };
    iadm_params(&o, &s->params);

    /* Every option but the gain limit (and debug, which only chooses the
     * outputs) decides the pass. */
    snprintf(s->pass_key, sizeof(s->pass_key),
             "%.17g %.17g %d %d %.17g %.17g %.17g %.17g %d %d", s->adm_norm_view_dist, s->adm_csf_diag_scale, s->adm_ref_display_height,
             s->adm_csf_mode, s->adm_csf_scale, s->adm_noise_weight, s->adm_dlm_weight,
             s->adm_min_val, s->adm_skip_aim, s->adm_skip_scale0);
    VmafFex *lf = vmaf_fex_share_find(fex, s->pass_key);
    IadmState *l = lf ? lf->priv : NULL;
    if (l) {
        int e = 0;
        while (e < l->n_egl && l->egl[e] != s->adm_enhn_gain_limit) e++;
        if (e < IADM_MAX_GAIN_LIMITS) {
            if (e == l->n_egl) l->egl[l->n_egl++] = s->adm_enhn_gain_limit;
            s->leader = l;
            s->limit = e;
            return 0;   /* a follower computes nothing itself */
        }
    }

    /* Rows for one limit; more once followers have joined (first frame). */
    int err = iadm_cpu_init(&s->cpu, (int)w, (int)h, 1);
    if (err == -ENOMEM)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "adm: out of memory for %ux%u", w, h);
    else if (err < 0)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "adm: frame %ux%u is too large", w, h);
    if (err < 0)
        return err;
    s->egl[0] = s->adm_enhn_gain_limit;
    s->n_egl = 1;
    /* At 17 to 32 samples a side a pass serves one limit (iadm_cpu_can_share). */
    if (iadm_cpu_can_share(&s->cpu) && vmaf_fex_share_lead(fex, s->pass_key))
        return -ENOMEM;
    return 0;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    IadmState *s = fex->priv;
    AdmScores sc;

    /* A follower: its leader ran first on this frame and left the sums. */
    const IadmState *l = s->leader ? s->leader : s;
    if (!s->leader) {
        if (s->cpu.n_lim < s->n_egl) {
            const int w = s->cpu.w, h = s->cpu.h;
            iadm_cpu_close(&s->cpu);
            if (iadm_cpu_init(&s->cpu, w, h, s->n_egl)) {
                vmaf_log(VMAF_LOG_LEVEL_ERROR, "adm: out of memory for %dx%d", w, h);
                return -ENOMEM;
            }
        }
        iadm_cpu_frame(&s->cpu, &s->params, s->egl, s->n_egl, ref, dist, s->acc);
    }
    iadm_conclude(l->acc[s->limit], l->cpu.geom, &s->params, l->cpu.w, l->cpu.h, &sc);
    return iadm_emit(fex, &sc, s->debug, index);
}

static void close_fex(VmafFex *fex)
{
    IadmState *s = fex->priv;
    iadm_cpu_close(&s->cpu);
}

/* Netflix's list: every output, debug ones included, takes the option
 * suffix (unlike float ADM, "integer_adm" is listed). */
static const char *const provided_features[] = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score",
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2",
    "integer_adm_scale3",
    "integer_adm", "integer_adm_num", "integer_adm_den",
    "integer_adm_num_scale0", "integer_adm_den_scale0", "integer_adm_num_scale1",
    "integer_adm_den_scale1", "integer_adm_num_scale2", "integer_adm_den_scale2",
    "integer_adm_num_scale3", "integer_adm_den_scale3",
    NULL
};

const VmafFeatureExtractor vmaf_fex_integer_adm = {
    .name = "adm",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(IadmState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_integer_adm_gpu),
    .planes = vmaf_fex_planes_luma,
};
