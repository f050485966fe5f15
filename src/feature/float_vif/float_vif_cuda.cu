/* float_vif's kernels for CUDA: the dialect's text (float_vif_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_vif/float_vif_kernels.h"
