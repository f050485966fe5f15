#pragma OPENCL FP_CONTRACT OFF
/* float_ms_ssim's and float_ssim's kernels for OpenCL: the dialect's texts. */
#include "gpu/ev_kernel.h"
#include "feature/ssim/float_ssim_kernels.h"
#include "feature/ssim/float_ms_ssim_kernels.h"
