/*
 * float_vif OpenCL kernels (host side: float_vif_gpu.c; the same names and
 * arguments as float_vif_cuda.cu). Every value comes from vif_arith.h, the
 * CPU path's functions: the taps (vif_tap, vif_tap_sq, vif_tap_xy), the
 * reflect-101 border (vif_reflect) and the statistic (vif_stat, with its
 * log2 polynomial; its binary64 steps are fp.h's ev_d, so they run with or
 * without the device's fp64). Separable filters run as the CPU runs them:
 * the vertical taps of a sample into an fp32 sum from +0, taps ascending,
 * then the horizontal taps over those sums. A row's terms are added left to
 * right by one work-item; the host adds the rows.
 *
 * The filter widths of the default kernel scale (17, 9, 5, 3) have tiled
 * kernels, as in CUDA: a group of 256 loads its tile and border into local
 * memory and runs both passes (and the statistic, or the decimation) there.
 * Other widths use the plain kernels.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
#include "fp.h"
#include "feature/float_vif/vif_arith.h"
#include "feature/float_vif/vif_cuda.h"

/* Statistic tile: TW x TH outputs; decimation tile: DTW x DTH outputs; the
 * host launches groups of THREADS items along x, one group per tile. */
#define THREADS 256
#define TW 32
#define TH 16
#define DTW 32
#define DTH 16

/* reflect-101, then clamped: positions only a partial tile reads, which no
 * output uses, stay inside the plane. */
static inline int edge(int i, int n)
{
    const int r = vif_reflect(i, n);
    return r < 0 ? 0 : (r >= n ? n - 1 : r);
}

/*
 * The statistic of one scale with a FW-tap filter: num and den of every
 * pixel of the w x h pair (pitch sp) into nd (pitch np, den nps further).
 * s_ref, s_dis: IH x IW; s_v: 5 x TH x IW (IW = TW + 2R, IH = TH + 2R).
 */
static inline void stat_tiled(const int FW, global const float *ref, global const float *dis,
                              int sp, int w, int h, const VifTaps f, const VifStatConst c,
                              global float *nd, int np, long nps, local float *s_ref,
                              local float *s_dis, local float *s_v)
{
    const int R = FW / 2, IW = TW + 2 * R, IH = TH + 2 * R;
    const int x0 = (int)get_group_id(0) * TW, y0 = (int)get_group_id(1) * TH;
    const int tid = (int)get_local_id(0);
    for (int k = tid; k < IH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        const size_t o = (size_t)edge(y0 - R + ty, h) * sp + edge(x0 - R + tx, w);
        s_ref[k] = ref[o];
        s_dis[k] = dis[o];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < TH * IW; k += THREADS) {
        float m1 = 0.0f, m2 = 0.0f, xx = 0.0f, yy = 0.0f, xy = 0.0f;
        for (int t = 0; t < FW; t++) {
            /* Row ty + t, column tx of the input tile: k + t * IW. */
            const float a = s_ref[k + t * IW], b = s_dis[k + t * IW], ft = f.f[t];
            m1 = vif_tap(m1, ft, a);
            m2 = vif_tap(m2, ft, b);
            xx = vif_tap_sq(xx, ft, a);
            yy = vif_tap_sq(yy, ft, b);
            xy = vif_tap_xy(xy, ft, a, b);
        }
        s_v[k] = m1;
        s_v[TH * IW + k] = m2;
        s_v[2 * TH * IW + k] = xx;
        s_v[3 * TH * IW + k] = yy;
        s_v[4 * TH * IW + k] = xy;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < TH * TW; k += THREADS) {
        const int ty = k / TW, tx = k % TW, i = y0 + ty, j = x0 + tx;
        if (i >= h || j >= w) continue;
        float v[5];
        for (int p = 0; p < 5; p++) {
            local const float *row = s_v + (p * TH + ty) * IW + tx;
            float acc = 0.0f;
            for (int t = 0; t < FW; t++)
                acc = vif_tap(acc, f.f[t], row[t]);
            v[p] = acc;
        }
        float num, den;
        vif_stat(v[0], v[1], v[2], v[3], v[4], &c, &num, &den);
        nd[(size_t)i * np + j] = num;
        nd[nps + (size_t)i * np + j] = den;
    }
}

#define STAT_KERNEL(fw)                                                                      \
    kernel void vif_stat_tiled_##fw(EV_BUF(const float, ref), EV_BUF(const float, dis),      \
                                    int sp, int w, int h, VifTaps f, VifStatConst c,         \
                                    EV_BUF(float, nd), int np, long nps)                     \
    {                                                                                        \
        local float s_ref[(TH + fw - 1) * (TW + fw - 1)];                                    \
        local float s_dis[(TH + fw - 1) * (TW + fw - 1)];                                    \
        local float s_v[5 * TH * (TW + fw - 1)];                                             \
        stat_tiled(fw, EV_AT(const float, ref), EV_AT(const float, dis), sp, w, h, f, c,     \
                   EV_AT(float, nd), np, nps, s_ref, s_dis, s_v);                            \
    }

STAT_KERNEL(17)
STAT_KERNEL(9)
STAT_KERNEL(5)
STAT_KERNEL(3)

/*
 * Decimation with a FW-tap filter of picture z = get_group_id(2) (0: src0 ->
 * dst0, 1: src1 -> dst1), w x h (pitch sp) to w/2 x h/2 (pitch dp): the
 * vertical taps at the even rows, then the horizontal taps at the even
 * columns. s_in: IH x IW, s_t: DTH x IW (IW = 2 DTW + 2R, IH = 2 DTH + 2R).
 */
static inline void dec_tiled(const int FW, global const float *src0, global const float *src1,
                             int sp, int w, int h, const VifTaps f, global float *dst0,
                             global float *dst1, int dp, local float *s_in, local float *s_t)
{
    const int R = FW / 2, IW = 2 * DTW + 2 * R, IH = 2 * DTH + 2 * R;
    const int z = (int)get_group_id(2);
    global const float *src = z ? src1 : src0;
    global float *dst = z ? dst1 : dst0;
    const int ow = w / 2, oh = h / 2;
    const int x0 = (int)get_group_id(0) * DTW, y0 = (int)get_group_id(1) * DTH;
    const int tid = (int)get_local_id(0);
    for (int k = tid; k < IH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        s_in[k] = src[(size_t)edge(2 * y0 - R + ty, h) * sp + edge(2 * x0 - R + tx, w)];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < DTH * IW; k += THREADS) {
        const int ty = k / IW, tx = k % IW;
        float acc = 0.0f;
        for (int t = 0; t < FW; t++)
            acc = vif_tap(acc, f.f[t], s_in[(2 * ty + t) * IW + tx]);
        s_t[k] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < DTH * DTW; k += THREADS) {
        const int ty = k / DTW, tx = k % DTW;
        if (x0 + tx >= ow || y0 + ty >= oh) continue;
        float acc = 0.0f;
        for (int t = 0; t < FW; t++)
            acc = vif_tap(acc, f.f[t], s_t[ty * IW + 2 * tx + t]);
        dst[(size_t)(y0 + ty) * dp + x0 + tx] = acc;
    }
}

#define DEC_KERNEL(fw)                                                                       \
    kernel void vif_dec_tiled_##fw(EV_BUF(const float, src0), EV_BUF(const float, src1),     \
                                   int sp, int w, int h, VifTaps f, EV_BUF(float, dst0),     \
                                   EV_BUF(float, dst1), int dp)                              \
    {                                                                                        \
        local float s_in[(2 * DTH + fw - 1) * (2 * DTW + fw - 1)];                           \
        local float s_t[DTH * (2 * DTW + fw - 1)];                                           \
        dec_tiled(fw, EV_AT(const float, src0), EV_AT(const float, src1), sp, w, h, f,       \
                  EV_AT(float, dst0), EV_AT(float, dst1), dp, s_in, s_t);                    \
    }

DEC_KERNEL(9)
DEC_KERNEL(5)
DEC_KERNEL(3)

/** Decimation, vertical pass: tmp row i = taps at source rows 2i - r + k (reflected). */
kernel void vif_dec_v(EV_BUF(const float, src), int sp, int w, int h, EV_BUF(const float, f),
                      int fw, EV_BUF(float, tmp), int tp)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h / 2 || j >= w) return;
    global const float *s = EV_AT(const float, src), *fk = EV_AT(const float, f);
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc = vif_tap(acc, fk[k], s[(size_t)vif_reflect(2 * i - r + k, h) * sp + j]);
    EV_AT(float, tmp)[(size_t)i * tp + j] = acc;
}

/** Decimation, horizontal pass at the even columns: out column j = taps at 2j - r + k. */
kernel void vif_dec_h(EV_BUF(const float, tmp), int tp, int w, int oh, EV_BUF(const float, f),
                      int fw, EV_BUF(float, dst), int dp)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= oh || j >= w / 2) return;
    global const float *fk = EV_AT(const float, f);
    global const float *row = EV_AT(const float, tmp) + (size_t)i * tp;
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc = vif_tap(acc, fk[k], row[vif_reflect(2 * j - r + k, w)]);
    EV_AT(float, dst)[(size_t)i * dp + j] = acc;
}

/** Statistics, vertical pass: mu1, mu2, xx, yy, xy planes (vps floats apart). */
kernel void vif_stat_v(EV_BUF(const float, ref), EV_BUF(const float, dis), int sp, int w, int h,
                       EV_BUF(const float, f), int fw, EV_BUF(float, v), int vp, long vps)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h || j >= w) return;
    global const float *pr = EV_AT(const float, ref), *pd = EV_AT(const float, dis);
    global const float *ft = EV_AT(const float, f);
    const int r = fw / 2;
    float m1 = 0.0f, m2 = 0.0f, xx = 0.0f, yy = 0.0f, xy = 0.0f;
    for (int k = 0; k < fw; k++) {
        const size_t o = (size_t)vif_reflect(i - r + k, h) * sp + j;
        const float a = pr[o], b = pd[o], fk = ft[k];
        m1 = vif_tap(m1, fk, a);
        m2 = vif_tap(m2, fk, b);
        xx = vif_tap_sq(xx, fk, a);
        yy = vif_tap_sq(yy, fk, b);
        xy = vif_tap_xy(xy, fk, a, b);
    }
    global float *out = EV_AT(float, v);
    const size_t o = (size_t)i * vp + j;
    out[o] = m1;
    out[vps + o] = m2;
    out[2 * vps + o] = xx;
    out[3 * vps + o] = yy;
    out[4 * vps + o] = xy;
}

/** Statistics, horizontal pass and the per-sample num / den terms. */
kernel void vif_stat_h(EV_BUF(const float, v), int vp, long vps, int w, int h,
                       EV_BUF(const float, f), int fw, VifStatConst c, EV_BUF(float, nd),
                       int np, long nps)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h || j >= w) return;
    global const float *ft = EV_AT(const float, f);
    const int r = fw / 2;
    float s[5];
    for (int p = 0; p < 5; p++) {
        global const float *row = EV_AT(const float, v) + p * vps + (size_t)i * vp;
        float acc = 0.0f;
        for (int k = 0; k < fw; k++)
            acc = vif_tap(acc, ft[k], row[vif_reflect(j - r + k, w)]);
        s[p] = acc;
    }
    float num, den;
    vif_stat(s[0], s[1], s[2], s[3], s[4], &c, &num, &den);
    global float *o = EV_AT(float, nd);
    o[(size_t)i * np + j] = num;
    o[nps + (size_t)i * np + j] = den;
}

/*
 * Row sums (launch: RS_THREADS(h) x 1 x 2 in groups of RS_BLOCK = 128,
 * gpu/pipeline.h): a group owns RSUM_ROWS rows of plane z; its items load
 * each chunk of RSUM_ROWS x RSUM_CHUNK values into local memory, then item r
 * adds row r's values of the chunk in order, one serial fp32 chain per row.
 */
#define RSUM_ROWS 32
#define RSUM_CHUNK 128

/** Row sums of num (z 0) and den (1): +0, then left to right in fp32. */
kernel void vif_row_sums(EV_BUF(const float, nd), int np, long nps, int w, int h,
                         EV_BUF(float, out))
{
    local float tile[RSUM_ROWS][RSUM_CHUNK + 1];
    const int z = (int)get_group_id(2);
    global const float *src = EV_AT(const float, nd) + z * nps;
    const int lid = (int)get_local_id(0), n_items = (int)get_local_size(0);
    const int row0 = (int)get_group_id(0) * RSUM_ROWS;
    float acc = 0.0f;
    for (int c0 = 0; c0 < w; c0 += RSUM_CHUNK) {
        for (int k = lid; k < RSUM_ROWS * RSUM_CHUNK; k += n_items) {
            const int rr = k / RSUM_CHUNK, cc = k % RSUM_CHUNK;
            const int r = row0 + rr, c = c0 + cc;
            tile[rr][cc] = r < h && c < w ? src[(size_t)r * np + c] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < RSUM_ROWS) {
            const int n = w - c0 < RSUM_CHUNK ? w - c0 : RSUM_CHUNK;
            for (int k = 0; k < n; k++)
                acc = FADD(acc, tile[lid][k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < RSUM_ROWS && row0 + lid < h)
        EV_AT(float, out)[(size_t)z * h + row0 + lid] = acc;
}
