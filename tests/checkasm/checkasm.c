/*
 * checkasm: every SIMD and vectorised kernel of the library against its C
 * reference, bit for bit (memcmp of the outputs), on seeded random inputs
 * and on edge inputs (the bit depth's extremes, zeros, checkerboards, odd
 * widths and widths that are not a multiple of the vector length, the
 * smallest sizes a kernel takes), for each instruction set this processor
 * runs. Kernels the rooms reach only from inside an extractor (the loops of
 * cambi, psnr_hvs, SpEED and float_motion) are compared through whole
 * extractors run at each instruction set (extractors.c).
 *
 * usage: checkasm [--seed N] [--room NAME] [--bench]
 * Prints one line per kernel and instruction set ("ok" or "FAILED", with
 * the number of comparisons) and a total. A kernel that ran no comparison
 * is a failure. Exit 0 when all are ok, 1 on any difference, 77 (skip)
 * when the processor has no vector instruction set this build has kernels
 * for. The seed is printed first; --seed replays the same inputs. --room
 * runs one room (integer_adm, integer_vif, integer_motion, ssim,
 * cambi_select, extractors); --bench then times each extractor with SIMD
 * loops at every instruction set.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "cpu.h"

static uint64_t rng_state;

uint64_t ca_rand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

uint64_t ca_rand_state(void)
{
    return rng_state;
}

void ca_rand_restart(uint64_t state)
{
    rng_state = state;
}

unsigned ca_rand_below(unsigned n)
{
    return (unsigned)(ca_rand() % n);
}

const char *const ca_kind_name[CA_KIND_COUNT] = {
    "random16", "in-range", "max", "zero", "checker", "mid-noise", "sparse"
};

void ca_fill(void *dst, int n, unsigned bpc, enum CaKind kind, int phase)
{
    const unsigned max = (1u << bpc) - 1;
    for (int j = 0; j < n; j++) {
        unsigned v;
        switch (kind) {
        case CA_RANDOM: v = bpc == 8 ? ca_rand_below(256) : ca_rand_below(65536); break;
        case CA_IN_RANGE: v = ca_rand_below(max + 1); break;
        case CA_MAX: v = max; break;
        case CA_ZERO: v = 0; break;
        case CA_CHECKER: v = ((j + phase) & 1) ? max : 0; break;
        case CA_MID_NOISE: v = max / 2 + ca_rand_below(5) - 2; break;
        default: v = ca_rand_below(64) ? max / 3 : ca_rand_below(max + 1); break;
        }
        if (bpc == 8)
            ((uint8_t *)dst)[j] = (uint8_t)v;
        else
            ((uint16_t *)dst)[j] = (uint16_t)v;
    }
}

void *ca_alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "checkasm: out of memory\n");
        exit(2);
    }
    return p;
}

/* One line of the report: a kernel at an instruction set. */
typedef struct Tally {
    char kernel[48];
    char isa[16];
    uint64_t checks, failures;
} Tally;

enum { MAX_TALLIES = 256, MAX_PRINTED_FAILURES = 20 };
static Tally tallies[MAX_TALLIES];
static int n_tallies;
static uint64_t printed_failures;

static Tally *tally(const char *kernel, const char *isa)
{
    for (int i = 0; i < n_tallies; i++)
        if (!strcmp(tallies[i].kernel, kernel) && !strcmp(tallies[i].isa, isa))
            return &tallies[i];
    if (n_tallies == MAX_TALLIES) {
        fprintf(stderr, "checkasm: more than %d kernels; raise MAX_TALLIES\n", MAX_TALLIES);
        exit(2);
    }
    Tally *t = &tallies[n_tallies++];
    snprintf(t->kernel, sizeof(t->kernel), "%s", kernel);
    snprintf(t->isa, sizeof(t->isa), "%s", isa);
    return t;
}

void ca_declare(const char *kernel, const char *isa)
{
    (void)tally(kernel, isa);
}

bool ca_check(const char *kernel, const char *isa, bool same, const char *fmt, ...)
{
    Tally *t = tally(kernel, isa);
    t->checks++;
    if (same)
        return true;
    t->failures++;
    if (printed_failures++ < MAX_PRINTED_FAILURES) {
        fprintf(stderr, "FAIL %s %s: ", kernel, isa);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return false;
}

static const struct {
    const char *name;
    void (*run)(int isa_max);
} rooms[] = {
    { "integer_adm", checkasm_iadm },
    { "integer_vif", checkasm_ivif },
    { "integer_motion", checkasm_imotion },
    { "ssim", checkasm_ssim },
    { "cambi_select", checkasm_cambi_select },
    { "extractors", checkasm_extractors },
};

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    const char *only = NULL;
    bool bench = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--room") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--bench")) {
            bench = true;
        } else {
            fprintf(stderr, "usage: checkasm [--seed N] [--room NAME] [--bench]\n");
            return 2;
        }
    }
    rng_state = seed ? seed : 1;
    printf("checkasm: seed %" PRIu64 "\n", seed);

    const int isa_max = ev_cpu_set_isa_max(EV_ISA_COUNT - 1);
    if (isa_max == EV_ISA_C) {
        printf("SKIP: this processor runs no vector instruction set that this build has "
               "kernels for (AVX2 and AVX-512 on x86-64, NEON on AArch64)\n");
        return 77;
    }
    printf("processor: up to %s\n", ev_isa_name(isa_max));
#if EV_HAVE_X86_SIMD
    if (isa_max < EV_ISA_AVX512)
        printf("no AVX-512 here: the AVX-512 kernels are not compared\n");
#endif

    int rooms_run = 0;
    for (size_t r = 0; r < sizeof(rooms) / sizeof(rooms[0]); r++) {
        if (only && strcmp(only, rooms[r].name))
            continue;
        rooms[r].run(isa_max);
        ev_cpu_set_isa_max(EV_ISA_COUNT - 1);
        rooms_run++;
    }
    if (!rooms_run) {
        fprintf(stderr, "checkasm: no room named %s\n", only);
        return 2;
    }

    uint64_t checks = 0, failed_kernels = 0;
    for (int i = 0; i < n_tallies; i++) {
        const Tally *t = &tallies[i];
        const bool ok = t->checks && !t->failures;
        printf("%-34s %-7s %-6s (%" PRIu64 " comparisons", t->kernel, t->isa,
               ok ? "ok" : "FAILED", t->checks);
        if (t->failures)
            printf(", %" PRIu64 " different", t->failures);
        printf(")\n");
        checks += t->checks;
        failed_kernels += !ok;
    }
    printf("%d kernel builds, %" PRIu64 " comparisons, %" PRIu64 " failed\n", n_tallies, checks,
           failed_kernels);
    if (failed_kernels) {
        printf("replay with: checkasm --seed %" PRIu64 "\n", seed);
        return 1;
    }
    if (bench)
        checkasm_bench(isa_max);
    return 0;
}
