/*
 * vif: Netflix libvmaf v3.2.0's integer VIF feature, bit for bit with its C
 * path (docs/numerics.md section 9). Arithmetic in ivif_arith.h, row
 * kernels in ivif_dsp.c / ivif_simd_tmpl.c, conclusion in ivif_conclude() below.
 *
 * Differences in structure from the reference, none in arithmetic:
 * - the pictures are read in place (rows resolved reflect-101) instead of
 *   being copied into a padded buffer;
 * - the anti-alias filter before each decimation is evaluated only at the
 *   even rows and columns that the decimation keeps;
 * - frames too small for a filter (the reference then reads rows and
 *   columns it never wrote) are refused at init.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "integer_vif_state.h"
#include "ivif_arith.h"
#include "ivif_dsp.h"
#include "ivif_host.h"
#include "log.h"
#include "mem.h"

static const VmafOption options[] = {
    {
        .name = "debug",
        .help = "debug mode: enable additional output",
        .offset = offsetof(IvifState, debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "vif_enhn_gain_limit",
        .alias = "egl",
        .help = "enhancement gain imposed on vif, must be >= 1.0, "
                "where 1.0 means the gain is completely disabled",
        .offset = offsetof(IvifState, vif_enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 100.0,
        .min = 1.0,
        .max = 100.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_skip_scale0",
        .alias = "ssclz",
        .help = "when set, skip scale 0 calculations",
        .offset = offsetof(IvifState, vif_skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 }
};

const char *const ivif_output_names[IVIF_OUT_COUNT] = {
    [IVIF_OUT_SCALE0] = "VMAF_integer_feature_vif_scale0_score",
    [IVIF_OUT_SCALE1] = "VMAF_integer_feature_vif_scale1_score",
    [IVIF_OUT_SCALE2] = "VMAF_integer_feature_vif_scale2_score",
    [IVIF_OUT_SCALE3] = "VMAF_integer_feature_vif_scale3_score",
    [IVIF_OUT_VIF] = "integer_vif",
    [IVIF_OUT_NUM] = "integer_vif_num",
    [IVIF_OUT_DEN] = "integer_vif_den",
    [IVIF_OUT_NUM_SCALE0] = "integer_vif_num_scale0",
    [IVIF_OUT_DEN_SCALE0] = "integer_vif_den_scale0",
    [IVIF_OUT_NUM_SCALE1] = "integer_vif_num_scale1",
    [IVIF_OUT_DEN_SCALE1] = "integer_vif_den_scale1",
    [IVIF_OUT_NUM_SCALE2] = "integer_vif_num_scale2",
    [IVIF_OUT_DEN_SCALE2] = "integer_vif_den_scale2",
    [IVIF_OUT_NUM_SCALE3] = "integer_vif_num_scale3",
    [IVIF_OUT_DEN_SCALE3] = "integer_vif_den_scale3",
};

/* The reference lists the debug outputs as provided features too, so a
 * non-default feature parameter renames them as well. */
static const char *const provided_features[] = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "integer_vif", "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0",
    "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2", "integer_vif_num_scale3",
    "integer_vif_den_scale3",
    NULL
};

/* ---- Conclusion (host, every backend) ---- */

void ivif_conclude(const IvifAccum acc[IVIF_NUM_SCALES], bool skip_scale0,
                   double out[IVIF_OUT_COUNT])
{
    float num[IVIF_NUM_SCALES] = { 0.0f }, den[IVIF_NUM_SCALES] = { 0.0f };
    for (int s = skip_scale0 ? 1 : 0; s < IVIF_NUM_SCALES; s++) {
        num[s] = ivif_scale_num(&acc[s]);
        den[s] = ivif_scale_den(&acc[s]);
    }
    /* A float quotient, promoted to double when it is stored. */
    out[IVIF_OUT_SCALE0] = skip_scale0 ? 0.0 : (double)FDIV(num[0], den[0]);
    for (int s = 1; s < IVIF_NUM_SCALES; s++)
        out[IVIF_OUT_SCALE0 + s] = (double)FDIV(num[s], den[s]);

    /* Totals: double sums of the floats, left to right from the first
     * computed scale. */
    double total_num, total_den;
    if (skip_scale0) {
        total_num = DADD(DADD((double)num[1], (double)num[2]), (double)num[3]);
        total_den = DADD(DADD((double)den[1], (double)den[2]), (double)den[3]);
    } else {
        total_num = DADD(DADD(DADD((double)num[0], (double)num[1]), (double)num[2]),
                         (double)num[3]);
        total_den = DADD(DADD(DADD((double)den[0], (double)den[1]), (double)den[2]),
                         (double)den[3]);
    }
    out[IVIF_OUT_VIF] = total_den == 0.0 ? 1.0 : DDIV(total_num, total_den);
    out[IVIF_OUT_NUM] = total_num;
    out[IVIF_OUT_DEN] = total_den;

    out[IVIF_OUT_NUM_SCALE0] = skip_scale0 ? 0.0 : (double)num[0];
    out[IVIF_OUT_DEN_SCALE0] = skip_scale0 ? -1.0 : (double)den[0];
    for (int s = 1; s < IVIF_NUM_SCALES; s++) {
        out[IVIF_OUT_NUM_SCALE0 + 2 * s] = (double)num[s];
        out[IVIF_OUT_DEN_SCALE0 + 2 * s] = (double)den[s];
    }
}

int ivif_emit(VmafFex *fex, const IvifAccum acc[IVIF_NUM_SCALES], bool skip_scale0, bool debug,
              unsigned index)
{
    double out[IVIF_OUT_COUNT];
    ivif_conclude(acc, skip_scale0, out);
    return vmaf_fex_emit_list(fex, ivif_output_names, out,
                              debug ? IVIF_OUT_COUNT : IVIF_OUT_SCALES, index);
}

/* ---- CPU ---- */

static void free_state(IvifState *s)
{
    free(s->log2_table);
    s->log2_table = NULL;
    vmaf_mem_free_large(s->img_block);
    s->img_block = NULL;
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++)
        s->img[sc][0] = s->img[sc][1] = NULL;
    ivif_scratch_free(&s->scratch);
}

/**
 * Every filter must fit the image it runs on: reflect-101 mirrors once, so
 * an image of n samples takes a filter radius of at most n - 1 (the
 * reference reads unwritten rows and columns otherwise). Scale s (s >= 1)
 * is made from scale s-1 with scale s's filter, even when scale 0 itself
 * is skipped. At every option this means at least 16x16.
 */
static int check_geometry(const IvifState *s)
{
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        const int r = ivif_filter_width(sc) / 2;
        const bool stat = sc >= s->scale_start;
        const bool made = sc > 0;
        const bool ok = (!stat || (s->sw[sc] > r && s->sh[sc] > r)) &&
                        (!made || (s->sw[sc - 1] > r && s->sh[sc - 1] > r));
        if (!ok) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR,
                     "vif: a %ux%u frame is too small: its scale-%d image is %dx%d, which "
                     "the %d-tap filter cannot cover (integer vif needs at least 16x16)",
                     s->w, s->h, sc, s->sw[sc], s->sh[sc], ivif_filter_width(sc));
            return -EINVAL;
        }
    }
    return 0;
}

/*
 * Join a leader's pass (everything but vif_enhn_gain_limit alike, room for
 * one more limit), or lead one. Returns 1 when following.
 */
static int share(VmafFex *fex, IvifState *s)
{
    const char *key = s->vif_skip_scale0 ? "skip_scale0" : "all scales";
    VmafFex *lf = vmaf_fex_share_find(fex, key);
    IvifState *l = lf ? lf->priv : NULL;
    s->gl.v[0] = s->vif_enhn_gain_limit;
    s->gl.n = 1;
    if (l) {
        int e = 0;
        while (e < l->gl.n && l->gl.v[e] != s->vif_enhn_gain_limit) e++;
        if (e < IVIF_MAX_GAIN_LIMITS) {
            if (e == l->gl.n) l->gl.v[l->gl.n++] = s->vif_enhn_gain_limit;
            s->leader = l;
            s->limit = e;
            return 1;
        }
    }
    return vmaf_fex_share_lead(fex, key) ? -ENOMEM : 0;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    IvifState *s = fex->priv;
    int err = -ENOMEM;
    (void)pix_fmt;

    if (bpc < 8 || bpc > 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "vif: %u-bit input is not supported (8 to 16)", bpc);
        return -EINVAL;
    }
    if (w > INT_MAX / 4 || h > INT_MAX / 4) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "vif: frame %ux%u is too large", w, h);
        return -EINVAL;
    }
    s->w = w;
    s->h = h;
    s->bpc = bpc;
    s->scale_start = s->vif_skip_scale0 ? 1 : 0;
    s->sw[0] = (int)w;
    s->sh[0] = (int)h;
    for (int sc = 1; sc < IVIF_NUM_SCALES; sc++) {
        s->sw[sc] = s->sw[sc - 1] / 2;
        s->sh[sc] = s->sh[sc - 1] / 2;
    }
    if (check_geometry(s))
        return -EINVAL;
    err = share(fex, s);
    if (err)
        return err < 0 ? err : 0;   /* a follower computes nothing itself */
    err = -ENOMEM;

    static const uint16_t table[IVIF_NUM_SCALES][IVIF_MAX_TAPS] = IVIF_FILTER_TABLE;
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++)
        for (int k = 0; k < IVIF_MAX_TAPS; k++)
            s->filter[sc][k] = table[sc][k];

    /* The reference fills [32767, 65535] of a 65537-entry table at init with
     * libm's log2f; one more entry lets a SIMD 4-byte gather read the last. */
    s->log2_table = calloc(IVIF_LOG2_TABLE_SIZE + 2, sizeof(uint16_t));
    if (!s->log2_table)
        goto fail;
    for (unsigned i = IVIF_LOG2_TABLE_MIN - 1; i < IVIF_LOG2_TABLE_SIZE; i++)
        s->log2_table[i] = ivif_log2_table_entry(i);

    /* One block for the six images (huge pages from 1 MiB, mem.h). */
    size_t total = 0;
    for (int sc = 1; sc < IVIF_NUM_SCALES; sc++)
        total += 2 * (((size_t)s->sw[sc] * (size_t)s->sh[sc] + 31) & ~(size_t)31);
    s->img_block = vmaf_mem_alloc_large(total * sizeof(uint16_t));
    if (!s->img_block)
        goto fail;
    uint16_t *next = s->img_block;
    for (int sc = 1; sc < IVIF_NUM_SCALES; sc++) {
        const size_t n = ((size_t)s->sw[sc] * (size_t)s->sh[sc] + 31) & ~(size_t)31;
        s->img[sc][0] = next;
        s->img[sc][1] = next + n;
        next += 2 * n;
    }
    err = ivif_scratch_alloc(&s->scratch, (int)w);
    if (err)
        goto fail;
    ivif_dsp_init(&s->dsp);
    return 0;

fail:
    free_state(s);
    return err;
}

/** Start of row i of a scale's plane (p: 0 ref, 1 dis). */
static const void *plane_row(const IvifState *s, const VmafPicture *pic, int sc, int p,
                             int i)
{
    if (sc == 0)
        return (const uint8_t *)pic->data[0] + (ptrdiff_t)i * pic->stride[0];
    return s->img[sc][p] + (size_t)i * (size_t)s->sw[sc];
}

/**
 * The vertical rounding of the pass that reads scale `sc`: at scale 0 the
 * means shift by bpc and the moments by 2*(bpc-8), above it both by 16.
 */
static void taps_setup(const IvifState *s, int sc, int filter_scale, IvifTaps *t)
{
    t->f = s->filter[filter_scale];
    t->fw = ivif_filter_width(filter_scale);
    t->w = s->sw[sc];
    t->u8 = sc == 0 && s->bpc == 8;
    if (sc == 0) {
        const int sq_shift = 2 * ((int)s->bpc - 8);
        t->mu_shift = (int)s->bpc;
        t->mu_round = 1u << (s->bpc - 1);
        t->sq_shift = sq_shift;
        t->sq_round = sq_shift ? 1u << (sq_shift - 1) : 0;
    } else {
        t->mu_shift = 16;
        t->mu_round = 32768;
        t->sq_shift = 16;
        t->sq_round = 32768;
    }
}

/** Make scale sc (>= 1) from scale sc-1: filter with scale sc's kernel, keep even rows/columns. */
static void decimate(IvifState *s, const VmafPicture *ref, const VmafPicture *dis, int sc)
{
    IvifTaps t;
    taps_setup(s, sc - 1, sc, &t);
    const int r = t.fw / 2, h = s->sh[sc - 1];
    for (int p = 0; p < 2; p++) {
        const VmafPicture *pic = p ? dis : ref;
        for (int i = 0; i < s->sh[sc]; i++) {
            for (int k = 0; k < t.fw; k++)
                t.ref[k] = plane_row(s, pic, sc - 1, p, ivif_reflect(2 * i - r + k, h));
            s->dsp.decimate_row(&t, &s->scratch, s->img[sc][p] + (size_t)i * (size_t)s->sw[sc]);
        }
    }
}

/** The four sums of scale sc under each gain limit, into s->acc[sc]. */
static void scale_sums(IvifState *s, const VmafPicture *ref, const VmafPicture *dis, int sc)
{
    IvifTaps t;
    taps_setup(s, sc, sc, &t);
    const int r = t.fw / 2, h = s->sh[sc];
    IvifAccum *acc = s->acc[sc];
    for (int e = 0; e < s->gl.n; e++)
        acc[e] = (IvifAccum){ 0, 0, 0, 0 };
    for (int i = 0; i < h; i++) {
        for (int k = 0; k < t.fw; k++) {
            const int ii = ivif_reflect(i - r + k, h);
            t.ref[k] = plane_row(s, ref, sc, 0, ii);
            t.dis[k] = plane_row(s, dis, sc, 1, ii);
        }
        s->dsp.row_sums(&t, &s->scratch, &s->gl, s->log2_table, acc);
    }
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    IvifState *s = fex->priv;
    IvifAccum acc[IVIF_NUM_SCALES] = { { 0, 0, 0, 0 } };

    /* A follower: its leader ran first on this frame and left the sums. */
    if (s->leader) {
        for (int sc = s->leader->scale_start; sc < IVIF_NUM_SCALES; sc++)
            acc[sc] = s->leader->acc[sc][s->limit];
        return ivif_emit(fex, acc, s->vif_skip_scale0, s->debug, index);
    }


    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        if (sc > 0)
            decimate(s, ref, dist, sc);
        if (sc >= s->scale_start) {
            scale_sums(s, ref, dist, sc);
            acc[sc] = s->acc[sc][0];
        }
    }
    return ivif_emit(fex, acc, s->vif_skip_scale0, s->debug, index);
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_integer_vif = {
    .name = "vif",
    .init = init,
    .extract = extract,
    .close = close_fex,
    .options = options,
    .priv_size = sizeof(IvifState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_integer_vif_gpu),
    .planes = vmaf_fex_planes_luma,
};
