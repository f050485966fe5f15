/*
 * float_motion's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * float_motion_cuda.cu and float_motion_opencl.cl include it, the host side
 * is float_motion_gpu.c). Every value comes from motion_arith.h, the CPU
 * path's functions: the blur taps with the reflect-101 border
 * (motion_blur_v_px, motion_blur_h_px), the bilinear downscale
 * (motion_bilinear_px) and the SAD of a row (motion_sad_term, added left to
 * right on one item in fp32: gpu/ev_row_sums.h, motion_sad_step's order).
 * The host adds the rows and concludes.
 */
#include "fp.h"
#include "feature/float_motion/motion_arith.h"
#include "gpu/ev_row_sums.h"

/** The blur kernel, passed by value (float_motion_gpu.c's MotionTaps). */
typedef struct MotionTaps {
    float f[MOTION_MAX_TAPS];
    int n;
} MotionTaps;

EV_KERNEL motion_blur_v(EV_BUF(const float, src), int sp, int w, int h, MotionTaps t,
                        EV_BUF(float, tmp), int tp)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_AT(float, tmp)[(size_t)i * tp + j] =
        motion_blur_v_px(EV_AT(const float, src), sp, h, t.f, t.n, i, j);
}

EV_KERNEL motion_blur_h(EV_BUF(const float, tmp), int tp, int w, int h, MotionTaps t,
                        EV_BUF(float, dst), int dp)
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (i >= h || j >= w) return;
    EV_AT(float, dst)[(size_t)i * dp + j] =
        motion_blur_h_px(EV_AT(const float, tmp) + (size_t)i * tp, w, t.f, t.n, j);
}

/* The SAD term at offset o: |prev - cur| as motion_sad_step adds it. */
#define MOTION_SAD_TERM(prev, cur, o) motion_sad_term((prev)[o], (cur)[o])
EV_ROW_SUMS(motion_sad_row_sums, MOTION_SAD_TERM)

/** out[i] = SAD of row i of (prev, cur): motion_sad_row's fp32 sum from +0, left to right. */
EV_KERNEL motion_sad_rows(EV_BUF(const float, prev), EV_BUF(const float, cur), int p, int w,
                          int h, EV_BUF(float, out))
{
    EV_LOCAL float tile[EV_RS_TILE];
    motion_sad_row_sums(EV_AT(const float, prev), EV_AT(const float, cur), p, w, h,
                        EV_AT(float, out), tile);
}

/** motion_add_scale1's half-size bilinear downscale, the positions from the host. */
EV_KERNEL motion_downscale(EV_BUF(const float, src), int sp, int ow, int oh,
                           EV_BUF(const int, x1), EV_BUF(const int, x2),
                           EV_BUF(const float, dx), EV_BUF(const int, y1),
                           EV_BUF(const int, y2), EV_BUF(const float, dy),
                           EV_BUF(float, dst), int dp)
{
    const int x = ev_gid(0), y = ev_gid(1);
    if (y >= oh || x >= ow) return;
    EV_GPTR(const float) s = EV_AT(const float, src);
    EV_GPTR(const float) r1 = s + (size_t)EV_AT(const int, y1)[y] * sp;
    EV_GPTR(const float) r2 = s + (size_t)EV_AT(const int, y2)[y] * sp;
    const int c1 = EV_AT(const int, x1)[x], c2 = EV_AT(const int, x2)[x];
    EV_AT(float, dst)[(size_t)y * dp + x] =
        motion_bilinear_px(r1[c1], r1[c2], r2[c1], r2[c2], EV_AT(const float, dx)[x],
                           EV_AT(const float, dy)[y]);
}
