/*
 * cambi_select_top() against the reference's quickselect loops, written
 * out plainly here: the same final array, element for element, on random
 * arrays shaped like c-values (mostly zeros, few distinct values, ties) and
 * on dense ones, over sizes that take the short and the blocked paths, at
 * each instruction set this processor runs (the stopper scans are built per
 * set; tests/checkasm compares them too). The order matters: CAMBI sums the top k in the order the select leaves.
 * Exit 0 when every case is identical, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cambi_host.h"
#include "cpu.h"

static void reference_select(float *a, int n, int k)
{
    if (n == k) return;
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const float pivot = a[k];
        int i = lo, j = hi;
        do {
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) {
                const float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
}

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static float sample(int kind, int i)
{
    switch (kind) {
    case 0: return (float)(next() % 100000) / 7.0f;                    /* dense, distinct */
    case 1: return next() % 3 ? 0.0f : (float)(next() % 100);          /* 2/3 zeros */
    case 2: return (float)(next() % 4);                                /* heavy ties */
    case 3: return next() % 50 ? 0.0f : (float)(next() % 100) * 0.25f; /* sparse */
    case 4: return (float)(i % 17) + (float)(next() % 2);              /* periodic */
    case 5: return 0.0f;                                               /* all equal */
    default: return (float)i;                                          /* sorted */
    }
}

int main(void)
{
    static const int sizes[] = { 1, 2, 3, 63, 64, 65, 257, 1000, 4096, 65537, 300000 };
    const int n_sizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
    const int isa_max = ev_cpu_set_isa_max(EV_ISA_COUNT - 1);
    int cases = 0, bad = 0;
    for (int round = 0; round < 3000; round++) {
        const int n = round < n_sizes * 7 ? sizes[round % n_sizes]
                                          : 1 + (int)(next() % (round < 2500 ? 2000 : 50000));
        const int kind = round < n_sizes * 7 ? round / n_sizes : (int)(next() % 7);
        float *a = malloc((size_t)n * sizeof(*a));
        float *b = malloc((size_t)n * sizeof(*b));
        float *orig = malloc((size_t)n * sizeof(*orig));
        if (!a || !b || !orig) {
            free(a);
            free(b);
            free(orig);
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (int i = 0; i < n; i++)
            a[i] = orig[i] = sample(kind, i);
        int k = 1 + (int)(next() % (uint64_t)n);
        if (round % 5 == 0) k = n;
        if (round % 7 == 0) k = (int)(0.6 * n) > 0 ? (int)(0.6 * n) : 1;
        reference_select(a, n, k);
        for (int isa = EV_ISA_C; isa <= isa_max; isa++) {
            ev_cpu_set_isa_max(isa);
            memcpy(b, orig, (size_t)n * sizeof(*b));
            cambi_select_top(b, n, k);
            if (memcmp(a, b, (size_t)n * sizeof(*a))) {
                if (bad++ < 5)
                    fprintf(stderr, "differs: n=%d k=%d kind=%d at %s\n", n, k, kind,
                            ev_isa_name(isa));
            }
            cases++;
        }
        free(a);
        free(b);
        free(orig);
    }
    printf("cambi_select_top: %d/%d cases identical to the reference's quickselect\n",
           cases - bad, cases);
    return bad ? 1 : 0;
}
