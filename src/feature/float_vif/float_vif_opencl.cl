#pragma OPENCL FP_CONTRACT OFF
/* float_vif's kernels for OpenCL: the dialect's text (float_vif_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_vif/float_vif_kernels.h"
