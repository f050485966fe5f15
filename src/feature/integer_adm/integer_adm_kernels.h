/*
 * Integer ADM's ("adm") kernels, one text for CUDA and OpenCL
 * (gpu/ev_kernel.h; integer_adm_cuda.cu and integer_adm_opencl.cl include
 * it, the host side is integer_adm_gpu.c). Every value comes from
 * iadm_arith.h, the CPU path's functions: the DWT taps and roundings
 * (iadm_s0_v*, iadm_s0_h*, iadm_s1_v*, iadm_s123_lo / _hi), the decoupling
 * with its angle test and gain limit (iadm_s0_angle / iadm_s123_angle,
 * iadm_s0_k / iadm_s123_k, iadm_*_rst*: binary64 where there is binary64,
 * fp_exact.h's integer routines, the same bits, on an OpenCL device
 * without it), the CSF terms (iadm_*_csf, _flt, _ctr) and the masking and
 * denominator terms (iadm_*_cm, _den). Which rows and columns each stage
 * visits, the mirrors and the padding are iadm_cpu.c's. Bands are kept whole
 * (int32 planes, scale 0's int16 values widened) instead of in row rings;
 * every read falls in rows and columns the CPU has written at that point,
 * so the values are the same.
 *
 * Arguments. The 16 planes of a scale are kernel arguments of their own
 * (IADM_PLANE_PARAMS, in IadmPlanes' order); a kernel gathers them into an
 * IadmPlanes with IADM_PLANES. IadmScaleArgs is the host's
 * (iadm_gpu_args.h), passed by value.
 *
 * Row sums are integer: a group (IADM_GROUP items along one row) adds its
 * items' terms in any order and adds each total to the row's uint64
 * (ev_group_add_u64: mod 2^64, so signed int64 terms wrap as the CPU's);
 * the host applies the per-row shifts and concludes with iadm_conclude().
 */
#include "fp.h"
#include "feature/integer_adm/iadm_arith.h"
#include "feature/integer_adm/iadm_gpu_args.h"

/* The row-sum kernels' group: 256 items along a row (integer_adm_gpu.c). */
#define IADM_GROUP 256

/** The planes of one scale, all w x h int32 (pitch w). */
typedef struct IadmPlanes {
    EV_GPTR(int32_t) ref_b[3];      /**< DWT bands h, v, d */
    EV_GPTR(int32_t) dis_b[3];
    EV_GPTR(int32_t) rst[3];        /**< restored and additive parts */
    EV_GPTR(int32_t) add[3];
    EV_GPTR(int32_t) fa;            /**< masking threshold terms of add / rst */
    EV_GPTR(int32_t) ga;
    EV_GPTR(int32_t) fr;
    EV_GPTR(int32_t) gr;
} IadmPlanes;

/** The 16 plane parameters, in IadmPlanes' order (the host's IADM_N_PLANES). */
#define IADM_PLANE_PARAMS                                                                   \
    EV_BUF(int32_t, p_rb0), EV_BUF(int32_t, p_rb1), EV_BUF(int32_t, p_rb2),                 \
        EV_BUF(int32_t, p_db0), EV_BUF(int32_t, p_db1), EV_BUF(int32_t, p_db2),             \
        EV_BUF(int32_t, p_rs0), EV_BUF(int32_t, p_rs1), EV_BUF(int32_t, p_rs2),             \
        EV_BUF(int32_t, p_ad0), EV_BUF(int32_t, p_ad1), EV_BUF(int32_t, p_ad2),             \
        EV_BUF(int32_t, p_fa), EV_BUF(int32_t, p_ga), EV_BUF(int32_t, p_fr),                \
        EV_BUF(int32_t, p_gr)

/** Declares IadmPlanes pl from the IADM_PLANE_PARAMS of the kernel. */
#define IADM_PLANES(pl)                                                                     \
    IadmPlanes pl;                                                                          \
    pl.ref_b[0] = EV_AT(int32_t, p_rb0);                                                    \
    pl.ref_b[1] = EV_AT(int32_t, p_rb1);                                                    \
    pl.ref_b[2] = EV_AT(int32_t, p_rb2);                                                    \
    pl.dis_b[0] = EV_AT(int32_t, p_db0);                                                    \
    pl.dis_b[1] = EV_AT(int32_t, p_db1);                                                    \
    pl.dis_b[2] = EV_AT(int32_t, p_db2);                                                    \
    pl.rst[0] = EV_AT(int32_t, p_rs0);                                                      \
    pl.rst[1] = EV_AT(int32_t, p_rs1);                                                      \
    pl.rst[2] = EV_AT(int32_t, p_rs2);                                                      \
    pl.add[0] = EV_AT(int32_t, p_ad0);                                                      \
    pl.add[1] = EV_AT(int32_t, p_ad1);                                                      \
    pl.add[2] = EV_AT(int32_t, p_ad2);                                                      \
    pl.fa = EV_AT(int32_t, p_fa);                                                           \
    pl.ga = EV_AT(int32_t, p_ga);                                                           \
    pl.fr = EV_AT(int32_t, p_fr);                                                           \
    pl.gr = EV_AT(int32_t, p_gr)

/* ---- DWT ---- */

/** The CPU's padded column: -1 -> 1, n -> n-1, n+1 -> n-2. */
EV_FN int iadm_pad_col(int c, int n)
{
    return c < 0 ? 1 : (c >= n ? 2 * n - c - 1 : c);
}

/*
 * Scale 0 DWT of output column j of one picture (samples T, n per row) from
 * its source rows y[0..3]: out = { a, h, v, d }.
 */
#define IADM_DWT0_PIC(T)                                                                    \
    EV_DEVICE_FN void iadm_dwt0_pic_##T(EV_GPTR(const T) p, int n, const int *y, int shift, \
                                        int j, int32_t *out)                                \
    {                                                                                       \
        int32_t lo[4], hi[4];                                                               \
        for (int c = 0; c < 4; c++) {                                                       \
            const int col = iadm_pad_col(2 * j - 1 + c, n);                                 \
            const uint32_t s0 = p[(size_t)y[0] * n + col], s1 = p[(size_t)y[1] * n + col];  \
            const uint32_t s2 = p[(size_t)y[2] * n + col], s3 = p[(size_t)y[3] * n + col];  \
            lo[c] = iadm_s0_vlo(s0, s1, s2, s3, shift);                                     \
            hi[c] = iadm_s0_vhi(s0, s1, s2, s3, shift);                                     \
        }                                                                                   \
        out[0] = iadm_s0_hlo(lo[0], lo[1], lo[2], lo[3]);                                   \
        out[1] = iadm_s0_hlo(hi[0], hi[1], hi[2], hi[3]);                                   \
        out[2] = iadm_s0_hhi(lo[0], lo[1], lo[2], lo[3]);                                   \
        out[3] = iadm_s0_hhi(hi[0], hi[1], hi[2], hi[3]);                                   \
    }
IADM_DWT0_PIC(uint8_t)
IADM_DWT0_PIC(uint16_t)

/** Scale 0: the DWT of both pictures (T samples, n x in_h) into band a and the h, v, d planes. */
#define IADM_DWT0(NAME, T)                                                                  \
    EV_KERNEL NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int n, int in_h,             \
                   EV_BUF(const int, idx), int shift, int w, int h, EV_BUF(int32_t, a_ref), \
                   EV_BUF(int32_t, a_dis), IADM_PLANE_PARAMS)                               \
    {                                                                                       \
        const int j = ev_gid(0), i = ev_gid(1);                                             \
        if (i >= h || j >= w) return;                                                       \
        EV_GPTR(const int) ix = EV_AT(const int, idx);                                      \
        const int y[4] = { ix[i], ix[h + i], ix[2 * h + i], ix[3 * h + i] };                \
        IADM_PLANES(pl);                                                                    \
        const size_t o = (size_t)i * w + j;                                                 \
        int32_t v[4];                                                                       \
        iadm_dwt0_pic_##T(EV_AT(const T, ref), n, y, shift, j, v);                          \
        EV_AT(int32_t, a_ref)[o] = v[0];                                                    \
        for (int b = 0; b < 3; b++) pl.ref_b[b][o] = v[1 + b];                              \
        iadm_dwt0_pic_##T(EV_AT(const T, dis), n, y, shift, j, v);                          \
        EV_AT(int32_t, a_dis)[o] = v[0];                                                    \
        for (int b = 0; b < 3; b++) pl.dis_b[b][o] = v[1 + b];                              \
        (void)in_h;                                                                         \
    }
IADM_DWT0(iadm_dwt0_u8, uint8_t)
IADM_DWT0(iadm_dwt0_u16, uint16_t)

/** Vertical taps of column col of an int32 plane; row -1 reads `emu`. */
EV_DEVICE_FN void iadm_vcol(EV_GPTR(const int32_t) p, EV_GPTR(const int32_t) emu, int n,
                            const int *y, int col, int s, int64_t add, int sh, int32_t *lo,
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
EV_KERNEL iadm_dwt(EV_BUF(const int32_t, in_ref), EV_BUF(const int32_t, in_dis),
                   EV_BUF(const int32_t, emu_ref), EV_BUF(const int32_t, emu_dis), int n,
                   EV_BUF(const int, idx), int s, int w, int h, EV_BUF(int32_t, a_ref),
                   EV_BUF(int32_t, a_dis), IADM_PLANE_PARAMS)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_GPTR(const int32_t) ir = EV_AT(const int32_t, in_ref);
    EV_GPTR(const int32_t) id = EV_AT(const int32_t, in_dis);
    EV_GPTR(const int32_t) er = EV_AT(const int32_t, emu_ref);
    EV_GPTR(const int32_t) ed = EV_AT(const int32_t, emu_dis);
    EV_GPTR(const int) ix = EV_AT(const int, idx);
    const int64_t add_v = s == 1 ? 0 : 32768;
    const int sh_v = s == 1 ? 0 : 16;
    const int64_t add_h = s == 2 ? 32768 : 16384;
    const int sh_h = s == 2 ? 16 : 15;
    const int y[4] = { ix[i], ix[h + i], ix[2 * h + i], ix[3 * h + i] };
    int32_t lr[4], hr[4], ld[4], hd[4];
    for (int c = 0; c < 4; c++) {
        const int col = iadm_pad_col(2 * j - 1 + c, n);
        iadm_vcol(ir, er, n, y, col, s, add_v, sh_v, &lr[c], &hr[c]);
        iadm_vcol(id, ed, n, y, col, s, add_v, sh_v, &ld[c], &hd[c]);
    }
    if (j == 0 && (n + 1) / 2 == 2) {
        /* Column -1 as the reference reads it there (iadm_cpu.c). */
        int32_t lo, hi;
        iadm_vcol(ir, er, n, y, n - 1, s, add_v, sh_v, &lo, &hi);
        lr[0] = 0;
        hr[0] = lo;
        ld[0] = hi;
        iadm_vcol(id, ed, n, y, n - 1, s, add_v, sh_v, &lo, &hi);
        hd[0] = lo;
    }
    IADM_PLANES(pl);
    const size_t o = (size_t)i * w + j;
    EV_AT(int32_t, a_ref)[o] = iadm_s123_lo(lr[0], lr[1], lr[2], lr[3], add_h, sh_h);
    pl.ref_b[1][o] = iadm_s123_hi(lr[0], lr[1], lr[2], lr[3], add_h, sh_h);
    pl.ref_b[0][o] = iadm_s123_lo(hr[0], hr[1], hr[2], hr[3], add_h, sh_h);
    pl.ref_b[2][o] = iadm_s123_hi(hr[0], hr[1], hr[2], hr[3], add_h, sh_h);
    EV_AT(int32_t, a_dis)[o] = iadm_s123_lo(ld[0], ld[1], ld[2], ld[3], add_h, sh_h);
    pl.dis_b[1][o] = iadm_s123_hi(ld[0], ld[1], ld[2], ld[3], add_h, sh_h);
    pl.dis_b[0][o] = iadm_s123_lo(hd[0], hd[1], hd[2], hd[3], add_h, sh_h);
    pl.dis_b[2][o] = iadm_s123_hi(hd[0], hd[1], hd[2], hd[3], add_h, sh_h);
}

/* ---- Denominator ---- */

/** rows[3 * i + b] += the row's denominator terms over the masking columns. */
EV_KERNEL iadm_den(IADM_PLANE_PARAMS, IadmScaleArgs a, EV_BUF(uint32_t, rows))
{
    EV_LOCAL uint64_t scratch[EV_GROUP_ADD_SCRATCH(IADM_GROUP, 3)];
    const int j = a.cm_l + ev_gid(0), i = a.cm_t + ev_grp(1);
    IADM_PLANES(pl);
    uint64_t v[3] = { 0, 0, 0 };
    if (j < a.cm_r) {
        const size_t o = (size_t)i * a.w + j;
        for (int b = 0; b < 3; b++)
            v[b] = a.s == 0 ? iadm_s0_den(pl.ref_b[b][o])
                            : iadm_s123_den(pl.ref_b[b][o], a.den_sq_shift, a.den_cub_add,
                                            a.den_cub_shift);
    }
    ev_group_add_u64(v, 3, scratch, EV_AT(uint32_t, rows) + 2 * 3 * (size_t)i);
}

/* ---- Decoupling and CSF ---- */

EV_KERNEL iadm_decouple(IADM_PLANE_PARAMS, IadmScaleArgs a, EV_BUF(const int32_t, div_lookup))
{
    const int j = a.ext_l + ev_gid(0), i = a.ext_t + ev_gid(1);
    if (i >= a.ext_b || j >= a.ext_r) return;
    IADM_PLANES(pl);
    EV_GPTR(const int32_t) div = EV_AT(const int32_t, div_lookup);
    const size_t o = (size_t)i * a.w + j;
    int32_t ob[3], tb[3], r[3], d[3];
    for (int b = 0; b < 3; b++) {
        ob[b] = pl.ref_b[b][o];
        tb[b] = pl.dis_b[b][o];
    }
    if (a.s == 0) {
        const int32_t angle = iadm_s0_angle(ob[0], ob[1], tb[0], tb[1], a.cos2);
        for (int b = 0; b < 3; b++) {
            const int32_t k = iadm_s0_k(ob[b], tb[b], div[ob[b] + 32768]);
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
            const int32_t q = div[iadm_s123_kidx(ob[b], x)];
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
EV_KERNEL iadm_emu(IADM_PLANE_PARAMS, IadmScaleArgs a, int n, EV_BUF(int32_t, emu))
{
    const int j = ev_gid(0);
    if (j >= n) return;
    IADM_PLANES(pl);
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
    EV_AT(int32_t, emu)[j] = (int32_t)word;
}

/* ---- Masking ---- */

/** The 3x3 threshold of (i, j) from F and G with iadm_cpu.c's mirrors. */
EV_DEVICE_FN int32_t iadm_threshold(EV_GPTR(const int32_t) f, EV_GPTR(const int32_t) g, int w,
                                    int h, int i, int j)
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
EV_KERNEL iadm_cm(IADM_PLANE_PARAMS, IadmScaleArgs a, EV_BUF(uint32_t, rows))
{
    EV_LOCAL uint64_t scratch[EV_GROUP_ADD_SCRATCH(IADM_GROUP, 6)];
    const int j = a.cm_l + ev_gid(0), i = a.cm_t + ev_grp(1);
    IADM_PLANES(pl);
    uint64_t v[6] = { 0, 0, 0, 0, 0, 0 };
    if (j < a.cm_r) {
        const size_t o = (size_t)i * a.w + j;
        const int32_t thr = iadm_threshold(pl.fa, pl.ga, a.w, a.h, i, j);
        const int32_t thr_a = a.skip_aim ? 0 : iadm_threshold(pl.fr, pl.gr, a.w, a.h, i, j);
        for (int b = 0; b < 3; b++) {
            if (a.s == 0) {
                const int sub = b == 2 ? 12 : 10, sq = b == 2 ? 30 : 29;
                const int64_t sq_add = b == 2 ? 536870912 : 268435456;
                v[b] = (uint64_t)iadm_s0_cm(pl.rst[b][o], a.rf0[b], thr, sub, sq, sq_add,
                                            a.cub_shift[b], a.cub_add[b]);
                if (!a.skip_aim)
                    v[3 + b] = (uint64_t)iadm_s0_cm(pl.add[b][o], a.rf0[b], thr_a, sub, sq,
                                                    sq_add, a.cub_shift[b], a.cub_add[b]);
            } else {
                v[b] = (uint64_t)iadm_s123_cm(pl.rst[b][o], a.rf123[b], thr, a.cub_shift[0],
                                              a.cub_add[0]);
                if (!a.skip_aim)
                    v[3 + b] = (uint64_t)iadm_s123_cm(pl.add[b][o], a.rf123[b], thr_a,
                                                      a.cub_shift[0], a.cub_add[0]);
            }
        }
    }
    ev_group_add_u64(v, 6, scratch, EV_AT(uint32_t, rows) + 2 * 6 * (size_t)i);
}
