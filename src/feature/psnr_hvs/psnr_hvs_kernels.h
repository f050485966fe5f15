/*
 * psnr_hvs's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * psnr_hvs_cuda.cu and psnr_hvs_opencl.cl include it, the host side is
 * psnr_hvs_gpu.c).
 *
 * hvs_terms_*: one item per 8x8 block of one plane (blocks every 7
 * samples), which takes the block pair through psnr_hvs_arith.h's
 * hvs_block_terms() and stores its 64 terms at block (by * nbx + bx): the
 * reference's block raster order.
 *
 * hvs_sum: the reference's frame sum is one fp32 running sum of those terms
 * in that order, which no tree may reassociate; one group per plane (the
 * group's z) reads them in tiles, and its first item adds each tile in
 * order.
 */
#include "fp.h"
#include "feature/psnr_hvs/psnr_hvs_arith.h"

/* The host launches hvs_sum with groups of HVS_SUM_GROUP (psnr_hvs_gpu.c). */
#define HVS_SUM_GROUP 256

/*
 * csf_mask: the plane's 64 contrast sensitivities, then its 64 masking
 * weights (psnr_hvs.c's tables). w: the plane's width in samples (its row
 * pitch); nbx x nby blocks.
 */
#define HVS_TERMS(NAME, T)                                                               \
    EV_KERNEL NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w, int nbx, int nby,  \
                   EV_BUF(const float, csf_mask), EV_BUF(float, terms))                  \
    {                                                                                    \
        const int bx = ev_gid(0), by = ev_gid(1);                                        \
        if (bx >= nbx || by >= nby) return;                                              \
        EV_GPTR(const T) r = EV_AT(const T, ref);                                        \
        EV_GPTR(const T) d = EV_AT(const T, dis);                                        \
        EV_GPTR(const float) cm = EV_AT(const float, csf_mask);                          \
        int32_t bs[64], bd[64];                                                          \
        float csf[64], mask[64], t[64];                                                  \
        const size_t o = (size_t)by * HVS_STEP * (size_t)w + (size_t)bx * HVS_STEP;      \
        for (int i = 0; i < 8; i++)                                                      \
            for (int j = 0; j < 8; j++) {                                                \
                bs[8 * i + j] = r[o + (size_t)i * (size_t)w + (size_t)j];                \
                bd[8 * i + j] = d[o + (size_t)i * (size_t)w + (size_t)j];                \
            }                                                                            \
        for (int k = 0; k < 64; k++) {                                                   \
            csf[k] = cm[k];                                                              \
            mask[k] = cm[64 + k];                                                        \
        }                                                                                \
        hvs_block_terms(bs, bd, csf, mask, t);                                           \
        EV_GPTR(float) out = EV_AT(float, terms) + ((size_t)by * (size_t)nbx + (size_t)bx) * 64; \
        for (int k = 0; k < 64; k++) out[k] = t[k];                                      \
    }

HVS_TERMS(hvs_terms_u8, uint8_t)
HVS_TERMS(hvs_terms_u16, uint16_t)

/*
 * Plane z's running sum over its n[z] terms, which start at terms + off[z]
 * (floats), into acc[z]. The group loads the next tile while its first
 * item adds the current one in order (two tiles in turn), so the adds, one
 * dependent on the other, are all that is left in the way.
 */
EV_KERNEL hvs_sum(EV_BUF(const float, terms), int off0, int off1, int off2, int n0, int n1,
                  int n2, EV_BUF(float, acc))
{
    EV_LOCAL float tile[2][HVS_SUM_GROUP];
    const int z = ev_grp(2), li = ev_lid(0);
    const int off = z == 0 ? off0 : z == 1 ? off1 : off2;
    const int n = z == 0 ? n0 : z == 1 ? n1 : n2;
    EV_GPTR(const float) src = EV_AT(const float, terms) + off;
    float a = 0.0f;
    if (li < n) tile[0][li] = src[li];
    ev_barrier();
    for (int base = 0, t = 0; base < n; base += HVS_SUM_GROUP, t ^= 1) {
        const int next = base + HVS_SUM_GROUP;
        if (next + li < n) tile[t ^ 1][li] = src[next + li];
        if (li == 0) {
            const int m = n - base < HVS_SUM_GROUP ? n - base : HVS_SUM_GROUP;
            int k = 0;
            for (; k + 8 <= m; k += 8) {
                const float t0 = tile[t][k], t1 = tile[t][k + 1], t2 = tile[t][k + 2],
                            t3 = tile[t][k + 3], t4 = tile[t][k + 4], t5 = tile[t][k + 5],
                            t6 = tile[t][k + 6], t7 = tile[t][k + 7];
                a = FADD(a, t0);
                a = FADD(a, t1);
                a = FADD(a, t2);
                a = FADD(a, t3);
                a = FADD(a, t4);
                a = FADD(a, t5);
                a = FADD(a, t6);
                a = FADD(a, t7);
            }
            for (; k < m; k++) a = FADD(a, tile[t][k]);
        }
        ev_barrier();
    }
    if (li == 0) EV_AT(float, acc)[z] = a;
}
