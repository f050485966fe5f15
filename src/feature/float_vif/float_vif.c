/*
 * float_vif: Netflix libvmaf v3.2.0's float VIF feature, bit for bit
 * (docs/numerics.md section 4). Per-sample arithmetic is in vif_arith.h,
 * the kernels, prescaler and pooling in vif_kernel.c, vif_prescale.c and
 * vif_pool() below.
 *
 * Differences in structure from the reference, none in arithmetic:
 * - The five filtered planes of a scale are never stored: each output row's
 *   vertical taps go into padded row buffers (taps outer, columns inner, so
 *   every sample's running sum keeps the ascending tap order and GCC can
 *   vectorise across columns without reassociating), the rows are padded
 *   reflect-101, the horizontal taps follow, then the statistic and the row
 *   sum. Rows are added in order, as the reference does.
 * - The anti-alias filter before each decimation is evaluated only at the
 *   even rows and columns that the decimation keeps.
 * - Kernel-scale and frame-size problems are refused at init (the reference
 *   fails at extract, or reads outside the picture).
 * - The reference's 7680-column limit of the bilinear prescaler comes from
 *   stack tables; the tables here are on the heap, so any width works.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu.h"
#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "float_vif_state.h"
#include "log.h"
#include "vif_arith.h"
#include "vif_host.h"
#include "os/os.h"

/* Input offset of the float extractors ADM, VIF and motion (docs/numerics.md §2). */
#define VIF_OFFSET (-128.0f)

static const VmafOption options[] = {
    {
        .name = "debug",
        .help = "debug mode: enable additional output",
        .offset = offsetof(VifState, debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "vif_enhn_gain_limit",
        .alias = "egl",
        .help = "enhancement gain imposed on vif, must be >= 1.0, "
                "where 1.0 means the gain is completely disabled",
        .offset = offsetof(VifState, vif_enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 100.0,
        .min = 1.0,
        .max = 100.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_kernelscale",
        .alias = "ks",
        .help = "scaling factor for the gaussian kernel (2.0 means multiplying "
                "the standard deviation by 2 and enlarge the kernel size accordingly",
        .offset = offsetof(VifState, vif_kernelscale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.1,
        .max = 4.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_prescale",
        .alias = "ps",
        .help = "scaling factor for the frame (2.0 means making the image twice "
                "as large on each dimension)",
        .offset = offsetof(VifState, vif_prescale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.1,
        .max = 4.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_scale1_min_val",
        .alias = "s1miv",
        .help = "minimum value allowed; smaller values will be set to this value",
        .offset = offsetof(VifState, vif_scale1_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_scale2_min_val",
        .alias = "s2miv",
        .help = "minimum value allowed; smaller values will be set to this value",
        .offset = offsetof(VifState, vif_scale2_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_scale3_min_val",
        .alias = "s3miv",
        .help = "minimum value allowed; smaller values will be set to this value",
        .offset = offsetof(VifState, vif_scale3_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_prescale_method",
        .alias = "pm",
        .help = "scaling method for the frame, supported options: "
                "[nearest, bilinear, bicubic, lanczos4]",
        .offset = offsetof(VifState, vif_prescale_method),
        .type = VMAF_OPT_TYPE_STRING,
        .default_val.s = "nearest",
        .choices = ev_prescale_method_names,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_sigma_nsq",
        .alias = "snsq",
        .help = "neural noise variance",
        .offset = offsetof(VifState, vif_sigma_nsq),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 2.0,
        .min = 0.0,
        .max = 5.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_skip_scale0",
        .alias = "ssclz",
        .help = "when set, skip scale 0 calculations",
        .offset = offsetof(VifState, vif_skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

const char *const vif_output_names[VIF_OUT_COUNT] = {
    [VIF_OUT_SCALE0] = "VMAF_feature_vif_scale0_score",
    [VIF_OUT_SCALE1] = "VMAF_feature_vif_scale1_score",
    [VIF_OUT_SCALE2] = "VMAF_feature_vif_scale2_score",
    [VIF_OUT_SCALE3] = "VMAF_feature_vif_scale3_score",
    [VIF_OUT_VIF] = "vif",
    [VIF_OUT_NUM] = "vif_num",
    [VIF_OUT_DEN] = "vif_den",
    [VIF_OUT_NUM_SCALE0] = "vif_num_scale0",
    [VIF_OUT_DEN_SCALE0] = "vif_den_scale0",
    [VIF_OUT_NUM_SCALE1] = "vif_num_scale1",
    [VIF_OUT_DEN_SCALE1] = "vif_den_scale1",
    [VIF_OUT_NUM_SCALE2] = "vif_num_scale2",
    [VIF_OUT_DEN_SCALE2] = "vif_den_scale2",
    [VIF_OUT_NUM_SCALE3] = "vif_num_scale3",
    [VIF_OUT_DEN_SCALE3] = "vif_den_scale3",
};

/* The reference lists the debug outputs as provided features too, so a
 * non-default feature parameter renames them as well. */
static const char *const provided_features[] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    "vif", "vif_num", "vif_den", "vif_num_scale0", "vif_den_scale0",
    "vif_num_scale1", "vif_den_scale1", "vif_num_scale2", "vif_den_scale2",
    "vif_num_scale3", "vif_den_scale3",
    NULL
};

/* ---- Pooling (host, every backend) ---- */

void vif_pool(const float num[VIF_NUM_SCALES], const float den[VIF_NUM_SCALES],
              unsigned scale_start, const double min_val[3],
              double out[VIF_OUT_COUNT])
{
    const bool skip0 = scale_start > 0;

    /* Scale 0 gets no floor; the others MAX(ratio, floor) as a ternary, so a
     * NaN ratio becomes the floor. */
    out[VIF_OUT_SCALE0] = skip0 ? 0.0 : (double)num[0] / (double)den[0];
    for (unsigned s = 1; s < VIF_NUM_SCALES; s++) {
        const double r = (double)num[s] / (double)den[s];
        out[VIF_OUT_SCALE0 + s] = r > min_val[s - 1] ? r : min_val[s - 1];
    }

    double total_num = 0.0, total_den = 0.0;
    for (unsigned s = scale_start; s < VIF_NUM_SCALES; s++) {
        total_num += (double)num[s];
        total_den += (double)den[s];
    }
    out[VIF_OUT_VIF] = total_den == 0.0 ? 1.0 : total_num / total_den;
    out[VIF_OUT_NUM] = total_num;
    out[VIF_OUT_DEN] = total_den;

    /* A skipped scale 0 reports num 0 and den -1. */
    out[VIF_OUT_NUM_SCALE0] = skip0 ? 0.0 : (double)num[0];
    out[VIF_OUT_DEN_SCALE0] = skip0 ? -1.0 : (double)den[0];
    for (unsigned s = 1; s < VIF_NUM_SCALES; s++) {
        out[VIF_OUT_NUM_SCALE0 + 2 * s] = (double)num[s];
        out[VIF_OUT_DEN_SCALE0 + 2 * s] = (double)den[s];
    }
}

int vif_emit(VmafFex *fex, const float num[VIF_NUM_SCALES], const float den[VIF_NUM_SCALES],
             unsigned scale_start, const double min_val[3], bool debug, unsigned index)
{
    double out[VIF_OUT_COUNT];
    vif_pool(num, den, scale_start, min_val, out);
    return vmaf_fex_emit_list(fex, vif_output_names, out, debug ? VIF_OUT_COUNT : VIF_OUT_SCALES,
                              index);
}

/* ---- CPU reference ---- */

static float *alloc_floats(size_t n)
{
    /* 32-byte aligned rows help the vectorised loops; whole 32-byte blocks,
     * so that a vector load of the last one stays inside. */
    const size_t bytes = (n * sizeof(float) + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

static size_t row_stride(int w)
{
    return ((size_t)w + 7) & ~(size_t)7;
}

/** Mirror r samples on each side of row[0..w) (reflect-101; w > r). */
/** The kernels for an instruction set (cpu.h). */
static const VifKern *vif_kern_for(int isa)
{
    static const VifKern *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE(vif_kern);
    return kern[isa];
}

static void free_state(VifState *s)
{
    vmaf_os_aligned_free(s->in_ref);
    vmaf_os_aligned_free(s->in_dis);
    s->in_ref = s->in_dis = NULL;
    for (int i = 0; i < 2 * VIF_NUM_SCALES; i++) {
        vmaf_os_aligned_free(s->owned[i]);
        s->owned[i] = NULL;
    }
    for (int p = 0; p < VIF_P_COUNT; p++) {
        vmaf_os_aligned_free(s->vrow[p]);
        vmaf_os_aligned_free(s->hrow[p]);
        s->vrow[p] = s->hrow[p] = NULL;
    }
    vmaf_os_aligned_free(s->num_row);
    vmaf_os_aligned_free(s->den_row);
    s->num_row = s->den_row = NULL;
    vif_prescale_close(&s->prescale);
}

/** Sizes of scales 1..3 (from sw[0], sh[0]) and the check that every filter fits its image. */
static int check_geometry(VifState *s, unsigned w, unsigned h)
{
    for (int sc = 1; sc < VIF_NUM_SCALES; sc++) {
        s->sw[sc] = s->sw[sc - 1] / 2;
        s->sh[sc] = s->sh[sc - 1] / 2;
    }
    /* The reflect-101 border mirrors once: every filtered image must be
     * larger than its filter's radius, or the reference reads outside it.
     * A skipped scale 0 is still the source of scale 1, which is filtered
     * with scale 1's (smaller) kernel, so its own kernel does not count. */
    for (int sc = (int)s->scale_start; sc < VIF_NUM_SCALES; sc++) {
        const int r = s->fw[sc] / 2;
        if (s->sw[sc] <= r || s->sh[sc] <= r) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "float_vif: a %ux%u frame is too small: its scale-%d image is "
                     "%dx%d (vif_prescale gives %dx%d at scale 0), which must exceed "
                     "the %d-tap filter's radius %d in both dimensions "
                     "(at the default options frames must be at least 16x16)",
                     w, h, sc, s->sw[sc], s->sh[sc], s->sw[0], s->sh[0],
                     s->fw[sc], r);
            return -EINVAL;
        }
    }
    return 0;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    VifState *s = fex->priv;
    enum EvPrescaleMethod method;
    int err;
    (void)pix_fmt;

    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_vif: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    err = vif_prescale_method_parse(s->vif_prescale_method, &method);
    if (err)
        return err;
    /* The reference checks the kernel scale in every frame's compute and
     * fails the frame; it is known here already. */
    const float ks = (float)s->vif_kernelscale;
    if (!vif_kernelscale_valid(ks)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_vif: invalid vif_kernelscale %g: it must be within 1e-3 of "
                 "1, 1/2, 3/2, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, "
                 "3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.740740 or 1.111111",
                 s->vif_kernelscale);
        return -EINVAL;
    }
    if (w > INT_MAX / 4 || h > INT_MAX / 4 || (uint64_t)w * h > INT_MAX / 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_vif: frame %ux%u is too large", w, h);
        return -EINVAL;
    }

    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->scale_start = s->vif_skip_scale0 ? 1 : 0;
    s->stat = (VifStatConst){
        .sigma_nsq = s->vif_sigma_nsq,
        .gain_limit = (float)s->vif_enhn_gain_limit,
        /* powf of the float-converted nsq, divided in double, stored as float. */
        .sigma_max_inv = (float)(powf((float)s->vif_sigma_nsq, 2.0f) / (255.0 * 255.0)),
    };
    s->min_val[0] = s->vif_scale1_min_val;
    s->min_val[1] = s->vif_scale2_min_val;
    s->min_val[2] = s->vif_scale3_min_val;
    s->max_radius = 0;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) {
        s->fw[sc] = vif_filter_taps(s->filter[sc], sc, ks);
        if (s->fw[sc] / 2 > s->max_radius)
            s->max_radius = s->fw[sc] / 2;
    }

    /* (int)(w * ps + 0.5), in double, as the reference sizes the prescaled frame. */
    s->sw[0] = (int)(w * s->vif_prescale + 0.5);
    s->sh[0] = (int)(h * s->vif_prescale + 0.5);
    err = check_geometry(s, w, h);
    if (err)
        return err;

    err = vif_prescale_init(&s->prescale, method, (int)w, (int)h, s->sw[0], s->sh[0]);
    if (err)
        goto fail;

    err = -ENOMEM;
    s->in_stride = row_stride((int)w);
    s->in_ref = alloc_floats(s->in_stride * h);
    s->in_dis = alloc_floats(s->in_stride * h);
    if (!s->in_ref || !s->in_dis)
        goto fail;
    for (int sc = 0; sc < VIF_NUM_SCALES; sc++) {
        s->stride[sc] = row_stride(s->sw[sc]);
        if (sc == 0 && s->prescale.identity) {
            s->ref[0] = s->in_ref;
            s->dis[0] = s->in_dis;
            continue;
        }
        const size_t n = s->stride[sc] * (size_t)s->sh[sc];
        s->ref[sc] = s->owned[2 * sc] = alloc_floats(n);
        s->dis[sc] = s->owned[2 * sc + 1] = alloc_floats(n);
        if (!s->ref[sc] || !s->dis[sc])
            goto fail;
    }
    const size_t wmax = (size_t)s->sw[0];
    for (int p = 0; p < VIF_P_COUNT; p++) {
        s->vrow[p] = alloc_floats(wmax + 2 * (size_t)s->max_radius);
        s->hrow[p] = alloc_floats(wmax);
        if (!s->vrow[p] || !s->hrow[p])
            goto fail;
    }
    s->num_row = alloc_floats(wmax);
    s->den_row = alloc_floats(wmax);
    if (!s->num_row || !s->den_row)
        goto fail;
    return 0;

fail:
    free_state(s);
    return err;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    VifState *s = fex->priv;


    vmaf_picture_to_float(ref, 0, VIF_OFFSET, s->in_ref, s->in_stride);
    vmaf_picture_to_float(dist, 0, VIF_OFFSET, s->in_dis, s->in_stride);
    if (!s->prescale.identity) {
        vif_prescale_apply(&s->prescale, s->in_ref, s->in_stride, s->ref[0], s->stride[0]);
        vif_prescale_apply(&s->prescale, s->in_dis, s->in_stride, s->dis[0], s->stride[0]);
    }

    /* Scale s's image is scale s-1's, filtered with scale s's kernel and
     * decimated; this holds for scale 1 even when scale 0 is skipped. */
    const VifKern *k = vif_kern_for(ev_cpu_isa());
    for (int sc = 1; sc < VIF_NUM_SCALES; sc++) {
        k->filter_decimate(s, sc, s->ref[sc - 1], s->stride[sc - 1], s->sw[sc - 1],
                        s->sh[sc - 1], s->ref[sc], s->stride[sc]);
        k->filter_decimate(s, sc, s->dis[sc - 1], s->stride[sc - 1], s->sw[sc - 1],
                        s->sh[sc - 1], s->dis[sc], s->stride[sc]);
    }

    float num[VIF_NUM_SCALES] = { 0.0f }, den[VIF_NUM_SCALES] = { 0.0f };
    for (int sc = (int)s->scale_start; sc < VIF_NUM_SCALES; sc++)
        k->scale_sums(s, sc, &num[sc], &den[sc]);

    return vif_emit(fex, num, den, s->scale_start, s->min_val, s->debug, index);
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_float_vif = {
    .name = "float_vif",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(VifState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_vif_gpu),
    .planes = vmaf_fex_planes_luma,
};
