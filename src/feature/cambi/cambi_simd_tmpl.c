/*
 * CAMBI's loops (cambi_cpu.c), built once per instruction set
 * (src/simd.h): plain C that the compiler vectorises; integer work and
 * unfused fp32 products, so every build gives the same bits.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cambi_arith.h"
#include "cambi_kern.h"

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
/*
 * One step of the spatial mask's 7x7 window, down the rows: zero-derivative
 * row t (if t < h) enters the column sums, row t - 7 (if any) leaves them,
 * and mask row t - 3 (if any) is written: whole, or with `decimate` only
 * its even columns and only if the row is even, at half its index. A
 * column sum is at most 7 and a window's sum at most 49: bytes.
 */
static inline void mask_step(CambiCpu *cpu, int t, unsigned w, unsigned h, unsigned thr,
                                  bool decimate)
{
    const int rad = CAMBI_MASK_FILTER_SIZE / 2;
    const int span = CAMBI_MASK_FILTER_SIZE;
    uint8_t *restrict cs = cpu->colsum;   /* cs[j + rad] = column sum of column j */
    if (t < (int)h) {
        const uint8_t *restrict d = cpu->deriv + (size_t)(t & 7) * cpu->stride;
        for (size_t j = 0; j < w; j++)
            cs[j + rad] = (uint8_t)(cs[j + rad] + d[j]);
    }
    if (t >= span && t - span < (int)h) {
        const uint8_t *restrict d = cpu->deriv + (size_t)((t - span) & 7) * cpu->stride;
        for (size_t j = 0; j < w; j++)
            cs[j + rad] = (uint8_t)(cs[j + rad] - d[j]);
    }
    const int o = t - rad;
    if (o < 0 || (decimate && (o & 1))) return;
    uint8_t *restrict m = decimate ? cpu->mrow : cpu->mask + (size_t)o * cpu->stride;
    const uint8_t limit = (uint8_t)thr;
    for (size_t j = 0; j < w; j++) {
        const uint8_t sum = (uint8_t)(cs[j] + cs[j + 1] + cs[j + 2] + cs[j + 3] + cs[j + 4] +
                                      cs[j + 5] + cs[j + 6]);
        m[j] = (uint8_t)(sum > limit);
    }
    if (decimate) {
        uint8_t *restrict dm = cpu->mask + (size_t)(o >> 1) * cpu->stride;
        for (size_t j = 0; j < (w + 1) >> 1; j++)
            dm[j] = m[2 * j];
    }
}

/* Full-size luma row r: in img, or decimating in the ring of three. */
static inline uint16_t *luma_row(CambiCpu *cpu, int r, bool decimate)
{
    return decimate ? cpu->ring + (size_t)(r % 3) * cpu->stride
                    : cpu->img + (size_t)r * cpu->stride;
}

/*
 * Luma -> 10 bits, anti-dithered, and its spatial mask, in one pass down
 * the rows: row t is loaded, row t - 1 anti-dithered (it reads the original
 * row t), and the zero derivatives of a row taken once it and the row below
 * are final. With `decimate`, only every other row and column of the luma
 * and the mask is kept (the high-res speed-up's first step): the full rows
 * go through a ring of three, the mask rows through a scratch row.
 * Without, the luma and the mask are written whole at w x h.
 */
static void load_mask(CambiCpu *cpu, const VmafPicture *pic, const CambiResample *rs,
                           bool antidither_on, bool decimate)
{
    const bool same = rs->in_w == rs->out_w && rs->in_h == rs->out_h;
    const unsigned w = rs->out_w, h = rs->out_h, w2 = (w + 1) >> 1;
    const unsigned thr = cambi_mask_threshold(w, h);
    const int rad = CAMBI_MASK_FILTER_SIZE / 2;
    memset(cpu->colsum, 0, w + 2 * rad);
    int next = 0;   /* the next row whose zero derivatives are to be taken */
    for (int t = 0; t < (int)h; t++) {
        uint16_t *row = luma_row(cpu, t, decimate);
        convert_row(pic, same ? (unsigned)t : rs->y[t], same ? NULL : rs->x, w, row);
        if (antidither_on && t > 0)
            antidither_row(luma_row(cpu, t - 1, decimate), row, w);
        if (antidither_on && t == (int)h - 1)
            antidither_last_row(row, w);
        /* Rows before `final` are final: all of them once the last is in. */
        const int final = t == (int)h - 1 ? (int)h : t;
        for (; next < final && (next + 1 < final || final == (int)h); next++) {
            const uint16_t *r = luma_row(cpu, next, decimate);
            const uint16_t *below = next + 1 < (int)h ? luma_row(cpu, next + 1, decimate)
                                                      : NULL;
            derivative_row(r, below, w, cpu->deriv + (size_t)(next & 7) * cpu->stride);
            if (decimate && !(next & 1)) {
                uint16_t *restrict di = cpu->img + (size_t)(next >> 1) * cpu->stride;
                for (size_t j = 0; j < w2; j++)
                    di[j] = r[2 * j];
            }
            mask_step(cpu, next, w, h, thr, decimate);
        }
    }
    for (int t = (int)h; t < (int)h + rad; t++)
        mask_step(cpu, t, w, h, thr, decimate);
}

static void decimate(CambiCpu *cpu, unsigned w, unsigned h)
{
    /* In place. Row 0 reads its own columns 2j >= j, ahead of the writes;
     * every other row i reads row 2i, a different row. */
    for (unsigned j = 0; j < w; j++) {
        cpu->img[j] = cpu->img[2 * j];
        cpu->mask[j] = cpu->mask[2 * j];
    }
    for (unsigned i = 1; i < h; i++) {
        const uint16_t *restrict si = cpu->img + 2 * i * cpu->stride;
        uint16_t *restrict di = cpu->img + i * cpu->stride;
        for (size_t j = 0; j < w; j++)
            di[j] = si[2 * j];
        const uint8_t *restrict sm = cpu->mask + 2 * i * cpu->stride;
        uint8_t *restrict dm = cpu->mask + i * cpu->stride;
        for (size_t j = 0; j < w; j++)
            dm[j] = sm[2 * j];
    }
}

/*
 * With `band`, the band image of each row once it is final (its first
 * `w` columns: see cambi_cpu_c_values()).
 */
static void mode_filter(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h,
                             bool band)
{
    /* Horizontal modes of the last three rows; row i - 1 is rewritten once
     * row i's horizontal mode exists, from rows i - 2, i - 1 and i, whose
     * originals are no longer needed. The first and last rows and columns
     * keep their values in each pass. */
    for (unsigned i = 0; i < h; i++) {
        const uint16_t *restrict in = cpu->img + i * cpu->stride;
        uint16_t *restrict hm = cpu->rows + (size_t)(i % 3) * cpu->alloc_w;
        hm[0] = in[0];
        for (unsigned j = 1; j + 1 < w; j++)
            hm[j] = cambi_mode3(in[j - 1], in[j], in[j + 1]);
        hm[w - 1] = in[w - 1];
        if (band && i == 0)
            band_row(cpu, p, 0, w);
        if (i < 2) continue;
        const uint16_t *restrict a = cpu->rows, *restrict b = cpu->rows + cpu->alloc_w,
                                 *restrict c = cpu->rows + 2 * (size_t)cpu->alloc_w;
        uint16_t *restrict out = cpu->img + (i - 1) * cpu->stride;
        for (unsigned j = 0; j < w; j++)
            out[j] = cambi_mode3(a[j], b[j], c[j]);
        if (band)
            band_row(cpu, p, i - 1, w);
    }
    if (band && h > 1)
        band_row(cpu, p, h - 1, w);
}

static void band_image(CambiCpu *cpu, const CambiParams *p, unsigned cols, unsigned h)
{
    for (unsigned i = 0; i < h; i++)
        band_row(cpu, p, i, cols);
}

/*
 * Move the window down: band row `bo` (if not NULL) leaves it and `bi` (if
 * not NULL) enters it. A column whose leaving and entering pixels count for
 * the same value changes nothing; the other pixels are counted in runs of
 * equal value.
 */
static void slide_rows(CambiCpu *cpu, const Strip *st, int pad, const uint16_t *bo,
                            const uint16_t *bi)
{
    const size_t hw = (size_t)(st->x1 - st->x0);
    const int n = st->in1 - st->in0;
    uint16_t *restrict eo = cpu->events, *restrict ei = cpu->events + cpu->stride;
    if (bo && bi) {
        const uint16_t *restrict po = bo + st->in0, *restrict pi = bi + st->in0;
        unsigned any = 0;
        for (int k = 0; k < n; k++) {
            const unsigned same = po[k] == pi[k];
            eo[k] = (uint16_t)(same ? NO_ROW : po[k]);
            ei[k] = (uint16_t)(same ? NO_ROW : pi[k]);
            any |= !same;
        }
        if (!any) return;
        count_runs(cpu->hist, hw, st, pad, eo, cpu->flags, n, st->in0, 0xffff);
        count_runs(cpu->hist, hw, st, pad, ei, cpu->flags, n, st->in0, 1);
    } else if (bo) {
        count_runs(cpu->hist, hw, st, pad, bo + st->in0, cpu->flags, n, st->in0, 0xffff);
    } else if (bi) {
        count_runs(cpu->hist, hw, st, pad, bi + st->in0, cpu->flags, n, st->in0, 1);
    }
}

/*
 * c-values of n pixels of a row from their band row `b` and the counts
 * hist[v * hw + k], into c (all n of them) or, when c is NULL, only into
 * the pooling statistics st. Pixels are taken in runs of equal value, which
 * read the same count rows at consecutive columns: each luma difference is
 * then one pass over (a chunk of) the run that GCC vectorises.
 */
static void c_value_row(float *restrict c, const CambiParams *p, const uint16_t *hist,
                             int hw, const uint16_t *b, int n, CambiPoolStats *st)
{
    const int nd = p->num_diffs;
    const float *restrict rcp = p->rcp;
    const uint32_t *active = p->active + p->band_lo;
    float scratch[C_CHUNK];
    /* Most pixels are not active: their c-value is the +0 written here. */
    if (c) {
        for (int k = 0; k < n; k++)
            c[k] = 0.0f;
    }
    int j = 0;
    for (;;) {
        j = next_active(b, j, n);
        if (j >= n) break;
        const unsigned bj = b[j], rel = ROW_OF(bj);
        const uint32_t act = active[rel];
        const int e = run_end(b, j, n, C_CHUNK);
        /* Active implies that u + d + 1 is in the band, and u - d - 1 too
         * when >= band_lo (below, the reference counts 0). */
        const int len = e - j;
        const uint16_t *restrict h0 = hist + (size_t)rel * hw + j;
        float *restrict cr = c ? c + j : scratch;
        if (len < C_SHORT_RUN) {
            /* Too short for vectors to pay off: pixel by pixel. */
            for (int k = 0; k < len; k++) {
                const int p0 = h0[k];
                float best = 0.0f;
                for (int d = 0; d < nd; d++) {
                    if (!(act >> d & 1)) continue;
                    const int p1 = h0[k + (d + 1) * (size_t)hw];
                    const int p2 = (int)rel - d - 1 >= 0 ? h0[k - (d + 1) * (ptrdiff_t)hw] : 0;
                    const float val = cambi_c_term(p->weight[d], p0, p1 > p2 ? p1 : p2, rcp);
                    best = val > best ? val : best;
                }
                cr[k] = best;
            }
            pool_stats_add(st, cr, len);
            j = e;
            continue;
        }
        /* A difference whose neighbour counts are all 0 over the run adds
         * nothing there (its terms are +0); mostly none has any. */
        uint16_t seen[C_CHUNK] = { 0 };
        for (int d = 0; d < nd; d++) {
            if (!(act >> d & 1)) continue;
            const uint16_t *restrict h1 = hist + (rel + d + 1) * (size_t)hw + j;
            for (int k = 0; k < len; k++)
                seen[k] |= h1[k];
            if ((int)rel - d - 1 < 0) continue;
            const uint16_t *restrict h2 = hist + (rel - d - 1) * (size_t)hw + j;
            for (int k = 0; k < len; k++)
                seen[k] |= h2[k];
        }
        uint16_t seen_any = 0;
        for (int k = 0; k < C_CHUNK; k++)
            seen_any |= seen[k];
        if (!seen_any) {
            /* c-values of +0: written above, if stored at all. */
            j = e;
            continue;
        }
        for (int k = 0; k < len; k++)
            cr[k] = 0.0f;
        for (int d = 0; d < nd; d++) {
            if (!(act >> d & 1)) continue;
            const int weight = p->weight[d];
            const uint16_t *restrict h1 = hist + (rel + d + 1) * (size_t)hw + j;
            const uint16_t *restrict h2 = (int)rel - d - 1 >= 0
                                              ? hist + (rel - d - 1) * (size_t)hw + j
                                              : NULL;
            uint16_t any = 0;
            for (int k = 0; k < len; k++)
                any |= h1[k];
            if (h2) {
                for (int k = 0; k < len; k++)
                    any |= h2[k];
            }
            if (!any) continue;
            if (h2) {
                for (int k = 0; k < len; k++) {
                    const int p0 = h0[k];
                    const int pm = h1[k] > h2[k] ? h1[k] : h2[k];
                    const float val = cambi_c_term(weight, p0, pm, rcp);
                    cr[k] = val > cr[k] ? val : cr[k];
                }
            } else {
                for (int k = 0; k < len; k++) {
                    const float val = cambi_c_term(weight, h0[k], h1[k], rcp);
                    cr[k] = val > cr[k] ? val : cr[k];
                }
            }
        }
        pool_stats_add(st, cr, len);
        j = e;
    }
}

const CambiKern EV_SIMD_NAME(cambi_kern) = { load_mask, decimate, mode_filter, band_image,
                                              slide_rows, c_value_row };
