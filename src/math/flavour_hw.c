/*
 * The fused templates with the processor's fma instruction (flavour.h):
 * built for FMA on x86-64 (ev_math.c calls it only where the processor has
 * it); elsewhere only where the baseline has the instruction (AArch64).
 */
#include "cpu.h"
#if EV_HAVE_X86_SIMD
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("fma"))), apply_to = function)
#else
#pragma GCC target("fma")
#endif
#define EV_MATH_HW 1
#elif defined(__FP_FAST_FMA)
#define EV_MATH_HW 1
#else
#define EV_MATH_HW 0
#endif

#if EV_MATH_HW
#define EV_MATH_FLAVOUR hw
#define EV_FMA(a, b, c) __builtin_fma((a), (b), (c))
#include "flavour.h"
#endif
#if EV_HAVE_X86_SIMD && defined(__clang__)
#pragma clang attribute pop
#endif
