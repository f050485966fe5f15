#pragma OPENCL FP_CONTRACT OFF
/* Integer motion's kernels for OpenCL: the dialect's text (integer_motion_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/integer_motion/integer_motion_kernels.h"
