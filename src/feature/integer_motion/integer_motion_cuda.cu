/* Integer motion's kernels for CUDA: the dialect's text (integer_motion_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/integer_motion/integer_motion_kernels.h"
