/*
 * Integer VIF row kernels: the plain-C reference (ivif_dsp.h), the scratch
 * and the dispatch. The fast kernels, built once per instruction set, are
 * ivif_simd_tmpl.c.
 *
 * The reference kernels follow the reference's per-pixel loops: vertical
 * taps into a padded row (ivif_vert_column: uint32 means, uint64 moments),
 * reflect-101 padding, horizontal taps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ivif_dsp.h"
#include "os/os.h"
#include "simd.h"

/* ---- Reference kernels ---- */

static void filter_row_c(const IvifTaps *t, const IvifScratch *s, const IvifRow *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint32_t *vm1 = s->v[0], *vm2 = s->v[1];
    uint32_t *vxx = s->v[2], *vyy = s->v[3], *vxy = s->v[4];

    for (int j = 0; j < w; j++) {
        uint32_t v[5];
        ivif_vert_column(t, j, v);
        vm1[j] = v[0];
        vm2[j] = v[1];
        vxx[j] = v[2];
        vyy[j] = v[3];
        vxy[j] = v[4];
    }
    for (int c = 0; c < 5; c++)
        ivif_pad_row(s->v[c], w, r);

    for (int j = 0; j < w; j++) {
        uint32_t m1 = 0, m2 = 0;
        uint64_t xx = 0, yy = 0, xy = 0;
        for (int k = 0; k < fw; k++) {
            const int jj = j - r + k;
            const uint32_t f = t->f[k];
            m1 += f * vm1[jj];
            m2 += f * vm2[jj];
            xx += (uint64_t)f * vxx[jj];
            yy += (uint64_t)f * vyy[jj];
            xy += (uint64_t)f * vxy[jj];
        }
        out->mu1[j] = m1;
        out->mu2[j] = m2;
        out->xx[j] = ivif_horz_sq(xx);
        out->yy[j] = ivif_horz_sq(yy);
        out->xy[j] = ivif_horz_sq(xy);
    }
}

void ivif_stat_row_c(const IvifRow *in, int n, const IvifGainLimits *gl,
                     const uint16_t *log2_table, IvifAccum *acc)
{
    IvifAccum common = { 0, 0, 0, 0 };
    int64_t num_log[IVIF_MAX_GAIN_LIMITS] = { 0 };
    for (int j = 0; j < n; j++) {
        IvifGain gain;
        if (!ivif_stat_common(in->mu1[j], in->mu2[j], in->xx[j], in->yy[j], in->xy[j],
                              log2_table, &common, &gain))
            continue;
        for (int e = 0; e < gl->n; e++)
            num_log[e] += ivif_stat_num_log(&gain, gl->v[e], log2_table);
    }
    for (int e = 0; e < gl->n; e++) {
        acc[e].num_log += num_log[e];
        acc[e].den_log += common.den_log;
        acc[e].num_non_log += common.num_non_log;
        acc[e].den_non_log += common.den_non_log;
    }
}

static void row_sums_c(const IvifTaps *t, const IvifScratch *s, const IvifGainLimits *gl,
                       const uint16_t *log2_table, IvifAccum *acc)
{
    filter_row_c(t, s, &s->row);
    ivif_stat_row_c(&s->row, t->w, gl, log2_table, acc);
}

static void decimate_row_c(const IvifTaps *t, const IvifScratch *s, uint16_t *out)
{
    const int fw = t->fw, r = fw / 2, w = t->w;
    uint32_t *v = s->v[0];

    for (int j = 0; j < w; j++)
        v[j] = ivif_vert_mu_column(t, j);
    ivif_pad_row(v, w, r);
    for (int j = 0; j < w / 2; j++) {
        uint32_t m = 0;
        for (int k = 0; k < fw; k++)
            m += t->f[k] * v[2 * j - r + k];
        out[j] = (uint16_t)((m + 32768) >> 16);
    }
}

const IvifDsp ivif_dsp_ref = { row_sums_c, decimate_row_c, filter_row_c, ivif_stat_row_c };

/* ---- Dispatch and scratch ---- */

void ivif_dsp_init(IvifDsp *dsp)
{
    static const IvifDsp *const dsp_isa[EV_ISA_COUNT] = EV_SIMD_TABLE(ivif_dsp);
    *dsp = *dsp_isa[ev_cpu_isa()];
}

/* A scratch row (ivif_dsp.h): IVIF_PAD entries, then w_max + IVIF_PAD + 48,
 * zeroed so that the lanes SIMD kernels read and drop are initialised. */
static void *alloc_row(size_t elem, int w_max)
{
    const size_t n = (size_t)w_max + 2 * IVIF_PAD + 48;
    const size_t bytes = (n * elem + 63) & ~(size_t)63;
    void *p = vmaf_os_aligned_alloc(64, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

int ivif_scratch_alloc(IvifScratch *s, int w_max)
{
    memset(s, 0, sizeof(*s));
    for (int c = 0; c < 8; c++) {
        uint32_t *v = alloc_row(sizeof(uint32_t), w_max);
        uint16_t *h = alloc_row(sizeof(uint16_t), w_max);
        s->v[c] = v ? v + IVIF_PAD : NULL;
        s->h[c] = h ? h + IVIF_PAD : NULL;
        s->blk[c] = alloc_row(sizeof(uint32_t), IVIF_BLOCK);
        if (!v || !h || !s->blk[c])
            goto fail;
    }
    uint32_t **row[5] = { &s->row.mu1, &s->row.mu2, &s->row.xx, &s->row.yy, &s->row.xy };
    for (int c = 0; c < 5; c++) {
        *row[c] = alloc_row(sizeof(uint32_t), w_max);
        if (!*row[c])
            goto fail;
    }
    return 0;

fail:
    ivif_scratch_free(s);
    return -ENOMEM;
}

void ivif_scratch_free(IvifScratch *s)
{
    for (int c = 0; c < 8; c++) {
        vmaf_os_aligned_free(s->v[c] ? s->v[c] - IVIF_PAD : NULL);
        vmaf_os_aligned_free(s->h[c] ? s->h[c] - IVIF_PAD : NULL);
        vmaf_os_aligned_free(s->blk[c]);
        s->v[c] = s->blk[c] = NULL;
        s->h[c] = NULL;
    }
    vmaf_os_aligned_free(s->row.mu1);
    vmaf_os_aligned_free(s->row.mu2);
    vmaf_os_aligned_free(s->row.xx);
    vmaf_os_aligned_free(s->row.yy);
    vmaf_os_aligned_free(s->row.xy);
    s->row = (IvifRow){ NULL, NULL, NULL, NULL, NULL };
}
