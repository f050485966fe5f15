/*
 * float_motion's blur (float_motion.c), built once per instruction set:
 * float_motion.c includes this file with KFN(name) naming each build. Plain
 * C; only the vector width differs between builds, never an operation.
 */

/**
 * Blur `src` (w x h, `stride` floats per row) into `dst`. When `prev` (the
 * previous frame's blur) is given, row_sums[i] receives SAD row i of
 * (prev, dst). Vertical pass: taps outer, columns inner, into the row buffer
 * (each sample's running sum keeps the ascending tap order, so GCC can
 * vectorise across columns without reassociating); the row is then padded
 * reflect-101 so that the horizontal pass has no edge cases.
 */
static void KFN(blur_plane)(const float *taps, int n_taps, const float *src,
                            float *dst, const float *prev, float *row_buf,
                            float *row_sums, unsigned w, unsigned h, size_t stride)
{
    const int radius = n_taps / 2;
    float *row = row_buf + radius;

    for (unsigned i = 0; i < h; i++) {
        for (int k = 0; k < n_taps; k++) {
            const float *sk = src + (size_t)motion_mirror((int)i - radius + k, (int)h) * stride;
            if (k == 0)
                tap_row_first(row, sk, taps[0], w);
            else
                tap_row(row, sk, taps[k], w);
        }
        for (int m = 1; m <= radius; m++) {
            row[-m] = row[m];
            row[(int)w - 1 + m] = row[(int)w - 1 - m];
        }

        float *out = dst + i * stride;
        tap_row_first(out, row_buf, taps[0], w);
        for (int k = 1; k < n_taps; k++)
            tap_row(out, row_buf + k, taps[k], w);

        /* SAD a block of rows as soon as its blur is done, while in cache. */
        if (prev && ((i + 1) % SAD_ROWS == 0 || i + 1 == h)) {
            const unsigned first = i - i % SAD_ROWS;
            sad_rows(prev + first * stride, dst + first * stride, stride, w,
                     i + 1 - first, row_sums + first);
        }
    }
}
