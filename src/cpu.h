/*
 * The vector instruction sets this processor runs, detected once, and the
 * helpers that build one kernel source for several of them.
 *
 * Every room with SIMD kernels keeps a table of them per instruction set
 * (C first, then AVX2, then AVX-512) and picks with ev_cpu_isa(); the C
 * entries are the reference that tests/checkasm compares every other entry
 * with, bit for bit. A test lowers the ceiling with ev_cpu_set_isa_max() to
 * run a whole extractor on each set in turn.
 */
#ifndef EXACTVMAF_CPU_H
#define EXACTVMAF_CPU_H

enum EvIsa {
    EV_ISA_C,       /**< plain C for the baseline instruction set */
    EV_ISA_AVX2,    /**< AVX2 (x86-64) */
    EV_ISA_AVX512,  /**< AVX-512 F, BW, DQ, VL and CD, with the OS saving their state */
    EV_ISA_COUNT,
};

/** The widest instruction set this processor runs, capped by ev_cpu_set_isa_max(). */
int ev_cpu_isa(void);

/**
 * Cap what ev_cpu_isa() returns (EV_ISA_C: no vector kernels), for tests
 * and for comparing speeds. Kernels are picked when an instance starts or
 * as they run, so a cap applies to what starts after it. Returns the
 * processor's own widest set.
 */
int ev_cpu_set_isa_max(int isa);

/** The name of an instruction set ("c", "avx2", "avx512"). */
const char *ev_isa_name(int isa);

/*
 * EV_TARGET_AVX2_BEGIN ... EV_TARGET_END builds the functions between them
 * for AVX2 (EV_TARGET_AVX512_BEGIN: AVX-512), the way a template file of
 * kernels is included once per instruction set. The target strings are the
 * ones the kernels were always built with; none enables FMA, and the build
 * forbids contraction, so the operations per element are the same.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EV_HAVE_X86_SIMD 1
#if defined(__clang__)
#define EV_TARGET_AVX2_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define EV_TARGET_AVX512_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"avx512f\"))), apply_to = function)")
#define EV_TARGET_END _Pragma("clang attribute pop")
#else
#define EV_TARGET_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#define EV_TARGET_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f\")")
#define EV_TARGET_END _Pragma("GCC pop_options")
#endif
#else
#define EV_HAVE_X86_SIMD 0
#endif

#endif
