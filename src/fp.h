/*
 * Explicit-rounding arithmetic for metric code, shared by the CPU reference
 * and every GPU twin. Each macro is exactly one IEEE-754 operation,
 * round-to-nearest-even, never fused with its neighbours:
 *   host: plain C, built with the strict-FP flag list (-ffp-contract=off);
 *   CUDA: the __*_rn intrinsics, which nvcc never contracts.
 * Metric arithmetic headers use these and nothing else for float math.
 */
#ifndef EXACTVMAF_FP_H
#define EXACTVMAF_FP_H

#if defined(__CUDACC__)
#define EV_FN static __host__ __device__ __forceinline__
#else
#define EV_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define FMUL(a, b) __fmul_rn((a), (b))
#define FADD(a, b) __fadd_rn((a), (b))
#define FSUB(a, b) __fsub_rn((a), (b))
#define FDIV(a, b) __fdiv_rn((a), (b))
#define DMUL(a, b) __dmul_rn((a), (b))
#define DADD(a, b) __dadd_rn((a), (b))
#define DSUB(a, b) __dsub_rn((a), (b))
#define DDIV(a, b) __ddiv_rn((a), (b))
#else
#define FMUL(a, b) ((float)(a) * (float)(b))
#define FADD(a, b) ((float)(a) + (float)(b))
#define FSUB(a, b) ((float)(a) - (float)(b))
#define FDIV(a, b) ((float)(a) / (float)(b))
#define DMUL(a, b) ((double)(a) * (double)(b))
#define DADD(a, b) ((double)(a) + (double)(b))
#define DSUB(a, b) ((double)(a) - (double)(b))
#define DDIV(a, b) ((double)(a) / (double)(b))
#endif

#endif
