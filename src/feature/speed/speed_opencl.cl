#pragma OPENCL FP_CONTRACT OFF
/* SpEED's kernels for OpenCL: the dialect's text (speed_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/speed/speed_kernels.h"
