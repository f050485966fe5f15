/* The pipeline's own kernels for CUDA: the dialect's text (gpu/common_kernels.h). */
#include "gpu/ev_kernel.h"
#include "gpu/common_kernels.h"
