/*
 * Instruction-set detection (cpu.h). libgcc's checks include the OS's saving
 * of the AVX and AVX-512 register state (XCR0). On AArch64 NEON is always
 * there.
 */
#include <stdatomic.h>

#include "cpu.h"

static int detect(void)
{
#if EV_HAVE_X86_SIMD
    __builtin_cpu_init();
    /* The AVX2 builds also use BMI2 and POPCNT (src/meson.build), which
     * every AVX2 processor has; asked all the same. */
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2") ||
        !__builtin_cpu_supports("popcnt"))
        return EV_ISA_C;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512cd"))
        return EV_ISA_AVX512;
    return EV_ISA_AVX2;
#elif EV_HAVE_NEON
    return EV_ISA_NEON;
#else
    return EV_ISA_C;
#endif
}

/* -1 until detected; detection is idempotent, so a race only repeats it. */
static atomic_int detected = -1;
static atomic_int isa_max = EV_ISA_COUNT - 1;

static int processor_isa(void)
{
    int d = atomic_load_explicit(&detected, memory_order_relaxed);
    if (d < 0) {
        d = detect();
        atomic_store_explicit(&detected, d, memory_order_relaxed);
    }
    return d;
}

int ev_cpu_has_fma(void)
{
#if EV_HAVE_X86_SIMD
    /* libgcc's check includes the OS's saving of the AVX register state. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma");
#elif defined(__FP_FAST_FMA)
    return 1;
#else
    return 0;
#endif
}

int ev_cpu_isa(void)
{
    const int d = processor_isa(), cap = atomic_load_explicit(&isa_max, memory_order_relaxed);
    return d < cap ? d : cap;
}

int ev_cpu_set_isa_max(int isa)
{
    atomic_store_explicit(&isa_max, isa < EV_ISA_C ? EV_ISA_C : isa, memory_order_relaxed);
    return processor_isa();
}

const char *ev_isa_name(int isa)
{
#if EV_HAVE_X86_SIMD
    static const char *const names[EV_ISA_COUNT] = { "c", "avx2", "avx512" };
#elif EV_HAVE_NEON
    static const char *const names[EV_ISA_COUNT] = { "c", "neon" };
#else
    static const char *const names[EV_ISA_COUNT] = { "c" };
#endif
    return isa >= 0 && isa < EV_ISA_COUNT ? names[isa] : "?";
}
