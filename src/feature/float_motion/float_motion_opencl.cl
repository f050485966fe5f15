/*
 * float_motion OpenCL kernels (host side: float_motion_gpu.c). Not written yet: the
 * twin's program names no OpenCL part, so an OpenCL run computes float_motion on
 * the CPU.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
