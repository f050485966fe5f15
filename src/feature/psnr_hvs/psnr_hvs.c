/*
 * psnr_hvs: Netflix libvmaf v3.2.0's PSNR-HVS-M (third_party/xiph), bit for
 * bit. Per-block arithmetic is in psnr_hvs_arith.h; this file reads the
 * blocks, adds their terms in the reference's order and converts to dB.
 *
 * Differences from the reference, none in arithmetic:
 * - Eight horizontally adjacent blocks are computed side by side (one per
 *   vector lane), each with the arith header's steps in its own order; only
 *   the frame sum is sequential, in block raster order as in the reference.
 * - As in the reference, inputs above 12 bits and YUV400 are refused at
 *   init (with a message here).
 * - A plane smaller than 8x8 has no block; the reference divides 0 by 0 and
 *   reports NaN. It is refused at init instead.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "math/ev_math.h"
#include "feature/extractor.h"
#include "log.h"
#include "psnr_hvs_arith.h"
#include "psnr_hvs_conclude.h"
#include "psnr_hvs_lanes.h"
#include "cpu.h"

/* Contrast sensitivity per DCT coefficient (Y, and the 4:2:0 Cb/Cr tables the
 * reference uses for every chroma layout). The reference stores these
 * decimal constants in float arrays, so each is rounded to fp32 once. */
static const float csf_luma[64] = {
    1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542,
    2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551,
    2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596,
    1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565,
    1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204,
    0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321,
    0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001,
    0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276,
};

static const float csf_cb[64] = {
    1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242,
    2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625,
    1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837,
    1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374,
    1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034,
    0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965,
    0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733,
    0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237,
};

static const float csf_cr[64] = {
    2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971,
    2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198,
    1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706,
    1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023,
    1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273,
    0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543,
    0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063,
    0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658,
};

/* The highest depth the reference accepts. */
#define HVS_MAX_BPC 12

typedef struct HvsState {
    unsigned bpc;
    unsigned w[3], h[3];
    /* Masking weights per plane: (csf * k) * (csf * k) in double, stored
     * fp32, with k = 0.3885746225901003 (the reference's constant). */
    float mask[3][64];
} HvsState;

static const char *const output_names[4] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs",
};

static const char *const provided_features[] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs",
    NULL
};

static const float *plane_csf(unsigned p)
{
    return p == 0 ? csf_luma : p == 1 ? csf_cb : csf_cr;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    HvsState *s = fex->priv;

    if (bpc < 8 || bpc > HVS_MAX_BPC) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "psnr_hvs: %u-bit input is not supported: the metric is defined "
                 "for 8 to %d bits (Netflix libvmaf refuses it above %d bits too)",
                 bpc, HVS_MAX_BPC, HVS_MAX_BPC);
        return -EINVAL;
    }
    if (pix_fmt != VMAF_PIX_FMT_YUV420P && pix_fmt != VMAF_PIX_FMT_YUV422P &&
        pix_fmt != VMAF_PIX_FMT_YUV444P) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "psnr_hvs: needs the chroma planes (4:2:0, 4:2:2 or 4:4:4 input)");
        return -EINVAL;
    }

    const unsigned ss_x = pix_fmt != VMAF_PIX_FMT_YUV444P;
    const unsigned ss_y = pix_fmt == VMAF_PIX_FMT_YUV420P;
    s->bpc = bpc;
    for (unsigned p = 0; p < 3; p++) {
        s->w[p] = p ? w >> ss_x : w;
        s->h[p] = p ? h >> ss_y : h;
    }
    if (s->w[1] < HVS_BLOCK || s->h[1] < HVS_BLOCK) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "psnr_hvs: a %ux%u frame has %ux%u chroma planes; every plane must "
                 "be at least 8x8 (one 8x8 DCT block)", w, h, s->w[1], s->h[1]);
        return -EINVAL;
    }
    /* The coefficient count is an int32, as in the reference (about
     * 1.3 * w * h). */
    if ((uint64_t)w * h > ((uint64_t)1 << 30)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "psnr_hvs: a %ux%u frame is too large", w, h);
        return -EINVAL;
    }

    for (unsigned p = 0; p < 3; p++) {
        const float *csf = plane_csf(p);
        for (int k = 0; k < 64; k++) {
            const double c = (double)csf[k] * 0.3885746225901003;
            s->mask[p][k] = (float)(c * c);
        }
    }
    return 0;
}

/* Block at (x, y) of a plane, row-major, as int32 samples. */
static void load_block(const VmafPicture *pic, unsigned p, unsigned x, unsigned y,
                       int32_t out[64])
{
    const uint8_t *base = (const uint8_t *)pic->data[p] + (size_t)y * pic->stride[p];
    for (int i = 0; i < 8; i++) {
        const uint8_t *row = base + (size_t)i * pic->stride[p];
        for (int j = 0; j < 8; j++)
            out[8 * i + j] = pic->bpc == 8 ? row[x + j] : ((const uint16_t *)row)[x + j];
    }
}

/* HVS_LANES blocks starting at (x, y), (x + 7, y), ... in lane layout. */
static void load_lanes(const VmafPicture *pic, unsigned p, unsigned x, unsigned y,
                       int32_t *restrict out)
{
    const uint8_t *base = (const uint8_t *)pic->data[p] + (size_t)y * pic->stride[p];
    for (int i = 0; i < 8; i++) {
        const uint8_t *row = base + (size_t)i * pic->stride[p];
        int32_t *o = out + 8 * i * HVS_LANES;
        if (pic->bpc == 8) {
            for (int l = 0; l < HVS_LANES; l++)
                for (int j = 0; j < 8; j++)
                    o[j * HVS_LANES + l] = row[x + HVS_STEP * l + j];
        } else {
            const uint16_t *r16 = (const uint16_t *)row;
            for (int l = 0; l < HVS_LANES; l++)
                for (int j = 0; j < 8; j++)
                    o[j * HVS_LANES + l] = r16[x + HVS_STEP * l + j];
        }
    }
}

/* hvs_block_ratio() of each lane. Each quadrant's sums run over its own
 * samples in raster order, as in the scalar loop (independent accumulators,
 * so splitting the loop changes no sum's order). */
/* hvs_fdct8x8() of each lane: columns into tmp, then tmp's columns. */
/* hvs_block_level() of each lane. */
/*
 * One plane's mean weighted error: blocks every 7 samples while 8 samples
 * remain ((y < h - 7) and (x < w - 7)), their 64 terms each added to one fp32
 * running sum in block raster order.
 */
static float plane_sum(const HvsState *s, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned p, int32_t *count_out)
{
    const float *csf = plane_csf(p);
    const float *mask = s->mask[p];
    const unsigned w = s->w[p], h = s->h[p];
    int32_t ls[64 * HVS_LANES], ld[64 * HVS_LANES];
    float lterms[64 * HVS_LANES];
    int32_t bs[64], bd[64];
    float terms[64];
    float acc = 0.0f;
    int32_t count = 0;
    static const HvsTermsLanesFn *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE_256(hvs_terms_lanes);
    const HvsTermsLanesFn terms_lanes = *kern[ev_cpu_isa()];

    for (unsigned y = 0; y + 7 < h; y += HVS_STEP) {
        unsigned x = 0;
        /* Groups of HVS_LANES blocks while the last one fits. */
        for (; x + HVS_STEP * (HVS_LANES - 1) + 7 < w; x += HVS_STEP * HVS_LANES) {
            load_lanes(ref, p, x, y, ls);
            load_lanes(dist, p, x, y, ld);
            terms_lanes(ls, ld, csf, mask, lterms);
            for (int l = 0; l < HVS_LANES; l++)
                for (int k = 0; k < 64; k++)
                    acc = FADD(acc, lterms[k * HVS_LANES + l]);
            count += 64 * HVS_LANES;
        }
        for (; x + 7 < w; x += HVS_STEP) {
            load_block(ref, p, x, y, bs);
            load_block(dist, p, x, y, bd);
            hvs_block_terms(bs, bd, csf, mask, terms);
            acc = hvs_accumulate(acc, terms);
            count += 64;
        }
    }
    *count_out = count;
    return acc;
}

/* The reference's dB conversion: 10 * (-1 * log10(1.0 * score)). */
static double to_db(double score)
{
    return 10.0 * -ev_log10(score);
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    HvsState *s = fex->priv;


    float acc[3];
    int32_t count[3];
    for (unsigned p = 0; p < 3; p++)
        acc[p] = plane_sum(s, ref, dist, p, &count[p]);
    return psnr_hvs_conclude(fex, acc, count, index);
}

void psnr_hvs_blocks(const VmafFex *fex, unsigned p, unsigned *w, unsigned *nbx,
                     unsigned *nby)
{
    const HvsState *s = fex->priv;
    *w = s->w[p];
    /* Blocks at x = 0, 7, 14, ... while x + 7 < w (init: w, h >= 8). */
    *nbx = (s->w[p] - HVS_BLOCK) / HVS_STEP + 1;
    *nby = (s->h[p] - HVS_BLOCK) / HVS_STEP + 1;
}

void psnr_hvs_tables(const VmafFex *fex, unsigned p, float csf_mask[128])
{
    const HvsState *s = fex->priv;
    const float *csf = plane_csf(p);
    for (int k = 0; k < 64; k++) {
        csf_mask[k] = csf[k];
        csf_mask[64 + k] = s->mask[p][k];
    }
}

int psnr_hvs_conclude(VmafFex *fex, const float acc[3], const int32_t count[3],
                      unsigned index)
{
    const HvsState *s = fex->priv;
    double score[3];
    int err = 0;
    for (unsigned p = 0; p < 3 && !err; p++) {
        score[p] = hvs_plane_score(acc[p], count[p], (int)s->bpc);
        err = vmaf_fex_emit(fex, output_names[p], to_db(score[p]), index);
    }
    if (err)
        return err;
    /* 0.8 Y + 0.1 (Cb + Cr) on the linear scores, in double. */
    const double mixed = score[0] * .8 + .1 * (score[1] + score[2]);
    return vmaf_fex_emit(fex, output_names[3], to_db(mixed), index);
}

const VmafFeatureExtractor vmaf_fex_psnr_hvs = {
    .name = "psnr_hvs",
    .init = init,
    .extract = extract,
    .priv_size = sizeof(HvsState),
    .flags = 0,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_psnr_hvs_gpu),
};
