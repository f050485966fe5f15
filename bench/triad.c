/*
 * The machine's memory bandwidth, measured as STREAM's triad does it:
 * a[i] = b[i] + s * c[i] over three arrays of doubles far larger than the
 * last-level cache, split into one contiguous slice per thread (pthreads,
 * no OpenMP), each thread touching its own slice first so that its pages
 * sit on its node. Bytes counted as STREAM counts them: 24 per element
 * (two reads, one write; the write-allocate read is not counted).
 * bench/profile.py divides each stage's bytes by its time and sets the
 * result against this figure.
 *
 * usage: triad [THREADS [MIB_PER_ARRAY [REPEATS]]]
 * prints "triad_gbps THREADS X" last (the best of the repeats).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct Slice {
    double *a, *b, *c;
    size_t n;
    int repeats;
    pthread_barrier_t *start, *done;
    double best_s;          /**< written by thread 0 only */
    int timer;
} Slice;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *worker(void *arg)
{
    Slice *s = arg;
    const double k = 3.0;
    for (size_t i = 0; i < s->n; i++) {
        s->a[i] = 0.0;
        s->b[i] = 1.0;
        s->c[i] = 2.0;
    }
    for (int r = 0; r < s->repeats; r++) {
        pthread_barrier_wait(s->start);
        const double t0 = s->timer ? now_s() : 0.0;
        double *restrict a = s->a;
        const double *restrict b = s->b, *restrict c = s->c;
        for (size_t i = 0; i < s->n; i++)
            a[i] = b[i] + k * c[i];
        pthread_barrier_wait(s->done);
        if (s->timer) {
            const double dt = now_s() - t0;
            if (r == 0 || dt < s->best_s)
                s->best_s = dt;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 1;
    const size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 256;
    const int repeats = argc > 3 ? atoi(argv[3]) : 10;
    if (threads < 1 || threads > 1024 || mib < 1 || repeats < 1) {
        fprintf(stderr, "usage: triad [THREADS [MIB_PER_ARRAY [REPEATS]]]\n");
        return 2;
    }
    const size_t n = mib * 1024 * 1024 / sizeof(double);
    double *a = aligned_alloc(64, n * sizeof(double));
    double *b = aligned_alloc(64, n * sizeof(double));
    double *c = aligned_alloc(64, n * sizeof(double));
    Slice *sl = calloc((size_t)threads, sizeof(*sl));
    pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
    pthread_barrier_t start, done;
    if (!a || !b || !c || !sl || !tid || pthread_barrier_init(&start, NULL, (unsigned)threads) ||
        pthread_barrier_init(&done, NULL, (unsigned)threads)) {
        fprintf(stderr, "triad: out of memory\n");
        return 1;
    }
    const size_t per = (n + (size_t)threads - 1) / (size_t)threads;
    for (int t = 0; t < threads; t++) {
        const size_t lo = (size_t)t * per < n ? (size_t)t * per : n;
        const size_t hi = lo + per < n ? lo + per : n;
        sl[t] = (Slice){ a + lo, b + lo, c + lo, hi - lo, repeats, &start, &done, 0.0, t == 0 };
    }
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[t], NULL, worker, &sl[t])) {
            fprintf(stderr, "triad: cannot start thread %d\n", t);
            return 1;
        }
    worker(&sl[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);

    /* a[] is read back so that the stores cannot be dropped. */
    double check = 0.0;
    for (size_t i = 0; i < n; i += 4096)
        check += a[i];
    const double gbps = 24.0 * (double)n / sl[0].best_s / 1e9;
    printf("arrays %zu MiB x 3, %d repeats, best %.4f s (check %.0f)\n", mib, repeats,
           sl[0].best_s, check);
    printf("triad_gbps %d %.2f\n", threads, gbps);
    free(a);
    free(b);
    free(c);
    free(sl);
    free(tid);
    return 0;
}
