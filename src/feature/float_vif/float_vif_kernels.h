/*
 * float_vif's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * float_vif_cuda.cu and float_vif_opencl.cl include it, the host side is
 * float_vif_gpu.c). Every value comes from vif_arith.h, the CPU path's
 * functions: the taps (vif_tap, vif_tap_sq, vif_tap_xy), the reflect-101
 * border (vif_reflect) and the statistic (vif_stat, with its log2
 * polynomial; its binary64 steps are fp.h's ev_d, so they run with or
 * without OpenCL's fp64). Separable filters run as the CPU runs them: the
 * vertical taps of a sample into an fp32 sum from +0, taps ascending, then
 * the horizontal taps over those sums. A row's terms are added left to
 * right on one item (gpu/ev_row_sums.h); the host adds the rows.
 *
 * The filter widths of the default kernel scale (17, 9, 5, 3) have tiled
 * kernels: a group of VIF_THREADS loads its tile and border into local
 * memory and runs both passes (and the statistic, or the decimation) there,
 * so no filtered plane goes through device memory. Other widths use the
 * plain kernels.
 */
#include "fp.h"
#include "feature/float_vif/vif_arith.h"
#include "feature/float_vif/vif_gpu_args.h"
#include "gpu/ev_row_sums.h"

/* Items per group of the tiled kernels (float_vif_gpu.c launches them so). */
#define VIF_THREADS 256
/* Statistic tile: VIF_TW x VIF_TH outputs; decimation tile: VIF_DTW x VIF_DTH outputs. */
#define VIF_TW 32
#define VIF_TH 16
#define VIF_DTW 32
#define VIF_DTH 16

/* reflect-101, then clamped: positions only a partial tile reads, which no
 * output uses, stay inside the plane. */
EV_FN int vif_edge(int i, int n)
{
    const int r = vif_reflect(i, n);
    return r < 0 ? 0 : (r >= n ? n - 1 : r);
}

/*
 * The statistic of one scale with a FW-tap filter: num and den of every
 * pixel of the w x h pair (pitch sp) into nd (pitch np, den nps further).
 * s_ref, s_dis: IH x IW; s_v: 5 x VIF_TH x IW (IW = VIF_TW + 2R,
 * IH = VIF_TH + 2R, R = FW / 2). FW is a constant of each kernel.
 */
EV_GROUP_FN void vif_stat_tiled(const int FW, EV_GPTR(const float) ref,
                                EV_GPTR(const float) dis, int sp, int w, int h,
                                const VifTaps *f, const VifStatConst *c, EV_GPTR(float) nd,
                                int np, int64_t nps, EV_LPTR(float) s_ref,
                                EV_LPTR(float) s_dis, EV_LPTR(float) s_v)
{
    const int R = FW / 2, IW = VIF_TW + 2 * R, IH = VIF_TH + 2 * R;
    const int x0 = ev_grp(0) * VIF_TW, y0 = ev_grp(1) * VIF_TH, tid = ev_lid(0);
    for (int k = tid; k < IH * IW; k += VIF_THREADS) {
        const int ty = k / IW, tx = k % IW;
        const size_t o = (size_t)vif_edge(y0 - R + ty, h) * sp + vif_edge(x0 - R + tx, w);
        s_ref[k] = ref[o];
        s_dis[k] = dis[o];
    }
    ev_barrier();
    for (int k = tid; k < VIF_TH * IW; k += VIF_THREADS) {
        float m1 = 0.0f, m2 = 0.0f, xx = 0.0f, yy = 0.0f, xy = 0.0f;
#pragma unroll
        for (int t = 0; t < FW; t++) {
            /* Row ty + t, column tx of the input tile: k + t * IW. */
            const float a = s_ref[k + t * IW], b = s_dis[k + t * IW], ft = f->f[t];
            m1 = vif_tap(m1, ft, a);
            m2 = vif_tap(m2, ft, b);
            xx = vif_tap_sq(xx, ft, a);
            yy = vif_tap_sq(yy, ft, b);
            xy = vif_tap_xy(xy, ft, a, b);
        }
        s_v[k] = m1;
        s_v[VIF_TH * IW + k] = m2;
        s_v[2 * VIF_TH * IW + k] = xx;
        s_v[3 * VIF_TH * IW + k] = yy;
        s_v[4 * VIF_TH * IW + k] = xy;
    }
    ev_barrier();
    for (int k = tid; k < VIF_TH * VIF_TW; k += VIF_THREADS) {
        const int ty = k / VIF_TW, tx = k % VIF_TW, i = y0 + ty, j = x0 + tx;
        if (i >= h || j >= w) continue;
        float v[5];
#pragma unroll
        for (int p = 0; p < 5; p++) {
            EV_LPTR(const float) row = s_v + (p * VIF_TH + ty) * IW + tx;
            float acc = 0.0f;
#pragma unroll
            for (int t = 0; t < FW; t++)
                acc = vif_tap(acc, f->f[t], row[t]);
            v[p] = acc;
        }
        float num, den;
        vif_stat(v[0], v[1], v[2], v[3], v[4], c, &num, &den);
        nd[(size_t)i * np + j] = num;
        nd[nps + (size_t)i * np + j] = den;
    }
}

#define VIF_STAT_KERNEL(fw)                                                                  \
    EV_KERNEL vif_stat_tiled_##fw(EV_BUF(const float, ref), EV_BUF(const float, dis), int sp, \
                                  int w, int h, VifTaps f, VifStatConst c, EV_BUF(float, nd), \
                                  int np, int64_t nps)                                       \
    {                                                                                        \
        EV_LOCAL float s_ref[(VIF_TH + fw - 1) * (VIF_TW + fw - 1)];                         \
        EV_LOCAL float s_dis[(VIF_TH + fw - 1) * (VIF_TW + fw - 1)];                         \
        EV_LOCAL float s_v[5 * VIF_TH * (VIF_TW + fw - 1)];                                  \
        vif_stat_tiled(fw, EV_AT(const float, ref), EV_AT(const float, dis), sp, w, h, &f,   \
                       &c, EV_AT(float, nd), np, nps, s_ref, s_dis, s_v);                    \
    }

VIF_STAT_KERNEL(17)
VIF_STAT_KERNEL(9)
VIF_STAT_KERNEL(5)
VIF_STAT_KERNEL(3)

/*
 * Decimation with a FW-tap filter of picture z = group z (0: src0 -> dst0,
 * 1: src1 -> dst1), w x h (pitch sp) to w/2 x h/2 (pitch dp): the vertical
 * taps at the even rows, then the horizontal taps at the even columns.
 * s_in: IH x IW, s_t: VIF_DTH x IW (IW = 2 VIF_DTW + 2R, IH = 2 VIF_DTH + 2R).
 */
EV_GROUP_FN void vif_dec_tiled(const int FW, EV_GPTR(const float) src0,
                               EV_GPTR(const float) src1, int sp, int w, int h,
                               const VifTaps *f, EV_GPTR(float) dst0, EV_GPTR(float) dst1,
                               int dp, EV_LPTR(float) s_in, EV_LPTR(float) s_t)
{
    const int R = FW / 2, IW = 2 * VIF_DTW + 2 * R, IH = 2 * VIF_DTH + 2 * R;
    const int z = ev_grp(2);
    EV_GPTR(const float) src = z ? src1 : src0;
    EV_GPTR(float) dst = z ? dst1 : dst0;
    const int ow = w / 2, oh = h / 2;
    const int x0 = ev_grp(0) * VIF_DTW, y0 = ev_grp(1) * VIF_DTH, tid = ev_lid(0);
    for (int k = tid; k < IH * IW; k += VIF_THREADS) {
        const int ty = k / IW, tx = k % IW;
        s_in[k] = src[(size_t)vif_edge(2 * y0 - R + ty, h) * sp + vif_edge(2 * x0 - R + tx, w)];
    }
    ev_barrier();
    for (int k = tid; k < VIF_DTH * IW; k += VIF_THREADS) {
        const int ty = k / IW, tx = k % IW;
        float acc = 0.0f;
#pragma unroll
        for (int t = 0; t < FW; t++)
            acc = vif_tap(acc, f->f[t], s_in[(2 * ty + t) * IW + tx]);
        s_t[k] = acc;
    }
    ev_barrier();
    for (int k = tid; k < VIF_DTH * VIF_DTW; k += VIF_THREADS) {
        const int ty = k / VIF_DTW, tx = k % VIF_DTW;
        if (x0 + tx >= ow || y0 + ty >= oh) continue;
        float acc = 0.0f;
#pragma unroll
        for (int t = 0; t < FW; t++)
            acc = vif_tap(acc, f->f[t], s_t[ty * IW + 2 * tx + t]);
        dst[(size_t)(y0 + ty) * dp + x0 + tx] = acc;
    }
}

#define VIF_DEC_KERNEL(fw)                                                                   \
    EV_KERNEL vif_dec_tiled_##fw(EV_BUF(const float, src0), EV_BUF(const float, src1), int sp, \
                                 int w, int h, VifTaps f, EV_BUF(float, dst0),               \
                                 EV_BUF(float, dst1), int dp)                                \
    {                                                                                        \
        EV_LOCAL float s_in[(2 * VIF_DTH + fw - 1) * (2 * VIF_DTW + fw - 1)];                \
        EV_LOCAL float s_t[VIF_DTH * (2 * VIF_DTW + fw - 1)];                                \
        vif_dec_tiled(fw, EV_AT(const float, src0), EV_AT(const float, src1), sp, w, h, &f,  \
                      EV_AT(float, dst0), EV_AT(float, dst1), dp, s_in, s_t);                \
    }

VIF_DEC_KERNEL(9)
VIF_DEC_KERNEL(5)
VIF_DEC_KERNEL(3)

/** Decimation, vertical pass: tmp row i = taps at source rows 2i - r + k (reflected). */
EV_KERNEL vif_dec_v(EV_BUF(const float, src), int sp, int w, int h, EV_BUF(const float, f),
                    int fw, EV_BUF(float, tmp), int tp)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h / 2 || j >= w) return;
    EV_GPTR(const float) s = EV_AT(const float, src);
    EV_GPTR(const float) fk = EV_AT(const float, f);
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc = vif_tap(acc, fk[k], s[(size_t)vif_reflect(2 * i - r + k, h) * sp + j]);
    EV_AT(float, tmp)[(size_t)i * tp + j] = acc;
}

/** Decimation, horizontal pass at the even columns: out column j = taps at 2j - r + k. */
EV_KERNEL vif_dec_h(EV_BUF(const float, tmp), int tp, int w, int oh, EV_BUF(const float, f),
                    int fw, EV_BUF(float, dst), int dp)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= oh || j >= w / 2) return;
    EV_GPTR(const float) fk = EV_AT(const float, f);
    EV_GPTR(const float) row = EV_AT(const float, tmp) + (size_t)i * tp;
    const int r = fw / 2;
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc = vif_tap(acc, fk[k], row[vif_reflect(2 * j - r + k, w)]);
    EV_AT(float, dst)[(size_t)i * dp + j] = acc;
}

/** Statistics, vertical pass: mu1, mu2, xx, yy, xy planes (vps floats apart). */
EV_KERNEL vif_stat_v(EV_BUF(const float, ref), EV_BUF(const float, dis), int sp, int w, int h,
                     EV_BUF(const float, f), int fw, EV_BUF(float, v), int vp, int64_t vps)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_GPTR(const float) pr = EV_AT(const float, ref);
    EV_GPTR(const float) pd = EV_AT(const float, dis);
    EV_GPTR(const float) ft = EV_AT(const float, f);
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
    EV_GPTR(float) out = EV_AT(float, v);
    const size_t o = (size_t)i * vp + j;
    out[o] = m1;
    out[vps + o] = m2;
    out[2 * vps + o] = xx;
    out[3 * vps + o] = yy;
    out[4 * vps + o] = xy;
}

/** Statistics, horizontal pass and the per-sample num / den terms. */
EV_KERNEL vif_stat_h(EV_BUF(const float, v), int vp, int64_t vps, int w, int h,
                     EV_BUF(const float, f), int fw, VifStatConst c, EV_BUF(float, nd), int np,
                     int64_t nps)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_GPTR(const float) ft = EV_AT(const float, f);
    const int r = fw / 2;
    float s[5];
    for (int p = 0; p < 5; p++) {
        EV_GPTR(const float) row = EV_AT(const float, v) + p * vps + (size_t)i * vp;
        float acc = 0.0f;
        for (int k = 0; k < fw; k++)
            acc = vif_tap(acc, ft[k], row[vif_reflect(j - r + k, w)]);
        s[p] = acc;
    }
    float num, den;
    vif_stat(s[0], s[1], s[2], s[3], s[4], &c, &num, &den);
    EV_GPTR(float) o = EV_AT(float, nd);
    o[(size_t)i * np + j] = num;
    o[nps + (size_t)i * np + j] = den;
}

EV_ROW_SUMS(vif_row_sums_of, EV_RS_PLANE)

/** Row sums of num (group z 0) and den (1): +0, then left to right in fp32. */
EV_KERNEL vif_row_sums(EV_BUF(const float, nd), int np, int64_t nps, int w, int h,
                       EV_BUF(float, out))
{
    EV_LOCAL float tile[EV_RS_TILE];
    const int z = ev_grp(2);
    vif_row_sums_of(EV_AT(const float, nd) + z * nps, 0, np, w, h,
                    EV_AT(float, out) + (size_t)z * h, tile);
}
