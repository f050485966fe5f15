/*
 * integer_adm OpenCL kernels (host side: integer_adm_gpu.c). Not written yet: the
 * twin's program names no OpenCL part, so an OpenCL run computes integer_adm on
 * the CPU.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
