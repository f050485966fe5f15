/* A kernel file that breaks the policy (see README). */
#include "gpu/opencl/ev_opencl.h"

kernel void k(global float *p)
{
    p[0] = native_divide(p[0], 3.0f);
}
