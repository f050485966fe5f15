/*
 * cambi_select_top() against the reference's quickselect loops, written
 * out plainly here: the same final array, element for element, on random
 * arrays shaped like c-values (mostly zeros, few distinct values, ties) and
 * on dense ones, over sizes that take the short and the blocked paths, at
 * each instruction set this processor runs (the stopper scans are built per
 * set; tests/checkasm compares them too). The order matters: CAMBI sums the top k in the order the select leaves.
 * cambi_pool_exact() against the reference's pooling (that select, then
 * the fp64 sum of the first k from the front): where it claims the result,
 * the same bits, on c-values built as the reference builds them, sparse and
 * dense, small and large, with sums near the 2^53 limit.
 * Exit 0 when every case is identical, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cambi_arith.h"
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

/*
 * A c-value of the reference: weight * p0 * pm times the table's
 * 1/(p0 + pm). With counts from `big` up (in a 65x65 window), mostly large
 * values, whose sums reach 2^53 units, and a few of the smallest, whose
 * units are the finest.
 */
static float c_value(const CambiParams *p, int big)
{
    const int small = !big || next() % 100 == 0;
    const int p0 = small ? 1 + (int)(next() % 40) : big + (int)(next() % 600);
    const int pm = small ? 1 + (int)(next() % 40) : big + (int)(next() % 25);
    const int d = small ? (int)(next() % (uint64_t)p->num_diffs) : p->num_diffs - 1;
    return cambi_c_term(p->weight[d], p0, pm, p->rcp);
}

/* Returns the cases that differ; *claimed and *declined count the outcomes. */
static int check_pool(const CambiParams *p, int *cases, int *claimed, int *declined)
{
    int bad = 0;
    for (int round = 0; round < 400; round++) {
        /* Large rounds: sums of the largest values on either side of 2^53 units. */
        const int large = round % 4 == 3;
        const int n = large ? 200000 + (int)(next() % 100000) : 1 + (int)(next() % 5000);
        const double topk = round % 3 ? 0.6 : (double)(1 + next() % 1000) / 1000.0;
        const int k = cambi_topk_count(topk, n);
        /* Nonzero values: around k (the limit of the claim), or any number. */
        int m = round % 2 ? k - 1 + (int)(next() % 3) : (int)(next() % ((uint64_t)n + 1));
        m = m < 0 ? 0 : (m > n ? n : m);
        const int big = large ? 200 + (int)(next() % 1600) : 0;
        float *a = malloc((size_t)n * sizeof(*a));
        if (!a) return bad + 1;
        for (int i = 0; i < n; i++)
            a[i] = i < m ? c_value(p, big) : 0.0f;
        for (int i = n - 1; i > 0; i--) {
            const int j = (int)(next() % ((uint64_t)i + 1));
            const float t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        CambiPoolStats st = { 0 };
        for (int i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, &a[i], sizeof(v));
            if (!v) continue;
            st.nonzero++;
            if (v < 0x3f000000u) {
                st.small = 1;
                continue;
            }
            st.units += cambi_pool_units(v);
            st.bits |= cambi_pool_units(v);
        }
        double got;
        if (cambi_pool_exact(&st, n, topk, &got)) {
            reference_select(a, n, k);
            double sum = 0.0;
            for (int i = 0; i < k; i++)
                sum = cambi_sum_step(sum, a[i]);
            const double want = cambi_topk_mean(sum, k);
            if (memcmp(&want, &got, sizeof(want)) && bad++ < 5)
                fprintf(stderr, "pool differs: n=%d k=%d: %.17g, not %.17g\n", n, k, got, want);
            (*claimed)++;
        } else {
            (*declined)++;
        }
        (*cases)++;
        free(a);
    }
    return bad;
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

    CambiParams p;
    if (cambi_params_init(&p, "bt1886", 0.019, 0.0, 5)) return 1;
    int pool_cases = 0, claimed = 0, declined = 0;
    const int pool_bad = check_pool(&p, &pool_cases, &claimed, &declined);
    printf("cambi_pool_exact: %d/%d cases identical to the reference's pooling "
           "(%d claimed, %d left to it)\n", pool_cases - pool_bad, pool_cases, claimed, declined);
    /* Both outcomes must be exercised for the check to mean anything. */
    return bad || pool_bad || !claimed || !declined ? 1 : 0;
}
