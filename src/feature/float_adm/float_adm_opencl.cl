#pragma OPENCL FP_CONTRACT OFF
/* float_adm's kernels for OpenCL: the dialect's text (float_adm_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_adm/float_adm_kernels.h"
