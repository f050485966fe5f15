/*
 * checkasm-style test of the integer VIF and integer motion kernels: every
 * faster kernel (vectorisable C, AVX2) against the plain-C reference, bit
 * for bit, on random and edge inputs (extreme sample values, flat and
 * checkerboard rows, samples beyond the declared bit depth, every filter
 * and rounding configuration, widths from the smallest a filter takes to
 * 1920 + odd, statistic inputs at every branch threshold and overflow).
 *
 * usage: checkasm_ivm [--seed N] [--bench]
 * Exit 0 when every comparison is identical, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/integer_motion/imotion_dsp.h"
#include "feature/integer_vif/ivif_dsp.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static unsigned rnd_below(unsigned n)
{
    return (unsigned)(rnd() % n);
}

static int failures, checks;

static void fail(const char *what)
{
    if (failures < 20)
        fprintf(stderr, "FAIL: %s\n", what);
    failures++;
}

/* ---- Sample generators ---- */

enum Kind { K_RANDOM, K_IN_RANGE, K_MAX, K_ZERO, K_CHECKER, K_MID_NOISE, K_SPARSE, K_COUNT };

static const char *const kind_name[K_COUNT] = {
    "random16", "in-range", "max", "zero", "checker", "mid-noise", "sparse"
};

/** Fill n samples of bit depth bpc (8: bytes, else uint16). K_RANDOM uses every 16-bit value. */
static void fill(void *dst, int n, unsigned bpc, enum Kind kind, int phase)
{
    const unsigned max = (1u << bpc) - 1;
    for (int j = 0; j < n; j++) {
        unsigned v;
        switch (kind) {
        case K_RANDOM: v = bpc == 8 ? rnd_below(256) : rnd_below(65536); break;
        case K_IN_RANGE: v = rnd_below(max + 1); break;
        case K_MAX: v = max; break;
        case K_ZERO: v = 0; break;
        case K_CHECKER: v = ((j + phase) & 1) ? max : 0; break;
        case K_MID_NOISE: v = max / 2 + rnd_below(5) - 2; break;
        default: v = rnd_below(64) ? max / 3 : rnd_below(max + 1); break;
        }
        if (bpc == 8)
            ((uint8_t *)dst)[j] = (uint8_t)v;
        else
            ((uint16_t *)dst)[j] = (uint16_t)v;
    }
}

/* ---- Integer VIF ---- */

static const uint16_t vif_filters[IVIF_NUM_SCALES][IVIF_MAX_TAPS] = IVIF_FILTER_TABLE;

static uint16_t *log2_table(void)
{
    uint16_t *t = calloc(IVIF_LOG2_TABLE_SIZE + 2, sizeof(uint16_t));
    if (!t)
        exit(2);
    for (unsigned i = IVIF_LOG2_TABLE_MIN - 1; i < IVIF_LOG2_TABLE_SIZE; i++)
        t[i] = ivif_log2_table_entry(i);
    return t;
}

/**
 * The rounding of a pass reading a scale-`sc` image at depth bpc, as the
 * extractor sets it up (integer_vif.c taps_setup).
 */
static void vif_setup(IvifTaps *t, int sc, int filter, unsigned bpc, int w)
{
    memset(t, 0, sizeof(*t));
    t->f = vif_filters[filter];
    t->fw = ivif_filter_width(filter);
    t->w = w;
    t->u8 = sc == 0 && bpc == 8;
    if (sc == 0) {
        const int sq = 2 * ((int)bpc - 8);
        t->mu_shift = (int)bpc;
        t->mu_round = 1u << (bpc - 1);
        t->sq_shift = sq;
        t->sq_round = sq ? 1u << (sq - 1) : 0;
    } else {
        t->mu_shift = t->sq_shift = 16;
        t->mu_round = t->sq_round = 32768;
    }
}

typedef struct VifRows {
    uint8_t *ref[IVIF_MAX_TAPS], *dis[IVIF_MAX_TAPS];
    size_t bytes;   /**< allocation size of each row */
} VifRows;

/* Rows end exactly at the end of their allocation, so that a kernel reading
 * past a row's last sample is caught by AddressSanitizer or valgrind. */
static void *row_at_end(uint8_t *buf, size_t bytes, int w, int u8)
{
    return buf + bytes - (size_t)w * (u8 ? 1 : 2);
}

static void vif_rows_fill(VifRows *r, IvifTaps *t, unsigned bpc_data, enum Kind kind)
{
    for (int k = 0; k < t->fw; k++) {
        void *ref = row_at_end(r->ref[k], r->bytes, t->w, t->u8);
        void *dis = row_at_end(r->dis[k], r->bytes, t->w, t->u8);
        fill(ref, t->w, bpc_data, kind, k);
        /* The distorted rows: another draw, or the reference itself. */
        if (kind == K_RANDOM && rnd_below(4) == 0)
            memcpy(dis, ref, (size_t)t->w * (t->u8 ? 1 : 2));
        else
            fill(dis, t->w, bpc_data, kind == K_CHECKER && (k & 1) ? K_MAX : kind, k + 1);
        t->ref[k] = ref;
        t->dis[k] = dis;
    }
}

static int accum_eq(const IvifAccum *a, const IvifAccum *b)
{
    return a->num_log == b->num_log && a->den_log == b->den_log &&
           a->num_non_log == b->num_non_log && a->den_non_log == b->den_non_log;
}

static void test_vif_rows(const uint16_t *table, int levels)
{
    enum { W_MAX = 1920 + 37 };
    IvifDsp dsp[4];
    IvifScratch scr[4];
    for (int l = 0; l < levels; l++) {
        ivif_dsp_init_level(&dsp[l], l);
        if (ivif_scratch_alloc(&scr[l], W_MAX))
            exit(2);
    }
    VifRows rows;
    rows.bytes = W_MAX * 2;
    for (int k = 0; k < IVIF_MAX_TAPS; k++) {
        rows.ref[k] = malloc(rows.bytes);
        rows.dis[k] = malloc(rows.bytes);
    }
    uint16_t *dec[4];
    IvifRow out[4];
    for (int l = 0; l < 4; l++) {
        dec[l] = malloc(W_MAX);
        uint32_t *b = calloc(5 * W_MAX, sizeof(uint32_t));
        out[l] = (IvifRow){ b, b + W_MAX, b + 2 * W_MAX, b + 3 * W_MAX, b + 4 * W_MAX };
    }

    static const int widths[] = { 0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 47, 64,
                                  65, 131, 255, 1920, 1920 + 37 };
    const double egls[] = { 100.0, 1.0, 1.5, 37.25 };
    for (int sc = 0; sc < IVIF_NUM_SCALES; sc++) {
        for (unsigned bpc = 8; bpc <= 16; bpc++) {
            if (sc > 0 && bpc != 8)
                continue; /* above scale 0 the rounding does not depend on bpc */
            for (int wi = 0; wi < (int)(sizeof(widths) / sizeof(widths[0])); wi++) {
                for (int kind = 0; kind < K_COUNT; kind++) {
                    const int fw = ivif_filter_width(sc);
                    const int w = widths[wi] + fw / 2 + 1; /* the smallest width a filter takes, up */
                    if (w > W_MAX)
                        continue;
                    IvifTaps t;
                    vif_setup(&t, sc, sc, bpc, w);
                    /* Images above scale 0 are 16-bit means; scale 0 holds bpc-bit samples. */
                    const unsigned data_bpc = sc == 0 ? bpc : 16;
                    vif_rows_fill(&rows, &t, data_bpc, (enum Kind)kind);
                    /* 1 to 4 gain limits in one pass: each limit's sums must be
                     * the C reference's for that limit alone. */
                    IvifGainLimits gl = { .n = 1 + (int)rnd_below(IVIF_MAX_GAIN_LIMITS) };
                    const int first = (int)rnd_below(4);
                    for (int e = 0; e < gl.n; e++)
                        gl.v[e] = egls[(first + e) % 4];
                    IvifAccum single[IVIF_MAX_GAIN_LIMITS];
                    for (int e = 0; e < gl.n; e++) {
                        const IvifGainLimits one = { .v = { gl.v[e] }, .n = 1 };
                        single[e] = (IvifAccum){ 0, 0, 0, 0 };
                        dsp[0].row_sums(&t, &scr[0], &one, table, &single[e]);
                    }
                    IvifAccum multi[4][IVIF_MAX_GAIN_LIMITS];
                    for (int l = 0; l < levels; l++) {
                        for (int e = 0; e < gl.n; e++)
                            multi[l][e] = (IvifAccum){ 0, 0, 0, 0 };
                        dsp[l].row_sums(&t, &scr[l], &gl, table, multi[l]);
                    }
                    IvifAccum acc[4];
                    for (int l = 0; l < levels; l++)
                        acc[l] = multi[l][0];
                    for (int l = 0; l < levels; l++) {
                        for (int e = 0; e < gl.n; e++) {
                            checks++;
                            if (!accum_eq(&single[e], &multi[l][e])) {
                                char msg[160];
                                snprintf(msg, sizeof(msg), "vif row_sums level %d: %d gain limits, "
                                         "limit %d (%g) differs from its own pass: scale %d bpc "
                                         "%u w %d %s", l, gl.n, e, gl.v[e], sc, bpc, w,
                                         kind_name[kind]);
                                fail(msg);
                            }
                        }
                    }
                    const double egl = gl.v[0];
                    /* Every pixel's five filtered values. */
                    for (int l = 0; l < levels; l++)
                        dsp[l].filter_row(&t, &scr[l], &out[l]);
                    for (int l = 1; l < levels; l++) {
                        checks++;
                        const size_t bytes = (size_t)w * sizeof(uint32_t);
                        if (memcmp(out[0].mu1, out[l].mu1, bytes) ||
                            memcmp(out[0].mu2, out[l].mu2, bytes) ||
                            memcmp(out[0].xx, out[l].xx, bytes) ||
                            memcmp(out[0].yy, out[l].yy, bytes) ||
                            memcmp(out[0].xy, out[l].xy, bytes)) {
                            char msg[160];
                            snprintf(msg, sizeof(msg),
                                     "vif filter_row level %d: scale %d bpc %u w %d %s", l, sc,
                                     bpc, w, kind_name[kind]);
                            fail(msg);
                        }
                    }
                    for (int l = 1; l < levels; l++) {
                        checks++;
                        if (!accum_eq(&acc[0], &acc[l])) {
                            char msg[256];
                            snprintf(msg, sizeof(msg),
                                     "vif row_sums level %d: scale %d bpc %u w %d %s egl %g: "
                                     "%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " vs %"
                                     PRId64 " %" PRId64 " %" PRId64 " %" PRId64, l, sc, bpc, w,
                                     kind_name[kind], egl, acc[0].num_log, acc[0].den_log,
                                     acc[0].num_non_log, acc[0].den_non_log, acc[l].num_log,
                                     acc[l].den_log, acc[l].num_non_log, acc[l].den_non_log);
                            fail(msg);
                        }
                    }

                    /* Decimation into scale sc+1 reads this scale with the next filter. */
                    if (sc + 1 < IVIF_NUM_SCALES) {
                        IvifTaps d;
                        vif_setup(&d, sc, sc + 1, bpc, w);
                        for (int k = 0; k < d.fw; k++)
                            d.ref[k] = t.ref[k];
                        for (int l = 0; l < levels; l++)
                            dsp[l].decimate_row(&d, &scr[l], dec[l]);
                        for (int l = 1; l < levels; l++) {
                            checks++;
                            if (memcmp(dec[0], dec[l], (size_t)(w / 2) * 2)) {
                                char msg[160];
                                snprintf(msg, sizeof(msg),
                                         "vif decimate_row level %d: from scale %d bpc %u w %d %s",
                                         l, sc, bpc, w, kind_name[kind]);
                                fail(msg);
                            }
                        }
                    }
                }
            }
        }
    }
    for (int k = 0; k < IVIF_MAX_TAPS; k++) {
        free(rows.ref[k]);
        free(rows.dis[k]);
    }
    for (int l = 0; l < 4; l++) {
        free(dec[l]);
        free(out[l].mu1);
    }
    for (int l = 0; l < levels; l++)
        ivif_scratch_free(&scr[l]);
}

/**
 * The statistic on constructed inputs: mu values and sigma targets at every
 * branch edge (sigma1 around 2^17, zero and negative covariances, int32
 * extremes whose double steps overflow the int32 conversion), and raw
 * random 32-bit values.
 */
static void test_vif_stat(const uint16_t *table)
{
#if IVIF_HAVE_AVX2
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2"))
        return;
    enum { N = 203 };
    static const int32_t edges[] = { INT32_MIN, INT32_MIN + 1, -131072, -1, 0, 1, 2, 131070,
                                     131071, 131072, 131073, 262144, 1 << 24, 1 << 30,
                                     INT32_MAX - 131072, INT32_MAX - 131071, INT32_MAX };
    const int ne = (int)(sizeof(edges) / sizeof(edges[0]));
    uint32_t *buf = malloc(5 * N * sizeof(uint32_t));
    IvifRow row = { buf, buf + N, buf + 2 * N, buf + 3 * N, buf + 4 * N };
    const double egls[] = { 100.0, 1.0, 1.5, 37.25 };
    for (int iter = 0; iter < 3000; iter++) {
        const int mode = iter % 3;
        for (int j = 0; j < N; j++) {
            if (mode == 0) {
                row.mu1[j] = (uint32_t)rnd();
                row.mu2[j] = (uint32_t)rnd();
                row.xx[j] = (uint32_t)rnd();
                row.yy[j] = (uint32_t)rnd();
                row.xy[j] = (uint32_t)rnd();
                continue;
            }
            const uint32_t m1 = mode == 1 ? (uint32_t)rnd() : (uint32_t)rnd_below(1u << 24) << 8;
            const uint32_t m2 = rnd_below(3) ? (uint32_t)rnd() : m1;
            const int32_t s1 = rnd_below(2) ? edges[rnd_below(ne)] : (int32_t)rnd_below(1u << 28);
            const int32_t s2 = rnd_below(2) ? edges[rnd_below(ne)] : (int32_t)rnd_below(1u << 28);
            const int32_t s12 = rnd_below(2) ? edges[rnd_below(ne)]
                                             : (int32_t)rnd_below(1u << 28) - (1 << 26);
            row.mu1[j] = m1;
            row.mu2[j] = m2;
            row.xx[j] = (uint32_t)s1 + ivif_mul_round32(m1, m1);
            row.yy[j] = (uint32_t)s2 + ivif_mul_round32(m2, m2);
            row.xy[j] = (uint32_t)s12 + ivif_mul_round32(m1, m2);
        }
        const int n = iter < 100 ? iter % 40 : N;
        /* 1 to 4 gain limits at once; each against the C reference alone. */
        IvifGainLimits gl = { .n = 1 + iter % IVIF_MAX_GAIN_LIMITS };
        for (int e = 0; e < gl.n; e++)
            gl.v[e] = egls[(iter + e) % 4];
        IvifAccum a[IVIF_MAX_GAIN_LIMITS], b[IVIF_MAX_GAIN_LIMITS], c[IVIF_MAX_GAIN_LIMITS];
        for (int e = 0; e < gl.n; e++) {
            const IvifGainLimits one = { .v = { gl.v[e] }, .n = 1 };
            a[e] = b[e] = c[e] = (IvifAccum){ 0, 0, 0, 0 };
            ivif_stat_row_c(&row, n, &one, table, &a[e]);
        }
        ivif_stat_row_avx2(&row, n, &gl, table, b);
        const int avx512 = ivif_cpu_has_avx512();
        if (avx512)
            ivif_stat_row_avx512(&row, n, &gl, table, c);
        for (int e = 0; e < gl.n; e++) {
            checks++;
            if (!accum_eq(&a[e], &b[e])) {
                char msg[128];
                snprintf(msg, sizeof(msg), "vif stat_row avx2: iteration %d mode %d n %d limit %d",
                         iter, mode, n, e);
                fail(msg);
            }
            if (avx512) {
                checks++;
                if (!accum_eq(&a[e], &c[e])) {
                    char msg[128];
                    snprintf(msg, sizeof(msg), "vif stat_row avx512: iteration %d mode %d n %d "
                             "limit %d", iter, mode, n, e);
                    fail(msg);
                }
            }
        }
    }
    free(buf);
#else
    (void)table;
#endif
}

/* ---- Integer motion ---- */

static void test_motion(void)
{
    enum { W_MAX = 1920 + 21, H_MAX = 24 };
    ImotionSadFn fns[3] = { imotion_sad_c, imotion_sad_vec, NULL };
    const char *names[3] = { "c", "vec", "avx2" };
    int n_fns = 2;
#if IMOTION_HAVE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        fns[n_fns++] = imotion_sad_avx2;
#endif
    ImotionScratch scr;
    if (imotion_scratch_alloc(&scr, W_MAX))
        exit(2);
    const size_t stride_max = (W_MAX + 40) * 2;
    uint8_t *prev_buf = malloc(stride_max * H_MAX), *cur_buf = malloc(stride_max * H_MAX);
    static const int widths[] = { 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, 1920, 1920 + 21 };
    static const int heights[] = { 3, 4, 5, 8, 13, 24 };
    for (unsigned bpc = 8; bpc <= 16; bpc++) {
        for (int wi = 0; wi < (int)(sizeof(widths) / sizeof(widths[0])); wi++) {
            for (int hi = 0; hi < (int)(sizeof(heights) / sizeof(heights[0])); hi++) {
                for (int kind = 0; kind < K_COUNT; kind++) {
                    const int w = widths[wi], h = heights[hi];
                    if (w > 200 && h > 8 && kind > 1)
                        continue;
                    const size_t bytes = bpc > 8 ? 2 : 1;
                    const ptrdiff_t ps = (ptrdiff_t)(w * bytes + rnd_below(40) * bytes);
                    const ptrdiff_t cs = (ptrdiff_t)(w * bytes + rnd_below(40) * bytes);
                    /* The last row ends at the end of the buffer (overreads are caught). */
                    uint8_t *prev = prev_buf + stride_max * H_MAX - ((size_t)(h - 1) * ps + w * bytes);
                    uint8_t *cur = cur_buf + stride_max * H_MAX - ((size_t)(h - 1) * cs + w * bytes);
                    for (int i = 0; i < h; i++) {
                        fill(prev + i * ps, w, bpc, (enum Kind)kind, i);
                        /* cur: another draw, the same rows (zero difference), or one change */
                        const int how = (int)rnd_below(4);
                        if (how == 0) {
                            memcpy(cur + i * cs, prev + i * ps, (size_t)w * bytes);
                        } else if (how == 1) {
                            memcpy(cur + i * cs, prev + i * ps, (size_t)w * bytes);
                            const int j = (int)rnd_below((unsigned)w);
                            if (bytes == 1)
                                cur[i * cs + j] ^= 0xff;
                            else
                                ((uint16_t *)(void *)(cur + i * cs))[j] ^= 0xffff;
                        } else {
                            fill(cur + i * cs, w, bpc,
                                 kind == K_CHECKER ? K_CHECKER : (enum Kind)kind, i + how);
                        }
                    }
                    uint64_t sad[3];
                    for (int f = 0; f < n_fns; f++)
                        sad[f] = fns[f](prev, ps, cur, cs, w, h, bpc, &scr);
                    for (int f = 1; f < n_fns; f++) {
                        checks++;
                        if (sad[f] != sad[0]) {
                            char msg[160];
                            snprintf(msg, sizeof(msg),
                                     "motion sad %s: %dx%d bpc %u %s: %" PRIu64 " vs %" PRIu64,
                                     names[f], w, h, bpc, kind_name[kind], sad[0], sad[f]);
                            fail(msg);
                        }
                    }
                }
            }
        }
    }
    free(prev_buf);
    free(cur_buf);
    imotion_scratch_free(&scr);
}

/* ---- Benchmark ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: steady on a busy machine */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/** A 1920x1080 8-bit frame pair: smooth content plus noise. */
static void bench(const uint16_t *table, int levels)
{
    enum { W = 1920, H = 1080 };
    uint8_t *ref = malloc(W * H), *dis = malloc(W * H), *ref2 = malloc(W * H);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            const int v = (i * 7 + j * 3) % 200 + (int)rnd_below(40);
            ref[i * W + j] = (uint8_t)v;
            dis[i * W + j] = (uint8_t)(v + (int)rnd_below(9) - 4 < 0 ? 0 : v + (int)rnd_below(9) - 4);
            ref2[i * W + j] = (uint8_t)((v + 3) & 0xff);
        }
    static const char *const lname[4] = { "c", "vec", "avx2", "avx512" };
    IvifScratch scr;
    if (ivif_scratch_alloc(&scr, W))
        exit(2);
    uint16_t *out = malloc(W);
    for (int l = 0; l < levels; l++) {
        IvifDsp dsp;
        ivif_dsp_init_level(&dsp, l);
        IvifTaps t;
        vif_setup(&t, 0, 0, 8, W);
        IvifAccum acc[2] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
        const int reps = l == 0 ? 1 : 5;
        double ms_sums[2];
        for (int n_egl = 1; n_egl <= 2; n_egl++) {
            /* One gain limit (VMAF), and two (VMAF and VMAF NEG in one pass). */
            const IvifGainLimits gl = { .v = { 100.0, 1.0 }, .n = n_egl };
            double t0 = now();
            for (int rep = 0; rep < reps; rep++)
                for (int i = 0; i < H; i++) {
                    for (int k = 0; k < t.fw; k++) {
                        const int ii = ivif_reflect(i - t.fw / 2 + k, H);
                        t.ref[k] = ref + (size_t)ii * W;
                        t.dis[k] = dis + (size_t)ii * W;
                    }
                    dsp.row_sums(&t, &scr, &gl, table, acc);
                }
            ms_sums[n_egl - 1] = (now() - t0) * 1e3 / reps;
        }
        IvifTaps d;
        vif_setup(&d, 0, 1, 8, W);
        double t0 = now();
        for (int rep = 0; rep < reps; rep++)
            for (int i = 0; i < H / 2; i++) {
                for (int k = 0; k < d.fw; k++)
                    d.ref[k] = ref + (size_t)ivif_reflect(2 * i - d.fw / 2 + k, H) * W;
                dsp.decimate_row(&d, &scr, out);
            }
        const double ms_dec = (now() - t0) * 1e3 / reps;
        printf("vif %-5s 1080p scale 0 row sums %7.2f ms (two gain limits %7.2f ms), one "
               "decimation %6.2f ms\n", lname[l], ms_sums[0], ms_sums[1], ms_dec);
    }
    ImotionScratch ms;
    if (imotion_scratch_alloc(&ms, W))
        exit(2);
    ImotionSadFn fns[3] = { imotion_sad_c, imotion_sad_vec, imotion_sad_best() };
    for (int f = 0; f < 3; f++) {
        const int reps = f == 0 ? 2 : 20;
        const double t0 = now();
        uint64_t s = 0;
        for (int rep = 0; rep < reps; rep++)
            s += fns[f](ref, W, ref2, W, W, H, 8, &ms);
        printf("motion %-5s 1080p sad %6.2f ms\n", f == 0 ? "c" : f == 1 ? "vec" : "best",
               (now() - t0) * 1e3 / reps);
        (void)s;
    }
    imotion_scratch_free(&ms);
    ivif_scratch_free(&scr);
    free(out);
    free(ref);
    free(dis);
    free(ref2);
}

int main(int argc, char **argv)
{
    int do_bench = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0) | 1;
    }
    IvifDsp probe;
    const int levels = ivif_dsp_init_level(&probe, IVIF_DSP_AVX512) + 1;
    if (levels <= IVIF_DSP_AVX2)
        printf("no AVX2 on this processor: the AVX2 and AVX-512 kernels are not tested\n");
    else if (levels <= IVIF_DSP_AVX512)
        printf("no AVX-512 on this processor: the AVX-512 kernels are not tested\n");

    uint16_t *table = log2_table();
    test_vif_stat(table);
    test_vif_rows(table, levels);
    test_motion();
    printf("%d comparisons, %d different\n", checks, failures);
    if (do_bench)
        bench(table, levels);
    free(table);
    return failures ? 1 : 0;
}
