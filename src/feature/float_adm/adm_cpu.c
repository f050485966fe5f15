/*
 * float_adm CPU reference loops (Netflix adm.c compute_adm + adm_tools.c).
 * Per-sample arithmetic comes from adm_arith.h; this file only decides which
 * samples are visited and in which order the fp32 sums are formed. Element
 * loops are written so that GCC vectorises them without reassociating: every
 * output element keeps its own operation sequence, and the order-dependent
 * running sums are separate scalar loops over finished term rows.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "math/ev_math.h"
#include "adm_arith.h"
#include "adm_cpu.h"
#include "adm_rcp.h"
#include "cpu.h"
#include "os/os.h"

#define ADM_ALIGN_BYTES 64
#define ADM_ALIGN_FLOATS (ADM_ALIGN_BYTES / sizeof(float))
/* Leading slack of a DWT row buffer: row[-1] holds the left mirror sample. */
#define ADM_ROW_FRONT ADM_ALIGN_FLOATS

static size_t align_floats(size_t n)
{
    return (n + ADM_ALIGN_FLOATS - 1) / ADM_ALIGN_FLOATS * ADM_ALIGN_FLOATS;
}

int adm_cpu_init(AdmCpu *c, int w, int h)
{
    memset(c, 0, sizeof(*c));
    c->w = w;
    c->h = h;
    adm_geometry(w, h, c->geom);

    const size_t bw = (size_t)c->geom[0].w, bh = (size_t)c->geom[0].h;
    c->frame_stride = align_floats((size_t)w);
    c->band_stride = align_floats(bw);
    /* Every buffer is at most frame-sized and there are fewer than 32. */
    if ((size_t)h > SIZE_MAX / sizeof(float) / 32 / c->frame_stride)
        return -ENOMEM;
    const size_t frame_sz = c->frame_stride * (size_t)h;
    const size_t band_sz = c->band_stride * bh;
    const size_t row_sz = ADM_ROW_FRONT + align_floats((size_t)w + 2);
    const size_t line_sz = c->band_stride;
    enum { NUM_BANDS = 2 * 4 + 4 * 3, NUM_LINES = 1 + 3 };
    const size_t total = 2 * frame_sz + NUM_BANDS * band_sz + 2 * row_sz +
                         NUM_LINES * line_sz;

    float *p = vmaf_os_aligned_alloc(ADM_ALIGN_BYTES, total * sizeof(float));
    if (!p)
        return -ENOMEM;
    c->block = p;

    c->ref = p; p += frame_sz;
    c->dis = p; p += frame_sz;
    c->ref_a = p; p += band_sz;
    c->dis_a = p; p += band_sz;
    for (int b = 0; b < 3; b++) {
        c->ref_b[b] = p; p += band_sz;
        c->dis_b[b] = p; p += band_sz;
        c->rst[b] = p; p += band_sz;
        c->add[b] = p; p += band_sz;
        c->flt_rst[b] = p; p += band_sz;
        c->flt_add[b] = p; p += band_sz;
    }
    c->row_lo = p + ADM_ROW_FRONT; p += row_sz;
    c->row_hi = p + ADM_ROW_FRONT; p += row_sz;
    c->thr = p; p += line_sz;
    for (int b = 0; b < 3; b++) {
        c->term[b] = p; p += line_sz;
    }
    return 0;
}

void adm_cpu_close(AdmCpu *c)
{
    vmaf_os_aligned_free(c->block);
    memset(c, 0, sizeof(*c));
}

void adm_cpu_scales(AdmCpu *c, const AdmCpuParams *p, AdmScaleAccum acc[ADM_NUM_SCALES])
{
    static const AdmScalesFn *const fn[EV_ISA_COUNT] = EV_SIMD_TABLE(adm_cpu_scales);
    /* The Netflix-reciprocal mode's RCPSS stays in the baseline build: its
     * estimate is the one Netflix's SSE build gets on this processor. */
    const int isa = p->rcp_division ? EV_ISA_C : ev_cpu_isa();
    (*fn[isa])(c, p, acc);
}
