/*
 * The math room's entry points: the fused functions in the flavour the
 * processor runs (the instruction where it has FMA, the exact software fma
 * elsewhere: the same bits either way), picked once.
 */
#include <stdatomic.h>

#include "cpu.h"
#include "ev_math.h"

double ev_exp_hw(double), ev_log_hw(double), ev_log2_hw(double), ev_pow_hw(double, double);
float ev_expf_hw(float), ev_powf_hw(float, float);
double ev_exp_soft(double), ev_log_soft(double), ev_log2_soft(double), ev_pow_soft(double, double);
float ev_expf_soft(float), ev_powf_soft(float, float);

#if EV_HAVE_X86_SIMD || defined(__FP_FAST_FMA)
#define HAVE_HW_FLAVOUR 1
#else
#define HAVE_HW_FLAVOUR 0
#endif

/* 0: not known yet, 1: the instruction, 2: software. Every thread that
 * finds 0 computes the same answer, so relaxed order is enough. */
static atomic_int flavour;
static atomic_int force_soft;

static inline int hw(void)
{
    int f = atomic_load_explicit(&flavour, memory_order_relaxed);
    if (!f) {
        f = atomic_load_explicit(&force_soft, memory_order_relaxed) || !HAVE_HW_FLAVOUR ||
            !ev_cpu_has_fma() ? 2 : 1;
        atomic_store_explicit(&flavour, f, memory_order_relaxed);
    }
    return f == 1;
}

int ev_math_hw_fma(void)
{
    return hw();
}

void ev_math_force_soft_fma(int on)
{
    atomic_store_explicit(&force_soft, on, memory_order_relaxed);
    atomic_store_explicit(&flavour, 0, memory_order_relaxed);
}

#if HAVE_HW_FLAVOUR
#define PICK(name, ...) (hw() ? ev_##name##_hw(__VA_ARGS__) : ev_##name##_soft(__VA_ARGS__))
#else
#define PICK(name, ...) ev_##name##_soft(__VA_ARGS__)
#endif

double ev_exp(double x) { return PICK(exp, x); }
double ev_log(double x) { return PICK(log, x); }
double ev_log2(double x) { return PICK(log2, x); }
double ev_pow(double x, double y) { return PICK(pow, x, y); }
float ev_expf(float x) { return PICK(expf, x); }
float ev_powf(float x, float y) { return PICK(powf, x, y); }
