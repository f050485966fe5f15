/*
 * float_ssim's outputs from its four fp32 means, shared by the CPU path
 * (float_ssim.c) and the GPU twin (float_ssim_gpu.c).
 */
#ifndef EXACTVMAF_FLOAT_SSIM_CONCLUDE_H
#define EXACTVMAF_FLOAT_SSIM_CONCLUDE_H

#include "feature/extractor.h"
#include "ssim_host.h"

/** Emit float_ssim (dB when asked) and, with enable_lcs, its l, c and s. */
int float_ssim_emit(VmafFex *fex, const SsimMeans *m, unsigned index);

#endif
