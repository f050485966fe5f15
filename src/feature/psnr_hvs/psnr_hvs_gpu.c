/*
 * psnr_hvs's GPU twin (one kernel text for CUDA and OpenCL,
 * psnr_hvs_kernels.h): host side, in the GPU frame pipeline. Per frame and
 * plane, hvs_terms_* writes every 8x8 block's 64 error terms in block
 * raster order, and hvs_sum adds them into one fp32 running sum in that
 * order, as the reference does; the three sums come back and
 * psnr_hvs_conclude(), the CPU path's, gives the four outputs.
 */
#include <stdint.h>

#include "feature/extractor.h"
#include "gpu/twin.h"

#include "psnr_hvs_conclude.h"

VMAF_GPU_PROGRAM_DECLARE(psnr_hvs);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(psnr_hvs);

/* hvs_terms_* items per group (8 x 8 blocks), hvs_sum's group (HVS_SUM_GROUP). */
#define TERMS_BX 8u
#define TERMS_BY 8u
#define SUM_GROUP 256u

typedef struct HvsGpu {
    unsigned bpc;
    unsigned w[3], nbx[3], nby[3];
    int off[3], n[3];   /**< each plane's terms: first float and count */
    size_t terms;       /**< floats, all planes */
} HvsGpu;

/** One frame in flight. */
typedef struct HvsLane {
    VmafGpuPtr terms, acc, tables[3];
    float *h_acc;
    VmafGpuKernel *k_terms, *k_sum;
} HvsLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    HvsGpu *g = fex->twin_priv;
    (void)pix_fmt;
    (void)w;
    (void)h;
    g->bpc = bpc;
    g->terms = 0;
    for (unsigned p = 0; p < 3; p++) {
        psnr_hvs_blocks(fex, p, &g->w[p], &g->nbx[p], &g->nby[p]);
        /* At most about 1.3 * 2^30 terms (init's frame limit): int offsets hold. */
        g->off[p] = (int)g->terms;
        g->n[p] = (int)((size_t)g->nbx[p] * g->nby[p] * 64);
        g->terms += (size_t)g->n[p];
        vmaf_gpu_use_plane(needs, 3, p);
    }
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const HvsGpu *g = fex->twin_priv;
    HvsLane *q = lp;
    int err = vmaf_gpu_alloc(l, &q->terms, g->terms * sizeof(float));
    if (!err) err = vmaf_gpu_alloc(l, &q->acc, 3 * sizeof(float));
    if (!err) err = vmaf_gpu_alloc_host(l, (void **)&q->h_acc, 3 * sizeof(float));
    for (unsigned p = 0; p < 3 && !err; p++) {
        float t[128];
        psnr_hvs_tables(fex, p, t);
        err = vmaf_gpu_const(l, &q->tables[p], t, sizeof(t));
    }
    if (!err)
        err = vmaf_gpu_kernel(l, &program, g->bpc == 8 ? "hvs_terms_u8" : "hvs_terms_u16",
                              &q->k_terms);
    if (!err) err = vmaf_gpu_kernel(l, &program, "hvs_sum", &q->k_sum);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const HvsGpu *g = fex->twin_priv;
    HvsLane *q = lp;
    VmafGpuLane *l = fr->lane;
    int err = 0;
    for (unsigned p = 0; p < 3 && !err; p++) {
        VmafGpuPtr r, d;
        err = vmaf_gpu_plane(fr, VMAF_GPU_REF, p, &r);
        if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, p, &d);
        VmafGpuPtr out = vmaf_gpu_at(q->terms, (size_t)g->off[p] * sizeof(float));
        int w = (int)g->w[p], nbx = (int)g->nbx[p], nby = (int)g->nby[p];
        VmafGpuArg a[] = { VMAF_GPU_ARG(r),   VMAF_GPU_ARG(d),   VMAF_GPU_ARG(w),
                           VMAF_GPU_ARG(nbx), VMAF_GPU_ARG(nby), VMAF_GPU_ARG(q->tables[p]),
                           VMAF_GPU_ARG(out) };
        if (!err)
            err = vmaf_gpu_launch(l, q->k_terms, g->nbx[p], g->nby[p], 1, TERMS_BX, TERMS_BY, a);
    }
    int off0 = g->off[0], off1 = g->off[1], off2 = g->off[2];
    int n0 = g->n[0], n1 = g->n[1], n2 = g->n[2];
    VmafGpuArg s[] = { VMAF_GPU_ARG(q->terms), VMAF_GPU_ARG(off0), VMAF_GPU_ARG(off1),
                       VMAF_GPU_ARG(off2),     VMAF_GPU_ARG(n0),   VMAF_GPU_ARG(n1),
                       VMAF_GPU_ARG(n2),       VMAF_GPU_ARG(q->acc) };
    /* One group per plane (z). */
    if (!err) err = vmaf_gpu_launch(l, q->k_sum, SUM_GROUP, 1, 3, SUM_GROUP, 1, s);
    if (!err) err = vmaf_gpu_download(l, q->h_acc, q->acc, 3 * sizeof(float));
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const HvsGpu *g = fex->twin_priv;
    const HvsLane *q = lp;
    const float acc[3] = { q->h_acc[0], q->h_acc[1], q->h_acc[2] };
    const int32_t count[3] = { g->n[0], g->n[1], g->n[2] };
    return psnr_hvs_conclude(fex, acc, count, fr->index);
}

const VmafFexTwin vmaf_fex_psnr_hvs_gpu = {
    .program = &program,
    .priv_size = sizeof(HvsGpu),
    .lane_size = sizeof(HvsLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
};
