#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cambi_arith.h"
#include "cambi_cpu.h"
#include "cpu.h"
#include "log.h"
#include "os/os.h"

/* Hot loops: plain C that GCC vectorises, built once per instruction set
 * (cambi_simd_tmpl.c). Integer work and unfused fp32 products: every build
 * gives the same bits. */

/* Band image entries (see the c-values below). */
#define NO_ROW 0x7fff
#define ACTIVE 0x8000
/* ACTIVE is a function of the value: equal band entries are equal values. */
#define ROW_OF(b) ((unsigned)(b) & 0x7fffu)

/* ---- Resampling tables ---- */

static int resample_axis(unsigned in, unsigned out, unsigned *idx)
{
    const float ratio = cambi_resample_ratio(in, out);
    float x = cambi_resample_start(ratio);
    for (unsigned j = 0; j < out; j++) {
        const int i = cambi_resample_index(x);
        /* The fp32 running sum drifts; past the edge the reference would
         * read outside the picture's row. */
        if (i < 0 || (unsigned)i >= in)
            return -EINVAL;
        idx[j] = (unsigned)i;
        x = cambi_resample_next(x, ratio);
    }
    return 0;
}

int cambi_resample_init(CambiResample *rs, unsigned in_w, unsigned in_h,
                        unsigned out_w, unsigned out_h)
{
    memset(rs, 0, sizeof(*rs));
    rs->in_w = in_w;
    rs->in_h = in_h;
    rs->out_w = out_w;
    rs->out_h = out_h;
    rs->x = malloc(out_w * sizeof(*rs->x));
    rs->y = malloc(out_h * sizeof(*rs->y));
    if (!rs->x || !rs->y) {
        cambi_resample_free(rs);
        return -ENOMEM;
    }
    if (resample_axis(in_w, out_w, rs->x) || resample_axis(in_h, out_h, rs->y)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "cambi: resampling %ux%u to %ux%u would read outside the picture",
                 in_w, in_h, out_w, out_h);
        cambi_resample_free(rs);
        return -EINVAL;
    }
    return 0;
}

void cambi_resample_free(CambiResample *rs)
{
    free(rs->x);
    free(rs->y);
    rs->x = rs->y = NULL;
}

/* ---- Buffers ---- */

/* Bytes of window counts per strip of columns (cambi_cpu_c_values): well
 * inside a 1 MiB L2, leaving room for the rows streaming through. */
#ifndef CAMBI_STRIP_BYTES
#define CAMBI_STRIP_BYTES (384 * 1024)
#endif
#define CAMBI_MIN_STRIP 64

/* Widest strip of columns whose counts are kept at once. */
static int strip_width(size_t band, int pad)
{
    const int width = (int)(CAMBI_STRIP_BYTES / (band * sizeof(uint16_t))) - 2 * pad;
    return width < CAMBI_MIN_STRIP ? CAMBI_MIN_STRIP : width;
}

static void *alloc_aligned(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    return vmaf_os_aligned_alloc(64, bytes ? bytes : 64);
}

int cambi_cpu_alloc(CambiCpu *cpu, unsigned alloc_w, unsigned alloc_h,
                    const CambiParams *p)
{
    memset(cpu, 0, sizeof(*cpu));
    cpu->alloc_w = alloc_w;
    cpu->alloc_h = alloc_h;
    cpu->stride = ((size_t)alloc_w + 31) & ~(size_t)31;
    const size_t band = p->band_hi >= p->band_lo ? (size_t)(p->band_hi - p->band_lo + 1) : 1;
    cpu->img = alloc_aligned(cpu->stride * alloc_h * sizeof(*cpu->img));
    cpu->mask = alloc_aligned(cpu->stride * alloc_h);
    cpu->c = alloc_aligned((size_t)alloc_w * alloc_h * sizeof(*cpu->c));
    const int most = strip_width(band, 0);
    cpu->hist = alloc_aligned(band * (alloc_w < (unsigned)most ? alloc_w : (unsigned)most) *
                              sizeof(*cpu->hist));
    cpu->band = alloc_aligned(cpu->stride * alloc_h * sizeof(*cpu->band));
    cpu->events = alloc_aligned(2 * cpu->stride * sizeof(*cpu->events));
    cpu->flags = alloc_aligned(cpu->stride + 16);
    cpu->rows = alloc_aligned(3 * (size_t)alloc_w * sizeof(*cpu->rows));
    cpu->deriv = alloc_aligned(8 * cpu->stride);
    cpu->colsum = alloc_aligned(cpu->stride + 8);
    cpu->ring = alloc_aligned(3 * cpu->stride * sizeof(*cpu->ring));
    cpu->mrow = alloc_aligned(cpu->stride);
    /* The values of the band at which some difference is considered, as
     * intervals (one in practice: each difference's values are one). */
    for (int v = p->band_lo; v <= p->band_hi && v <= 1024; v++) {
        if (!p->active[v]) continue;
        if (cpu->n_active && v == cpu->active_lo[cpu->n_active - 1] +
                                     cpu->active_span[cpu->n_active - 1] + 1) {
            cpu->active_span[cpu->n_active - 1]++;
        } else {
            cpu->active_lo[cpu->n_active] = (uint16_t)v;
            cpu->active_span[cpu->n_active++] = 0;
        }
    }
    if (!cpu->n_active)
        cpu->active_lo[0] = UINT16_MAX;   /* band_image's first interval: no 10-bit value */
    if (!cpu->img || !cpu->mask || !cpu->c || !cpu->hist || !cpu->band || !cpu->events ||
        !cpu->flags || !cpu->rows || !cpu->deriv || !cpu->colsum || !cpu->ring || !cpu->mrow) {
        cambi_cpu_free(cpu);
        return -ENOMEM;
    }
    /* Columns past a scale's width can be read back (cambi_cpu_c_values); never
     * written, they must hold the zeros of the reference's fresh buffers. */
    memset(cpu->img, 0, cpu->stride * alloc_h * sizeof(*cpu->img));
    memset(cpu->mask, 0, cpu->stride * alloc_h);
    return 0;
}

void cambi_cpu_free(CambiCpu *cpu)
{
    vmaf_os_aligned_free(cpu->img);
    vmaf_os_aligned_free(cpu->mask);
    vmaf_os_aligned_free(cpu->c);
    vmaf_os_aligned_free(cpu->hist);
    vmaf_os_aligned_free(cpu->band);
    vmaf_os_aligned_free(cpu->events);
    vmaf_os_aligned_free(cpu->flags);
    vmaf_os_aligned_free(cpu->rows);
    vmaf_os_aligned_free(cpu->deriv);
    vmaf_os_aligned_free(cpu->colsum);
    vmaf_os_aligned_free(cpu->ring);
    vmaf_os_aligned_free(cpu->mrow);
    memset(cpu, 0, sizeof(*cpu));
}

/* ---- Picture -> 10-bit luma ---- */

int cambi_range_error(unsigned bpc)
{
    vmaf_log(VMAF_LOG_LEVEL_ERROR,
             "cambi: the picture holds values above %u, the maximum of %u-bit samples",
             (1u << bpc) - 1, bpc);
    return -EINVAL;
}

/* The reference checks the whole plane of a 9..15-bit picture, whatever
 * part of it the resampler then reads. */
static int check_range(const VmafPicture *pic)
{
    if (pic->bpc == 8 || pic->bpc == 16) return 0;
    const unsigned max = (1u << pic->bpc) - 1;
    const ptrdiff_t stride = pic->stride[0] / 2;
    const uint16_t *data = pic->data[0];
    for (unsigned i = 0; i < pic->h[0]; i++) {
        unsigned hi = 0;
        for (unsigned j = 0; j < pic->w[0]; j++)
            hi = data[i * stride + j] > hi ? data[i * stride + j] : hi;
        if (hi > max) return cambi_range_error(pic->bpc);
    }
    return 0;
}

static inline void convert_row(const VmafPicture *pic, unsigned src_row, const unsigned *x,
                               unsigned w, uint16_t *restrict out)
{
    if (pic->bpc == 8) {
        const uint8_t *in = (const uint8_t *)pic->data[0] + src_row * pic->stride[0];
        if (x) {
            for (unsigned j = 0; j < w; j++) out[j] = cambi_from_8bit(in[x[j]]);
        } else {
            for (unsigned j = 0; j < w; j++) out[j] = cambi_from_8bit(in[j]);
        }
        return;
    }
    const uint16_t *in = (const uint16_t *)((const uint8_t *)pic->data[0] +
                                            src_row * pic->stride[0]);
    if (pic->bpc == 9) {
        if (x) {
            for (unsigned j = 0; j < w; j++) out[j] = cambi_from_9bit(in[x[j]]);
        } else {
            for (unsigned j = 0; j < w; j++) out[j] = cambi_from_9bit(in[j]);
        }
        return;
    }
    const int shift = (int)pic->bpc - 10;
    if (x) {
        for (unsigned j = 0; j < w; j++) out[j] = cambi_from_hbd(in[x[j]], shift);
    } else {
        for (unsigned j = 0; j < w; j++) out[j] = cambi_from_hbd(in[j], shift);
    }
}

/* The anti-dithering filter, in place, top to bottom and left to right:
 * each output reads only samples to its right and below, which are still
 * the originals. A row is filtered once the row below it is loaded. */
static inline void antidither_row(uint16_t *restrict r, const uint16_t *restrict below,
                                  unsigned w)
{
    /* cambi_avg4() in 16 bits: 10-bit samples (at most 1024) sum below 2^16. */
    for (unsigned j = 0; j + 1 < w; j++)
        r[j] = (uint16_t)((uint16_t)(r[j] + r[j + 1] + below[j] + below[j + 1]) >> 2);
    r[w - 1] = cambi_avg2(r[w - 1], below[w - 1]);
}

static inline void antidither_last_row(uint16_t *r, unsigned w)
{
    for (unsigned j = 0; j + 1 < w; j++)
        r[j] = cambi_avg2(r[j], r[j + 1]);
}

/* ---- Spatial mask ---- */

/* 1 where a pixel equals its right and lower neighbours (a missing
 * neighbour counts as equal). */
static inline void derivative_row(const uint16_t *restrict row, const uint16_t *restrict below,
                                  unsigned w, uint8_t *restrict d)
{
    if (below) {
        for (unsigned j = 0; j + 1 < w; j++)
            d[j] = (uint8_t)((row[j] == row[j + 1]) & (row[j] == below[j]));
        d[w - 1] = (uint8_t)(row[w - 1] == below[w - 1]);
    } else {
        for (unsigned j = 0; j + 1 < w; j++)
            d[j] = (uint8_t)(row[j] == row[j + 1]);
        d[w - 1] = 1;
    }
}




/* ---- c-values ---- */

/*
 * Window counts: for each luma value v of the band, one row of counts,
 * counts[v][j] = masked pixels of value v in the window around column j of
 * the current image row. A pixel entering or leaving the window changes the
 * counts of every column within `pad` of its own.
 *
 * Each scale is first reduced to its "band image": the count row of each
 * pixel (value - band_lo), with ACTIVE set where some luma difference is
 * considered at its value (only those pixels have c-values to compute), or
 * NO_ROW for pixels that are never counted (unmasked, or outside the band).
 * The image is then processed in vertical strips of columns, each with its
 * own counts, so that the counts being updated stay in the core's cache: a
 * strip [x0, x1) takes in the pixels of columns [x0 - pad, x1 + pad).
 * Counts are exact integers: neither the runs nor the strips below change
 * anything in the results.
 */


typedef struct Strip {
    int x0, x1;         /**< columns whose counts are kept */
    int in0, in1;       /**< columns whose pixels reach them */
} Strip;


/*
 * Pixels of one value at columns [a, b] entering (delta 1) or leaving
 * (delta 0xffff) the window: column x of the counts changes by the number
 * of them within `pad` of it. One pass over [a - pad, b + pad] instead of
 * one per pixel.
 */
static inline void count_run(uint16_t *restrict row, const Strip *st, int pad, int a, int b,
                             uint16_t delta)
{
    const int lo = a - pad > st->x0 ? a - pad : st->x0;
    const int hi = b + pad + 1 < st->x1 ? b + pad + 1 : st->x1;
    /* Pixels of the run within `pad` of x: min(x - (a - pad) + 1,
     * (b + pad) - x + 1, run length, window side), all below 2^16. */
    const int len = b - a + 1, side = 2 * pad + 1;
    const uint16_t cap = (uint16_t)(len < side ? len : side);
    uint16_t up = (uint16_t)(lo - (a - pad) + 1), down = (uint16_t)(b + pad - lo + 1);
    uint16_t *restrict r = row + (lo - st->x0);
    for (int x = 0; x < hi - lo; x++) {
        uint16_t n = up < down ? up : down;
        n = n < cap ? n : cap;
        r[x] = (uint16_t)(r[x] + n * delta);
        up++;
        down--;
    }
}

/* Index of the first nonzero byte of `word`, the 8 bytes at p. */
static inline int first_set_byte(uint64_t word, const uint8_t *p)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)p;
    return __builtin_ctzll(word) >> 3;
#else
    (void)word;
    int i = 0;
    while (!p[i])
        i++;
    return i;
#endif
}

/*
 * Count the runs of equal value of e[0..n) (columns x0 + k), NO_ROW
 * entries excepted. The run boundaries are flagged branch-free, a byte per
 * column, then looked for eight flags at a time.
 */
static inline void count_runs(uint16_t *hist, size_t hw, const Strip *st, int pad,
                              const uint16_t *restrict e, uint8_t *restrict flag, int n,
                              int x0, uint16_t delta)
{
    flag[0] = 1;
    for (int k = 1; k < n; k++)
        flag[k] = e[k] != e[k - 1];
    memset(flag + n, 1, 8);     /* a boundary past the end stops the search */
    int start = 0;
    int k = 1;
    for (;;) {
        uint64_t word;
        memcpy(&word, flag + k, 8);
        if (!word) {
            k += 8;
            continue;
        }
        k += first_set_byte(word, flag + k);
        /* Run [start, k) ends here. */
        if (e[start] != NO_ROW)
            count_run(hist + ROW_OF(e[start]) * hw, st, pad, x0 + start, x0 + k - 1, delta);
        if (k >= n) break;
        start = k++;
    }
}


/*
 * Add n freshly computed c-values to a scale's pooling statistics
 * (cambi_pool_exact()). c-values are never -0 or NaN: a nonzero bit
 * pattern is a positive value.
 */
static inline void pool_stats_add(CambiPoolStats *restrict st, const float *restrict c, int n)
{
    if (!st) return;
    uint64_t units = 0, bits = 0;
    int nonzero = 0, small = 0;
    for (int k = 0; k < n; k++) {
        uint32_t v;
        memcpy(&v, c + k, sizeof(v));
        const uint64_t u = v >= 0x3f000000u ? cambi_pool_units(v) : 0;
        units += u;
        bits |= u;
        nonzero += v != 0;
        small |= v != 0 && v < 0x3f000000u;
    }
    st->units += units;
    st->bits |= bits;
    st->nonzero += nonzero;
    st->small |= small;
}

/* Index of the first lane with bit 15 set of `word` (nonzero), the 4
 * entries at p. */
static inline int first_active_lane(uint64_t word, const uint16_t *p)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)p;
    return __builtin_ctzll(word) >> 4;
#else
    (void)word;
    int i = 0;
    while (!(p[i] & ACTIVE))
        i++;
    return i;
#endif
}

/* The first column >= j of the band row b[0..n) that is ACTIVE, else n. */
static inline int next_active(const uint16_t *b, int j, int n)
{
    const uint64_t flags = 0x8000800080008000ull;
    for (; j + 16 <= n; j += 16) {
        uint64_t q[4];
        memcpy(q, b + j, sizeof(q));
        if ((q[0] | q[1] | q[2] | q[3]) & flags) break;
    }
    for (; j + 4 <= n; j += 4) {
        uint64_t q;
        memcpy(&q, b + j, sizeof(q));
        if (q & flags) return j + first_active_lane(q & flags, b + j);
    }
    while (j < n && !(b[j] & ACTIVE))
        j++;
    return j;
}

/* Index of the first nonzero 16-bit lane of `word` (nonzero), the 4
 * entries at p, whose lanes differ from v where the word's do. */
static inline int first_differing_lane(uint64_t word, const uint16_t *p, unsigned v)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)p;
    (void)v;
    return __builtin_ctzll(word) >> 4;
#else
    (void)word;
    int i = 0;
    while (p[i] == v)
        i++;
    return i;
#endif
}

/* The end of the run of entries equal to b[j] that starts at j, at most
 * `most` long, within b[0..n). */
static inline int run_end(const uint16_t *b, int j, int n, int most)
{
    const unsigned v = b[j];
    const uint64_t v4 = v * 0x0001000100010001ull;
    const int end = n - j < most ? n : j + most;
    int e = j + 1;
    for (; e + 4 <= end; e += 4) {
        uint64_t q;
        memcpy(&q, b + e, sizeof(q));
        q ^= v4;
        if (q) return e + first_differing_lane(q, b + e, v);
    }
    while (e < end && b[e] == v)
        e++;
    return e;
}

/* Band row i, its first `cols` columns, from the luma and the mask. */
static inline void band_row(CambiCpu *cpu, const CambiParams *p, unsigned i, unsigned cols)
{
    /* 16-bit compares: every value here is at most 1025. */
    const uint16_t lo = (uint16_t)p->band_lo, size = (uint16_t)(p->band_hi - p->band_lo + 1);
    const uint16_t *restrict img = cpu->img + i * cpu->stride;
    const uint8_t *restrict mask = cpu->mask + i * cpu->stride;
    uint16_t *restrict b = cpu->band + i * cpu->stride;
    const uint16_t alo = cpu->active_lo[0], aspan = cpu->active_span[0];
    for (unsigned j = 0; j < cols; j++) {
        const uint16_t rel = (uint16_t)(img[j] - lo);   /* wraps below the band */
        const uint16_t act = (uint16_t)(img[j] - alo) <= aspan ? ACTIVE : 0;
        b[j] = (uint16_t)(mask[j] && rel < size ? rel | act : NO_ROW);
    }
    for (int k = 1; k < cpu->n_active; k++) {
        const uint16_t klo = cpu->active_lo[k], kspan = cpu->active_span[k];
        for (unsigned j = 0; j < cols; j++) {
            const uint16_t act = (uint16_t)(img[j] - klo) <= kspan ? ACTIVE : 0;
            b[j] = (uint16_t)(b[j] != NO_ROW ? b[j] | act : NO_ROW);
        }
    }
}

/* Columns of a run handled at once: a luma difference whose neighbour
 * counts are all 0 over a chunk adds nothing there (its terms are +0). */
#define C_CHUNK 64
/* Runs shorter than this are done pixel by pixel. */
#ifndef C_SHORT_RUN
#define C_SHORT_RUN 16
#endif

#define EV_SIMD_TEMPLATE "feature/cambi/cambi_simd_tmpl.c"
#define EV_SIMD_AVX512
#include "cpu_builds.h"

/* The loops for one instruction set (cpu.h). */
typedef struct CambiKern {
    void (*load_mask)(CambiCpu *cpu, const VmafPicture *pic, const CambiResample *rs,
                      bool antidither_on, bool decimate);
    void (*decimate)(CambiCpu *cpu, unsigned w, unsigned h);
    void (*mode_filter)(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h, bool band);
    void (*band_image)(CambiCpu *cpu, const CambiParams *p, unsigned cols, unsigned h);
    void (*slide_rows)(CambiCpu *cpu, const Strip *st, int pad, const uint16_t *bo,
                       const uint16_t *bi);
    void (*c_value_row)(float *restrict c, const CambiParams *p, const uint16_t *hist, int hw,
                        const uint16_t *b, int n, CambiPoolStats *st);
} CambiKern;

static const CambiKern *cambi_kern(void)
{
    static const CambiKern c = { load_mask_c, decimate_c, mode_filter_c, band_image_c,
                                 slide_rows_c, c_value_row_c };
#if EV_HAVE_X86_SIMD
    static const CambiKern avx2 = { load_mask_avx2, decimate_avx2, mode_filter_avx2,
                                    band_image_avx2, slide_rows_avx2, c_value_row_avx2 };
    static const CambiKern avx512 = { load_mask_avx512, decimate_avx512, mode_filter_avx512,
                                      band_image_avx512, slide_rows_avx512, c_value_row_avx512 };
    const int isa = ev_cpu_isa();
    if (isa >= EV_ISA_AVX512)
        return &avx512;
    if (isa >= EV_ISA_AVX2)
        return &avx2;
#endif
    return &c;
}

int cambi_cpu_load_mask(CambiCpu *cpu, const VmafPicture *pic, const CambiResample *rs,
                        bool antidither_on, bool decimate)
{
    int err = check_range(pic);
    if (err) return err;
    cambi_kern()->load_mask(cpu, pic, rs, antidither_on, decimate);
    return 0;
}

void cambi_cpu_decimate(CambiCpu *cpu, unsigned w, unsigned h)
{
    cambi_kern()->decimate(cpu, w, h);
}

/* Whether the c-values of a scale w wide take in columns past it. */
static bool narrow_scale(unsigned w, unsigned window)
{
    return w < (window >> 1);
}

void cambi_cpu_mode_filter(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h,
                           unsigned window)
{
    cambi_kern()->mode_filter(cpu, p, w, h,
                              p->band_lo <= p->band_hi && !narrow_scale(w, window));
}

static void c_values_strip(CambiCpu *cpu, const CambiParams *p, const Strip *st,
                           unsigned w, unsigned h, int pad, bool store, bool stats)
{
    const CambiKern *kern = cambi_kern();
    const size_t band = (size_t)(p->band_hi - p->band_lo + 1);
    const int hw = st->x1 - st->x0;
    memset(cpu->hist, 0, band * (size_t)hw * sizeof(*cpu->hist));

    /* The window of row 0 holds rows [0, pad]. */
    for (int r = 0; r <= pad && r < (int)h; r++)
        kern->slide_rows(cpu, st, pad, NULL, cpu->band + (size_t)r * cpu->stride);
    for (int i = 0; i < (int)h; i++) {
        if (i > 0) {
            const int out = i - pad - 1, in = i + pad;
            kern->slide_rows(cpu, st, pad,
                       out >= 0 ? cpu->band + (size_t)out * cpu->stride : NULL,
                             in < (int)h ? cpu->band + (size_t)in * cpu->stride : NULL);
        }
        kern->c_value_row(store ? cpu->c + (size_t)i * w + st->x0 : NULL, p, cpu->hist, hw,
                          cpu->band + (size_t)i * cpu->stride + st->x0, hw,
                          stats ? &cpu->pool : NULL);
    }
}

void cambi_cpu_c_values(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h,
                        unsigned window, bool store, bool stats)
{
    const int pad = (int)(window >> 1);
    memset(&cpu->pool, 0, sizeof(cpu->pool));
    if (p->band_hi < p->band_lo) {
        if (store)
            memset(cpu->c, 0, (size_t)w * h * sizeof(*cpu->c));
        return;
    }
    /* A scale narrower than `pad` also takes in columns [w, pad) of each
     * row, as the reference does: they hold what earlier scales (or
     * nothing: zeros) left there, and each counts for every column. */
    if (narrow_scale(w, window)) {
        const Strip st = { 0, (int)w, 0, pad };
        cambi_kern()->band_image(cpu, p, (unsigned)pad, h);
        c_values_strip(cpu, p, &st, w, h, pad, store, stats);
        return;
    }
    /* The band image is cambi_cpu_mode_filter()'s. */
    const int width = strip_width((size_t)(p->band_hi - p->band_lo + 1), pad);
    const int n = ((int)w + width - 1) / width;
    for (int s = 0; s < n; s++) {
        /* Equal shares, so that no strip is a sliver. */
        Strip st = { (int)((int64_t)w * s / n), (int)((int64_t)w * (s + 1) / n), 0, 0 };
        st.in0 = st.x0 - pad > 0 ? st.x0 - pad : 0;
        st.in1 = st.x1 + pad < (int)w ? st.x1 + pad : (int)w;
        c_values_strip(cpu, p, &st, w, h, pad, store, stats);
    }
}
