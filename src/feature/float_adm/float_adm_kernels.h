/*
 * float_adm's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * float_adm_cuda.cu and float_adm_opencl.cl include it, the host side is
 * float_adm_gpu.c). Every value is computed by the functions of adm_arith.h
 * (and adm_rcp_model.h), the CPU path's own, so each sample carries the
 * CPU's operations in the CPU's order. Its binary64 sites (the gain limit,
 * FLOAT_ONE_BY_30 * |csf|, the threshold's centre tap) are fp.h's ev_d:
 * doubles where there is binary64, fp_exact.h's integer routines (the same
 * bits) on an OpenCL device without it. The sums are the CPU's running fp32
 * sums: one item adds a row left to right (gpu/ev_row_sums.h), and the host
 * adds the rows top to bottom.
 *
 * Band buffers: h, v, d planes of one signal are consecutive, `ps` floats
 * apart, `bp` floats per row (the scale-0 band layout, reused by every scale).
 */
#include "fp.h"
#include "feature/float_adm/adm_arith.h"
#include "feature/float_adm/adm_rcp_model.h"
#include "gpu/ev_row_sums.h"

/* Division modes of adm_decouple (float_adm_gpu.c). */
#define ADM_DIV_IEEE 0
#define ADM_DIV_TABLE 1
#define ADM_DIV_RCP_IEEE 2

/* adm_cpu.c's DWT source index: -1 reflects whole-sample to 1, n >= size
 * half-sample to 2 * size - n - 1 (the CPU's row and column padding). */
EV_FN int adm_dwt_mirror(int n, int size)
{
    if (n < 0)
        return -n;
    return n >= size ? 2 * size - n - 1 : n;
}

/**
 * One db2 step of a w x h input (ref for group z 0, dis for 1) into the
 * (w+1)/2 x (h+1)/2 bands: band a always, and h, v, d when `full`. An item
 * forms the vertical low / high pass at the four columns its output reads
 * (the CPU's row buffer, mirrored as the CPU pads it), then the horizontal
 * taps.
 */
EV_KERNEL adm_dwt(EV_BUF(const float, src_ref), EV_BUF(const float, src_dis), int sp, int w,
                  int h, EV_BUF(float, a_ref), EV_BUF(float, a_dis), EV_BUF(float, b_ref),
                  EV_BUF(float, b_dis), int bp, int64_t ps, int full)
{
    const int j = ev_gid(0), i = ev_gid(1);
    const int ow = (w + 1) / 2, oh = (h + 1) / 2;
    if (i >= oh || j >= ow) return;
    const int z = ev_grp(2);
    EV_GPTR(const float) src = z ? EV_AT(const float, src_dis) : EV_AT(const float, src_ref);
    EV_GPTR(float) a = z ? EV_AT(float, a_dis) : EV_AT(float, a_ref);
    EV_GPTR(float) b = z ? EV_AT(float, b_dis) : EV_AT(float, b_ref);

    EV_GPTR(const float) r0 = src + (size_t)adm_dwt_mirror(2 * i - 1, h) * sp;
    EV_GPTR(const float) r1 = src + (size_t)adm_dwt_mirror(2 * i, h) * sp;
    EV_GPTR(const float) r2 = src + (size_t)adm_dwt_mirror(2 * i + 1, h) * sp;
    EV_GPTR(const float) r3 = src + (size_t)adm_dwt_mirror(2 * i + 2, h) * sp;
    float lo[4], hi[4];
    for (int c = 0; c < 4; c++) {
        const int col = adm_dwt_mirror(2 * j - 1 + c, w);
        lo[c] = adm_dwt_lo(r0[col], r1[col], r2[col], r3[col]);
        hi[c] = full ? adm_dwt_hi(r0[col], r1[col], r2[col], r3[col]) : 0.0f;
    }
    const size_t o = (size_t)i * bp + j;
    a[o] = adm_dwt_lo(lo[0], lo[1], lo[2], lo[3]);
    if (!full) return;
    b[o] = adm_dwt_lo(hi[0], hi[1], hi[2], hi[3]);           /* h */
    b[ps + o] = adm_dwt_hi(lo[0], lo[1], lo[2], lo[3]);      /* v */
    b[2 * ps + o] = adm_dwt_hi(hi[0], hi[1], hi[2], hi[3]);  /* d */
}

EV_DEVICE_FN float adm_gain_ratio(float t, float o, int mode, EV_GPTR(const uint32_t) table)
{
    if (mode == ADM_DIV_IEEE)
        return adm_ratio_ieee(t, o);
    const float d = adm_ratio_denominator(o);
    const float xi = mode == ADM_DIV_TABLE ? adm_rcp_model(table, d) : FDIV(1.0f, d);
    return adm_ratio_rcp(t, d, xi);
}

/**
 * Decouple and CSF over the region [l, r) x [t, b): restored and additive
 * signals and their filtered CSF values, bands h, v, d (adm_cpu.c
 * decouple_row and csf_flt_row, per sample). `egl` is the host's double:
 * its 8 bytes are an ev_d on every device.
 */
EV_KERNEL adm_decouple(EV_BUF(const float, ref_b), EV_BUF(const float, dis_b), int bp,
                       int64_t ps, int l, int t, int r, int b, float rf0, float rf1, float rf2,
                       ev_d egl, int mode, EV_BUF(const uint32_t, table), EV_BUF(float, rst),
                       EV_BUF(float, add), EV_BUF(float, flt_rst), EV_BUF(float, flt_add))
{
    const int j = l + ev_gid(0), i = t + ev_gid(1);
    if (i >= b || j >= r) return;
    EV_GPTR(const float) rb = EV_AT(const float, ref_b);
    EV_GPTR(const float) db = EV_AT(const float, dis_b);
    EV_GPTR(const uint32_t) tab = EV_AT(const uint32_t, table);
    EV_GPTR(float) rs_out = EV_AT(float, rst);
    EV_GPTR(float) ad_out = EV_AT(float, add);
    EV_GPTR(float) fr_out = EV_AT(float, flt_rst);
    EV_GPTR(float) fa_out = EV_AT(float, flt_add);
    const size_t o = (size_t)i * bp + j;
    const float rf[3] = { rf0, rf1, rf2 };
    float ob[3], tb[3], k[3];
    for (int c = 0; c < 3; c++) {
        ob[c] = rb[c * ps + o];
        tb[c] = db[c * ps + o];
    }
    for (int c = 0; c < 3; c++)
        k[c] = adm_clamp01(adm_gain_ratio(tb[c], ob[c], mode, tab));
    const int flag = adm_angle_flag(ob[0], ob[1], tb[0], tb[1]);
    for (int c = 0; c < 3; c++) {
        const float rs = adm_restore(k[c], ob[c], tb[c], flag, egl);
        const float ad = adm_additive(tb[c], rs);
        rs_out[c * ps + o] = rs;
        ad_out[c * ps + o] = ad;
        fa_out[c * ps + o] = adm_csf_flt(adm_csf(rf[c], ad));
        fr_out[c * ps + o] = adm_csf_flt(adm_csf(rf[c], rs));
    }
}

/*
 * Masking threshold at (i, j) from the filtered CSF bands `flt` and the
 * centre's raw bands `x` (adm_cpu.c cm_threshold_row): the band sums added
 * to +0 in band order; outside the band, row / column 1 above / left and the
 * last one below / right.
 */
EV_DEVICE_FN float adm_threshold(EV_GPTR(const float) flt, EV_GPTR(const float) x, int64_t ps,
                                 int bp, const float *rf, int w, int h, int i, int j)
{
    const int iu = i == 0 ? 1 : i - 1;
    const int id = i == h - 1 ? h - 1 : i + 1;
    const int jl = j == 0 ? 1 : j - 1;
    const int jr = j == w - 1 ? w - 1 : j + 1;
    float thr = 0.0f;
    for (int c = 0; c < 3; c++) {
        EV_GPTR(const float) f = flt + c * ps;
        EV_GPTR(const float) u = f + (size_t)iu * bp;
        EV_GPTR(const float) m = f + (size_t)i * bp;
        EV_GPTR(const float) d = f + (size_t)id * bp;
        thr = FADD(thr, adm_cm_band_sum(u[jl], u[j], u[jr], m[jl],
                                        adm_csf(rf[c], x[c * ps + (size_t)i * bp + j]),
                                        m[jr], d[jl], d[j], d[jr]));
    }
    return thr;
}

/**
 * The nine terms of the three reductions at every sample of the masking
 * region [l, r) x [t, b) (band size w x h): denominator, DLM numerator and
 * AIM numerator, bands h, v, d, into plane slot*tps at (i - t, j - l).
 * With `cube` the p = 3 power is applied (adm_cube); otherwise the value is
 * left for the host, which raises it with its own powf as the CPU does.
 */
EV_KERNEL adm_terms(EV_BUF(const float, ref_b), EV_BUF(const float, rst),
                    EV_BUF(const float, add), EV_BUF(const float, flt_rst),
                    EV_BUF(const float, flt_add), int bp, int64_t ps, int w, int h, int l,
                    int t, int r, int b, float rf0, float rf1, float rf2, int bypass, int cube,
                    EV_BUF(float, terms), int tp, int64_t tps)
{
    const int j = l + ev_gid(0), i = t + ev_gid(1);
    if (i >= b || j >= r) return;
    EV_GPTR(const float) rb = EV_AT(const float, ref_b);
    EV_GPTR(const float) rs = EV_AT(const float, rst);
    EV_GPTR(const float) ad = EV_AT(const float, add);
    const float rf[3] = { rf0, rf1, rf2 };
    const size_t o = (size_t)i * bp + j;
    /* DLM: the restored signal masked by the additive one's CSF; AIM: the
     * additive signal masked by the restored one's. */
    const float thr_num =
        bypass ? 0.0f : adm_threshold(EV_AT(const float, flt_add), ad, ps, bp, rf, w, h, i, j);
    const float thr_aim =
        bypass ? 0.0f : adm_threshold(EV_AT(const float, flt_rst), rs, ps, bp, rf, w, h, i, j);
    EV_GPTR(float) out = EV_AT(float, terms) + (size_t)(i - t) * tp + (j - l);
    for (int c = 0; c < 3; c++) {
        const float den = adm_den_value(rf[c], rb[c * ps + o]);
        const float num = adm_cm_masked(rs[c * ps + o], rf[c], thr_num);
        const float aim = adm_cm_masked(ad[c * ps + o], rf[c], thr_aim);
        out[c * tps] = cube ? adm_cube(den) : den;
        out[(3 + c) * tps] = cube ? adm_cube(num) : num;
        out[(6 + c) * tps] = cube ? adm_cube(aim) : aim;
    }
}

EV_ROW_SUMS(adm_row_sums_of, EV_RS_PLANE)

/**
 * Row sums of the terms of slot z (group z): +0, then left to right in
 * fp32, as adm_cpu.c's add_row_sums.
 */
EV_KERNEL adm_row_sums(EV_BUF(const float, terms), int tp, int64_t tps, int cw, int ch,
                       EV_BUF(float, out))
{
    EV_LOCAL float tile[EV_RS_TILE];
    const int z = ev_grp(2);
    adm_row_sums_of(EV_AT(const float, terms) + z * tps, 0, tp, cw, ch,
                    EV_AT(float, out) + (size_t)z * ch, tile);
}
