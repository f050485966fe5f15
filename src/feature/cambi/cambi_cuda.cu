/* CAMBI's kernels for CUDA: the dialect's text (cambi_kernels.h). */
#include "gpu/ev_kernel.h"
#include "feature/cambi/cambi_kernels.h"
