/*
 * float_vif OpenCL kernels (host side: float_vif_gpu.c). Not written yet: the
 * twin's program names no OpenCL part, so an OpenCL run computes float_vif on
 * the CPU.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
