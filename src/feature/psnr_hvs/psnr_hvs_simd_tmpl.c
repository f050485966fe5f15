/*
 * psnr_hvs's eight blocks side by side (psnr_hvs.c), built once per
 * instruction set: psnr_hvs.c includes this file with KFN(name) naming each
 * build, after the lane helpers, which are inlined into each build.
 */

/* hvs_block_terms() of each lane; terms in lane layout. */
static void KFN(terms_lanes)(const int32_t *restrict src, const int32_t *restrict dst,
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
