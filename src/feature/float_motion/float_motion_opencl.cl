/*
 * float_motion OpenCL kernels (host side: float_motion_gpu.c; the same
 * names and arguments as float_motion_cuda.cu). Every value comes from
 * motion_arith.h, the CPU path's functions: the blur taps with the
 * reflect-101 border (motion_blur_v_px / motion_blur_h_px over the samples
 * motion_mirror picks, gathered into a private array first: OpenCL C 1.2
 * has no generic pointers), the bilinear downscale (motion_bilinear_px) and
 * the SAD of a row (motion_sad_step, added left to right by one work-item in
 * fp32). The host adds the rows and concludes.
 */
#pragma OPENCL FP_CONTRACT OFF
#include "gpu/opencl/ev_opencl.h"
#include "fp.h"

/* motion_arith.h's |.| of an fp32 difference: OpenCL C spells fabsf fabs
 * (exact, as every |x| is). */
#define fabsf(x) fabs(x)
#include "feature/float_motion/motion_arith.h"

/** The blur kernel, passed by value (float_motion_gpu.c's MotionTaps). */
typedef struct MotionTaps {
    float f[MOTION_MAX_TAPS];
    int n;
} MotionTaps;

kernel void motion_blur_v(EV_BUF(const float, src), int sp, int w, int h, MotionTaps t,
                          EV_BUF(float, tmp), int tp)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h || j >= w) return;
    global const float *s = EV_AT(const float, src);
    const int radius = t.n / 2;
    float col[MOTION_MAX_TAPS];
    for (int k = 0; k < t.n; k++)
        col[k] = s[(size_t)motion_mirror(i - radius + k, h) * sp + j];
    /* The column's samples in tap order: row `radius` of an n-row plane
     * reads col[0..n-1] without reflection. */
    EV_AT(float, tmp)[(size_t)i * tp + j] = motion_blur_v_px(col, 1, t.n, t.f, t.n, radius, 0);
}

kernel void motion_blur_h(EV_BUF(const float, tmp), int tp, int w, int h, MotionTaps t,
                          EV_BUF(float, dst), int dp)
{
    const int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (i >= h || j >= w) return;
    global const float *row = EV_AT(const float, tmp) + (size_t)i * tp;
    const int radius = t.n / 2;
    float px[MOTION_MAX_TAPS];
    for (int k = 0; k < t.n; k++)
        px[k] = row[motion_mirror(j - radius + k, w)];
    EV_AT(float, dst)[(size_t)i * dp + j] = motion_blur_h_px(px, t.n, t.f, t.n, radius);
}

/*
 * Row sums (launch: RS_THREADS(h) x 1 in groups of RS_BLOCK = 128,
 * gpu/pipeline.h): a group owns MS_ROWS rows; its items load each chunk of
 * MS_ROWS x MS_CHUNK samples of both planes into local memory, then item r
 * adds row r's terms of the chunk in order, one serial fp32 chain per row.
 */
#define MS_ROWS 32
#define MS_CHUNK 64

/** out[i] = SAD of row i of (prev, cur): motion_sad_row's fp32 sum from +0, left to right. */
kernel void motion_sad_rows(EV_BUF(const float, prev), EV_BUF(const float, cur), int p, int w,
                            int h, EV_BUF(float, out))
{
    local float tp[MS_ROWS][MS_CHUNK + 1], tc[MS_ROWS][MS_CHUNK + 1];
    global const float *a = EV_AT(const float, prev), *b = EV_AT(const float, cur);
    const int lid = (int)get_local_id(0), n_items = (int)get_local_size(0);
    const int row0 = (int)get_group_id(0) * MS_ROWS;
    float acc = 0.0f;
    for (int c0 = 0; c0 < w; c0 += MS_CHUNK) {
        for (int k = lid; k < MS_ROWS * MS_CHUNK; k += n_items) {
            const int rr = k / MS_CHUNK, cc = k % MS_CHUNK;
            const int r = row0 + rr, c = c0 + cc;
            const size_t o = (size_t)r * p + c;
            const bool in = r < h && c < w;
            tp[rr][cc] = in ? a[o] : 0.0f;
            tc[rr][cc] = in ? b[o] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < MS_ROWS) {
            const int n = w - c0 < MS_CHUNK ? w - c0 : MS_CHUNK;
            for (int k = 0; k < n; k++)
                acc = motion_sad_step(acc, tp[lid][k], tc[lid][k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < MS_ROWS && row0 + lid < h) EV_AT(float, out)[row0 + lid] = acc;
}

/** motion_add_scale1's half-size bilinear downscale, the positions from the host. */
kernel void motion_downscale(EV_BUF(const float, src), int sp, int ow, int oh,
                             EV_BUF(const int, x1), EV_BUF(const int, x2),
                             EV_BUF(const float, dx), EV_BUF(const int, y1),
                             EV_BUF(const int, y2), EV_BUF(const float, dy),
                             EV_BUF(float, dst), int dp)
{
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (y >= oh || x >= ow) return;
    global const float *s = EV_AT(const float, src);
    global const float *r1 = s + (size_t)EV_AT(const int, y1)[y] * sp;
    global const float *r2 = s + (size_t)EV_AT(const int, y2)[y] * sp;
    const int c1 = EV_AT(const int, x1)[x], c2 = EV_AT(const int, x2)[x];
    EV_AT(float, dst)[(size_t)y * dp + x] =
        motion_bilinear_px(r1[c1], r1[c2], r2[c1], r2[c2], EV_AT(const float, dx)[x],
                           EV_AT(const float, dy)[y]);
}
