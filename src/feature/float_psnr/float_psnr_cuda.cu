/* float_psnr's kernels for CUDA: the dialect's text (float_psnr_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/float_psnr/float_psnr_kernels.h"
