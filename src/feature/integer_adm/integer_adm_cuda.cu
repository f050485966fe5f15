/*
 * Integer ADM ("adm") CUDA kernels. Every value comes from iadm_arith.h,
 * the CPU path's functions: the DWT taps and roundings (iadm_s0_vlo and
 * its kin, iadm_s1_v*, iadm_s123_*), the decoupling with its double angle test and
 * gain limit (iadm_s0_angle / iadm_s123_angle, iadm_s0_k / iadm_s123_k,
 * iadm_*_rst*), the CSF terms (iadm_*_csf, _flt, _ctr) and the masking and
 * denominator terms (iadm_*_cm, iadm_*_den). Which rows and columns each
 * stage visits, the mirrors and the padding are iadm_cpu.c's. Bands are kept
 * whole (int32 planes, scale 0's int16 values widened) instead of in row
 * rings; every read falls in rows and columns the CPU has written at that
 * point, so the values are the same. Row sums are integer: a block adds its
 * columns in any order and adds them to the row's sum with one atomic each
 * (two's complement, wrapping as the CPU's); the host applies the per-row
 * shifts and concludes with iadm_conclude() (integer_adm_cuda.c).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/integer_adm/iadm_arith.h"
#include "feature/integer_adm/iadm_gpu_args.h"
#include "gpu/cuda/block_add.cuh"

#define IADM_BLOCK 256

/** The planes of one scale, all w x h int32 (pitch w). */
typedef struct IadmPlanes {
    int32_t *ref_b[3], *dis_b[3];   /**< DWT bands h, v, d */
    int32_t *rst[3], *add[3];       /**< restored and additive parts */
    int32_t *fa, *ga, *fr, *gr;     /**< masking threshold terms of add / rst */
} IadmPlanes;


/* ---- DWT ---- */

/** The CPU's padded column: -1 -> 1, n -> n-1, n+1 -> n-2. */
__device__ __forceinline__ int pad_col(int c, int n)
{
    return c < 0 ? 1 : (c >= n ? 2 * n - c - 1 : c);
}

template <typename T>
__device__ __forceinline__ void dwt0_pic(const T *p, int n, const int y[4], int shift, int j,
                                         int32_t *a, int32_t *bh, int32_t *bv, int32_t *bd)
{
    int32_t lo[4], hi[4];
    for (int c = 0; c < 4; c++) {
        const int col = pad_col(2 * j - 1 + c, n);
        const uint32_t s0 = p[(size_t)y[0] * n + col], s1 = p[(size_t)y[1] * n + col];
        const uint32_t s2 = p[(size_t)y[2] * n + col], s3 = p[(size_t)y[3] * n + col];
        lo[c] = iadm_s0_vlo(s0, s1, s2, s3, shift);
        hi[c] = iadm_s0_vhi(s0, s1, s2, s3, shift);
    }
    *a = iadm_s0_hlo(lo[0], lo[1], lo[2], lo[3]);
    *bv = iadm_s0_hhi(lo[0], lo[1], lo[2], lo[3]);
    *bh = iadm_s0_hlo(hi[0], hi[1], hi[2], hi[3]);
    *bd = iadm_s0_hhi(hi[0], hi[1], hi[2], hi[3]);
}

template <typename T>
__device__ __forceinline__ void dwt0(const T *ref, const T *dis, int n, int in_h,
                                     const int *idx, int shift, int w, int h,
                                     int32_t *a_ref, int32_t *a_dis, IadmPlanes pl)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    const int y[4] = { idx[i], idx[h + i], idx[2 * h + i], idx[3 * h + i] };
    const size_t o = (size_t)i * w + j;
    dwt0_pic(ref, n, y, shift, j, &a_ref[o], &pl.ref_b[0][o], &pl.ref_b[1][o], &pl.ref_b[2][o]);
    dwt0_pic(dis, n, y, shift, j, &a_dis[o], &pl.dis_b[0][o], &pl.dis_b[1][o], &pl.dis_b[2][o]);
}

extern "C" __global__ void iadm_dwt0_u8(const uint8_t *ref, const uint8_t *dis, int n,
                                        int in_h, const int *idx, int shift, int w, int h,
                                        int32_t *a_ref, int32_t *a_dis, IadmPlanes pl)
{
    dwt0(ref, dis, n, in_h, idx, shift, w, h, a_ref, a_dis, pl);
}

extern "C" __global__ void iadm_dwt0_u16(const uint16_t *ref, const uint16_t *dis, int n,
                                         int in_h, const int *idx, int shift, int w, int h,
                                         int32_t *a_ref, int32_t *a_dis, IadmPlanes pl)
{
    dwt0(ref, dis, n, in_h, idx, shift, w, h, a_ref, a_dis, pl);
}

/** Vertical taps of column col of an int32 plane; row -1 reads `emu`. */
__device__ __forceinline__ void vcol(const int32_t *p, const int32_t *emu, int n, const int y[4],
                                     int col, int s, int64_t add, int sh, int32_t *lo,
                                     int32_t *hi)
{
    int32_t v[4];
    for (int k = 0; k < 4; k++)
        v[k] = y[k] < 0 ? emu[col] : p[(size_t)y[k] * n + col];
    if (s == 1) {
        *lo = iadm_s1_vlo(v[0], v[1], v[2], v[3]);
        *hi = iadm_s1_vhi(v[0], v[1], v[2], v[3]);
    } else {
        *lo = iadm_s123_lo(v[0], v[1], v[2], v[3], add, sh);
        *hi = iadm_s123_hi(v[0], v[1], v[2], v[3], add, sh);
    }
}

/** Scales 1-3: DWT of band a of the previous scale (iadm_cpu.c dwt_row). */
extern "C" __global__ void iadm_dwt(const int32_t *in_ref, const int32_t *in_dis,
                                    const int32_t *emu_ref, const int32_t *emu_dis, int n,
                                    const int *idx, int s, int w, int h,
                                    int32_t *a_ref, int32_t *a_dis, IadmPlanes pl)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    const int64_t add_v = s == 1 ? 0 : 32768;
    const int sh_v = s == 1 ? 0 : 16;
    const int64_t add_h = s == 2 ? 32768 : 16384;
    const int sh_h = s == 2 ? 16 : 15;
    const int y[4] = { idx[i], idx[h + i], idx[2 * h + i], idx[3 * h + i] };
    int32_t lr[4], hr[4], ld[4], hd[4];
    for (int c = 0; c < 4; c++) {
        const int col = pad_col(2 * j - 1 + c, n);
        vcol(in_ref, emu_ref, n, y, col, s, add_v, sh_v, &lr[c], &hr[c]);
        vcol(in_dis, emu_dis, n, y, col, s, add_v, sh_v, &ld[c], &hd[c]);
    }
    if (j == 0 && (n + 1) / 2 == 2) {
        /* Column -1 as the reference reads it there (iadm_cpu.c). */
        int32_t lo, hi;
        vcol(in_ref, emu_ref, n, y, n - 1, s, add_v, sh_v, &lo, &hi);
        lr[0] = 0;
        hr[0] = lo;
        ld[0] = hi;
        vcol(in_dis, emu_dis, n, y, n - 1, s, add_v, sh_v, &lo, &hi);
        hd[0] = lo;
    }
    const size_t o = (size_t)i * w + j;
    a_ref[o] = iadm_s123_lo(lr[0], lr[1], lr[2], lr[3], add_h, sh_h);
    pl.ref_b[1][o] = iadm_s123_hi(lr[0], lr[1], lr[2], lr[3], add_h, sh_h);
    pl.ref_b[0][o] = iadm_s123_lo(hr[0], hr[1], hr[2], hr[3], add_h, sh_h);
    pl.ref_b[2][o] = iadm_s123_hi(hr[0], hr[1], hr[2], hr[3], add_h, sh_h);
    a_dis[o] = iadm_s123_lo(ld[0], ld[1], ld[2], ld[3], add_h, sh_h);
    pl.dis_b[1][o] = iadm_s123_hi(ld[0], ld[1], ld[2], ld[3], add_h, sh_h);
    pl.dis_b[0][o] = iadm_s123_lo(hd[0], hd[1], hd[2], hd[3], add_h, sh_h);
    pl.dis_b[2][o] = iadm_s123_hi(hd[0], hd[1], hd[2], hd[3], add_h, sh_h);
}

/* ---- Denominator ---- */

/** rows[3 * i + b] += the row's denominator terms over the masking columns. */
extern "C" __global__ void __launch_bounds__(IADM_BLOCK)
iadm_den(IadmPlanes pl, IadmScaleArgs a, unsigned long long *rows)
{
    const int j = a.cm_l + blockIdx.x * blockDim.x + threadIdx.x;
    const int i = a.cm_t + blockIdx.y;
    unsigned long long v[3] = { 0, 0, 0 };
    if (j < a.cm_r) {
        const size_t o = (size_t)i * a.w + j;
        for (int b = 0; b < 3; b++)
            v[b] = a.s == 0 ? iadm_s0_den(pl.ref_b[b][o])
                            : iadm_s123_den(pl.ref_b[b][o], a.den_sq_shift, a.den_cub_add,
                                            a.den_cub_shift);
    }
    block_add<IADM_BLOCK, 3>(v, rows + 3 * (size_t)i);
}

/* ---- Decoupling and CSF ---- */

extern "C" __global__ void iadm_decouple(IadmPlanes pl, IadmScaleArgs a, const int32_t *div_lookup)
{
    const int j = a.ext_l + blockIdx.x * blockDim.x + threadIdx.x;
    const int i = a.ext_t + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= a.ext_b || j >= a.ext_r) return;
    const size_t o = (size_t)i * a.w + j;
    int32_t ob[3], tb[3], r[3], d[3];
    for (int b = 0; b < 3; b++) {
        ob[b] = pl.ref_b[b][o];
        tb[b] = pl.dis_b[b][o];
    }
    if (a.s == 0) {
        const int32_t angle = iadm_s0_angle(ob[0], ob[1], tb[0], tb[1], a.cos2);
        for (int b = 0; b < 3; b++) {
            const int32_t k = iadm_s0_k(ob[b], tb[b], div_lookup[ob[b] + 32768]);
            const int16_t rs = (int16_t)(a.egl_int
                ? iadm_s0_rst_int(k, ob[b], tb[b], angle, a.egl_int)
                : iadm_s0_rst(k, ob[b], tb[b], angle, a.egl));
            r[b] = rs;
            d[b] = (int16_t)(tb[b] - rs);
        }
        const int32_t cf[3] = {
            iadm_s0_csf(d[0], a.rf0[0], 16384, 15), iadm_s0_csf(d[1], a.rf0[1], 16384, 15),
            iadm_s0_csf(d[2], a.rf0[2], 65535, 17) };
        const int32_t fs = iadm_s0_flt(cf[0]) + iadm_s0_flt(cf[1]) + iadm_s0_flt(cf[2]);
        const int32_t cs = iadm_s0_ctr(cf[0]) + iadm_s0_ctr(cf[1]) + iadm_s0_ctr(cf[2]);
        pl.fa[o] = fs;
        pl.ga[o] = cs - fs;
        if (!a.skip_aim) {
            const int32_t cr[3] = {
                iadm_s0_csf(r[0], a.rf0[0], 16384, 15), iadm_s0_csf(r[1], a.rf0[1], 16384, 15),
                iadm_s0_csf(r[2], a.rf0[2], 65535, 17) };
            const int32_t fr = iadm_s0_flt(cr[0]) + iadm_s0_flt(cr[1]) + iadm_s0_flt(cr[2]);
            const int32_t gr = iadm_s0_ctr(cr[0]) + iadm_s0_ctr(cr[1]) + iadm_s0_ctr(cr[2]);
            pl.fr[o] = fr;
            pl.gr[o] = gr - fr;
        }
    } else {
        const int32_t angle = iadm_s123_angle(ob[0], ob[1], tb[0], tb[1], a.cos2);
        for (int b = 0; b < 3; b++) {
            const int x = iadm_s123_kshift(ob[b]);
            const int32_t q = div_lookup[iadm_s123_kidx(ob[b], x)];
            const int32_t k = iadm_s123_k(ob[b], tb[b], q, x);
            const int32_t rs = a.egl_int ? iadm_s123_rst_int(k, ob[b], tb[b], angle, a.egl_int)
                                         : iadm_s123_rst(k, ob[b], tb[b], angle, a.egl);
            r[b] = rs;
            d[b] = (int32_t)((uint32_t)tb[b] - (uint32_t)rs);
        }
        const int32_t cf[3] = { iadm_s123_csf(d[0], a.rf123[0]), iadm_s123_csf(d[1], a.rf123[1]),
                                iadm_s123_csf(d[2], a.rf123[2]) };
        const uint32_t fs = (uint32_t)iadm_s123_flt(cf[0]) + (uint32_t)iadm_s123_flt(cf[1]) +
                            (uint32_t)iadm_s123_flt(cf[2]);
        const uint32_t cs = (uint32_t)iadm_s123_ctr(cf[0]) + (uint32_t)iadm_s123_ctr(cf[1]) +
                            (uint32_t)iadm_s123_ctr(cf[2]);
        pl.fa[o] = (int32_t)fs;
        pl.ga[o] = (int32_t)(cs - fs);
        if (!a.skip_aim) {
            const int32_t cr[3] = { iadm_s123_csf(r[0], a.rf123[0]),
                                    iadm_s123_csf(r[1], a.rf123[1]),
                                    iadm_s123_csf(r[2], a.rf123[2]) };
            const uint32_t fr = (uint32_t)iadm_s123_flt(cr[0]) + (uint32_t)iadm_s123_flt(cr[1]) +
                                (uint32_t)iadm_s123_flt(cr[2]);
            const uint32_t gr = (uint32_t)iadm_s123_ctr(cr[0]) + (uint32_t)iadm_s123_ctr(cr[1]) +
                                (uint32_t)iadm_s123_ctr(cr[2]);
            pl.fr[o] = (int32_t)fr;
            pl.gr[o] = (int32_t)(gr - fr);
        }
    }
    for (int b = 0; b < 3; b++) {
        pl.rst[b][o] = r[b];
        pl.add[b][o] = d[b];
    }
}

/**
 * Row -1 of the scale-3 ref input for tiny frames (iadm_cpu.c
 * build_emu_row): int16 pairs of scale 0's CSF band d at row h0 - 2.
 */
extern "C" __global__ void iadm_emu(IadmPlanes pl, IadmScaleArgs a, int n, int32_t *emu)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const size_t row = (size_t)(a.h - 2) * a.w;
    uint32_t word = 0;
    for (int k = 0; k < 2; k++) {
        const int col = 2 * j + k;
        int16_t v = 0;
        if (col >= a.ext_l && col < a.ext_r)
            v = a.skip_aim ? iadm_s0_flt(iadm_s0_csf(pl.add[2][row + col], a.rf0[2], 65535, 17))
                           : iadm_s0_csf(pl.rst[2][row + col], a.rf0[2], 65535, 17);
        word |= (uint32_t)(uint16_t)v << (16 * k);
    }
    emu[j] = (int32_t)word;
}

/* ---- Masking ---- */

/** The 3x3 threshold of (i, j) from F and G with iadm_cpu.c's mirrors. */
__device__ __forceinline__ int32_t threshold(const int32_t *f, const int32_t *g, int w, int h,
                                             int i, int j)
{
    const int u = i == 0 ? 1 : i - 1, d = i == h - 1 ? h - 1 : i + 1;
    const int jl = j == 0 ? 1 : j - 1, jr = j == w - 1 ? w - 1 : j + 1;
    const int cols[3] = { jl, j, jr };
    uint32_t t = (uint32_t)g[(size_t)i * w + j];
    for (int c = 0; c < 3; c++)
        t += (uint32_t)f[(size_t)u * w + cols[c]] + (uint32_t)f[(size_t)i * w + cols[c]] +
             (uint32_t)f[(size_t)d * w + cols[c]];
    return (int32_t)t;
}

/** rows[6 * i + b] += num terms (band b), rows[6 * i + 3 + b] += aim terms. */
extern "C" __global__ void __launch_bounds__(IADM_BLOCK)
iadm_cm(IadmPlanes pl, IadmScaleArgs a, unsigned long long *rows)
{
    const int j = a.cm_l + blockIdx.x * blockDim.x + threadIdx.x;
    const int i = a.cm_t + blockIdx.y;
    unsigned long long v[6] = { 0, 0, 0, 0, 0, 0 };
    if (j < a.cm_r) {
        const size_t o = (size_t)i * a.w + j;
        const int32_t thr = threshold(pl.fa, pl.ga, a.w, a.h, i, j);
        const int32_t thr_a = a.skip_aim ? 0 : threshold(pl.fr, pl.gr, a.w, a.h, i, j);
        for (int b = 0; b < 3; b++) {
            if (a.s == 0) {
                const int sub = b == 2 ? 12 : 10, sq = b == 2 ? 30 : 29;
                const int64_t sq_add = b == 2 ? 536870912 : 268435456;
                v[b] = (unsigned long long)iadm_s0_cm(pl.rst[b][o], a.rf0[b], thr, sub, sq,
                                                      sq_add, a.cub_shift[b], a.cub_add[b]);
                if (!a.skip_aim)
                    v[3 + b] = (unsigned long long)iadm_s0_cm(pl.add[b][o], a.rf0[b], thr_a, sub,
                                                              sq, sq_add, a.cub_shift[b],
                                                              a.cub_add[b]);
            } else {
                v[b] = (unsigned long long)iadm_s123_cm(pl.rst[b][o], a.rf123[b], thr,
                                                        a.cub_shift[0], a.cub_add[0]);
                if (!a.skip_aim)
                    v[3 + b] = (unsigned long long)iadm_s123_cm(pl.add[b][o], a.rf123[b], thr_a,
                                                                a.cub_shift[0], a.cub_add[0]);
            }
        }
    }
    block_add<IADM_BLOCK, 6>(v, rows + 6 * (size_t)i);
}
