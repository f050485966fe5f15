/*
 * SpEED's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * speed_cuda.cu and speed_opencl.cl include it, the host side is
 * speed_gpu.c): a frame's pictures' estimates up to the covariance sums, each
 * value from speed_arith.h in the CPU path's order (speed_core.c):
 * prescale, the anti-alias filter at rows and columns 16k, the local mean
 * removed, the 25 submatrix means (fp32 running sums) and the covariance
 * sums (binary64 running sums: ev_d, with or without OpenCL fp64), each
 * running sum one item's serial chain in raster order. The eigenvalues,
 * the linear solve and the entropies are the host's (speed_core_conclude_sums).
 */
#include "fp.h"
#include "feature/speed/speed_arith.h"

/*
 * A frame's pictures are filtered side by side, picture e as grid row z.
 * An input that is one picture per buffer comes as four (s0..s3; picture
 * e reads s_e); the twin's own buffers hold picture e at e times the image.
 */
#define SPEED_PICK(T, e, s0, s1, s2, s3)                                     \
    ((e) == 0 ? EV_AT(T, s0) : (e) == 1 ? EV_AT(T, s1) : (e) == 2 ? EV_AT(T, s2) \
                                                                  : EV_AT(T, s3))

/*
 * dst (sw x sh, compact) from src (sp floats per row) through the axis
 * tables (xt, yt taps per output column / row): method 0 nearest,
 * 1 bilinear, 2 bicubic, 3 lanczos4 (enum EvPrescaleMethod).
 */
EV_KERNEL speed_k_prescale(EV_BUF(const float, s0), EV_BUF(const float, s1),
                           EV_BUF(const float, s2), EV_BUF(const float, s3), int sp, int method,
                           int sw, int sh, EV_BUF(const int, xi), EV_BUF(const float, xw), int xt,
                           EV_BUF(const int, yi), EV_BUF(const float, yw), int yt,
                           EV_BUF(float, dst))
{
    const int x = ev_gid(0), y = ev_gid(1), e = ev_gid(2);
    if (x >= sw || y >= sh) return;
    EV_GPTR(const float) s = SPEED_PICK(const float, e, s0, s1, s2, s3);
    EV_GPTR(const int) ix = EV_AT(const int, xi) + (size_t)x * (size_t)xt;
    EV_GPTR(const float) wx = EV_AT(const float, xw) + (size_t)x * (size_t)xt;
    EV_GPTR(const int) iy = EV_AT(const int, yi) + (size_t)y * (size_t)yt;
    EV_GPTR(const float) wy = EV_AT(const float, yw) + (size_t)y * (size_t)yt;
    float v = 0.0f;
    if (method == 0) {
        v = s[(size_t)iy[0] * (size_t)sp + (size_t)ix[0]];
    } else if (method == 1) {
        EV_GPTR(const float) r1 = s + (size_t)iy[0] * (size_t)sp;
        EV_GPTR(const float) r2 = s + (size_t)iy[1] * (size_t)sp;
        v = ev_prescale_bilinear(r1[ix[0]], r1[ix[1]], r2[ix[0]], r2[ix[1]], wx[0], wy[0]);
    } else if (method == 2) {
        for (int j = 0; j < 4; j++) {
            EV_GPTR(const float) row = s + (size_t)iy[j] * (size_t)sp;
            for (int i = 0; i < 4; i++) v = ev_prescale_bicubic_tap(v, row[ix[i]], wx[i], wy[j]);
        }
    } else {
        float wsum = 0.0f;
        for (int j = 0; j < 9; j++) {
            EV_GPTR(const float) row = s + (size_t)iy[j] * (size_t)sp;
            for (int i = 0; i < 9; i++) ev_prescale_lanczos_tap(&v, &wsum, row[ix[i]], wx[i], wy[j]);
        }
        v = FDIV(v, wsum);
    }
    EV_AT(float, dst)[((size_t)e * (size_t)sh + (size_t)y) * (size_t)sw + (size_t)x] = v;
}

/*
 * Vertical taps at rows step * i (w x oh outputs, compact): out[i][j] =
 * sum over k ascending of f[k] * src[reflect(step * i - n/2 + k, h)][j].
 */
EV_KERNEL speed_k_vtaps(EV_BUF(const float, s0), EV_BUF(const float, s1),
                        EV_BUF(const float, s2), EV_BUF(const float, s3), int sp, int w, int h,
                        EV_BUF(const float, f), int n, int step, int oh, EV_BUF(float, out))
{
    const int j = ev_gid(0), i = ev_gid(1), e = ev_gid(2);
    if (j >= w || i >= oh) return;
    EV_GPTR(const float) s = SPEED_PICK(const float, e, s0, s1, s2, s3);
    EV_GPTR(const float) fk = EV_AT(const float, f);
    const int r = n / 2;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc = speed_tap(acc, fk[k],
                        s[(size_t)speed_reflect(step * i - r + k, h) * (size_t)sp + (size_t)j]);
    EV_AT(float, out)[((size_t)e * (size_t)oh + (size_t)i) * (size_t)w + (size_t)j] = acc;
}

/*
 * Horizontal taps at columns step * j of a compact w-wide source (ow x oh
 * outputs): sum over k ascending of f[k] * src[i][reflect(step * j - n/2
 * + k, w)]; with `sub`, out = base - that (the local mean removed).
 */
EV_KERNEL speed_k_htaps(EV_BUF(const float, src), int w, EV_BUF(const float, f), int n,
                        int step, int ow, int oh, EV_BUF(const float, base), int sub,
                        EV_BUF(float, out))
{
    const int j = ev_gid(0), i = ev_gid(1), e = ev_gid(2);
    if (j >= ow || i >= oh) return;
    EV_GPTR(const float) row = EV_AT(const float, src) + ((size_t)e * (size_t)oh + (size_t)i) * (size_t)w;
    EV_GPTR(const float) fk = EV_AT(const float, f);
    const int r = n / 2;
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc = speed_tap(acc, fk[k], row[speed_reflect(step * j - r + k, w)]);
    const size_t o = ((size_t)e * (size_t)oh + (size_t)i) * (size_t)ow + (size_t)j;
    EV_AT(float, out)[o] = sub ? speed_sub(EV_AT(const float, base)[o], acc) : acc;
}

/*
 * The pictures of a frame are estimated side by side: picture e's image is
 * dec + e * n (n = ow * oh floats), its means mean + e * 25, its sums
 * cov + e * 325 (the lower triangle: [x * (x + 1) / 2 + y]), so that their serial chains run at once.
 */
/* Item e * 32 + k, k < 25: the mean of picture e's submatrix k (subh x subw from (k / 5, k % 5)). */
EV_KERNEL speed_k_means(EV_BUF(const float, dec), int n, int ow, int subw, int subh,
                        EV_BUF(float, mean))
{
    const int e = ev_gid(0) / SPEED_MEAN_ITEMS, k = ev_gid(0) % SPEED_MEAN_ITEMS;
    if (k >= SPEED_N) return;
    EV_GPTR(const float) d = EV_AT(const float, dec) + (size_t)e * (size_t)n;
    float sum = 0.0f;
    for (int i = 0; i < subh; i++) {
        EV_GPTR(const float) row =
            d + (size_t)(i + k / SPEED_BLOCK) * (size_t)ow + (size_t)(k % SPEED_BLOCK);
        for (int j = 0; j < subw; j++) sum = FADD(sum, row[j]);
    }
    EV_AT(float, mean)[e * SPEED_N + k] = speed_mean(sum, (float)((size_t)subw * (size_t)subh));
}

/* Item e * 640 + x * 25 + y, y <= x: picture e's covariance sum of submatrices x and y. */
EV_KERNEL speed_k_cov(EV_BUF(const float, dec), int n, int ow, int subw, int subh,
                      EV_BUF(const float, mean), EV_BUF(ev_d, cov))
{
    const int e = ev_gid(0) / SPEED_COV_ITEMS, t = ev_gid(0) % SPEED_COV_ITEMS;
    const int x = t / SPEED_N, y = t % SPEED_N;
    if (t >= SPEED_N * SPEED_N || y > x) return;
    EV_GPTR(const float) d = EV_AT(const float, dec) + (size_t)e * (size_t)n;
    EV_GPTR(const float) mn = EV_AT(const float, mean) + e * SPEED_N;
    const float mx = mn[x], my = mn[y];
    ev_d acc = D_K(0x0000000000000000, 0.0);
    for (int i = 0; i < subh; i++) {
        EV_GPTR(const float) rx =
            d + (size_t)(i + x / SPEED_BLOCK) * (size_t)ow + (size_t)(x % SPEED_BLOCK);
        EV_GPTR(const float) ry =
            d + (size_t)(i + y / SPEED_BLOCK) * (size_t)ow + (size_t)(y % SPEED_BLOCK);
        for (int j = 0; j < subw; j++)
            acc = speed_cov_step(acc, speed_centered(rx[j], mx), speed_centered(ry[j], my));
    }
    EV_AT(ev_d, cov)[e * SPEED_COV_TRI + x * (x + 1) / 2 + y] = acc;
}

/* speed_temporal's difference: out (compact w x h) = a - b (ap, bp floats per row). */
EV_KERNEL speed_k_diff(EV_BUF(const float, a), int ap, EV_BUF(const float, b), int bp, int w,
                       int h, EV_BUF(float, out))
{
    const int j = ev_gid(0), i = ev_gid(1);
    if (j >= w || i >= h) return;
    EV_AT(float, out)[(size_t)i * (size_t)w + (size_t)j] =
        speed_sub(EV_AT(const float, a)[(size_t)i * (size_t)ap + (size_t)j],
                  EV_AT(const float, b)[(size_t)i * (size_t)bp + (size_t)j]);
}
