/*
 * psnr_hvs's blocks side by side: the layout psnr_hvs.c fills and the
 * template psnr_hvs_simd_tmpl.c computes in.
 */
#ifndef EXACTVMAF_PSNR_HVS_LANES_H
#define EXACTVMAF_PSNR_HVS_LANES_H

#include <stdint.h>

#include "simd.h"

/*
 * The CPU path computes HVS_LANES horizontally adjacent blocks at once,
 * structure of arrays: value k of block l at [k * HVS_LANES + l]. Every
 * block still goes through the arith header's steps in its own order, so
 * each lane equals hvs_block_terms(); only independent blocks share a
 * vector. terms_lanes is built for each instruction set (src/simd.h).
 */
#define HVS_LANES 8

/** hvs_block_terms() of each lane; terms in lane layout. */
typedef void (*HvsTermsLanesFn)(const int32_t *restrict src, const int32_t *restrict dst,
                                const float *csf, const float *mask, float *restrict terms);
/** Each instruction set's build (psnr_hvs_simd_tmpl.c). */
EV_SIMD_DECLARE_256(HvsTermsLanesFn, hvs_terms_lanes);

#endif
