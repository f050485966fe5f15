#pragma OPENCL FP_CONTRACT OFF
/* float_motion's kernels for OpenCL: the dialect's text (float_motion_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_motion/float_motion_kernels.h"
