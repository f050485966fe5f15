/*
 * The vector instruction sets this processor runs, detected once.
 *
 * Every room with SIMD kernels keeps a table of them per instruction set
 * (C first, then the architecture's sets: AVX2 and AVX-512 on x86-64, NEON
 * on AArch64), built as src/simd.h says, and picks with ev_cpu_isa();
 * tests/checkasm compares every entry with a C reference, bit for bit. A test
 * lowers the ceiling with ev_cpu_set_isa_max() to run a whole extractor on
 * each set in turn. The names of another architecture's sets are not
 * defined, so a comparison such as isa >= EV_ISA_AVX2 cannot pick an x86
 * kernel on Arm: it does not compile there.
 */
#ifndef EXACTVMAF_CPU_H
#define EXACTVMAF_CPU_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EV_HAVE_X86_SIMD 1
#else
#define EV_HAVE_X86_SIMD 0
#endif
/* Advanced SIMD is part of every AArch64 processor (ARMv8-A makes it
 * mandatory), so NEON kernels need no detection there. */
#if defined(__aarch64__) && defined(__ARM_NEON) && (defined(__GNUC__) || defined(__clang__))
#define EV_HAVE_NEON 1
#else
#define EV_HAVE_NEON 0
#endif

enum EvIsa {
    EV_ISA_C,       /**< plain C for the baseline instruction set */
#if EV_HAVE_X86_SIMD
    EV_ISA_AVX2,    /**< AVX2 (x86-64) */
    EV_ISA_AVX512,  /**< AVX-512 F, BW, DQ, VL and CD, with the OS saving their state */
#elif EV_HAVE_NEON
    EV_ISA_NEON,    /**< Advanced SIMD (AArch64) */
#endif
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

/**
 * Whether this processor has a fused multiply-add instruction (x86-64: FMA3,
 * detected; AArch64: always). Not capped by ev_cpu_set_isa_max(): the math
 * room (src/math) gives the same bits with or without it and picks by speed.
 */
int ev_cpu_has_fma(void);

/** The name of an instruction set ("c", "avx2", "avx512", "neon"). */
const char *ev_isa_name(int isa);

#endif
