#pragma OPENCL FP_CONTRACT OFF
/* CAMBI's kernels for OpenCL: the dialect's text (cambi_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/cambi/cambi_kernels.h"
