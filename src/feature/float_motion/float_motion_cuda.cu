/* float_motion's kernels for CUDA: the dialect's text (float_motion_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_motion/float_motion_kernels.h"
