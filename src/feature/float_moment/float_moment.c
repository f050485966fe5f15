/*
 * float_moment: Netflix libvmaf v3.2.0's luma moments, bit for bit: the
 * mean of the samples and the mean of their squares, of the reference and
 * the distorted picture, in the float scale of the float extractors
 * (sample / 1, 4, 16, 256; offset 0). Outputs float_moment_ref1st,
 * float_moment_dis1st, float_moment_ref2nd, float_moment_dis2nd.
 *
 * The reference's fp64 raster sums are computed as integer totals
 * (moment_arith.h explains why those are the same sums bit for bit), with
 * the reference's own loop as the fallback where a total is too large to be
 * exact; no float copy of the frame is made.
 *
 * Differences from the reference: depths other than 8, 10, 12 and 16 bits
 * are refused at init (the reference reads such 16-bit buffers as bytes and
 * returns meaningless values), and frames of more than INT_MAX samples
 * (where its int area overflows).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include "feature/common/picture_float.h"
#include "feature/extractor.h"
#include "log.h"
#include "moment_arith.h"
#include "float_moment_conclude.h"

typedef struct MomentState {
    unsigned bpc;
} MomentState;

/* The reference's list: its one entry is not an output name, and the
 * extractor has no options, so nothing is ever renamed. */
static const char *const provided_features[] = {
    "float_moment",
    NULL
};

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    MomentState *s = fex->priv;
    (void)pix_fmt;

    if (!vmaf_float_bpc_supported(bpc)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_moment: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    if ((uint64_t)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_moment: frame %ux%u is too large", w, h);
        return -EINVAL;
    }
    s->bpc = bpc;
    return 0;
}

/** A picture's unit totals: s1 of the samples, s2 of their fp32 squares (moment_arith.h). */
static void units(const VmafPicture *pic, unsigned bpc, uint64_t *s1, uint64_t *s2)
{
    const unsigned w = pic->w[0], h = pic->h[0];
    const uint8_t *data = pic->data[0];
    *s1 = *s2 = 0;
    for (unsigned i = 0; i < h; i++) {
        const uint8_t *row = data + i * pic->stride[0];
        if (bpc == 8)
            moment_units_row_u8(row, w, s1, s2);
        else if (bpc == 16 ||
                 moment_units_row_u16_small((const uint16_t *)row, w, s1, s2) >= 4096)
            moment_units_row_u16((const uint16_t *)row, w, s1, s2);
    }
}

/** First and second moments from a picture's unit totals, as the reference's. */
static void moments(const VmafPicture *pic, unsigned bpc, uint64_t s1, uint64_t s2,
                    double *m1, double *m2)
{
    const unsigned w = pic->w[0], h = pic->h[0];
    /* 1/S and 1/S^2 are powers of two: the scalings are exact. */
    const double unit1 = bpc == 8 ? 1.0 : bpc == 10 ? 0x1p-2 : bpc == 12 ? 0x1p-4 : 0x1p-8;
    const double unit2 = DMUL(unit1, unit1);
    double sum2;
    if (s2 < MOMENT_EXACT_UNITS) {
        sum2 = DMUL((double)s2, unit2);
    } else {
        sum2 = 0.0;
        for (unsigned i = 0; i < h; i++)
            sum2 = moment2_raster_row(sum2, (const uint8_t *)pic->data[0] + i * pic->stride[0],
                                      w, bpc);
    }
    /* The reference divides by its int area w*h. */
    const double area = (double)(w * h);
    *m1 = DDIV(DMUL((double)s1, unit1), area);
    *m2 = DDIV(sum2, area);
}

int float_moment_conclude(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                          const uint64_t s1[2], const uint64_t s2[2], unsigned index)
{
    const MomentState *s = fex->priv;
    double ref1, ref2, dis1, dis2;
    moments(ref, s->bpc, s1[0], s2[0], &ref1, &ref2);
    moments(dist, s->bpc, s1[1], s2[1], &dis1, &dis2);

    int err = vmaf_fex_emit(fex, "float_moment_ref1st", ref1, index);
    if (!err) err = vmaf_fex_emit(fex, "float_moment_dis1st", dis1, index);
    if (!err) err = vmaf_fex_emit(fex, "float_moment_ref2nd", ref2, index);
    if (!err) err = vmaf_fex_emit(fex, "float_moment_dis2nd", dis2, index);
    return err;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    MomentState *s = fex->priv;

    if (ref->bpc != s->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_moment: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, s->bpc);
        return -EINVAL;
    }
    uint64_t s1[2], s2[2];
    units(ref, s->bpc, &s1[0], &s2[0]);
    units(dist, s->bpc, &s1[1], &s2[1]);
    return float_moment_conclude(fex, ref, dist, s1, s2, index);
}

const VmafFeatureExtractor vmaf_fex_float_moment = {
    .name = "float_moment",
    .init = init,
    .extract = extract,
    .priv_size = sizeof(MomentState),
    .provided_features = provided_features,
    .planes = vmaf_fex_planes_luma,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_float_moment_gpu),
};
