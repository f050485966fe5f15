/*
 * Integer VIF ("vif") OpenCL kernels (host side: integer_vif_gpu.c), a port
 * of integer_vif_cuda.cu with the same names, arguments and tiles. Every
 * value comes from ivif_arith.h, the CPU path's functions: the vertical and
 * horizontal roundings (ivif_vert_mu, ivif_vert_sq, ivif_horz_sq),
 * reflect-101 (ivif_reflect) and the per-pixel statistic with its binary64
 * sites (ivif_stat_common, ivif_stat_num_log), which are doubles where the
 * device's fp64 is used and fp_exact.h's integer routines where not.
 *
 * One launch per scale does the whole statistic: a group of 256 loads a
 * tile of both pictures with its reflected border into local memory, runs
 * the vertical taps of every column there, the horizontal taps over those,
 * and the statistic of each pixel. The vertical moments are always summed
 * in uint64: for 8-bit samples the sums stay below 2^32 (the filter sums to
 * 2^16), so that is the CPU's uint32 value. The statistic's sums are
 * integer (int64, two's complement): a group adds its items in any order
 * and adds each total to the scale's with two 32-bit atomics (mod 2^64,
 * exact for signed values too). Several gain limits share the pass; the
 * host passes them as IvifGainLimits, whose doubles arrive here as their
 * bit patterns (ivif_arith.h, IVIF_EGL).
 *
 * Decimation (scale s from scale s-1 with scale s's filter) is one launch
 * for both pictures (group z: 0 ref, 1 dis), tiled the same way.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/ev_kernel.h"
#include "fp.h"
#include "feature/integer_vif/ivif_arith.h"
#include "feature/integer_vif/ivif_cuda.h"

#define THREADS 256
/* Statistic tile: TW x TH outputs per group. */
#define TW 32
#define TH 32
/* Decimation tile: DTW x DTH outputs per group. */
#define DTW 32
#define DTH 16

constant uint c_filter[IVIF_NUM_SCALES][IVIF_MAX_TAPS] = IVIF_FILTER_TABLE;

static inline int scale_of(int fw)
{
    return fw == 17 ? 0 : fw == 9 ? 1 : fw == 5 ? 2 : 3;
}

/* reflect-101, then clamped: positions only a partial tile reads, which no
 * output uses, stay inside the plane. */
static inline int edge(int i, int n)
{
    const int r = ivif_reflect(i, n);
    return r < 0 ? 0 : (r >= n ? n - 1 : r);
}

/* ---- The statistic ---- */

/* Tile sizes of filter width FW (the local arrays are sized per kernel). */
#define SIW(FW) (TW + 2 * ((FW) / 2))
#define SIH(FW) (TH + 2 * ((FW) / 2))

/** Both tiles of the w x h pair, with their border, into s_ref and s_dis (iw x ih). */
#define IVIF_LOAD_TILE(SUF, T)                                                              \
    static void load_tile_##SUF(global const T *ref, global const T *dis, int w, int h,   \
                                int x0, int y0, int r, int iw, int ih,                     \
                                local ushort *s_ref, local ushort *s_dis)                  \
    {                                                                                      \
        for (int k = (int)get_local_id(0); k < ih * iw; k += THREADS) {                    \
            const int ty = k / iw, tx = k % iw;                                            \
            const size_t o = (size_t)edge(y0 - r + ty, h) * w + edge(x0 - r + tx, w);     \
            s_ref[k] = ref[o];                                                             \
            s_dis[k] = dis[o];                                                             \
        }                                                                                  \
    }

IVIF_LOAD_TILE(u8, uchar)
IVIF_LOAD_TILE(u16, ushort)

/*
 * The statistic of the tile at (x0, y0) of a w x h scale with filter width
 * fw, from the loaded tiles (s_v: 5 x TH x iw), added to acc (IVIF_ACC
 * int64 sums as uint pairs).
 */
static void stat_tile(local const ushort *s_ref, local const ushort *s_dis, local uint *s_v,
                      local ulong *scratch, int fw, int w, int h, int x0, int y0,
                      uint mu_round, int mu_shift, uint sq_round, int sq_shift,
                      IvifGainLimits egl, global const ushort *table, global uint *acc)
{
    const int S = scale_of(fw), iw = TW + 2 * (fw / 2), tid = (int)get_local_id(0);
    const int plane = TH * iw;

    /* Vertical taps of every tile column at the tile's rows. */
    for (int k = tid; k < TH * iw; k += THREADS) {
        const int ty = k / iw, tx = k % iw;
        uint m1 = 0, m2 = 0;
        ulong xx = 0, yy = 0, xy = 0;
        for (int t = 0; t < fw; t++) {
            const uint f = c_filter[S][t];
            const uint a = s_ref[(ty + t) * iw + tx], b = s_dis[(ty + t) * iw + tx];
            const uint fa = f * a, fb = f * b;
            m1 += fa;
            m2 += fb;
            xx += (ulong)fa * a;
            yy += (ulong)fb * b;
            xy += (ulong)fa * b;
        }
        s_v[k] = ivif_vert_mu(m1, mu_round, mu_shift);
        s_v[plane + k] = ivif_vert_mu(m2, mu_round, mu_shift);
        s_v[2 * plane + k] = ivif_vert_sq(xx, sq_round, sq_shift);
        s_v[3 * plane + k] = ivif_vert_sq(yy, sq_round, sq_shift);
        s_v[4 * plane + k] = ivif_vert_sq(xy, sq_round, sq_shift);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Horizontal taps and the statistic of every output of the tile. */
    IvifAccum a = { 0, 0, 0, 0 };
    int64_t num_log[IVIF_MAX_GAIN_LIMITS] = { 0, 0, 0, 0 };
    for (int k = tid; k < TH * TW; k += THREADS) {
        const int ty = k / TW, tx = k % TW;
        if (x0 + tx >= w || y0 + ty >= h) continue;
        uint m1 = 0, m2 = 0;
        ulong xx = 0, yy = 0, xy = 0;
        const int row = ty * iw + tx;
        for (int t = 0; t < fw; t++) {
            const uint f = c_filter[S][t];
            m1 += f * s_v[row + t];
            m2 += f * s_v[plane + row + t];
            xx += (ulong)f * s_v[2 * plane + row + t];
            yy += (ulong)f * s_v[3 * plane + row + t];
            xy += (ulong)f * s_v[4 * plane + row + t];
        }
        IvifGain gain;
        if (ivif_stat_common(m1, m2, ivif_horz_sq(xx), ivif_horz_sq(yy), ivif_horz_sq(xy),
                             table, &a, &gain))
            for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
                if (e < egl.n) num_log[e] += ivif_stat_num_log(&gain, IVIF_EGL(egl, e), table);
    }

    /* Two's complement: unsigned sums add the signed values exactly. */
    ulong sums[IVIF_ACC];
    sums[IVIF_ACC_DEN_LOG] = (ulong)a.den_log;
    sums[IVIF_ACC_NUM_NON_LOG] = (ulong)a.num_non_log;
    sums[IVIF_ACC_DEN_NON_LOG] = (ulong)a.den_non_log;
    for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
        sums[IVIF_ACC_NUM_LOG + e] = (ulong)num_log[e];
    for (int c = 0; c < IVIF_ACC; c++) {
        const ulong t = ev_group_sum_u64(sums[c], scratch);
        if (tid == 0 && t) ev_atomic_add_u64(acc + 2 * c, t);
        barrier(CLK_LOCAL_MEM_FENCE); /* scratch[0] read before the next sum reuses it */
    }
}

#define STAT_KERNEL(name, SUF, T, FW)                                                       \
    kernel void name(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int h,              \
                     uint mu_round, int mu_shift, uint sq_round, int sq_shift,              \
                     IvifGainLimits egl, EV_BUF(const ushort, table), EV_BUF(uint, acc))    \
    {                                                                                       \
        local ushort s_ref[SIH(FW) * SIW(FW)], s_dis[SIH(FW) * SIW(FW)];                    \
        local uint s_v[5 * TH * SIW(FW)];                                                   \
        local ulong scratch[THREADS];                                                       \
        const int x0 = (int)get_group_id(0) * TW, y0 = (int)get_group_id(1) * TH;           \
        load_tile_##SUF(EV_AT(const T, ref), EV_AT(const T, dis), w, h, x0, y0, (FW) / 2,   \
                        SIW(FW), SIH(FW), s_ref, s_dis);                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        stat_tile(s_ref, s_dis, s_v, scratch, FW, w, h, x0, y0, mu_round, mu_shift,         \
                  sq_round, sq_shift, egl, EV_AT(const ushort, table), EV_AT(uint, acc));   \
    }

STAT_KERNEL(ivif_stat_u8_17, u8, uchar, 17)
STAT_KERNEL(ivif_stat_u16_17, u16, ushort, 17)
STAT_KERNEL(ivif_stat_u16_9, u16, ushort, 9)
STAT_KERNEL(ivif_stat_u16_5, u16, ushort, 5)
STAT_KERNEL(ivif_stat_u16_3, u16, ushort, 3)

/* ---- Decimation ---- */

#define DIW(FW) (2 * DTW + 2 * ((FW) / 2))
#define DIH(FW) (2 * DTH + 2 * ((FW) / 2))

/** The tile of src (w x h) that decimated tile (x0, y0) reads, into s_in (iw x ih). */
#define IVIF_LOAD_DEC(SUF, T)                                                               \
    static void load_dec_##SUF(global const T *src, int w, int h, int x0, int y0, int r,   \
                               int iw, int ih, local ushort *s_in)                         \
    {                                                                                      \
        for (int k = (int)get_local_id(0); k < ih * iw; k += THREADS) {                    \
            const int ty = k / iw, tx = k % iw;                                            \
            s_in[k] = src[(size_t)edge(2 * y0 - r + ty, h) * w + edge(2 * x0 - r + tx, w)]; \
        }                                                                                  \
    }

IVIF_LOAD_DEC(u8, uchar)
IVIF_LOAD_DEC(u16, ushort)

/*
 * Decimation to the scale of filter width fw from the w x h scale below:
 * the vertical taps at the even rows (rounded by the pass that reads the
 * scale below: mu_round, mu_shift), then the horizontal taps at the even
 * columns, rounded to 16 bits.
 */
static void dec_tile(local const ushort *s_in, local uint *s_t, int fw, int w, int h, int x0,
                     int y0, uint mu_round, int mu_shift, global ushort *dst)
{
    const int S = scale_of(fw), iw = 2 * DTW + 2 * (fw / 2), tid = (int)get_local_id(0);
    const int ow = w / 2, oh = h / 2;
    for (int k = tid; k < DTH * iw; k += THREADS) {
        const int ty = k / iw, tx = k % iw;
        uint m = 0;
        for (int t = 0; t < fw; t++)
            m += c_filter[S][t] * (uint)s_in[(2 * ty + t) * iw + tx];
        s_t[k] = ivif_vert_mu(m, mu_round, mu_shift);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < DTH * DTW; k += THREADS) {
        const int ty = k / DTW, tx = k % DTW;
        if (x0 + tx >= ow || y0 + ty >= oh) continue;
        uint m = 0;
        for (int t = 0; t < fw; t++)
            m += c_filter[S][t] * s_t[ty * iw + 2 * tx + t];
        dst[(size_t)(y0 + ty) * ow + x0 + tx] = (ushort)((m + 32768) >> 16);
    }
}

#define DEC_KERNEL(name, SUF, T, FW)                                                        \
    kernel void name(EV_BUF(const T, src0), EV_BUF(const T, src1), int w, int h,            \
                     uint mu_round, int mu_shift, EV_BUF(ushort, dst0), EV_BUF(ushort, dst1)) \
    {                                                                                       \
        local ushort s_in[DIH(FW) * DIW(FW)];                                               \
        local uint s_t[DTH * DIW(FW)];                                                      \
        const int z = (int)get_group_id(2);                                                 \
        const int x0 = (int)get_group_id(0) * DTW, y0 = (int)get_group_id(1) * DTH;         \
        load_dec_##SUF(z ? EV_AT(const T, src1) : EV_AT(const T, src0), w, h, x0, y0,       \
                       (FW) / 2, DIW(FW), DIH(FW), s_in);                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                       \
        dec_tile(s_in, s_t, FW, w, h, x0, y0, mu_round, mu_shift,                           \
                 z ? EV_AT(ushort, dst1) : EV_AT(ushort, dst0));                            \
    }

DEC_KERNEL(ivif_dec_u8_9, u8, uchar, 9)
DEC_KERNEL(ivif_dec_u16_9, u16, ushort, 9)
DEC_KERNEL(ivif_dec_u16_5, u16, ushort, 5)
DEC_KERNEL(ivif_dec_u16_3, u16, ushort, 3)
