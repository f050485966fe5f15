/*
 * float_adm CUDA kernels. Every value is computed by the functions of
 * adm_arith.h (and adm_rcp_model.h), the CPU path's own, so each sample
 * carries the CPU's operations in the CPU's order; the sums are the CPU's
 * running fp32 sums: one lane adds a row left to right (rowsum.cuh), and
 * the host adds the rows top to bottom (float_adm_cuda.c).
 *
 * Band buffers: h, v, d planes of one signal are consecutive, `ps` floats
 * apart, `bp` floats per row (the scale-0 band layout, reused by every scale).
 */
#include <stdint.h>

#include "fp.h"
#include "feature/float_adm/adm_arith.h"
#include "feature/float_adm/adm_rcp_model.h"
#include "gpu/cuda/rowsum.cuh"

/* Division modes of adm_decouple (float_adm_cuda.c). */
#define ADM_DIV_IEEE 0
#define ADM_DIV_TABLE 1
#define ADM_DIV_RCP_IEEE 2

/* adm_cpu.c's DWT source index: -1 reflects whole-sample to 1, n >= size
 * half-sample to 2 * size - n - 1 (the CPU's row and column padding). */
__device__ static int dwt_mirror(int n, int size)
{
    if (n < 0)
        return -n;
    return n >= size ? 2 * size - n - 1 : n;
}

/**
 * One db2 step of a w x h input (ref for blockIdx.z == 0, dis for 1) into
 * the (w+1)/2 x (h+1)/2 bands: band a always, and h, v, d when `full`.
 * A thread forms the vertical low / high pass at the four columns its
 * output reads (the CPU's row buffer, mirrored as the CPU pads it), then
 * the horizontal taps.
 */
extern "C" __global__ void adm_dwt(const float *src_ref, const float *src_dis, int sp,
                                   int w, int h, float *a_ref, float *a_dis,
                                   float *b_ref, float *b_dis, int bp, long long ps,
                                   int full)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int ow = (w + 1) / 2, oh = (h + 1) / 2;
    if (i >= oh || j >= ow) return;
    const float *src = blockIdx.z ? src_dis : src_ref;
    float *a = blockIdx.z ? a_dis : a_ref;
    float *b = blockIdx.z ? b_dis : b_ref;

    const float *r0 = src + (size_t)dwt_mirror(2 * i - 1, h) * sp;
    const float *r1 = src + (size_t)dwt_mirror(2 * i, h) * sp;
    const float *r2 = src + (size_t)dwt_mirror(2 * i + 1, h) * sp;
    const float *r3 = src + (size_t)dwt_mirror(2 * i + 2, h) * sp;
    float lo[4], hi[4];
    for (int c = 0; c < 4; c++) {
        const int col = dwt_mirror(2 * j - 1 + c, w);
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

__device__ static float gain_ratio(float t, float o, int mode, const uint32_t *table)
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
 * decouple_row and csf_flt_row, per sample).
 */
extern "C" __global__ void adm_decouple(const float *ref_b, const float *dis_b, int bp,
                                        long long ps, int l, int t, int r, int b,
                                        float rf0, float rf1, float rf2, double egl,
                                        int mode, const uint32_t *table, float *rst,
                                        float *add, float *flt_rst, float *flt_add)
{
    const int j = l + blockIdx.x * blockDim.x + threadIdx.x;
    const int i = t + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= b || j >= r) return;
    const size_t o = (size_t)i * bp + j;
    const float rf[3] = { rf0, rf1, rf2 };
    float ob[3], tb[3], k[3];
    for (int c = 0; c < 3; c++) {
        ob[c] = ref_b[c * ps + o];
        tb[c] = dis_b[c * ps + o];
    }
    for (int c = 0; c < 3; c++)
        k[c] = adm_clamp01(gain_ratio(tb[c], ob[c], mode, table));
    const int flag = adm_angle_flag(ob[0], ob[1], tb[0], tb[1]);
    for (int c = 0; c < 3; c++) {
        const float rs = adm_restore(k[c], ob[c], tb[c], flag, egl);
        const float ad = adm_additive(tb[c], rs);
        rst[c * ps + o] = rs;
        add[c * ps + o] = ad;
        flt_add[c * ps + o] = adm_csf_flt(adm_csf(rf[c], ad));
        flt_rst[c * ps + o] = adm_csf_flt(adm_csf(rf[c], rs));
    }
}

/*
 * Masking threshold at (i, j) from the filtered CSF bands `flt` and the
 * centre's raw bands `x` (adm_cpu.c cm_threshold_row): the band sums added
 * to +0 in band order; outside the band, row / column 1 above / left and the
 * last one below / right.
 */
__device__ static float threshold(const float *flt, const float *x, long long ps, int bp,
                                  const float rf[3], int w, int h, int i, int j)
{
    const int iu = i == 0 ? 1 : i - 1;
    const int id = i == h - 1 ? h - 1 : i + 1;
    const int jl = j == 0 ? 1 : j - 1;
    const int jr = j == w - 1 ? w - 1 : j + 1;
    float thr = 0.0f;
    for (int c = 0; c < 3; c++) {
        const float *f = flt + c * ps;
        const float *u = f + (size_t)iu * bp, *m = f + (size_t)i * bp, *d = f + (size_t)id * bp;
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
extern "C" __global__ void adm_terms(const float *ref_b, const float *rst, const float *add,
                                     const float *flt_rst, const float *flt_add, int bp,
                                     long long ps, int w, int h, int l, int t, int r, int b,
                                     float rf0, float rf1, float rf2, int bypass, int cube,
                                     float *terms, int tp, long long tps)
{
    const int j = l + blockIdx.x * blockDim.x + threadIdx.x;
    const int i = t + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= b || j >= r) return;
    const float rf[3] = { rf0, rf1, rf2 };
    const size_t o = (size_t)i * bp + j;
    /* DLM: the restored signal masked by the additive one's CSF; AIM: the
     * additive signal masked by the restored one's. */
    const float thr_num = bypass ? 0.0f : threshold(flt_add, add, ps, bp, rf, w, h, i, j);
    const float thr_aim = bypass ? 0.0f : threshold(flt_rst, rst, ps, bp, rf, w, h, i, j);
    float *out = terms + (size_t)(i - t) * tp + (j - l);
    for (int c = 0; c < 3; c++) {
        const float den = adm_den_value(rf[c], ref_b[c * ps + o]);
        const float num = adm_cm_masked(rst[c * ps + o], rf[c], thr_num);
        const float aim = adm_cm_masked(add[c * ps + o], rf[c], thr_aim);
        out[c * tps] = cube ? adm_cube(den) : den;
        out[(3 + c) * tps] = cube ? adm_cube(num) : num;
        out[(6 + c) * tps] = cube ? adm_cube(aim) : aim;
    }
}

/** Row sums of the terms of slot blockIdx.z: +0, then left to right in fp32, as adm_cpu.c add_row_sums. */
extern "C" __global__ void __launch_bounds__(RS_WARPS * 32)
adm_row_sums(const float *terms, int tp, long long tps, int cw, int ch, float *out)
{
    row_sums(RsPlane{ terms + blockIdx.z * tps, tp }, cw, ch, out + (size_t)blockIdx.z * ch);
}
