/*
 * Explicit-rounding arithmetic for metric code, shared by the CPU reference
 * and every GPU twin. Each macro is exactly one IEEE-754 operation,
 * round-to-nearest-even, never fused with its neighbours:
 *   host: plain C, built with the strict-FP flag list (-ffp-contract=off);
 *   CUDA: the __*_rn intrinsics, which nvcc never contracts;
 *   OpenCL C: plain operators under FP_CONTRACT OFF (every kernel source
 *   starts with the pragma, gpu/opencl/ev_opencl.h), which the OpenCL
 *   spec rounds correctly for + - *, and for double /; float division is
 *   not correctly rounded there by default, so FDIV is fp_exact.h's
 *   integer routine.
 * FSQRT is the correctly rounded fp32 square root (IEEE sqrtf; OpenCL's
 * sqrt is not correctly rounded by default, so fp_exact.h's routine there).
 * Metric arithmetic headers use these and nothing else for float math.
 *
 * EV_F64 is 1 where binary64 exists (host, CUDA, an OpenCL device with
 * fp64 in use) and 0 on an OpenCL device without it: arithmetic headers
 * keep their double functions under #if EV_F64, so a kernel that reaches a
 * double site on such a device fails to build instead of computing
 * something else; it takes the fp64-free routines (fp_exact.h) instead.
 */
#ifndef EXACTVMAF_FP_H
#define EXACTVMAF_FP_H

#if !defined(__OPENCL_C_VERSION__) && !defined(__CUDA_ARCH__)
#include <math.h>
#endif

#include "fp_fn.h"

#if !defined(__OPENCL_C_VERSION__)
#include <stdint.h>
#endif
#if !defined(__OPENCL_C_VERSION__) && !defined(__CUDA_ARCH__)
#include <string.h>
#endif

/** A float's bit pattern (no conversion). */
EV_FN uint32_t ev_f32_bits(float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#elif defined(__OPENCL_C_VERSION__)
    return as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof(u));
    return u;
#endif
}

/** The float of a bit pattern. */
EV_FN float ev_bits_f32(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#elif defined(__OPENCL_C_VERSION__)
    return as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof(x));
    return x;
#endif
}

#ifndef EV_F64
#if defined(__OPENCL_C_VERSION__)
#define EV_F64 EV_FP64
#else
#define EV_F64 1
#endif
#endif

#if defined(__OPENCL_C_VERSION__)
#define FMUL(a, b) ((float)(a) * (float)(b))
#define FADD(a, b) ((float)(a) + (float)(b))
#define FSUB(a, b) ((float)(a) - (float)(b))
#define FDIV(a, b) ev_fdiv_rn((float)(a), (float)(b))
#define FSQRT(a) ev_fsqrt_rn((float)(a))
#if EV_FP64
#define DMUL(a, b) ((double)(a) * (double)(b))
#define DADD(a, b) ((double)(a) + (double)(b))
#define DSUB(a, b) ((double)(a) - (double)(b))
#define DDIV(a, b) ((double)(a) / (double)(b))
#endif
#elif defined(__CUDA_ARCH__)
#define FMUL(a, b) __fmul_rn((a), (b))
#define FADD(a, b) __fadd_rn((a), (b))
#define FSUB(a, b) __fsub_rn((a), (b))
#define FDIV(a, b) __fdiv_rn((a), (b))
#define FSQRT(a) __fsqrt_rn(a)
#define DMUL(a, b) __dmul_rn((a), (b))
#define DADD(a, b) __dadd_rn((a), (b))
#define DSUB(a, b) __dsub_rn((a), (b))
#define DDIV(a, b) __ddiv_rn((a), (b))
#else
#define FMUL(a, b) ((float)(a) * (float)(b))
#define FADD(a, b) ((float)(a) + (float)(b))
#define FSUB(a, b) ((float)(a) - (float)(b))
#define FDIV(a, b) ((float)(a) / (float)(b))
#define FSQRT(a) sqrtf((float)(a))
#define DMUL(a, b) ((double)(a) * (double)(b))
#define DADD(a, b) ((double)(a) + (double)(b))
#define DSUB(a, b) ((double)(a) - (double)(b))
#define DDIV(a, b) ((double)(a) / (double)(b))
#endif

#if defined(__OPENCL_C_VERSION__) || !EV_F64
#include "fp_exact.h"
#endif

/*
 * binary64 in formulas that must also run where there is no fp64: an
 * arithmetic header writes such a formula once with ev_d values and the D_*
 * operations (one IEEE binary64 operation each, round to nearest even).
 * Where EV_F64, ev_d is double and D_* are DMUL and friends, so the host and
 * CUDA compile exactly what they compiled before; elsewhere ev_d is the bits
 * of the same double (fp_exact.h's ev_f64) and D_* are its integer routines,
 * which give the same bits. D_K(bits, literal) is a double constant: the
 * literal where there are doubles, its bits where not (tests compare the
 * two). A host test may define EV_F64 0 before including fp.h to compile a
 * header's fp64-free form beside its native one.
 */
#if EV_F64
typedef double ev_d;
#define D_MUL(a, b) DMUL(a, b)
#define D_ADD(a, b) DADD(a, b)
#define D_SUB(a, b) DSUB(a, b)
#define D_DIV(a, b) DDIV(a, b)
#define D_FROM_F(f) ((double)(float)(f))
#define D_FROM_I64(i) ((double)(i))
#define D_TO_F(d) ((float)(d))
#define D_LT(a, b) ((a) < (b))
#define D_GT(a, b) ((a) > (b))
#define D_K(bits, literal) (literal)
#else
typedef ev_f64 ev_d;
#define D_MUL(a, b) ev_dmul((a), (b))
#define D_ADD(a, b) ev_dadd((a), (b))
#define D_SUB(a, b) ev_dsub((a), (b))
#define D_DIV(a, b) ev_ddiv((a), (b))
#define D_FROM_F(f) ev_d_from_f((float)(f))
#define D_FROM_I64(i) ev_d_from_i64((int64_t)(i))
#define D_TO_F(d) ev_d_to_f(d)
#define D_LT(a, b) ev_dlt((a), (b))
#define D_GT(a, b) ev_dlt((b), (a))
#define D_K(bits, literal) ((ev_f64)(bits))
#endif

#endif
