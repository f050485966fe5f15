#pragma OPENCL FP_CONTRACT OFF
/* Integer ADM's kernels for OpenCL: the dialect's text (integer_adm_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/integer_adm/integer_adm_kernels.h"
