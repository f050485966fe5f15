#pragma OPENCL FP_CONTRACT OFF
/* float_psnr's kernels for OpenCL: the dialect's text (float_psnr_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_psnr/float_psnr_kernels.h"
