/*
 * checkasm room: the integer VIF kernels (src/feature/integer_vif/ivif_dsp.h):
 * every build of the fast kernels' table (the C build's vectorisable C,
 * AVX2, AVX-512, NEON) against the plain-C reference on random and edge inputs (extreme sample values, flat
 * and checkerboard rows, samples beyond the declared bit depth, every filter
 * and rounding configuration, widths from the smallest a filter takes to
 * 1920 + odd, statistic inputs at every branch threshold and overflow), and
 * one to four gain limits in one pass against each limit's own pass.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu.h"
#include "feature/integer_vif/ivif_dsp.h"

static uint64_t rnd(void)
{
    return ca_rand();
}

static unsigned rnd_below(unsigned n)
{
    return ca_rand_below(n);
}

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

static void vif_rows_ca_fill(VifRows *r, IvifTaps *t, unsigned bpc_data, enum CaKind kind)
{
    for (int k = 0; k < t->fw; k++) {
        void *ref = row_at_end(r->ref[k], r->bytes, t->w, t->u8);
        void *dis = row_at_end(r->dis[k], r->bytes, t->w, t->u8);
        ca_fill(ref, t->w, bpc_data, kind, k);
        /* The distorted rows: another draw, or the reference itself. */
        if (kind == CA_RANDOM && rnd_below(4) == 0)
            memcpy(dis, ref, (size_t)t->w * (t->u8 ? 1 : 2));
        else
            ca_fill(dis, t->w, bpc_data, kind == CA_CHECKER && (k & 1) ? CA_MAX : kind, k + 1);
        t->ref[k] = ref;
        t->dis[k] = dis;
    }
}

static int accum_eq(const IvifAccum *a, const IvifAccum *b)
{
    return a->num_log == b->num_log && a->den_log == b->den_log &&
           a->num_non_log == b->num_non_log && a->den_non_log == b->den_non_log;
}

/* The kernels compared: the reference, then the table's build for each set. */
enum { VIF_BUILDS_MAX = EV_ISA_COUNT + 1 };

static void test_vif_rows(const uint16_t *table, int levels, const IvifDsp *const *dsp,
                          const char *const *name)
{
    enum { W_MAX = 1920 + 37 };
    IvifScratch scr[VIF_BUILDS_MAX];
    for (int l = 0; l < levels; l++) {
        if (ivif_scratch_alloc(&scr[l], W_MAX))
            exit(2);
    }
    VifRows rows;
    rows.bytes = W_MAX * 2;
    for (int k = 0; k < IVIF_MAX_TAPS; k++) {
        rows.ref[k] = ca_alloc(rows.bytes);
        rows.dis[k] = ca_alloc(rows.bytes);
    }
    uint16_t *dec[VIF_BUILDS_MAX];
    IvifRow out[VIF_BUILDS_MAX];
    for (int l = 0; l < levels; l++) {
        dec[l] = ca_alloc(W_MAX);
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
                for (int kind = 0; kind < CA_KIND_COUNT; kind++) {
                    const int fw = ivif_filter_width(sc);
                    const int w = widths[wi] + fw / 2 + 1; /* the smallest width a filter takes, up */
                    if (w > W_MAX)
                        continue;
                    IvifTaps t;
                    vif_setup(&t, sc, sc, bpc, w);
                    /* Images above scale 0 are 16-bit means; scale 0 holds bpc-bit samples. */
                    const unsigned data_bpc = sc == 0 ? bpc : 16;
                    vif_rows_ca_fill(&rows, &t, data_bpc, (enum CaKind)kind);
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
                        dsp[0]->row_sums(&t, &scr[0], &one, table, &single[e]);
                    }
                    IvifAccum multi[VIF_BUILDS_MAX][IVIF_MAX_GAIN_LIMITS];
                    for (int l = 0; l < levels; l++) {
                        for (int e = 0; e < gl.n; e++)
                            multi[l][e] = (IvifAccum){ 0, 0, 0, 0 };
                        dsp[l]->row_sums(&t, &scr[l], &gl, table, multi[l]);
                    }
                    IvifAccum acc[VIF_BUILDS_MAX];
                    for (int l = 0; l < levels; l++)
                        acc[l] = multi[l][0];
                    for (int l = 0; l < levels; l++) {
                        for (int e = 0; e < gl.n; e++)
                            ca_check("ivif row_sums", name[l],
                                     accum_eq(&single[e], &multi[l][e]),
                                     "%d gain limits, limit %d (%g) differs from its own pass: "
                                     "scale %d bpc %u w %d %s", gl.n, e, gl.v[e], sc, bpc, w,
                                     ca_kind_name[kind]);
                    }
                    const double egl = gl.v[0];
                    /* Every pixel's five filtered values. */
                    for (int l = 0; l < levels; l++)
                        dsp[l]->filter_row(&t, &scr[l], &out[l]);
                    for (int l = 1; l < levels; l++) {
                        const size_t bytes = (size_t)w * sizeof(uint32_t);
                        ca_check("ivif filter_row", name[l],
                                 !memcmp(out[0].mu1, out[l].mu1, bytes) &&
                                     !memcmp(out[0].mu2, out[l].mu2, bytes) &&
                                     !memcmp(out[0].xx, out[l].xx, bytes) &&
                                     !memcmp(out[0].yy, out[l].yy, bytes) &&
                                     !memcmp(out[0].xy, out[l].xy, bytes),
                                 "scale %d bpc %u w %d %s", sc, bpc, w, ca_kind_name[kind]);
                    }
                    for (int l = 1; l < levels; l++)
                        ca_check("ivif row_sums", name[l], accum_eq(&acc[0], &acc[l]),
                                 "scale %d bpc %u w %d %s egl %g: %" PRId64 " %" PRId64 " %"
                                 PRId64 " %" PRId64 " vs %" PRId64 " %" PRId64 " %" PRId64 " %"
                                 PRId64, sc, bpc, w, ca_kind_name[kind], egl, acc[0].num_log,
                                 acc[0].den_log, acc[0].num_non_log, acc[0].den_non_log,
                                 acc[l].num_log, acc[l].den_log, acc[l].num_non_log,
                                 acc[l].den_non_log);

                    /* Decimation into scale sc+1 reads this scale with the next filter. */
                    if (sc + 1 < IVIF_NUM_SCALES) {
                        IvifTaps d;
                        vif_setup(&d, sc, sc + 1, bpc, w);
                        for (int k = 0; k < d.fw; k++)
                            d.ref[k] = t.ref[k];
                        for (int l = 0; l < levels; l++)
                            dsp[l]->decimate_row(&d, &scr[l], dec[l]);
                        for (int l = 1; l < levels; l++)
                            ca_check("ivif decimate_row", name[l],
                                     !memcmp(dec[0], dec[l], (size_t)(w / 2) * 2),
                                     "from scale %d bpc %u w %d %s", sc, bpc, w,
                                     ca_kind_name[kind]);
                    }
                }
            }
        }
    }
    for (int k = 0; k < IVIF_MAX_TAPS; k++) {
        free(rows.ref[k]);
        free(rows.dis[k]);
    }
    for (int l = 0; l < levels; l++) {
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
static void test_vif_stat(const uint16_t *table, int levels, const IvifDsp *const *dsp,
                          const char *const *name)
{
    /* The vector builds: the C build's statistic is the reference itself. */
    typedef void (*StatRowFn)(const IvifRow *, int, const IvifGainLimits *, const uint16_t *,
                              IvifAccum *);
    StatRowFn fns[VIF_BUILDS_MAX];
    const char *names[VIF_BUILDS_MAX];
    int n_fns = 0;
    for (int l = 1; l < levels; l++) {
        if (dsp[l]->stat_row == ivif_stat_row_c)
            continue;
        fns[n_fns] = dsp[l]->stat_row;
        names[n_fns++] = name[l];
    }
    if (!n_fns)
        return;
    for (int f = 0; f < n_fns; f++)
        ca_declare("ivif stat_row", names[f]);
    enum { N = 203 };
    static const int32_t edges[] = { INT32_MIN, INT32_MIN + 1, -131072, -1, 0, 1, 2, 131070,
                                     131071, 131072, 131073, 262144, 1 << 24, 1 << 30,
                                     INT32_MAX - 131072, INT32_MAX - 131071, INT32_MAX };
    const int ne = (int)(sizeof(edges) / sizeof(edges[0]));
    uint32_t *buf = ca_alloc(5 * N * sizeof(uint32_t));
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
        IvifAccum a[IVIF_MAX_GAIN_LIMITS];
        for (int e = 0; e < gl.n; e++) {
            const IvifGainLimits one = { .v = { gl.v[e] }, .n = 1 };
            a[e] = (IvifAccum){ 0, 0, 0, 0 };
            ivif_stat_row_c(&row, n, &one, table, &a[e]);
        }
        for (int f = 0; f < n_fns; f++) {
            IvifAccum b[IVIF_MAX_GAIN_LIMITS];
            for (int e = 0; e < gl.n; e++)
                b[e] = (IvifAccum){ 0, 0, 0, 0 };
            fns[f](&row, n, &gl, table, b);
            for (int e = 0; e < gl.n; e++)
                ca_check("ivif stat_row", names[f], accum_eq(&a[e], &b[e]),
                         "iteration %d mode %d n %d limit %d", iter, mode, n, e);
        }
    }
    free(buf);
}


void checkasm_ivif(int isa_max)
{
    /* The reference, then the table's build for each set up to isa_max
     * (the library picks with the same cap, cpu.h). */
    static const IvifDsp *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE(ivif_dsp);
    const IvifDsp *dsp[VIF_BUILDS_MAX] = { &ivif_dsp_ref };
    const char *name[VIF_BUILDS_MAX] = { "ref" };
    int levels = 1;
    for (int isa = EV_ISA_C; isa <= isa_max; isa++) {
        dsp[levels] = kern[isa];
        name[levels++] = ev_isa_name(isa);
    }
    for (int l = 1; l < levels; l++) {
        ca_declare("ivif row_sums", name[l]);
        ca_declare("ivif filter_row", name[l]);
        ca_declare("ivif decimate_row", name[l]);
    }
    uint16_t *table = log2_table();
    test_vif_stat(table, levels, dsp, name);
    test_vif_rows(table, levels, dsp, name);
    free(table);
}
