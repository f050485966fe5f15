/*
 * What psnr_hvs's GPU twin shares with the CPU path (psnr_hvs.c): the block
 * grid of a plane, the per-plane tables, and the conclusion from the three
 * planes' fp32 running sums.
 */
#ifndef EXACTVMAF_PSNR_HVS_CONCLUDE_H
#define EXACTVMAF_PSNR_HVS_CONCLUDE_H

#include <stdint.h>

#include "feature/extractor.h"

/** Plane p's width and its nbx x nby 8x8 blocks (every 7 samples). */
void psnr_hvs_blocks(const VmafFex *fex, unsigned p, unsigned *w, unsigned *nbx,
                     unsigned *nby);
/** Plane p's 64 contrast sensitivities, then its 64 masking weights. */
void psnr_hvs_tables(const VmafFex *fex, unsigned p, float csf_mask[128]);
/** Emit the four outputs from each plane's running sum and term count. */
int psnr_hvs_conclude(VmafFex *fex, const float acc[3], const int32_t count[3],
                      unsigned index);

#endif
