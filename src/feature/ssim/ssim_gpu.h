/* The SSIM room's GPU program (float_ms_ssim_gpu.c), shared by its two twins. */
#ifndef EXACTVMAF_SSIM_GPU_H
#define EXACTVMAF_SSIM_GPU_H

#include "gpu/device.h"

/**
 * Kernels mss_decimate, mss_hpass and mss_stat (float_ms_ssim_kernels.h)
 * and ssim_box (float_ssim_kernels.h).
 */
extern const VmafGpuProgram ssim_gpu_program;

#endif
