/* float_moment's kernels for CUDA: the dialect's text (float_moment_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_moment/float_moment_kernels.h"
