#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cambi_arith.h"
#include "cambi_cpu.h"
#include "cambi_kern.h"
#include "cpu.h"
#include "log.h"
#include "os/os.h"

/* The hot loops are cambi_simd_tmpl.c's, built once per instruction set. */

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

static const CambiKern *cambi_kern(void)
{
    static const CambiKern *const kern[EV_ISA_COUNT] = EV_SIMD_TABLE(cambi_kern);
    return kern[ev_cpu_isa()];
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
