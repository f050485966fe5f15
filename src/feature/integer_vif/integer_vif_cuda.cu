/* Integer VIF's kernels for CUDA: the dialect's text (integer_vif_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/integer_vif/integer_vif_kernels.h"
