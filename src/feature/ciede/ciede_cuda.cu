/* ciede's kernels for CUDA: the dialect's text (ciede_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/ciede/ciede_kernels.h"
