/* Integer ADM's kernels for CUDA: the dialect's text (integer_adm_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/integer_adm/integer_adm_kernels.h"
