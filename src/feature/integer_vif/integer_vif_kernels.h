/*
 * Integer VIF's ("vif") kernels, one text for CUDA and OpenCL
 * (gpu/ev_kernel.h; integer_vif_cuda.cu and integer_vif_opencl.cl include
 * it, the host side is integer_vif_gpu.c). Every value comes from
 * ivif_arith.h, the CPU path's functions: the vertical and horizontal
 * roundings (ivif_vert_mu, ivif_vert_sq, ivif_horz_sq), reflect-101
 * (ivif_reflect) and the per-pixel statistic with its binary64 sites
 * (ivif_stat_common, ivif_stat_num_log: doubles where there is binary64,
 * fp_exact.h's integer routines on an OpenCL device without it).
 *
 * One launch per scale does the whole statistic: a group of IVIF_THREADS
 * loads a tile of both pictures with its reflected border into local
 * memory, runs the vertical taps of every column there (uint16 means,
 * uint32 or uint64 moments as the CPU), the horizontal taps over those, and
 * the statistic of each pixel; no filtered plane goes to device memory. The
 * statistic's sums are integer (int64, two's complement), so a group adds
 * its pixels in any order and adds its totals to the scale's with one
 * atomic each (ev_group_add_u64). Several gain limits (vif_enhn_gain_limit
 * of instances that differ only there, e.g. VMAF and VMAF NEG) share the
 * pass: only the num_log term depends on the limit.
 *
 * Decimation (scale s from scale s-1 with scale s's filter) is one launch
 * for both pictures (group z: 0 ref, 1 dis), tiled the same way.
 */
#include "fp.h"
#include "feature/integer_vif/ivif_arith.h"
#include "feature/integer_vif/ivif_gpu_args.h"

/* Group and tile sizes: ivif_gpu_args.h (the host launches with the same). */
#define IVIF_TW IVIF_STAT_TW
#define IVIF_TH IVIF_STAT_TH
#define IVIF_DTW IVIF_DEC_TW
#define IVIF_DTH IVIF_DEC_TH

EV_CONSTANT uint32_t ivif_filter[IVIF_NUM_SCALES][IVIF_MAX_TAPS] = IVIF_FILTER_TABLE;

/** The scale whose filter is fw taps wide. */
EV_FN int ivif_scale_of(int fw)
{
    return fw == 17 ? 0 : fw == 9 ? 1 : fw == 5 ? 2 : 3;
}

/* reflect-101, then clamped: positions only a partial tile reads, which no
 * output uses, stay inside the plane. */
EV_FN int ivif_edge(int i, int n)
{
    const int r = ivif_reflect(i, n);
    return r < 0 ? 0 : (r >= n ? n - 1 : r);
}

/* ---- The statistic ---- */

/* Tile sizes of filter width FW. */
#define IVIF_SIW(FW) (IVIF_TW + 2 * ((FW) / 2))
#define IVIF_SIH(FW) (IVIF_TH + 2 * ((FW) / 2))

/*
 * Each item of the vertical pass filters IVIF_RV consecutive rows of one
 * tile column, and each item of the horizontal pass IVIF_CH consecutive
 * outputs of one row: the samples an item reads are loaded from local
 * memory once into registers (IVIF_RV + FW - 1 or IVIF_CH + FW - 1 of them)
 * instead of once per tap, and the filter's symmetry (f[t] == f[FW-1-t])
 * multiplies each pair of samples' sum once. Every sum is an integer sum
 * that stays in range (bounds at each use), so its grouping gives the same
 * value as the CPU's tap by tap.
 */
#define IVIF_RV 8
#define IVIF_CH 6
#define IVIF_VREG (IVIF_RV + IVIF_MAX_TAPS - 1)
#define IVIF_HREG (IVIF_CH + IVIF_MAX_TAPS - 1)

/*
 * Filter width FW's taps at x[c .. c + FW - 1], samples held in registers:
 * each symmetric pair's sum multiplied once. The caller bounds the sum
 * below 2^32 (for every use: f*(x + x') <= 16004 * 2 * 65535, 16004 the
 * largest paired tap of any scale, and the whole sum <= 2^16 * 65535).
 */
EV_GROUP_FN uint32_t ivif_taps_u32(const int FW, const uint32_t *x, int c)
{
    const int S = ivif_scale_of(FW), C = FW / 2;
    uint32_t m = ivif_filter[S][C] * x[c + C];
#pragma unroll
    for (int t = 0; t < C; t++)
        m += ivif_filter[S][t] * (x[c + t] + x[c + FW - 1 - t]);
    return m;
}

/*
 * For samples of type T, whose vertical moments add in ACC: uint32 for 8
 * bits, whose sums of f*x*y stay below 2^32 (the filter sums to 2^16, so
 * at most 2^16 * 255^2; a pair's f*(x*x + x'*x') is at most 7455 * 2 * 255^2,
 * 7455 the largest paired tap of scale 0's filter, the only one read at 8
 * bits),
 * as the CPU's; uint64 above. A sample's square or product fits uint32 at
 * 16 bits (65535^2 < 2^32).
 *
 * ivif_load_tile_T: both tiles of the w x h pair at (x0, y0), with their
 * border, into s_ref and s_dis (IVIF_SIH(FW) x IVIF_SIW(FW)).
 * ivif_vert_T: the vertical taps of every tile column at the tile's rows,
 * rounded as the CPU's pass: the uint16 means into s_mu (2 planes of
 * IVIF_TH x IVIF_SIW(FW)), the second moments into s_sq (3 planes).
 */
#define IVIF_TILE_FNS(T, ACC)                                                               \
    EV_GROUP_FN void ivif_load_tile_##T(const int FW, EV_GPTR(const T) ref,                 \
                                        EV_GPTR(const T) dis, int w, int h, int x0, int y0, \
                                        EV_LPTR(uint16_t) s_ref, EV_LPTR(uint16_t) s_dis)   \
    {                                                                                       \
        const int R = FW / 2, IW = IVIF_SIW(FW), IH = IVIF_SIH(FW);                         \
        for (int k = ev_lid(0); k < IH * IW; k += IVIF_THREADS) {                           \
            const int ty = k / IW, tx = k % IW;                                             \
            const size_t o = (size_t)ivif_edge(y0 - R + ty, h) * w + ivif_edge(x0 - R + tx, w); \
            s_ref[k] = ref[o];                                                              \
            s_dis[k] = dis[o];                                                              \
        }                                                                                   \
    }                                                                                       \
    EV_GROUP_FN void ivif_vert_##T(const int FW, EV_LPTR(const uint16_t) s_ref,             \
                                   EV_LPTR(const uint16_t) s_dis, EV_LPTR(uint16_t) s_mu,   \
                                   EV_LPTR(uint32_t) s_sq, uint32_t mu_round, int mu_shift, \
                                   uint32_t sq_round, int sq_shift)                         \
    {                                                                                       \
        const int S = ivif_scale_of(FW), IW = IVIF_SIW(FW), plane = IVIF_TH * IW;           \
        const int N = IVIF_RV + FW - 1, C = FW / 2;                                         \
        for (int k = ev_lid(0); k < IW * (IVIF_TH / IVIF_RV); k += IVIF_THREADS) {          \
            const int tx = k % IW, ty0 = k / IW * IVIF_RV;                                  \
            uint32_t a[IVIF_VREG], b[IVIF_VREG];                                            \
            _Pragma("unroll") for (int i = 0; i < N; i++) {                                 \
                a[i] = s_ref[(ty0 + i) * IW + tx];                                          \
                b[i] = s_dis[(ty0 + i) * IW + tx];                                          \
            }                                                                               \
            _Pragma("unroll") for (int r = 0; r < IVIF_RV; r++) {                           \
                const int o = (ty0 + r) * IW + tx;                                          \
                s_mu[o] = (uint16_t)ivif_vert_mu(ivif_taps_u32(FW, a, r), mu_round, mu_shift); \
                s_mu[plane + o] =                                                           \
                    (uint16_t)ivif_vert_mu(ivif_taps_u32(FW, b, r), mu_round, mu_shift);    \
            }                                                                               \
            /* Second moments, from each row's squares and product. */                     \
            uint32_t ab[IVIF_VREG];                                                         \
            _Pragma("unroll") for (int i = 0; i < N; i++) {                                 \
                ab[i] = a[i] * b[i];                                                        \
                a[i] *= a[i];                                                               \
                b[i] *= b[i];                                                               \
            }                                                                               \
            _Pragma("unroll") for (int r = 0; r < IVIF_RV; r++) {                           \
                const uint32_t fc = ivif_filter[S][C];                                      \
                ACC xx = (ACC)fc * a[r + C], yy = (ACC)fc * b[r + C], xy = (ACC)fc * ab[r + C]; \
                _Pragma("unroll") for (int t = 0; t < C; t++) {                             \
                    const uint32_t f = ivif_filter[S][t];                                   \
                    xx += (ACC)f * ((ACC)a[r + t] + a[r + FW - 1 - t]);                     \
                    yy += (ACC)f * ((ACC)b[r + t] + b[r + FW - 1 - t]);                     \
                    xy += (ACC)f * ((ACC)ab[r + t] + ab[r + FW - 1 - t]);                   \
                }                                                                           \
                const int o = (ty0 + r) * IW + tx;                                          \
                s_sq[o] = ivif_vert_sq(xx, sq_round, sq_shift);                             \
                s_sq[plane + o] = ivif_vert_sq(yy, sq_round, sq_shift);                     \
                s_sq[2 * plane + o] = ivif_vert_sq(xy, sq_round, sq_shift);                 \
            }                                                                               \
        }                                                                                   \
    }
IVIF_TILE_FNS(uint8_t, uint32_t)
IVIF_TILE_FNS(uint16_t, uint64_t)

/* The horizontal taps of IVIF_CH consecutive outputs from row `row` of a
 * vertical plane of uint16 means. */
EV_GROUP_FN void ivif_horz_mu(const int FW, EV_LPTR(const uint16_t) v, uint32_t *out)
{
    const int N = IVIF_CH + FW - 1;
    uint32_t x[IVIF_HREG];
#pragma unroll
    for (int i = 0; i < N; i++)
        x[i] = v[i];
#pragma unroll
    for (int c = 0; c < IVIF_CH; c++)
        out[c] = ivif_taps_u32(FW, x, c);
}

/*
 * The same for a plane of uint32 second moments, whose sums need 48 bits:
 * each value is split into 16-bit halves, whose sums (in range as the
 * means') give the uint64 sum exactly as (hi << 16) + lo; then rounded as
 * the CPU's (ivif_horz_sq).
 */
EV_GROUP_FN void ivif_horz_sq_row(const int FW, EV_LPTR(const uint32_t) v, uint32_t *out)
{
    const int N = IVIF_CH + FW - 1;
    uint32_t lo[IVIF_HREG], hi[IVIF_HREG];
#pragma unroll
    for (int i = 0; i < N; i++) {
        const uint32_t x = v[i];
        lo[i] = x & 0xffffu;
        hi[i] = x >> 16;
    }
#pragma unroll
    for (int c = 0; c < IVIF_CH; c++)
        out[c] = ivif_horz_sq(((uint64_t)ivif_taps_u32(FW, hi, c) << 16) +
                              ivif_taps_u32(FW, lo, c));
}

/*
 * The horizontal taps and the statistic of every output of the tile at
 * (x0, y0) of a w x h scale with filter width FW, from the vertical pass in
 * s_mu and s_sq; the group's sums are added to acc (IVIF_ACC int64 sums as word
 * pairs).
 */
EV_GROUP_FN void ivif_stat_tile(const int FW, EV_LPTR(const uint16_t) s_mu,
                                EV_LPTR(const uint32_t) s_sq, EV_LPTR(uint64_t) scratch, int w,
                                int h, int x0, int y0, const IvifGainLimits *egl,
                                EV_GPTR(const uint16_t) table, EV_GPTR(uint32_t) acc)
{
    const int IW = IVIF_SIW(FW), plane = IVIF_TH * IW;
    IvifAccum a = { 0, 0, 0, 0 };
    int64_t num_log[IVIF_MAX_GAIN_LIMITS] = { 0, 0, 0, 0 };
    for (int k = ev_lid(0); k < IVIF_TH * (IVIF_TW / IVIF_CH); k += IVIF_THREADS) {
        const int ty = k / (IVIF_TW / IVIF_CH), tx0 = k % (IVIF_TW / IVIF_CH) * IVIF_CH;
        if (x0 + tx0 >= w || y0 + ty >= h) continue;
        const int row = ty * IW + tx0;
        uint32_t m1[IVIF_CH], m2[IVIF_CH], xx[IVIF_CH], yy[IVIF_CH], xy[IVIF_CH];
        ivif_horz_mu(FW, s_mu + row, m1);
        ivif_horz_mu(FW, s_mu + plane + row, m2);
        ivif_horz_sq_row(FW, s_sq + row, xx);
        ivif_horz_sq_row(FW, s_sq + plane + row, yy);
        ivif_horz_sq_row(FW, s_sq + 2 * plane + row, xy);
#pragma unroll
        for (int c = 0; c < IVIF_CH; c++) {
            IvifGain gain;
            if (x0 + tx0 + c < w &&
                ivif_stat_common(m1[c], m2[c], xx[c], yy[c], xy[c], table, &a, &gain))
                for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
                    if (e < egl->n) num_log[e] += ivif_stat_num_log(&gain, egl->v[e], table);
        }
    }
    /* Two's complement: unsigned sums add the signed values exactly. */
    uint64_t sums[IVIF_ACC];
    sums[IVIF_ACC_DEN_LOG] = (uint64_t)a.den_log;
    sums[IVIF_ACC_NUM_NON_LOG] = (uint64_t)a.num_non_log;
    sums[IVIF_ACC_DEN_NON_LOG] = (uint64_t)a.den_non_log;
    for (int e = 0; e < IVIF_MAX_GAIN_LIMITS; e++)
        sums[IVIF_ACC_NUM_LOG + e] = (uint64_t)num_log[e];
    ev_group_add_u64(sums, IVIF_ACC, scratch, acc);
}

#define IVIF_STAT_KERNEL(NAME, T, FW)                                                       \
    EV_KERNEL NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int h,                \
                   uint32_t mu_round, int mu_shift, uint32_t sq_round, int sq_shift,        \
                   IvifGainLimits egl, EV_BUF(const uint16_t, table), EV_BUF(uint32_t, acc)) \
    {                                                                                       \
        EV_LOCAL uint16_t s_ref[IVIF_SIH(FW) * IVIF_SIW(FW)];                               \
        EV_LOCAL uint16_t s_dis[IVIF_SIH(FW) * IVIF_SIW(FW)];                               \
        EV_LOCAL uint16_t s_mu[2 * IVIF_TH * IVIF_SIW(FW)];                                 \
        EV_LOCAL uint32_t s_sq[3 * IVIF_TH * IVIF_SIW(FW)];                                 \
        EV_LOCAL uint64_t scratch[EV_GROUP_ADD_SCRATCH(IVIF_THREADS, IVIF_ACC)];            \
        const int x0 = ev_grp(0) * IVIF_TW, y0 = ev_grp(1) * IVIF_TH;                       \
        ivif_load_tile_##T(FW, EV_AT(const T, ref), EV_AT(const T, dis), w, h, x0, y0,      \
                           s_ref, s_dis);                                                   \
        ev_barrier();                                                                       \
        ivif_vert_##T(FW, s_ref, s_dis, s_mu, s_sq, mu_round, mu_shift, sq_round, sq_shift); \
        ev_barrier();                                                                       \
        ivif_stat_tile(FW, s_mu, s_sq, scratch, w, h, x0, y0, &egl,                         \
                       EV_AT(const uint16_t, table), EV_AT(uint32_t, acc));                 \
    }

IVIF_STAT_KERNEL(ivif_stat_u8_17, uint8_t, 17)
IVIF_STAT_KERNEL(ivif_stat_u16_17, uint16_t, 17)
IVIF_STAT_KERNEL(ivif_stat_u16_9, uint16_t, 9)
IVIF_STAT_KERNEL(ivif_stat_u16_5, uint16_t, 5)
IVIF_STAT_KERNEL(ivif_stat_u16_3, uint16_t, 3)

/* ---- Decimation ---- */

#define IVIF_DIW(FW) (2 * IVIF_DTW + 2 * ((FW) / 2))
#define IVIF_DIH(FW) (2 * IVIF_DTH + 2 * ((FW) / 2))

/** The tile of src (w x h) that decimated tile (x0, y0) reads, into s_in (IVIF_DIH x IVIF_DIW). */
#define IVIF_LOAD_DEC(T)                                                                    \
    EV_GROUP_FN void ivif_load_dec_##T(const int FW, EV_GPTR(const T) src, int w, int h,    \
                                       int x0, int y0, EV_LPTR(uint16_t) s_in)              \
    {                                                                                       \
        const int R = FW / 2, IW = IVIF_DIW(FW), IH = IVIF_DIH(FW);                         \
        for (int k = ev_lid(0); k < IH * IW; k += IVIF_THREADS) {                           \
            const int ty = k / IW, tx = k % IW;                                             \
            s_in[k] = src[(size_t)ivif_edge(2 * y0 - R + ty, h) * w +                       \
                          ivif_edge(2 * x0 - R + tx, w)];                                   \
        }                                                                                   \
    }
IVIF_LOAD_DEC(uint8_t)
IVIF_LOAD_DEC(uint16_t)

/*
 * Decimation to the scale of filter width FW from the w x h scale below:
 * the vertical taps at the even rows (rounded by the pass that reads the
 * scale below: mu_round, mu_shift), then the horizontal taps at the even
 * columns, rounded to 16 bits. s_t: IVIF_DTH x IVIF_DIW(FW).
 */
EV_GROUP_FN void ivif_dec_tile(const int FW, EV_LPTR(const uint16_t) s_in,
                               EV_LPTR(uint32_t) s_t, int w, int h, int x0, int y0,
                               uint32_t mu_round, int mu_shift, EV_GPTR(uint16_t) dst)
{
    const int S = ivif_scale_of(FW), IW = IVIF_DIW(FW);
    const int ow = w / 2, oh = h / 2;
    for (int k = ev_lid(0); k < IVIF_DTH * IW; k += IVIF_THREADS) {
        const int ty = k / IW, tx = k % IW;
        uint32_t m = 0;
#pragma unroll
        for (int t = 0; t < FW; t++)
            m += ivif_filter[S][t] * (uint32_t)s_in[(2 * ty + t) * IW + tx];
        s_t[k] = ivif_vert_mu(m, mu_round, mu_shift);
    }
    ev_barrier();
    for (int k = ev_lid(0); k < IVIF_DTH * IVIF_DTW; k += IVIF_THREADS) {
        const int ty = k / IVIF_DTW, tx = k % IVIF_DTW;
        if (x0 + tx >= ow || y0 + ty >= oh) continue;
        uint32_t m = 0;
#pragma unroll
        for (int t = 0; t < FW; t++)
            m += ivif_filter[S][t] * s_t[ty * IW + 2 * tx + t];
        dst[(size_t)(y0 + ty) * ow + x0 + tx] = (uint16_t)((m + 32768) >> 16);
    }
}

#define IVIF_DEC_KERNEL(NAME, T, FW)                                                        \
    EV_KERNEL NAME(EV_BUF(const T, src0), EV_BUF(const T, src1), int w, int h,              \
                   uint32_t mu_round, int mu_shift, EV_BUF(uint16_t, dst0),                 \
                   EV_BUF(uint16_t, dst1))                                                  \
    {                                                                                       \
        EV_LOCAL uint16_t s_in[IVIF_DIH(FW) * IVIF_DIW(FW)];                                \
        EV_LOCAL uint32_t s_t[IVIF_DTH * IVIF_DIW(FW)];                                     \
        const int z = ev_grp(2);                                                            \
        const int x0 = ev_grp(0) * IVIF_DTW, y0 = ev_grp(1) * IVIF_DTH;                     \
        ivif_load_dec_##T(FW, z ? EV_AT(const T, src1) : EV_AT(const T, src0), w, h, x0,    \
                          y0, s_in);                                                        \
        ev_barrier();                                                                       \
        ivif_dec_tile(FW, s_in, s_t, w, h, x0, y0, mu_round, mu_shift,                      \
                      z ? EV_AT(uint16_t, dst1) : EV_AT(uint16_t, dst0));                   \
    }

IVIF_DEC_KERNEL(ivif_dec_u8_9, uint8_t, 9)
IVIF_DEC_KERNEL(ivif_dec_u16_9, uint16_t, 9)
IVIF_DEC_KERNEL(ivif_dec_u16_5, uint16_t, 5)
IVIF_DEC_KERNEL(ivif_dec_u16_3, uint16_t, 3)
