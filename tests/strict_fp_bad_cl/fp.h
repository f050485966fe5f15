#if defined(__OPENCL_C_VERSION__)
#define FMUL(a, b) ((float)(a) * (float)(b))
#define FDIV(a, b) ev_fdiv_rn((float)(a), (float)(b))
#elif 1
#endif
