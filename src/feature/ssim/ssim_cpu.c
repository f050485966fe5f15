/*
 * CPU engine of float_ssim and float_ms_ssim (ssim_host.h): the reference's
 * iqa convolution, statistic and sums, in the reference's arithmetic
 * (ssim_arith.h), restructured for speed without reordering any sum:
 *
 * - The five filtered planes are never stored. Each input row is filtered
 *   horizontally into an 11-row ring per quantity (mu1, mu2 and, with the
 *   product formed per tap, xx, yy, xy); as soon as 11 rows are there, the
 *   vertical taps give one output row. Every output keeps its own fp64 sum
 *   with the taps in ascending order, so vectorising across output columns
 *   changes no bits.
 * - The statistic runs a row at a time in three vectorisable pieces (the
 *   variances, the square root, the l/c/s terms); the four fp64 sums then
 *   take the row's terms in raster order, as the reference's one loop does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "simd.h"
#include "ssim_host.h"
#include "os/os.h"

/* The hot loops are ssim_simd_tmpl.c's, built once per instruction set. */

static void *alloc_aligned(size_t bytes)
{
    /* Whole 32-byte blocks, so that a vector load of the last one stays inside. */
    bytes = (bytes + 31) & ~(size_t)31;
    return vmaf_os_aligned_alloc(32, bytes ? bytes : 32);
}

int ssim_engine_init(SsimEngine *e, int max_w)
{
    e->max_w = max_w;
    e->row_stride = ((size_t)(max_w - (SSIM_WIN - 1)) + 7) & ~(size_t)7;
    const size_t n = e->row_stride;
    e->ring = alloc_aligned(sizeof(float) * n * Q_COUNT * SSIM_WIN);
    e->vrow = alloc_aligned(sizeof(float) * n * Q_COUNT);
    e->stat = alloc_aligned(sizeof(float) * n * S_COUNT);
    e->terms = alloc_aligned(sizeof(double) * n * T_COUNT);
    if (!e->ring || !e->vrow || !e->stat || !e->terms) {
        ssim_engine_free(e);
        return -ENOMEM;
    }
    return 0;
}

void ssim_engine_free(SsimEngine *e)
{
    vmaf_os_aligned_free(e->ring);
    vmaf_os_aligned_free(e->vrow);
    vmaf_os_aligned_free(e->stat);
    vmaf_os_aligned_free(e->terms);
    e->ring = e->vrow = e->stat = NULL;
    e->terms = NULL;
}

void ssim_box_decimate_inplace(float *img, int w, int h, int f)
{
    const float wt = 1.0f / (float)(f * f);
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);

    /* The reference writes each output over the source before reading the
     * next one's taps; on small images a later output may read an earlier
     * one's result. The same loop on the same buffer keeps that. */
    for (int y = 0; y < sh; y++) {
        for (int x = 0; x < sw; x++) {
            double acc = 0.0;
            for (int v = lo; v <= hi; v++) {
                const float *row = img + (size_t)ssim_mirror(y * f + v, h) * w;
                for (int u = lo; u <= hi; u++)
                    acc = ssim_tap(acc, row[ssim_mirror(x * f + u, w)], wt);
            }
            img[(size_t)y * sw + x] = ssim_round(acc);
        }
    }
}

bool ssim_box_inplace_is_pure(int w, int h, int f)
{
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);

    /* Outputs 0 .. i-1 have overwritten exactly the samples 0 .. i-1 when
     * output i = y*sw + x reads its taps; its lowest tap index is the lowest
     * row times w plus the lowest column. */
    for (int y = 0; y < sh; y++) {
        int r_min = h;
        for (int v = lo; v <= hi; v++) {
            const int r = ssim_mirror(y * f + v, h);
            r_min = r < r_min ? r : r_min;
        }
        for (int x = 0; x < sw; x++) {
            int c_min = w;
            for (int u = lo; u <= hi; u++) {
                const int c = ssim_mirror(x * f + u, w);
                c_min = c < c_min ? c : c_min;
            }
            if ((int64_t)r_min * w + c_min < (int64_t)y * sw + x)
                return false;
        }
    }
    return true;
}

void ssim_box_columns(int w, int f, int *cols)
{
    int lo, hi;
    box_reach(f, &lo, &hi);
    const int sw = ssim_decimated_size(w, f);
    for (int u = lo; u <= hi; u++)
        for (int x = 0; x < sw; x++)
            cols[(size_t)(u - lo) * sw + x] = ssim_mirror(x * f + u, w);
}

void ms_ssim_pad_columns(float *img, size_t stride, int w, int h)
{
    for (int y = 0; y < h; y++) {
        float *row = img + (size_t)y * stride;
        for (int m = 1; m <= MS_SSIM_PAD; m++) {
            row[-m] = row[m - 1];
            row[w - 1 + m] = row[w - m];
        }
    }
}

size_t ms_ssim_split_stride(int w)
{
    return 2 * (((size_t)ssim_decimated_size(w, 2) + MS_SSIM_PAD + 7) & ~(size_t)7);
}

const SsimKern *ssim_kern_for(int isa)
{
    static const SsimKern *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE(ssim_kern);
    return kern[isa];
}

void ssim_engine_means(const SsimEngine *e, const float *ref, const float *cmp,
                       size_t stride, int w, int h, SsimMeans *out)
{
    ssim_kern_for(ev_cpu_isa())->engine_means(e, ref, cmp, stride, w, h, out);
}

void ssim_box_decimate(const float *src, size_t src_stride, int w, int h, int f,
                       const int *cols, float *dst, double *restrict acc)
{
    ssim_kern_for(ev_cpu_isa())->box_decimate(src, src_stride, w, h, f, cols, dst, acc);
}

void ms_ssim_decimate(const float *src, size_t src_stride, int w, int h,
                      float *dst, size_t dst_stride, float *split, double *acc)
{
    ssim_kern_for(ev_cpu_isa())->ms_decimate(src, src_stride, w, h, dst, dst_stride, split,
                                             acc);
}
