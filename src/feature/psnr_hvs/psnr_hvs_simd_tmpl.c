/*
 * psnr_hvs's eight blocks side by side (psnr_hvs.c), built once per
 * instruction set (src/simd.h): each lane takes the arith header's steps in
 * its own order, so only the vector width differs between builds. Eight
 * lanes fill an AVX2 vector, so there is no AVX-512 build: its slot takes
 * the AVX2 one (simd_templates_256; an AVX-512 build was ~3% slower).
 */
#include <stdint.h>

#include "psnr_hvs_arith.h"
#include "psnr_hvs_lanes.h"

/* The lane helpers are forced inline into terms_lanes, their one caller,
 * as they were when its builds shared a file with the baseline. */
#if defined(__GNUC__) || defined(__clang__)
#define HVS_LANE_FN static inline __attribute__((always_inline))
#else
#define HVS_LANE_FN static inline
#endif

HVS_LANE_FN void ratio_lanes(const int32_t *restrict px, float *restrict ratio)
{
    int32_t total[HVS_LANES] = { 0 }, qtotal[4][HVS_LANES] = { { 0 } };
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            total[l] += px[k * HVS_LANES + l];
    for (int q = 0; q < 4; q++)
        for (int i = (q & 1) * 4; i < (q & 1) * 4 + 4; i++)
            for (int j = (q >> 1) * 4; j < (q >> 1) * 4 + 4; j++)
                for (int l = 0; l < HVS_LANES; l++)
                    qtotal[q][l] += px[(8 * i + j) * HVS_LANES + l];

    float mean[HVS_LANES], qmean[4][HVS_LANES];
    for (int l = 0; l < HVS_LANES; l++)
        mean[l] = hvs_mean(total[l], 64.0f);
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < HVS_LANES; l++)
            qmean[q][l] = hvs_mean(qtotal[q][l], 16.0f);

    float var[HVS_LANES] = { 0.0f }, qvar[4][HVS_LANES] = { { 0.0f } };
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            var[l] = hvs_dev_step(var[l], px[k * HVS_LANES + l], mean[l]);
    for (int q = 0; q < 4; q++)
        for (int i = (q & 1) * 4; i < (q & 1) * 4 + 4; i++)
            for (int j = (q >> 1) * 4; j < (q >> 1) * 4 + 4; j++)
                for (int l = 0; l < HVS_LANES; l++)
                    qvar[q][l] = hvs_dev_step(qvar[q][l], px[(8 * i + j) * HVS_LANES + l],
                                              qmean[q][l]);
    for (int l = 0; l < HVS_LANES; l++) {
        const float qv[4] = { qvar[0][l], qvar[1][l], qvar[2][l], qvar[3][l] };
        ratio[l] = hvs_ratio(var[l], qv);
    }
}

HVS_LANE_FN void dct_lanes(const int32_t *restrict px, int32_t *restrict tmp,
                             int32_t *restrict out)
{
    for (int c = 0; c < 8; c++)
        for (int l = 0; l < HVS_LANES; l++)
            hvs_fdct8(tmp + 8 * c * HVS_LANES + l, HVS_LANES, px + c * HVS_LANES + l,
                      8 * HVS_LANES);
    for (int c = 0; c < 8; c++)
        for (int l = 0; l < HVS_LANES; l++)
            hvs_fdct8(out + 8 * c * HVS_LANES + l, HVS_LANES, tmp + c * HVS_LANES + l,
                      8 * HVS_LANES);
}

HVS_LANE_FN void level_lanes(const int32_t *restrict dct, const float *mask,
                               const float *restrict ratio, float *restrict level)
{
    float e[HVS_LANES] = { 0.0f };
    for (int k = 1; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            e[l] = hvs_energy_step(e[l], dct[k * HVS_LANES + l], mask[k]);
    for (int l = 0; l < HVS_LANES; l++)
        level[l] = hvs_masking_level(e[l], ratio[l]);
}
/* hvs_block_terms() of each lane; terms in lane layout. */
static void terms_lanes(const int32_t *restrict src, const int32_t *restrict dst,
                             const float *csf, const float *mask, float *restrict terms)
{
    int32_t tmp[64 * HVS_LANES], ds[64 * HVS_LANES], dd[64 * HVS_LANES];
    float rs[HVS_LANES], rd[HVS_LANES], ls[HVS_LANES], ld[HVS_LANES];

    ratio_lanes(src, rs);
    ratio_lanes(dst, rd);
    dct_lanes(src, tmp, ds);
    dct_lanes(dst, tmp, dd);
    level_lanes(ds, mask, rs, ls);
    level_lanes(dd, mask, rd, ld);
    for (int l = 0; l < HVS_LANES; l++)
        ls[l] = ld[l] > ls[l] ? ld[l] : ls[l];
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            terms[k * HVS_LANES + l] = hvs_term(ds[k * HVS_LANES + l], dd[k * HVS_LANES + l],
                                                k, ls[l], mask[k], csf[k]);
}

const HvsTermsLanesFn EV_SIMD_NAME(hvs_terms_lanes) = terms_lanes;
