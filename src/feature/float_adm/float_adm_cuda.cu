/* float_adm's kernels for CUDA: the dialect's text (float_adm_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_adm/float_adm_kernels.h"
