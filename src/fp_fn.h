/*
 * EV_FN: how the arithmetic headers (fp.h, fp_exact.h, the metrics'
 * *_arith.h) declare their functions, one text for every compiler: inline
 * for the host, and for both the host and the device under nvcc. Its own
 * header so that fp.h and fp_exact.h each take it without including the
 * other back.
 */
#ifndef EXACTVMAF_FP_FN_H
#define EXACTVMAF_FP_FN_H

#if defined(__CUDACC__)
#define EV_FN static __host__ __device__ __forceinline__
#else
#define EV_FN static inline
#endif

#endif
