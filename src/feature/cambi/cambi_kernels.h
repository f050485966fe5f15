/*
 * CAMBI's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * cambi_cuda.cu and cambi_opencl.cl include it, the host side is
 * cambi_gpu.c). The stages of cambi_cpu.c, out of place: picture -> 10-bit
 * luma (resampled, anti-dithered), the zero-derivative mask, per scale
 * decimation, 3x3 mode filter and the band image, then the c-values from
 * window counts. Everything up to the c-values is integer work; each
 * c-value is cambi_arith.h's fp32 term, the same operations as the CPU.
 * The images share one pitch P (samples per row); c-values are packed w
 * per row, scale after scale.
 */
#include "fp.h"
#include "feature/cambi/cambi_arith.h"

/* A band value for a pixel that is never counted (unmasked, outside the band). */
#define CAMBI_NO_ROW 0xffff
/* Band values whose window counts a group keeps at once (local memory:
 * CAMBI_CV_CAP * CAMBI_CV_COLS counts of 16 bits). */
#define CAMBI_CV_CAP 256
/* Widest half window: windows up to 65 (CAMBI_RCP_SIZE). */
#define CAMBI_MAX_PAD 32

/* ---- Picture -> 10-bit luma ---- */

/* A sample of bpc bits as 10 bits. */
EV_FN unsigned cambi_to10(unsigned v, int bpc)
{
    return bpc == 8 ? cambi_from_8bit(v) : bpc == 9 ? cambi_from_9bit(v) : cambi_from_hbd(v, bpc - 10);
}

/* Sample (r, c) of the processing image, through the resampling tables. */
#define CAMBI_CONV(T)                                                                       \
    EV_FN unsigned cambi_conv_##T(EV_GPTR(const T) pic, int pw, EV_GPTR(const uint32_t) xs, \
                                  EV_GPTR(const uint32_t) ys, int r, int c, int bpc)        \
    {                                                                                       \
        return cambi_to10(pic[(size_t)ys[r] * (size_t)pw + (size_t)xs[c]], bpc);            \
    }
CAMBI_CONV(uint8_t)
CAMBI_CONV(uint16_t)

/*
 * img (w x h, pitch p) = the converted picture; with antidither the mean
 * of each 2x2 block (of two on the last row and column), from the
 * converted samples: the CPU's in-place pass reads only originals.
 */
#define CAMBI_LOAD(NAME, T)                                                                  \
    EV_KERNEL NAME(EV_BUF(const T, pic), int pw, EV_BUF(const uint32_t, xs),                 \
                   EV_BUF(const uint32_t, ys), int w, int h, int bpc, int antidither,        \
                   EV_BUF(uint16_t, img), int p)                                             \
    {                                                                                        \
        const int j = ev_gid(0), i = ev_gid(1);                                              \
        if (j >= w || i >= h) return;                                                        \
        EV_GPTR(const T) s = EV_AT(const T, pic);                                            \
        EV_GPTR(const uint32_t) x = EV_AT(const uint32_t, xs);                               \
        EV_GPTR(const uint32_t) y = EV_AT(const uint32_t, ys);                               \
        const unsigned a = cambi_conv_##T(s, pw, x, y, i, j, bpc);                         \
        unsigned v = a;                                                                      \
        if (antidither) {                                                                    \
            const int right = j + 1 < w, below = i + 1 < h;                                  \
            if (below && right)                                                              \
                v = cambi_avg4(a, cambi_conv_##T(s, pw, x, y, i, j + 1, bpc),              \
                               cambi_conv_##T(s, pw, x, y, i + 1, j, bpc),                 \
                               cambi_conv_##T(s, pw, x, y, i + 1, j + 1, bpc));            \
            else if (below)                                                                  \
                v = cambi_avg2(a, cambi_conv_##T(s, pw, x, y, i + 1, j, bpc));             \
            else if (right)                                                                  \
                v = cambi_avg2(a, cambi_conv_##T(s, pw, x, y, i, j + 1, bpc));             \
        }                                                                                    \
        EV_AT(uint16_t, img)[(size_t)i * (size_t)p + (size_t)j] = (uint16_t)v;               \
    }
CAMBI_LOAD(cambi_k_load_u8, uint8_t)
CAMBI_LOAD(cambi_k_load_u16, uint16_t)

/* flag += samples of the whole plane above max (9..15-bit pictures, as the CPU checks). */
EV_KERNEL cambi_k_range(EV_BUF(const uint16_t, pic), int w, int h, unsigned max,
                        EV_BUF(uint32_t, flag))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (j >= w || i >= h) return;
    if (EV_AT(const uint16_t, pic)[(size_t)i * (size_t)w + (size_t)j] > max)
        ev_atomic_add_u32(EV_AT(uint32_t, flag), 1u);
}

/* ---- Spatial mask ---- */

/* 1 where a pixel equals its right and lower neighbours (a missing one counts as equal). */
EV_FN unsigned cambi_deriv(EV_GPTR(const uint16_t) img, int p, int w, int h, int i, int j)
{
    const uint16_t v = img[(size_t)i * (size_t)p + (size_t)j];
    const unsigned right = j + 1 < w ? v == img[(size_t)i * (size_t)p + (size_t)j + 1] : 1u;
    const unsigned below = i + 1 < h ? v == img[(size_t)(i + 1) * (size_t)p + (size_t)j] : 1u;
    return right & below;
}

/* cs = column sums of the zero-derivative flags over rows i - 3 .. i + 3 (inside the image). */
EV_KERNEL cambi_k_mask_cols(EV_BUF(const uint16_t, img), int p, int w, int h,
                            EV_BUF(uint8_t, cs))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (j >= w || i >= h) return;
    EV_GPTR(const uint16_t) s = EV_AT(const uint16_t, img);
    const int rad = CAMBI_MASK_FILTER_SIZE / 2;
    unsigned n = 0;
    for (int r = i - rad; r <= i + rad; r++)
        if (r >= 0 && r < h) n += cambi_deriv(s, p, w, h, r, j);
    EV_AT(uint8_t, cs)[(size_t)i * (size_t)p + (size_t)j] = (uint8_t)n;
}

/* mask = 7x7 count of zero-derivative pixels (zero outside the image) above thr. */
EV_KERNEL cambi_k_mask_rows(EV_BUF(const uint8_t, cs), int p, int w, int h, unsigned thr,
                            EV_BUF(uint8_t, mask))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (j >= w || i >= h) return;
    EV_GPTR(const uint8_t) s = EV_AT(const uint8_t, cs) + (size_t)i * (size_t)p;
    const int rad = CAMBI_MASK_FILTER_SIZE / 2;
    unsigned n = 0;
    for (int c = j - rad; c <= j + rad; c++)
        if (c >= 0 && c < w) n += s[c];
    EV_AT(uint8_t, mask)[(size_t)i * (size_t)p + (size_t)j] = (uint8_t)(n > thr);
}

/* ---- Scales ---- */

/* Horizontal mode at (r, j) of the scale whose sample (r, c) is s[step r][step c];
 * the first and last columns keep their value. */
EV_FN uint16_t cambi_hmode(EV_GPTR(const uint16_t) s, int p, int step, int w, int r, int j)
{
    EV_GPTR(const uint16_t) row = s + (size_t)(step * r) * (size_t)p;
    const uint16_t v = row[step * j];
    return j >= 1 && j + 1 < w ? cambi_mode3(row[step * (j - 1)], v, row[step * (j + 1)]) : v;
}

/*
 * One scale, w x h: its samples are every step-th row and column of img
 * (the previous scale's filtered image, or the loaded one; step 1 or 2, the
 * CPU's decimation read in place), its mask every mstep-th of the spatial
 * mask (the decimations compose). The 3x3 separable mode filter (rows 0 and
 * h - 1 keep their values) goes to img_out, and the band image: the count
 * row of each pixel (value - band_lo) where it is masked and inside the
 * band, else CAMBI_NO_ROW.
 */
EV_KERNEL cambi_k_mode(EV_BUF(const uint16_t, img), int step, EV_BUF(const uint8_t, mask),
                       int mstep, int p, int w, int h, int band_lo, int band_size,
                       EV_BUF(uint16_t, img_out), EV_BUF(uint16_t, band))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (j >= w || i >= h) return;
    EV_GPTR(const uint16_t) s = EV_AT(const uint16_t, img);
    const uint16_t v = i >= 1 && i + 1 < h
                           ? cambi_mode3(cambi_hmode(s, p, step, w, i - 1, j),
                                         cambi_hmode(s, p, step, w, i, j),
                                         cambi_hmode(s, p, step, w, i + 1, j))
                           : s[(size_t)(step * i) * (size_t)p + (size_t)(step * j)];
    const size_t o = (size_t)i * (size_t)p + (size_t)j;
    EV_AT(uint16_t, img_out)[o] = v;
    const unsigned rel = (unsigned)((int)v - band_lo);
    const uint8_t m = EV_AT(const uint8_t, mask)[(size_t)(mstep * i) * (size_t)p + (size_t)(mstep * j)];
    EV_AT(uint16_t, band)[o] = (uint16_t)(m && rel < (unsigned)band_size ? rel : CAMBI_NO_ROW);
}

/* ---- c-values ---- */

/*
 * Window counts of one group: item t owns column x0 + t of a strip of
 * CAMBI_CV_COLS columns and keeps, for the band values [base, base +
 * CAMBI_CV_CAP), the count of pixels of that value in its window over the
 * current row. CAMBI_SLIDE moves the window down: the rows leaving and
 * entering it are staged in local memory; a column whose leaving and
 * entering pixels count for the same value changes nothing (as on the
 * CPU). Counts are exact integers.
 */
/* Entries of one staged row. */
#define CAMBI_STAGE (CAMBI_CV_COLS + 2 * CAMBI_MAX_PAD)
#define CAMBI_SLIDE(row_out, row_in)                                                       \
    do {                                                                                    \
        for (int k = t; k < n_stage; k += CAMBI_CV_COLS) {                                  \
            const int cc = x0 - pad + k;                                                    \
            const int in_w = cc >= 0 && cc < w;                                             \
            stage[k] = in_w && (row_out) >= 0 && (row_out) < h                              \
                           ? b[(size_t)(row_out) * (size_t)p + (size_t)cc]                  \
                           : (uint16_t)CAMBI_NO_ROW;                                        \
            stage[CAMBI_STAGE + k] = in_w && (row_in) >= 0 && (row_in) < h                  \
                                         ? b[(size_t)(row_in) * (size_t)p + (size_t)cc]     \
                                         : (uint16_t)CAMBI_NO_ROW;                          \
        }                                                                                   \
        ev_barrier();                                                                       \
        for (int k = 0; k <= 2 * pad; k++) {                                                \
            const int va = stage[t + k], vb = stage[CAMBI_STAGE + t + k];                   \
            const unsigned ia = (unsigned)(va - base), ib = (unsigned)(vb - base);          \
            if (va != vb && va != CAMBI_NO_ROW && ia < CAMBI_CV_CAP)                        \
                hist[ia * CAMBI_CV_COLS + t] = (uint16_t)(hist[ia * CAMBI_CV_COLS + t] - 1u); \
            if (va != vb && vb != CAMBI_NO_ROW && ib < CAMBI_CV_CAP)                        \
                hist[ib * CAMBI_CV_COLS + t] = (uint16_t)(hist[ib * CAMBI_CV_COLS + t] + 1u); \
        }                                                                                   \
        ev_barrier();                                                                       \
    } while (0)

/*
 * c-values of the rows [seg * rows, seg * rows + rows) of a strip of
 * CAMBI_CV_COLS columns (one group, groups of CAMBI_CV_COLS x 1). The
 * counts a pixel of band value v reads are those of v and v +- (d + 1),
 * d < nd; a pass keeps the counts of the values [ra - nd, rb + nd] and
 * computes the pixels whose value is in [ra, rb], ra the smallest value
 * not yet done. Most strips need one pass. c holds +0 beforehand (the
 * pixels no pass computes: inactive ones).
 */
EV_KERNEL cambi_k_c_values(EV_BUF(const uint16_t, band), int p, int w, int h, int pad,
                           int rows, int band_lo, int nd, EV_BUF(const uint32_t, active),
                           EV_BUF(const int, weight), EV_BUF(const float, rcp),
                           EV_BUF(float, c))
{
    EV_LOCAL uint16_t hist[CAMBI_CV_CAP * CAMBI_CV_COLS];
    EV_LOCAL uint16_t stage[2 * CAMBI_STAGE];
    EV_LOCAL int low[CAMBI_CV_COLS];
    EV_GPTR(const uint16_t) b = EV_AT(const uint16_t, band);
    EV_GPTR(const uint32_t) act_of = EV_AT(const uint32_t, active) + band_lo;
    EV_GPTR(const int) wt = EV_AT(const int, weight);
    EV_GPTR(const float) rc = EV_AT(const float, rcp);
    EV_GPTR(float) out = EV_AT(float, c);
    const int t = ev_lid(0), x0 = ev_grp(0) * CAMBI_CV_COLS, x = x0 + t;
    const int i0 = ev_grp(1) * rows, i1 = i0 + rows < h ? i0 + rows : h;
    const int n_stage = CAMBI_CV_COLS + 2 * pad, none = 0x7fffffff;
    int start = 0, ra = 0;
    while (ra != none) {
        /* The smallest active value >= start among the strip's pixels. */
        int lo = none;
        for (int i = i0; x < w && i < i1; i++) {
            const int v = b[(size_t)i * (size_t)p + (size_t)x];
            if (v != CAMBI_NO_ROW && v >= start && v < lo && act_of[v]) lo = v;
        }
        low[t] = lo;
        ev_barrier();
        ra = none;
        for (int k = 0; k < CAMBI_CV_COLS; k++) ra = low[k] < ra ? low[k] : ra;
        ev_barrier();
        /* ra is the group's: every item takes the same branch and meets the same barriers. */
        if (ra != none) {
            const int rb = ra + CAMBI_CV_CAP - 2 * nd - 1, base = ra - nd;
            for (int s = 0; s < CAMBI_CV_CAP; s++) hist[s * CAMBI_CV_COLS + t] = 0;
            /* The window of row i0 holds rows [i0 - pad, i0 + pad]. */
            for (int r = i0 - pad; r <= i0 + pad; r++) CAMBI_SLIDE(-1, r);
            for (int i = i0; i < i1; i++) {
                if (i > i0) CAMBI_SLIDE(i - pad - 1, i + pad);
                const int v = x < w ? b[(size_t)i * (size_t)p + (size_t)x] : CAMBI_NO_ROW;
                const uint32_t act = v != CAMBI_NO_ROW && v >= ra && v <= rb ? act_of[v] : 0u;
                if (!act) continue;
                const int p0 = hist[(v - base) * CAMBI_CV_COLS + t];
                float best = 0.0f;
                for (int d = 0; d < nd; d++) {
                    if (!(act >> d & 1u)) continue;
                    const int p1 = hist[(v + d + 1 - base) * CAMBI_CV_COLS + t];
                    const int p2 = v - d - 1 >= 0 ? hist[(v - d - 1 - base) * CAMBI_CV_COLS + t] : 0;
                    const int pm = p1 > p2 ? p1 : p2;
                    const float val = cambi_c_term_r(wt[d], p0, pm, rc[p0 + pm]);
                    best = val > best ? val : best;
                }
                out[(size_t)i * (size_t)w + (size_t)x] = best;
            }
            start = rb + 1;
        }
    }
}

/* ---- Pooling ---- */

/*
 * The top k c-values of each scale, the scale as grid row y (meta: c
 * offset, count n and k per scale). The k-th largest value T is found on
 * the bits, which order non-negative floats: 11, 10 and 10 bits at a time,
 * each pass a histogram of the candidates (cambi_k_pool_hist, groups of
 * CAMBI_POOL_ITEMS over chunks of CAMBI_POOL_CHUNK values); every group of
 * a later pass first picks, from the earlier passes' histograms, the bins
 * that hold the k-th (cambi_pool_select; all groups find the same).
 * cambi_k_pool_sum then
 * takes the count, the exact sum and the granularity of the values above
 * T: a c-value x >= 0.5 is a whole number of units of 2^-24
 * (cambi_pool_units()); below 0.5 it is counted apart. Every total is an
 * integer, so no order of the atomics changes it. The host decides whether
 * the reference's ordered fp64 sum equals this exact one (cambi_gpu.c).
 *
 * Per scale, CAMBI_POOL_STRIDE words of `st` (zeroed before the first
 * pass): the histograms, then the CAMBI_POOL_* words (cambi_arith.h).
 */
/*
 * A pooling group's scale (grid row) and chunk: s its state, key its
 * c-values, [first, last) the chunk's. No early return before the
 * barriers: a group past the scale's end has an empty chunk.
 */
#define CAMBI_POOL_GROUP(meta, c, st)                                                     \
    EV_GPTR(const uint32_t) m = EV_AT(const uint32_t, meta) + 3 * ev_grp(1);              \
    EV_GPTR(uint32_t) s = EV_AT(uint32_t, st) + (size_t)ev_grp(1) * CAMBI_POOL_STRIDE;    \
    EV_GPTR(const uint32_t) key = EV_AT(const uint32_t, c) + m[0];                        \
    const uint32_t n = m[1], first = (uint32_t)ev_grp(0) * CAMBI_POOL_CHUNK;              \
    const uint32_t last = first >= n ? first                                              \
                          : first + CAMBI_POOL_CHUNK < n ? first + CAMBI_POOL_CHUNK : n

EV_FN int cambi_pool_width(int pass)
{
    return pass ? 10 : 11;
}

EV_FN int cambi_pool_shift(int pass)
{
    return 20 - 10 * pass;
}

/* Where pass p's histogram starts in a scale's state. */
EV_FN int cambi_pool_hist_at(int pass)
{
    return pass ? 2048 + 1024 * (pass - 1) : 0;
}

/*
 * The bits the select has fixed after `passes` passes (prefix) and the
 * rank of the k-th largest among the candidates that share them, from the
 * histograms in s; every item of the group gets them. Item t sums its
 * share of each histogram's bins from the top; item 0 walks the shares,
 * then the bins of the share that reaches the rank.
 */
EV_GROUP_FN void cambi_pool_select(EV_GPTR(const uint32_t) s, int passes, uint32_t k,
                             EV_LPTR(uint32_t) share, EV_LPTR(uint32_t) pick, uint32_t *prefix,
                             uint32_t *rank)
{
    const int t = ev_lid(0);
    *prefix = 0;
    *rank = k;
    for (int p = 0; p < passes; p++) {
        EV_GPTR(const uint32_t) h = s + cambi_pool_hist_at(p);
        const uint32_t bins = 1u << cambi_pool_width(p), per = bins / CAMBI_POOL_ITEMS;
        uint32_t sum = 0;
        for (uint32_t b = 0; b < per; b++) sum += h[bins - 1u - (uint32_t)t * per - b];
        share[t] = sum;
        ev_barrier();
        if (!t) {
            uint32_t above = 0, q = 0;
            while (q + 1 < CAMBI_POOL_ITEMS && above + share[q] < *rank) above += share[q++];
            uint32_t b = bins - 1u - q * per;
            for (uint32_t i = 0; i + 1 < per && above + h[b] < *rank; i++) above += h[b--];
            pick[0] = b;
            pick[1] = *rank - above;
        }
        ev_barrier();
        *prefix = (*prefix << cambi_pool_width(p)) | pick[0];
        *rank = pick[1];
        ev_barrier();
    }
}

EV_KERNEL cambi_k_pool_hist(EV_BUF(const uint32_t, c), EV_BUF(const uint32_t, meta), int pass,
                            EV_BUF(uint32_t, st))
{
    EV_LOCAL uint32_t hist[2048];
    EV_LOCAL uint32_t scratch[CAMBI_POOL_ITEMS];
    EV_LOCAL uint32_t pick[2];
    const int t = ev_lid(0);
    CAMBI_POOL_GROUP(meta, c, st);
    const int width = cambi_pool_width(pass), shift = cambi_pool_shift(pass);
    uint32_t prefix, rank;
    cambi_pool_select(s, pass, m[2], scratch, pick, &prefix, &rank);
    const uint32_t bins = 1u << width;
    EV_GPTR(uint32_t) out = s + cambi_pool_hist_at(pass);
    for (uint32_t b = (uint32_t)t; b < bins; b += CAMBI_POOL_ITEMS) hist[b] = 0;
    ev_barrier();
    uint32_t zeros = 0;
    for (uint32_t i = first + (uint32_t)t; i < last; i += CAMBI_POOL_ITEMS) {
        const uint32_t v = key[i];
        if ((v >> (shift + width)) != prefix) continue;
        /* Most c-values are +0: counted apart, not by atomics on one bin. */
        if (!v) zeros++;
        else ev_atomic_add_local_u32(&hist[(v >> shift) & (bins - 1u)], 1u);
    }
    zeros = ev_group_sum_u32(zeros, scratch);
    if (!t && zeros) ev_atomic_add_u32(out, zeros);
    for (uint32_t b = (uint32_t)t; b < bins; b += CAMBI_POOL_ITEMS)
        if (hist[b]) ev_atomic_add_u32(out + b, hist[b]);
}

/* Count, exact sum and granularity (a count per trailing-zero count) of the values above T. */
EV_KERNEL cambi_k_pool_sum(EV_BUF(const uint32_t, c), EV_BUF(const uint32_t, meta),
                           EV_BUF(uint32_t, st))
{
    EV_LOCAL uint64_t scratch[CAMBI_POOL_ITEMS];
    EV_LOCAL uint32_t pick[2];
    const int t = ev_lid(0);
    CAMBI_POOL_GROUP(meta, c, st);
    uint32_t tkey, rank;
    cambi_pool_select(s, 3, m[2], (EV_LPTR(uint32_t))scratch, pick, &tkey, &rank);
    if (!t && !ev_grp(0)) s[CAMBI_POOL_T] = tkey;
    uint32_t count = 0, small = 0, tz = 64;
    uint64_t sum = 0;
    for (uint32_t i = first + (uint32_t)t; i < last; i += CAMBI_POOL_ITEMS) {
        const uint32_t v = key[i];
        if (v <= tkey) continue;
        count++;
        if (v < 0x3f000000u) {  /* below 0.5f */
            small++;
            continue;
        }
        const uint64_t u = cambi_pool_units(v);
        sum += u;
        const uint32_t z = cambi_pool_tz(u);
        tz = z < tz ? z : tz;
    }
    count = ev_group_sum_u32(count, (EV_LPTR(uint32_t))scratch);
    small = ev_group_sum_u32(small, (EV_LPTR(uint32_t))scratch);
    sum = ev_group_sum_u64(sum, scratch);
    /* The group's finest granularity: the smallest tz of its items. */
    ev_barrier();
    scratch[t] = tz;
    ev_barrier();
    for (int w = CAMBI_POOL_ITEMS / 2; w > 0; w >>= 1) {
        if (t < w && scratch[t + w] < scratch[t]) scratch[t] = scratch[t + w];
        ev_barrier();
    }
    if (!t) {
        if (count) ev_atomic_add_u32(s + CAMBI_POOL_COUNT, count);
        if (small) ev_atomic_add_u32(s + CAMBI_POOL_SMALL, small);
        if (sum) ev_atomic_add_u64(s + CAMBI_POOL_SUM, sum);
        if (scratch[0] < 64) ev_atomic_add_u32(s + CAMBI_POOL_TZ + scratch[0], 1u);
    }
}
