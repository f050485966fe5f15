#pragma OPENCL FP_CONTRACT OFF
/* The pipeline's own kernels for OpenCL: the dialect's text (gpu/common_kernels.h). */
#include "gpu/ev_kernel.h"
#include "gpu/common_kernels.h"
