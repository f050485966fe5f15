/*
 * float_adm: Netflix libvmaf v3.2.0's float ADM (adm2, aim, adm3 and the four
 * scale scores), bit for bit. docs/numerics.md section 3 is the contract;
 * adm_arith.h holds the per-sample arithmetic, adm_cpu.c the CPU loops,
 * adm_csf.c the weights and adm_pool.c the per-frame conclusion.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "feature/extractor.h"
#include "feature/common/picture_float.h"
#include "log.h"

#include "adm_cpu.h"
#include "adm_csf.h"
#include "adm_pool.h"
#include "adm_rcp.h"
#include "float_adm_state.h"

/* Smallest frame whose scale-3 bands are at least 2 x 2: below it the
 * reference's 3x3 masking threshold reads outside its buffers. */
#define ADM_MIN_SIZE 17

/* Netflix's table, in its order, with its ranges (adm_skip_aim_scale's
 * default -1 lies outside [0, 3] there too, and means "skip none"). */
static const VmafOption options[] = {
    {
        .name = "debug",
        .help = "debug mode: enable additional output",
        .offset = offsetof(AdmState, debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_enhn_gain_limit",
        .alias = "egl",
        .help = "enhancement gain imposed on adm, must be >= 1.0, "
                "where 1.0 means the gain is completely disabled",
        .offset = offsetof(AdmState, adm_enhn_gain_limit),
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
        .offset = offsetof(AdmState, adm_norm_view_dist),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 3.0,
        .min = 0.75,
        .max = 24.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_noise_weight",
        .alias = "nw",
        .help = "noise weight",
        .offset = offsetof(AdmState, adm_noise_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.03125,
        .min = 0.0,
        .max = 1500.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_scale",
        .alias = "scf",
        .help = "scale factor for the CSF",
        .offset = offsetof(AdmState, adm_csf_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_diag_scale",
        .alias = "scfd",
        .help = "scale factor for the CSF diag",
        .offset = offsetof(AdmState, adm_csf_diag_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_ref_display_height",
        .alias = "rdf",
        .help = "reference display height in pixels",
        .offset = offsetof(AdmState, adm_ref_display_height),
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
        .offset = offsetof(AdmState, adm_csf_mode),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 9,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_bypass_cm",
        .alias = "bcm",
        .help = "bypass contrast masking (CM)",
        .offset = offsetof(AdmState, adm_bypass_cm),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 1,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_adm3_apply_hm",
        .alias = "aah",
        .help = "apply harmonic mean to combine DLM and AIM",
        .offset = offsetof(AdmState, adm_adm3_apply_hm),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_p_norm",
        .alias = "apn",
        .help = "p-norm for energy vector",
        .offset = offsetof(AdmState, adm_p_norm),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 3.0,
        .min = 1.0,
        .max = 20.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_dlm_weight",
        .alias = "dlmw",
        .help = "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
        .offset = offsetof(AdmState, adm_dlm_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.5,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_min_val",
        .alias = "min",
        .help = "minimum value allowed; lower values will be clipped to this value",
        .offset = offsetof(AdmState, adm_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
#define ADM_FACTOR_OPTION(opt, short_name, text, field)                     \
    {                                                                       \
        .name = opt,                                                        \
        .alias = short_name,                                                \
        .help = text,                                                       \
        .offset = offsetof(AdmState, field),                                \
        .type = VMAF_OPT_TYPE_DOUBLE,                                       \
        .default_val.d = -1.0,                                              \
        .min = -1.0,                                                        \
        .max = 10.0,                                                        \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                               \
    }
    ADM_FACTOR_OPTION("adm_f1s0", "f1s0", "factor1 scale0", adm_f1s[0]),
    ADM_FACTOR_OPTION("adm_f1s1", "f1s1", "factor1 scale1", adm_f1s[1]),
    ADM_FACTOR_OPTION("adm_f1s2", "f1s2", "factor1 scale2", adm_f1s[2]),
    ADM_FACTOR_OPTION("adm_f1s3", "f1s3", "factor1 scale3", adm_f1s[3]),
    ADM_FACTOR_OPTION("adm_f2s0", "f2s0", "factor2 scale0", adm_f2s[0]),
    ADM_FACTOR_OPTION("adm_f2s1", "f2s1", "factor2 scale1", adm_f2s[1]),
    ADM_FACTOR_OPTION("adm_f2s2", "f2s2", "factor2 scale2", adm_f2s[2]),
    ADM_FACTOR_OPTION("adm_f2s3", "f2s3", "factor2 scale3", adm_f2s[3]),
#undef ADM_FACTOR_OPTION
    {
        .name = "adm_skip_aim_scale",
        .alias = "sasc",
        .help = "when set, skip AIM calculations for that scale",
        .offset = offsetof(AdmState, adm_skip_aim_scale),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = -1,
        .min = 0,
        .max = 3,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_skip_scale0",
        .alias = "ssz",
        .help = "skip the calculation of scale 0",
        .offset = offsetof(AdmState, adm_skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    AdmState *s = fex->priv;

    if (w < ADM_MIN_SIZE || h < ADM_MIN_SIZE) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_adm: frame %ux%u is below the minimum %dx%d "
                 "(the coarsest scale would read outside its bands)\n",
                 w, h, ADM_MIN_SIZE, ADM_MIN_SIZE);
        return -EINVAL;
    }
    if ((unsigned long long)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_adm: frame %ux%u has more than INT_MAX samples\n", w, h);
        return -EINVAL;
    }
    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_adm: %u bits per component is not supported "
                 "(8, 10, 12 or 16)\n", bpc);
        return -EINVAL;
    }
    if (fex->env.division == EXACTVMAF_DIVISION_RCP && !ADM_HAVE_RCPSS) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_adm: reciprocal (RCPSS) division needs an x86 processor\n");
        return -ENOTSUP;
    }

    const AdmCsfParams csf = {
        .norm_view_dist = s->adm_norm_view_dist,
        .ref_display_height = s->adm_ref_display_height,
        .csf_mode = s->adm_csf_mode,
        .csf_scale = s->adm_csf_scale,
        .csf_diag_scale = s->adm_csf_diag_scale,
        .f1 = { s->adm_f1s[0], s->adm_f1s[1], s->adm_f1s[2], s->adm_f1s[3] },
        .f2 = { s->adm_f2s[0], s->adm_f2s[1], s->adm_f2s[2], s->adm_f2s[3] },
    };
    AdmCpuParams *cp = &s->cpu_params;
    adm_csf_rfactors(&csf, cp->rfactor);
    cp->enhn_gain_limit = s->adm_enhn_gain_limit;
    cp->p_norm = s->adm_p_norm;
    cp->bypass_cm = s->adm_bypass_cm != 0;
    cp->skip_scale0 = s->adm_skip_scale0;
    cp->rcp_division = fex->env.division == EXACTVMAF_DIVISION_RCP;

    s->pool_params = (AdmPoolParams) {
        .noise_weight = s->adm_noise_weight,
        .p_norm = s->adm_p_norm,
        .dlm_weight = s->adm_dlm_weight,
        .min_val = s->adm_min_val,
        .adm3_apply_hm = s->adm_adm3_apply_hm,
        .skip_aim_scale = s->adm_skip_aim_scale,
        .skip_scale0 = s->adm_skip_scale0,
    };

    const int err = adm_cpu_init(&s->cpu, (int)w, (int)h);
    if (err < 0)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_adm: out of memory for %ux%u\n", w, h);
    return err;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    AdmState *s = fex->priv;
    AdmCpu *c = &s->cpu;

    vmaf_picture_to_float(ref, 0, -128.0f, c->ref, c->frame_stride);
    vmaf_picture_to_float(dist, 0, -128.0f, c->dis, c->frame_stride);

    AdmScaleAccum acc[ADM_NUM_SCALES];
    AdmScores sc;
    adm_cpu_scales(c, &s->cpu_params, acc);
    adm_conclude(acc, c->geom, &s->pool_params, c->w, c->h, &sc);

    return adm_emit(fex, &sc, s->debug, index);
}

static void close_fex(VmafFex *fex)
{
    AdmState *s = fex->priv;
    adm_cpu_close(&s->cpu);
}

/*
 * Netflix's list: the debug names are provided features too (so they take
 * the option suffix), "adm_scale0" is listed but never emitted, and "adm"
 * is absent (so it never takes a suffix).
 */
static const char *const provided_features[] = {
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score",
    "VMAF_feature_adm3_score", "VMAF_feature_adm_scale0_score",
    "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
    "VMAF_feature_adm_scale3_score", "adm_num", "adm_den", "adm_scale0",
    "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
    "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3",
    NULL
};

const VmafFeatureExtractor vmaf_fex_float_adm = {
    .name = "float_adm",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(AdmState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_adm_gpu),
    .planes = vmaf_fex_planes_luma,
};
