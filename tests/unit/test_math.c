/*
 * The math room (src/math) against glibc, bit for bit.
 *
 * Each function runs on special values and on pseudo-random inputs (fixed
 * seed): raw bit patterns and the ranges the metrics use. Two checks:
 *  - on glibc x86-64 with FMA (what made Netflix's goldens), every result
 *    equals the host libm's;
 *  - everywhere, the FNV-1a hash of each function's results equals the one
 *    recorded from glibc 2.36 (EXPECTED below), so Windows, macOS and musl
 *    builds prove they give glibc's bits without a glibc to ask. The
 *    host's own libm is counted there too, to show what the room replaces.
 * Both fma flavours run (the instruction where the processor has it, and
 * the software fma), and must agree.
 * usage: test_math [--count N] [--exhaustive] [--print-hashes]
 *   --exhaustive: also every float for expf, exp2f, logf, log2f (minutes).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/ev_math.h"

#if defined(__GLIBC__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HOST_IS_REFERENCE_CANDIDATE 1
#else
#define HOST_IS_REFERENCE_CANDIDATE 0
#endif

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double uni(double a, double b) { return a + (b - a) * ((double)(rnd() >> 11) * 0x1p-53); }
static double any64(void) { uint64_t b = rnd(); double x; memcpy(&x, &b, 8); return x; }
static float any32(void) { uint32_t b = (uint32_t)rnd(); float x; memcpy(&x, &b, 4); return x; }
static uint64_t bits64(double x) { uint64_t b; memcpy(&b, &x, 8); return b; }
static uint32_t bits32(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }

/* NaNs compare by class only: their payload and sign are the processor's. */
static uint64_t canon64(double x) { return isnan(x) ? 0x7ff8000000000000u : bits64(x); }
static uint32_t canon32(float x) { return isnan(x) ? 0x7fc00000u : bits32(x); }
static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) { h ^= (v >> (8 * i)) & 0xff; h *= 0x100000001b3u; }
    return h;
}

enum { F_EXP, F_EXP2, F_LOG, F_LOG2, F_LOG10, F_POW, F_EXPF, F_EXP2F, F_LOGF, F_LOG2F, F_POWF, F_N };
static const char *const names[F_N] = {
    "exp", "exp2", "log", "log2", "log10", "pow", "expf", "exp2f", "logf", "log2f", "powf",
};
/* FNV-1a hashes of the results for --count 1000000 under glibc 2.36 on
 * x86-64 with FMA (made by --print-hashes there, equal to the host libm's). */
static const uint64_t EXPECTED[F_N] = {
    0x499b37440bf0e120u, 0xc1050b919fa09a42u, 0x97566f734242f1e3u, 0x87173f47a14376e6u,
    0xfa336a4c853ca452u, 0x3de633425f1936c1u, 0x38a0391b77a49c11u, 0xe42fbd8f7d0e5f1eu,
    0xb31e9cc10af3cee5u, 0xb72f15a17103f79au, 0x1626acc6590c9896u,
};
#define EXPECTED_COUNT 1000000

static const double special64[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 10.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023,
    INFINITY, -INFINITY, NAN, 709.78, -745.13, 1e-300, 1e300, 3.0, 1.0 / 3.0, 2.4,
    1.0 - 0x1p-53, 1.0 + 0x1p-52, 0x1.62e42fefa39efp9, -0x1.74910d52d3051p9, 100.0, 1000.0,
};
static const float special32[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 10.0f, 0x1p-149f, 0x1p-126f, 0x1.fffffep127f,
    INFINITY, -INFINITY, NAN, 88.72f, -103.9f, 7.0f, 1.0f / 3.0f, 1.0f - 0x1p-24f, 1.0f + 0x1p-23f,
};
#define N_SPECIAL64 (sizeof(special64) / sizeof(special64[0]))
#define N_SPECIAL32 (sizeof(special32) / sizeof(special32[0]))

/* The i-th argument of function f (i below the specials: a special value). */
static void args(int f, long i, double *x, double *y)
{
    *y = 0;
    if (f == F_POW) {
        if (i < (long)(N_SPECIAL64 * N_SPECIAL64)) {
            *x = special64[i % N_SPECIAL64]; *y = special64[i / N_SPECIAL64];
            return;
        }
        switch (i % 4) {
        case 0: *x = any64(); *y = any64(); break;
        case 1: *x = fabs(any64()); *y = uni(-3, 3); break;
        case 2: *x = uni(0, 2); *y = uni(-10, 10); break;
        default: *x = uni(0, 1); *y = (double)(float)uni(0, 0.5); break;  /* ms-ssim, cambi */
        }
        return;
    }
    if (f == F_POWF) {
        if (i < (long)(N_SPECIAL32 * N_SPECIAL32)) {
            *x = special32[i % N_SPECIAL32]; *y = special32[i / N_SPECIAL32];
            return;
        }
        switch (i % 3) {
        case 0: *x = any32(); *y = any32(); break;
        case 1: *x = (float)uni(0, 1e7); *y = 1.0f / 3.0f; break;   /* adm pooling */
        default: *x = (float)uni(0, 4); *y = (float)uni(-20, 20); break;
        }
        return;
    }
    if (f >= F_EXPF) {
        *x = i < (long)N_SPECIAL32 ? special32[i] :
             (i & 1) ? any32() : (float)uni(f == F_EXPF || f == F_EXP2F ? -110 : 0,
                                            f == F_EXPF || f == F_EXP2F ? 130 : 4);
        return;
    }
    if (i < (long)N_SPECIAL64) { *x = special64[i]; return; }
    switch (i % 3) {
    case 0: *x = any64(); break;
    case 1: *x = (f == F_EXP || f == F_EXP2) ? uni(-750, 750) : uni(0, 4); break;
    default: *x = (f == F_EXP || f == F_EXP2) ? uni(-1, 1) : uni(0.9, 1.1); break;
    }
}

static double room(int f, double x, double y)
{
    switch (f) {
    case F_EXP: return ev_exp(x);
    case F_EXP2: return ev_exp2(x);
    case F_LOG: return ev_log(x);
    case F_LOG2: return ev_log2(x);
    case F_LOG10: return ev_log10(x);
    case F_POW: return ev_pow(x, y);
    case F_EXPF: return ev_expf((float)x);
    case F_EXP2F: return ev_exp2f((float)x);
    case F_LOGF: return ev_logf((float)x);
    case F_LOG2F: return ev_log2f((float)x);
    default: return ev_powf((float)x, (float)y);
    }
}

static double host(int f, double x, double y)
{
    switch (f) {
    case F_EXP: return exp(x);
    case F_EXP2: return exp2(x);
    case F_LOG: return log(x);
    case F_LOG2: return log2(x);
    case F_LOG10: return log10(x);
    case F_POW: return pow(x, y);
    case F_EXPF: return expf((float)x);
    case F_EXP2F: return exp2f((float)x);
    case F_LOGF: return logf((float)x);
    case F_LOG2F: return log2f((float)x);
    default: return powf((float)x, (float)y);
    }
}

static uint64_t canon(int f, double v) { return f >= F_EXPF ? canon32((float)v) : canon64(v); }

int main(int argc, char **argv)
{
    long count = EXPECTED_COUNT;
    int exhaustive = 0, print = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) count = atol(argv[++i]);
        else if (!strcmp(argv[i], "--exhaustive")) exhaustive = 1;
        else if (!strcmp(argv[i], "--print-hashes")) print = 1;
        else { fprintf(stderr, "usage: %s [--count N] [--exhaustive] [--print-hashes]\n", argv[0]); return 2; }
    }
    int host_ref = 0;
#if HOST_IS_REFERENCE_CANDIDATE
    __builtin_cpu_init();
    host_ref = __builtin_cpu_supports("fma");
#endif
    printf("host libm %s the reference (glibc on x86-64 with FMA)\n", host_ref ? "is" : "is not");
    printf("fma flavours: %s\n", ev_math_hw_fma() ? "instruction and software" : "software only");
    int fail = 0;
    for (int f = 0; f < F_N; f++) {
        long flavour_diff = 0, host_diff = 0;
        uint64_t h = 0xcbf29ce484222325u;
        rng_state = 0x9e3779b97f4a7c15u + (uint64_t)f;
        for (long i = 0; i < count; i++) {
            double x, y;
            args(f, i, &x, &y);
            ev_math_force_soft_fma(0);
            const uint64_t r = canon(f, room(f, x, y));
            if (ev_math_hw_fma()) {
                ev_math_force_soft_fma(1);
                const uint64_t s = canon(f, room(f, x, y));
                if (s != r && flavour_diff++ < 3)
                    printf("  %s(%a, %a): instruction %016" PRIx64 ", software %016" PRIx64 "\n",
                           names[f], x, y, r, s);
            }
            const uint64_t l = canon(f, host(f, x, y));
            if (l != r && host_diff++ < 3 && host_ref)
                printf("  %s(%a, %a): room %016" PRIx64 ", host %016" PRIx64 "\n", names[f], x, y, r, l);
            h = fnv(h, r);
        }
        ev_math_force_soft_fma(0);
        const int hash_ok = count != EXPECTED_COUNT || EXPECTED[f] == h;
        printf("%-6s %ld inputs: fma flavours differ %ld, host libm differs %ld%s, hash %016" PRIx64 " %s\n",
               names[f], count, flavour_diff, host_diff, host_ref ? "" : " (host is not glibc: replaced)",
               h, count != EXPECTED_COUNT ? "(not checked: other count)" : hash_ok ? "= glibc's" : "!= glibc's");
        if (print) printf("    0x%016" PRIx64 "u, /* %s */\n", h, names[f]);
        if (flavour_diff || (host_ref && host_diff) || !hash_ok) fail = 1;
    }
    if (exhaustive) {
        for (int f = F_EXPF; f <= F_LOG2F; f++) {
            long diff = 0;
            uint32_t i = 0;
            do {
                float x;
                memcpy(&x, &i, 4);
                if (canon(f, room(f, x, 0)) != canon(f, host(f, x, 0))) diff++;
            } while (++i);
            printf("%-6s every float: host libm differs %ld%s\n", names[f], diff,
                   host_ref ? "" : " (host is not glibc: not a failure)");
            if (host_ref && diff) fail = 1;
        }
    }
    printf("%s\n", fail ? "FAIL" : "OK");
    return fail;
}
