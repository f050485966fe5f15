/*
 * The math room: the transcendental functions the CPU path calls, with
 * glibc 2.36's results bit for bit on every system (Netflix's goldens were
 * made with glibc on x86-64; Windows' msvcrt, macOS' libm and musl differ
 * from it in the last bits).
 *
 * exp, exp2, log, log2, pow, expf, exp2f, logf, log2f and powf are Arm's
 * optimized-routines (MIT; glibc carries the same code), log10 is fdlibm's
 * (Sun's notice; glibc's e_log10.c), all in NOTICE. glibc's x86-64 build
 * takes, on a processor with FMA, variants of exp, log, log2 and pow
 * compiled with -mfma and contraction on: the goldens' machine had FMA, so
 * those are the bits to give. Here every product that GCC 12 fused in
 * glibc's FMA build is an explicit EV_FMA (the tree is built with
 * -ffp-contract=off), done by the processor's instruction where it has
 * one and by an exact software fma (fma_soft.c, from musl) elsewhere: the
 * same bits on every processor. tests/math_test.c compares every function
 * with the host's libm (on glibc: zero differences).
 */
#ifndef EXACTVMAF_MATH_EV_MATH_H
#define EXACTVMAF_MATH_EV_MATH_H

#ifdef __cplusplus
extern "C" {
#ifdef __cplusplus
}
#endif

#endif

double ev_exp(double x);
double ev_exp2(double x);
double ev_log(double x);
double ev_log2(double x);
double ev_log10(double x);
double ev_pow(double x, double y);
float ev_expf(float x);
float ev_exp2f(float x);
float ev_logf(float x);
float ev_log2f(float x);
float ev_powf(float x, float y);

/** x*y + z rounded once, in software (exact; slow). */
double ev_fma_soft(double x, double y, double z);

/** 1 where ev_math uses the processor's fma instruction (for tests and benchmarks). */
int ev_math_hw_fma(void);

/** Force the software fma path (1) or go back to detection (0); tests only. */
void ev_math_force_soft_fma(int on);

#ifdef __cplusplus
}
#endif

#endif
