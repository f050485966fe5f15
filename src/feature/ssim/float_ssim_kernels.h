/*
 * float_ssim's own kernel, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * the room's program, float_ms_ssim_cuda.cu and float_ms_ssim_opencl.cl,
 * includes it; the host side is float_ssim_gpu.c): the box decimation by f.
 * Each output has its own fp64 sum of f32 products (ssim_tap) in the CPU's
 * order, rows outer, columns inner, with half-sample symmetric edges
 * (ssim_mirror), rounded to fp32 (ssim_round). The window and the
 * statistic are float_ms_ssim's kernels (float_ms_ssim_kernels.h).
 */
#include "fp.h"
#include "feature/ssim/ssim_arith.h"

/*
 * dst (sw x sh, compact) from src (w x h, sp floats per row); wt is the
 * host's f32(1 / f^2).
 */
EV_KERNEL ssim_box(EV_BUF(const float, src), int sp, int w, int h, int f, float wt,
                   EV_BUF(float, dst), int sw, int sh)
{
    const int x = ev_gid(0), y = ev_gid(1);
    if (x >= sw || y >= sh) return;
    const int lo = -(f / 2), hi = f / 2 - ((f & 1) ? 0 : 1);
    EV_GPTR(const float) s = EV_AT(const float, src);
    ev_d acc = SSIM_ACC0;
    for (int v = lo; v <= hi; v++) {
        EV_GPTR(const float) row = s + (size_t)ssim_mirror(y * f + v, h) * (size_t)sp;
        for (int u = lo; u <= hi; u++)
            acc = ssim_tap(acc, row[ssim_mirror(x * f + u, w)], wt);
    }
    EV_AT(float, dst)[(size_t)y * (size_t)sw + (size_t)x] = ssim_round(acc);
}
