/*
 * ciede's GPU twin (CUDA and OpenCL kernels, ciede_kernels.h): host side,
 * in the GPU frame pipeline.
 *
 * Per frame the kernel leaves every pixel's ΔE00, certified against the
 * CPU's (ciede_arith.h: the device's libm is not glibc's, so each value is
 * kept only where every result the CPU could get rounds to the same float),
 * the integer total of the certified values in 2^-30 units, their smallest
 * value, and the list of the hard pixels. prepare, on a worker thread:
 * - the hard pixels get the CPU's ΔE00 (ciede_pixel(), from the pictures),
 *   the open ones (only glibc's powf(C̄', 7) in doubt) theirs from their
 *   certified parts (ciede_tail_cpu()), added to the total and the smallest
 *   value;
 * - where every value is a multiple of the unit and the smallest value's
 *   last bit is no finer than the total's ulp, each partial sum of the
 *   reference's raster-order fp64 sum is exact, so that sum is the total;
 * - otherwise (values below 2^-7, or sums too large for their finest
 *   value, or more hard pixels than listed) the values come back and are
 *   added in raster order as the CPU adds them, the hard ones (NaN there)
 *   computed by the CPU's function.
 * conclude emits the CPU's score of that sum. Twins decline without native
 * binary64 (OpenCL's fp64-free mode), for frames of 2^25 pixels or more and
 * for frames taller than 65535 rows.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "ciede.h"
#include "ciede_arith.h"

VMAF_GPU_PROGRAM_DECLARE(ciede);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(ciede);

typedef struct CiedeGpu {
    unsigned bpc, w, h, cw;
    int fmt;                /* ciede_chroma_at()'s layout */
    double libm;            /* the certificates' assumed libm difference */
} CiedeGpu;

/** One frame in flight. */
typedef struct CiedeLane {
    VmafGpuPtr de, res, hard, open;
    uint32_t *h_init;       /**< the result words' starting values, uploaded per frame */
    uint32_t *h_res;        /**< the result words, read back */
    uint32_t *h_hard;       /**< the hard pixels' indices, read back when there are any */
    double sum;             /**< prepare's raster-order sum ... */
    int sum_err;            /**< ... or its error */
    VmafGpuKernel *k_de;
} CiedeLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    CiedeGpu *g = fex->twin_priv;
    /* The 64-bit total, and one grid row per picture row (CUDA: 65535 at most). */
    if ((uint64_t)w * h >= CIEDE_MAX_PIXELS || h > 65535) return VMAF_FEX_TWIN_DECLINED;
    /* The CPU path's init has refused every other format and geometry. */
    g->bpc = bpc;
    g->w = w;
    g->h = h;
    g->fmt = ciede_chroma_layout(pix_fmt, w, &g->cw);
    /* EXACTVMAF_CIEDE_LIBM (tests): a larger assumed difference, so that
     * many pixels are hard and the host's paths run. Never a smaller one. */
    g->libm = CIEDE_LIBM;
    const char *e = getenv("EXACTVMAF_CIEDE_LIBM");
    if (e && *e) {
        /* At most 2^-20: the bounds are first order in the difference. */
        const double v = strtod(e, NULL);
        if (v > g->libm && v <= 0x1p-20) g->libm = v;
    }
    for (unsigned p = 0; p < 3; p++) vmaf_gpu_use_plane(needs, 3, p);
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const CiedeGpu *g = fex->twin_priv;
    CiedeLane *q = lp;
    const size_t res_bytes = CIEDE_RES_WORDS * sizeof(uint32_t);
    int err = vmaf_gpu_alloc(l, &q->de, (size_t)g->w * g->h * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->res, res_bytes);
    if (!err) err = vmaf_gpu_alloc(l, &q->hard, CIEDE_HARD_MAX * sizeof(uint32_t));
    if (!err)
        err = vmaf_gpu_alloc(l, &q->open, (size_t)CIEDE_OPEN_MAX * CIEDE_OPEN_WORDS *
                                              sizeof(uint32_t));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_init, res_bytes);
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_res, res_bytes);
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_hard, CIEDE_HARD_MAX * sizeof(uint32_t));
    if (!err)
        err = vmaf_gpu_kernel(l, &program, g->bpc == 8 ? "ciede_de_u8" : "ciede_de_u16",
                              &q->k_de);
    if (err) return err;
    memset(q->h_init, 0, res_bytes);
    q->h_init[CIEDE_RES_MIN] = 0x7f800000u;     /* +inf: no value yet */
    return 0;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CiedeGpu *g = fex->twin_priv;
    CiedeLane *q = lp;
    VmafGpuLane *l = fr->lane;
    VmafGpuPtr p[2][3];
    int err = 0;
    for (unsigned k = 0; k < 2 && !err; k++)
        for (unsigned c = 0; c < 3 && !err; c++) err = vmaf_gpu_plane(fr, k, c, &p[k][c]);
    if (!err) err = vmaf_gpu_upload(l, q->res, q->h_init, CIEDE_RES_WORDS * sizeof(uint32_t));
    int w = (int)g->w, h = (int)g->h, cw = (int)g->cw, fmt = g->fmt, bpc = (int)g->bpc;
    double libm = g->libm;
    VmafGpuArg a[] = { VMAF_GPU_ARG(p[0][0]), VMAF_GPU_ARG(p[0][1]), VMAF_GPU_ARG(p[0][2]),
                       VMAF_GPU_ARG(p[1][0]), VMAF_GPU_ARG(p[1][1]), VMAF_GPU_ARG(p[1][2]),
                       VMAF_GPU_ARG(w), VMAF_GPU_ARG(h), VMAF_GPU_ARG(cw), VMAF_GPU_ARG(fmt),
                       VMAF_GPU_ARG(bpc), VMAF_GPU_ARG(libm), VMAF_GPU_ARG(q->de), VMAF_GPU_ARG(q->res),
                       VMAF_GPU_ARG(q->hard), VMAF_GPU_ARG(q->open) };
    if (!err) err = vmaf_gpu_launch(l, q->k_de, g->w, g->h, 1, CIEDE_GROUP, 1, a);
    if (!err)
        err = vmaf_gpu_download(l, q->h_res, q->res, CIEDE_RES_WORDS * sizeof(uint32_t));
    return err;
}

/* Add a listed (hard or open) pixel's CPU value to the total and the
 * smallest value, as the kernel adds a certified one; false when the value
 * is not a whole count of units (the frame then takes the host's raster sum). */
static bool add_value(float x, uint64_t *units, uint32_t *min_bits)
{
    if (x == 0.0f) return true;
    /* ΔE00 < 2^9 (the bound the 64-bit total rests on); anything else is
     * left to the host's raster sum. */
    if (!(x > 0.0f && x < CIEDE_MAX_VALUE)) return false;
    const uint32_t b = ev_f32_bits(x);
    if (b < *min_bits) *min_bits = b;
    const uint64_t u = ciede_sum_units(b);
    *units += u;
    return u != 0;
}

/* The reference's raster-order sum of the frame's values, read back. */
static int host_sum(VmafFex *fex, const CiedeGpu *g, const VmafGpuFrame *fr, const CiedeLane *q,
                    double *sum)
{
    const size_t n = (size_t)g->w * g->h;
    float *v = malloc(n * sizeof(float));
    if (!v) return -ENOMEM;
    const VmafPicture *hp[2];
    int err = vmaf_gpu_host_pictures(fr, hp);
    if (!err) err = vmaf_gpu_read(fr, v, q->de, n * sizeof(float));
    double s = 0.;
    for (unsigned i = 0; !err && i < g->h; i++) {
        for (unsigned j = 0; j < g->w; j++) {
            float x = v[(size_t)i * g->w + j];
            /* Hard and open pixels: the CPU's whole computation. */
            if (isnan(x)) x = ciede_pixel(fex, hp[0], hp[1], i, j);
            s = DADD(s, x);
        }
    }
    free(v);
    *sum = s;
    return err;
}

/* The open pixels' values: ΔE00 from their certified parts with glibc's
 * powf and sin, as the CPU finishes every pixel. */
static int add_open(const CiedeGpu *g, const VmafGpuFrame *fr, const CiedeLane *q, uint32_t n,
                    uint64_t *units, uint32_t *min_bits, bool *whole)
{
    uint32_t *e = malloc((size_t)n * CIEDE_OPEN_WORDS * sizeof(uint32_t));
    if (!e) return -ENOMEM;
    int err = vmaf_gpu_read(fr, e, q->open, (size_t)n * CIEDE_OPEN_WORDS * sizeof(uint32_t));
    for (uint32_t k = 0; !err && k < n; k++) {
        const uint32_t *w = e + (size_t)k * CIEDE_OPEN_WORDS;
        if (w[0] >= g->w * g->h) {
            err = -EIO;
            break;
        }
        float f[5];
        memcpy(f, w + 1, sizeof(f));
        const CiedeParts p = { .lightness = f[0], .chroma = f[1], .hue = f[2], .cbp = f[3],
                               .theta = f[4] };
        *whole &= add_value(ciede_tail_cpu(&p), units, min_bits);
    }
    free(e);
    return err;
}

static int frame_sum(VmafFex *fex, const VmafGpuFrame *fr, CiedeLane *q, double *sum)
{
    const CiedeGpu *g = fex->twin_priv;
    uint64_t units = (uint64_t)q->h_res[CIEDE_RES_UNITS_HI] << 32 | q->h_res[CIEDE_RES_UNITS_LO];
    uint32_t min_bits = q->h_res[CIEDE_RES_MIN];
    const uint32_t n_hard = q->h_res[CIEDE_RES_HARD];
    uint32_t n_open = q->h_res[CIEDE_RES_OPEN];
    if (n_open > CIEDE_OPEN_MAX) n_open = CIEDE_OPEN_MAX;     /* the rest are listed as hard */
    if (n_hard > CIEDE_HARD_MAX) return host_sum(fex, g, fr, q, sum);
    bool whole = true;
    if (n_open) {
        const int err = add_open(g, fr, q, n_open, &units, &min_bits, &whole);
        if (err) return err;
    }
    if (n_hard) {
        const VmafPicture *hp[2];
        int err = vmaf_gpu_host_pictures(fr, hp);
        if (!err) err = vmaf_gpu_read(fr, q->h_hard, q->hard, n_hard * sizeof(uint32_t));
        if (err) return err;
        for (uint32_t k = 0; k < n_hard; k++) {
            const uint32_t o = q->h_hard[k];
            if (o >= g->w * g->h) return -EIO;
            const float x = ciede_pixel(fex, hp[0], hp[1], o / g->w, o % g->w);
            whole &= add_value(x, &units, &min_bits);
        }
    }
    if (!whole) return host_sum(fex, g, fr, q, sum);
    if (min_bits == 0x7f800000u) {     /* every value +0 */
        *sum = 0.;
        return 0;
    }
    /* A value below the unit is not in the total (which may then be 0). */
    const int e_min = ciede_exponent(min_bits);
    if (e_min < CIEDE_SUM_MIN_EXP || !units) return host_sum(fex, g, fr, q, sum);
    /* Every partial sum is exact when the total's ulp, 2^(top - 30 - 52),
     * is no finer than the smallest value's last bit, 2^(e_min - 23). */
    int top = 63;
    while (!(units >> top)) top--;
    if (top - CIEDE_SUM_UNIT_BITS - 29 > e_min) return host_sum(fex, g, fr, q, sum);
    /* The total is then a double exactly (53 bits from 2^(e_min - 23) up). */
    *sum = ldexp((double)units, -CIEDE_SUM_UNIT_BITS);
    return 0;
}

static int prepare(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    CiedeLane *q = lp;
    /* What the host takes over, for tests that make it take over more
     * (EXACTVMAF_CIEDE_LIBM) and must see that it did. */
    vmaf_log(VMAF_LOG_LEVEL_DEBUG, "ciede: frame %u: %u hard, %u open pixels", fr->index,
             q->h_res[CIEDE_RES_HARD], q->h_res[CIEDE_RES_OPEN]);
    q->sum_err = frame_sum(fex, fr, q, &q->sum);
    return 0;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const CiedeLane *q = lp;
    if (q->sum_err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "ciede: frame %u: cannot conclude its GPU results (%s)",
                 fr->index, strerror(-q->sum_err));
        return q->sum_err;
    }
    return ciede_emit(fex, q->sum, fr->index);
}

const VmafFexTwin vmaf_fex_ciede_gpu = {
    .program = &program,
    .priv_size = sizeof(CiedeGpu),
    .needs_fp64 = true,     /* every step is binary64 */
    .lane_size = sizeof(CiedeLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .prepare = prepare,
    .conclude = conclude,
};
