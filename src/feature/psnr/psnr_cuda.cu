/* psnr's kernels for CUDA: the dialect's text (psnr_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/psnr/psnr_kernels.h"
