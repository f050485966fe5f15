/*
 * checkasm room: CAMBI's top-k selection (src/feature/cambi). The stopper
 * scans of each instruction set against the C scans, called directly over
 * every start and end alignment of a block, and cambi_select_top() as a
 * whole with the instruction-set cap at C and at each set: the same final
 * array, element for element (the order is the order CAMBI sums in).
 * Arrays shaped like c-values: mostly zeros, few distinct values, ties,
 * values equal to the pivot, infinities, and dense distinct values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu.h"
#include "feature/cambi/cambi_host.h"
#include "feature/cambi/cambi_select.h"

static float draw(int kind, int i)
{
    switch (kind) {
    case 0: return (float)ca_rand_below(100000) / 7.0f;
    case 1: return ca_rand_below(3) ? 0.0f : (float)ca_rand_below(100);
    case 2: return (float)ca_rand_below(4);
    case 3: return ca_rand_below(50) ? 0.0f : (float)ca_rand_below(100) * 0.25f;
    case 4: return ca_rand_below(9) ? (float)(i % 17) : (ca_rand_below(2) ? 1.0f / 0.0f : -1.0f / 0.0f);
    case 5: return 0.0f;
    default: return (float)i;
    }
}
enum { KINDS = 7 };

static int scan_left_c(const float *a, int from, int to, float pivot, int *buf)
{
    int n = 0;
    for (int x = from; x <= to; x++)
        if (a[x] <= pivot) buf[n++] = x;
    return n;
}

static int scan_right_c(const float *a, int from, int to, float pivot, int *buf)
{
    int n = 0;
    for (int x = from; x >= to; x--)
        if (a[x] >= pivot) buf[n++] = x;
    return n;
}

/* Returns the instruction sets whose scans differed, a bit each. */
static unsigned check_scans(int isa_max)
{
    unsigned bad = 0;
    /* Every set's build in the table, the C one included, against the
     * scans above. */
    static const CambiStopperScans *const table[EV_ISA_COUNT] = EV_SIMD_TABLE(cambi_stoppers);
    struct { const char *isa; int level; CambiStopperScan left, right; } sets[EV_ISA_COUNT];
    for (int isa = 0; isa < EV_ISA_COUNT; isa++) {
        sets[isa].isa = ev_isa_name(isa);
        sets[isa].level = isa;
        sets[isa].left = table[isa]->left;
        sets[isa].right = table[isa]->right;
    }
    enum { N = 600 };
    float *a = ca_alloc(N * sizeof(*a));
    int want[N + CAMBI_STOPPER_SLACK], got[N + CAMBI_STOPPER_SLACK];
    for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
        if (sets[s].level > isa_max) continue;
        ca_declare("cambi stoppers", sets[s].isa);
        for (int kind = 0; kind < KINDS; kind++) {
            for (int i = 0; i < N; i++)
                a[i] = draw(kind, i);
            for (int from = 0; from < 40; from++) {
                for (int len = 1; len <= 300; len += 1 + (len > 40) * 13) {
                    const float pivot = a[ca_rand_below(N)];
                    const int to = from + len - 1;
                    int nw = scan_left_c(a, from, to, pivot, want);
                    int ng = sets[s].left(a, from, to, pivot, got);
                    if (!ca_check("cambi stoppers", sets[s].isa,
                                  nw == ng && !memcmp(want, got, sizeof(int) * (size_t)nw),
                                  "left [%d, %d] kind %d: %d vs %d stoppers", from, to, kind, nw, ng))
                        bad |= 1u << sets[s].level;
                    const int hi = N - 1 - from, lo = hi - len + 1;
                    nw = scan_right_c(a, hi, lo, pivot, want);
                    ng = sets[s].right(a, hi, lo, pivot, got);
                    if (!ca_check("cambi stoppers", sets[s].isa,
                                  nw == ng && !memcmp(want, got, sizeof(int) * (size_t)nw),
                                  "right [%d, %d] kind %d: %d vs %d stoppers", hi, lo, kind, nw, ng))
                        bad |= 1u << sets[s].level;
                }
            }
        }
    }
    free(a);
    return bad;
}

void checkasm_cambi_select(int isa_max)
{
    /* Wrong stoppers can keep a partition from ever narrowing: a set whose
     * scans differed is not run through the whole selection. */
    const unsigned bad = check_scans(isa_max);
    for (int isa = EV_ISA_C + 1; isa <= isa_max; isa++)
        ca_declare("cambi select top", ev_isa_name(isa));
    static const int sizes[] = { 1, 2, 3, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1000, 4099, 65537 };
    enum { N_MAX = 65537 };
    float *src = ca_alloc(N_MAX * sizeof(*src)), *want = ca_alloc(N_MAX * sizeof(*want));
    float *got = ca_alloc(N_MAX * sizeof(*got));
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (int kind = 0; kind < KINDS; kind++) {
            const int n = sizes[si];
            for (int i = 0; i < n; i++)
                src[i] = draw(kind, i);
            const int ks[3] = { 1 + (int)ca_rand_below((unsigned)n), n, (int)(0.6 * n) > 0 ? (int)(0.6 * n) : 1 };
            for (int q = 0; q < 3; q++) {
                memcpy(want, src, sizeof(float) * (size_t)n);
                ev_cpu_set_isa_max(EV_ISA_C);
                cambi_select_top(want, n, ks[q]);
                for (int isa = EV_ISA_C + 1; isa <= isa_max; isa++) {
                    if (bad >> isa & 1) continue;
                    memcpy(got, src, sizeof(float) * (size_t)n);
                    ev_cpu_set_isa_max(isa);
                    cambi_select_top(got, n, ks[q]);
                    ca_check("cambi select top", ev_isa_name(isa),
                             !memcmp(want, got, sizeof(float) * (size_t)n),
                             "n %d k %d kind %d", n, ks[q], kind);
                }
            }
        }
    }
    ev_cpu_set_isa_max(EV_ISA_COUNT - 1);
    free(src);
    free(want);
    free(got);
}
