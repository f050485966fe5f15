/*
 * float_ms_ssim's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * float_ms_ssim_cuda.cu and float_ms_ssim_opencl.cl include it after
 * float_ssim_kernels.h, the host side is float_ms_ssim_gpu.c). Every value
 * comes from ssim_arith.h, the CPU path's functions: the taps (ssim_tap: an
 * fp32 product added to an fp64 sum), their rounding (ssim_round), the
 * per-tap products (ssim_prod), the edges (ssim_mirror) and the statistic
 * (ssim_pixel). The fp64 values are fp.h's ev_d: doubles where there is
 * binary64, fp_exact.h's integer routines (the same bits) on an OpenCL
 * device without it; either way the l, c and s terms reach the host as the
 * same 8 bytes. Each output has its own fp64 sum with the taps in the CPU's
 * order: the 9x9 decimation rows outer, columns inner; the 11x11 window as
 * the CPU's separable passes (horizontal taps of each row, then vertical
 * taps over those). The host adds the terms in raster order as the CPU does.
 */
#include "fp.h"
#include "feature/ssim/ssim_arith.h"

EV_CONSTANT float mss_lpf[MS_SSIM_LPF][MS_SSIM_LPF] = MS_SSIM_LPF_INIT;
EV_CONSTANT float mss_win[SSIM_WIN] = SSIM_WIN_TAPS_INIT;

/** One MS-SSIM decimation: the 9x9 table around (2x, 2y), mirrored at the edges. */
EV_KERNEL mss_decimate(EV_BUF(const float, src), int sp, int w, int h, EV_BUF(float, dst),
                       int dp)
{
    const int x = ev_gid(0), y = ev_gid(1);
    const int sw = w / 2 + (w & 1), sh = h / 2 + (h & 1);
    if (x >= sw || y >= sh) return;
    const int r = MS_SSIM_LPF / 2;
    EV_GPTR(const float) s = EV_AT(const float, src);
    ev_d acc = SSIM_ACC0;
    for (int v = 0; v < MS_SSIM_LPF; v++) {
        EV_GPTR(const float) row = s + (size_t)ssim_mirror(2 * y + v - r, h) * sp;
        for (int u = 0; u < MS_SSIM_LPF; u++)
            acc = ssim_tap(acc, row[ssim_mirror(2 * x + u - r, w)], mss_lpf[v][u]);
    }
    EV_AT(float, dst)[(size_t)y * dp + x] = ssim_round(acc);
}

/** Horizontal window pass of row y: mu1, mu2, xx, yy, xy at columns x < w - 10. */
EV_KERNEL mss_hpass(EV_BUF(const float, a), EV_BUF(const float, b), int sp, int w, int h,
                    EV_BUF(float, out), int op, uint64_t plane)
{
    const int x = ev_gid(0), y = ev_gid(1);
    if (x >= w - (SSIM_WIN - 1) || y >= h) return;
    EV_GPTR(const float) ra = EV_AT(const float, a) + (size_t)y * sp + x;
    EV_GPTR(const float) rb = EV_AT(const float, b) + (size_t)y * sp + x;
    ev_d m1 = SSIM_ACC0, m2 = SSIM_ACC0, xx = SSIM_ACC0, yy = SSIM_ACC0, xy = SSIM_ACC0;
    for (int u = 0; u < SSIM_WIN; u++) {
        const float k = mss_win[u];
        const float pa = ra[u], pb = rb[u];
        m1 = ssim_tap(m1, pa, k);
        m2 = ssim_tap(m2, pb, k);
        xx = ssim_tap(xx, ssim_prod(pa, pa), k);
        yy = ssim_tap(yy, ssim_prod(pb, pb), k);
        xy = ssim_tap(xy, ssim_prod(pa, pb), k);
    }
    EV_GPTR(float) o = EV_AT(float, out) + (size_t)y * op + x;
    o[0] = ssim_round(m1);
    o[plane] = ssim_round(m2);
    o[2 * plane] = ssim_round(xx);
    o[3 * plane] = ssim_round(yy);
    o[4 * plane] = ssim_round(xy);
}

/** Vertical window pass and the statistic of valid pixel (x, y): its l, c, s terms. */
EV_KERNEL mss_stat(EV_BUF(const float, hp), int op, uint64_t plane, int wv, int hv,
                   EV_BUF(ev_d, terms))
{
    const int x = ev_gid(0), y = ev_gid(1);
    if (x >= wv || y >= hv) return;
    float q[5];
    for (int c = 0; c < 5; c++) {
        EV_GPTR(const float) col = EV_AT(const float, hp) + c * plane + (size_t)y * op + x;
        ev_d acc = SSIM_ACC0;
        for (int v = 0; v < SSIM_WIN; v++)
            acc = ssim_tap(acc, col[(size_t)v * op], mss_win[v]);
        q[c] = ssim_round(acc);
    }
    const SsimConst k = ssim_const();
    ev_d l, c, s;
    ssim_pixel(q[0], q[1], q[2], q[3], q[4], &k, &l, &c, &s);
    const size_t o = (size_t)y * wv + x, n = (size_t)wv * hv;
    EV_GPTR(ev_d) t = EV_AT(ev_d, terms);
    t[o] = l;
    t[n + o] = c;
    t[2 * n + o] = s;
}
