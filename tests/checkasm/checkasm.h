/*
 * The checkasm runner's shared part (checkasm.c): the seeded random source,
 * and the tally of comparisons per kernel and instruction set. Each room's
 * file (iadm.c, ivif.c, ...) compares its faster kernels with the C
 * reference, bit for bit, and records every comparison with ca_check().
 */
#ifndef EXACTVMAF_TESTS_CHECKASM_H
#define EXACTVMAF_TESTS_CHECKASM_H

#include <stdbool.h>
#include <stdint.h>

/** Next value of the seeded generator (xorshift64*). */
uint64_t ca_rand(void);
/** A value in [0, n), n > 0. */
unsigned ca_rand_below(unsigned n);
/** The generator's state, and a restart from it: the same draws again. */
uint64_t ca_rand_state(void);
void ca_rand_restart(uint64_t state);

/** Sample patterns: random over 16 bits (8: over 8), random within the
 * bit depth, all at the maximum, all zero, alternating 0 and maximum, a mid
 * level with +-2 noise, a flat level with rare random samples. */
enum CaKind {
    CA_RANDOM, CA_IN_RANGE, CA_MAX, CA_ZERO, CA_CHECKER, CA_MID_NOISE, CA_SPARSE,
    CA_KIND_COUNT
};
extern const char *const ca_kind_name[CA_KIND_COUNT];

/**
 * Fill n samples of bit depth bpc (8: uint8_t, else uint16_t) with `kind`;
 * `phase` shifts the checkerboard.
 */
void ca_fill(void *dst, int n, unsigned bpc, enum CaKind kind, int phase);

/**
 * Record one comparison of `kernel` built as `isa` (a name: "avx2",
 * "avx512", or a room's own variant such as "vec") against the C
 * reference: `same` is the result of comparing the bit patterns. On a
 * difference the printf-style message says where. Returns `same`.
 */
bool ca_check(const char *kernel, const char *isa, bool same, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/**
 * Name a kernel build before its comparisons, so that one whose loops never
 * reach ca_check() is reported as a failure (0 comparisons), not left out.
 */
void ca_declare(const char *kernel, const char *isa);

/** Allocate or exit: the runner has no use for a partial run. */
void *ca_alloc(size_t bytes);

/* The rooms. Each runs its checks for every instruction set up to isa_max
 * (cpu.h's EvIsa) that the room has kernels for. */
void checkasm_iadm(int isa_max);
void checkasm_ivif(int isa_max);
void checkasm_imotion(int isa_max);
void checkasm_ssim(int isa_max);
void checkasm_cambi_select(int isa_max);
void checkasm_extractors(int isa_max);
/** --bench: each extractor with SIMD loops, timed at every instruction set. */
void checkasm_bench(int isa_max);

#endif
