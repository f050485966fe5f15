#pragma OPENCL FP_CONTRACT OFF
/* psnr's kernels for OpenCL: the dialect's text (psnr_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/psnr/psnr_kernels.h"
