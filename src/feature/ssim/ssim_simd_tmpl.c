/*
 * The SSIM engine's loops (ssim_cpu.c), built once per instruction set:
 * ssim_cpu.c includes this file at its end with KFN(name) naming each
 * build; the static inline helpers above the inclusion are inlined into
 * each build. ssim_host.h says what each computes.
 */

static void KFN(engine_means)(const SsimEngine *e, const float *ref, const float *cmp,
                              size_t stride, int w, int h, SsimMeans *out)
{
    const SsimConst k = ssim_const();
    const int wv = w - (SSIM_WIN - 1), hv = h - (SSIM_WIN - 1);
    const size_t st = e->row_stride;
    float *ring[Q_COUNT];
    for (int q = 0; q < Q_COUNT; q++)
        ring[q] = e->ring + (size_t)q * SSIM_WIN * st;

    SsimSums sums = { 0.0, 0.0, 0.0, 0.0 };
    for (int r = 0; r < h; r++) {
        const float *a = ref + (size_t)r * stride, *b = cmp + (size_t)r * stride;
        const size_t slot = (size_t)(r % SSIM_WIN) * st;
        hpass(a, ring[Q_MU1] + slot, wv);
        hpass(b, ring[Q_MU2] + slot, wv);
        hpass_prod(a, a, ring[Q_XX] + slot, wv);
        hpass_prod(b, b, ring[Q_YY] + slot, wv);
        hpass_prod(a, b, ring[Q_XY] + slot, wv);
        if (r < SSIM_WIN - 1)
            continue;

        /* Output row y = r - 10 takes input rows y .. y + 10. */
        const int y = r - (SSIM_WIN - 1);
        size_t off[SSIM_WIN];
        for (int v = 0; v < SSIM_WIN; v++)
            off[v] = (size_t)((y + v) % SSIM_WIN) * st;
        for (int q = 0; q < Q_COUNT; q++)
            vpass(ring[q], off, e->vrow + (size_t)q * st, wv);
        stat_row(e, &k, wv, &sums);
    }

    out->ssim = ssim_mean(sums.lcs, wv, hv);
    out->l = ssim_mean(sums.l, wv, hv);
    out->c = ssim_mean(sums.c, wv, hv);
    out->s = ssim_mean(sums.s, wv, hv);
}

static void KFN(box_decimate)(const float *src, size_t src_stride, int w, int h, int f,
                              const int *cols, float *dst, double *restrict acc)
{
    const float wt = 1.0f / (float)(f * f);
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);

    for (int y = 0; y < sh; y++) {
        for (int x = 0; x < sw; x++)
            acc[x] = 0.0;
        /* Taps in the reference's order for every output: rows outer,
         * columns inner; the outputs of a row advance together. */
        for (int v = lo; v <= hi; v++) {
            const float *restrict row = src + (size_t)ssim_mirror(y * f + v, h) * src_stride;
            for (int u = 0; u <= hi - lo; u++) {
                const int *restrict cu = cols + (size_t)u * sw;
                for (int x = 0; x < sw; x++)
                    acc[x] = ssim_tap(acc[x], row[cu[x]], wt);
            }
        }
        float *restrict d = dst + (size_t)y * sw;
        for (int x = 0; x < sw; x++)
            d[x] = ssim_round(acc[x]);
    }
}

static void KFN(ms_decimate)(const float *src, size_t src_stride, int w, int h,
                             float *dst, size_t dst_stride, float *split, double *acc)
{
    const int r = MS_SSIM_LPF / 2;
    const int sw = ssim_decimated_size(w, 2), sh = ssim_decimated_size(h, 2);
    const size_t ss = ms_ssim_split_stride(w), half = ss / 2;

    for (int y = 0; y < h; y++)
        split_row(src + (size_t)y * src_stride - MS_SSIM_PAD, split + (size_t)y * ss,
                  split + (size_t)y * ss + half, sw);

    for (int y = 0; y < sh; y++) {
        size_t off[MS_SSIM_LPF];
        for (int v = 0; v < MS_SSIM_LPF; v++)
            off[v] = (size_t)ssim_mirror(2 * y + v - r, h) * ss;
        lpf_row(split, off, half, acc, dst + (size_t)y * dst_stride, sw);
    }
}
