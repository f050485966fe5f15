#pragma OPENCL FP_CONTRACT OFF
/* psnr_hvs's kernels for OpenCL: the dialect's text (psnr_hvs_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/psnr_hvs/psnr_hvs_kernels.h"
