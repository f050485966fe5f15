/*
 * psnr's GPU twin (CUDA and OpenCL kernels): host side, in the GPU frame
 * pipeline. Per frame the kernel (psnr_cuda.cu) gives each plane's integer
 * squared error (8-bit: per-row uint32 totals, added here in uint64 as the
 * CPU does), and psnr_host_frame() / psnr_host_flush(), the CPU's, conclude.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/extractor.h"
#include "gpu/twin.h"
#include "log.h"

#include "psnr_host.h"
#include "psnr_state.h"

VMAF_GPU_PROGRAM_DECLARE(psnr);
static const VmafGpuProgram program = VMAF_GPU_PROGRAM(psnr);

typedef struct PsnrGpu {
    unsigned bpc, max_h;
    unsigned pw[3], ph[3];
    size_t rows_bytes;  /**< 8-bit: max_h uint32 per plane; deeper: one uint64 per plane */
    PsnrHost host;      /**< conclude's */
} PsnrGpu;

/** One frame in flight. */
typedef struct PsnrLane {
    VmafGpuPtr rows;
    void *h_rows;
    VmafGpuKernel *k_sse;
} PsnrLane;

static int twin_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                     unsigned w, unsigned h, VmafGpuNeeds *needs)
{
    const PsnrState *s = fex->priv;
    PsnrGpu *g = fex->twin_priv;
    psnr_host_init(&g->host, s->enable_chroma, s->enable_mse, s->enable_apsnr,
                   s->reduced_hbd_peak, s->min_sse, pix_fmt, bpc, w, h);
    g->bpc = bpc;
    g->max_h = h;
    const unsigned ss_x = pix_fmt != VMAF_PIX_FMT_YUV444P, ss_y = pix_fmt == VMAF_PIX_FMT_YUV420P;
    for (unsigned p = 0; p < g->host.n_planes; p++) {
        g->pw[p] = p ? w >> ss_x : w;
        g->ph[p] = p ? h >> ss_y : h;
        vmaf_gpu_use_plane(needs, 3, p);
    }
    g->rows_bytes = bpc == 8 ? 3 * (size_t)h * sizeof(uint32_t) : 3 * sizeof(uint64_t);
    return 0;
}

static int lane_init(VmafFex *fex, VmafGpuLane *l, void *lp)
{
    const PsnrGpu *g = fex->twin_priv;
    PsnrLane *q = lp;
    int err = vmaf_gpu_alloc(l, &q->rows, g->rows_bytes);
    if (!err) err = vmaf_gpu_alloc_host(l, &q->h_rows, g->rows_bytes);
    if (!err)
        err = vmaf_gpu_kernel(l, &program, g->bpc == 8 ? "psnr_sse_u8" : "psnr_sse_u16",
                              &q->k_sse);
    return err;
}

static int enqueue(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    const PsnrGpu *g = fex->twin_priv;
    PsnrLane *q = lp;
    VmafGpuLane *l = fr->lane;
    int err = vmaf_gpu_memset(l, q->rows, g->rows_bytes);
    for (unsigned p = 0; p < g->host.n_planes && !err; p++) {
        VmafGpuPtr r, d;
        err = vmaf_gpu_plane(fr, VMAF_GPU_REF, p, &r);
        if (!err) err = vmaf_gpu_plane(fr, VMAF_GPU_DIST, p, &d);
        if (err) break;
        int w = (int)g->pw[p], h = (int)g->ph[p];
        VmafGpuPtr out = vmaf_gpu_at(q->rows, g->bpc == 8 ? (size_t)p * g->max_h * sizeof(uint32_t)
                                                           : (size_t)p * sizeof(uint64_t));
        VmafGpuArg a[] = { VMAF_GPU_ARG(r), VMAF_GPU_ARG(d), VMAF_GPU_ARG(w), VMAF_GPU_ARG(h),
                           VMAF_GPU_ARG(out) };
        if (w && h) err = vmaf_gpu_launch(l, q->k_sse, (unsigned)w, (unsigned)h, 1, 256, 1, a);
    }
    if (!err) err = vmaf_gpu_download(l, q->h_rows, q->rows, g->rows_bytes);
    return err;
}

static int conclude(VmafFex *fex, const VmafGpuFrame *fr, void *lp)
{
    PsnrGpu *g = fex->twin_priv;
    const PsnrLane *q = lp;
    uint64_t sse[3] = { 0, 0, 0 };
    for (unsigned p = 0; p < g->host.n_planes; p++) {
        if (g->bpc == 8) {
            const uint32_t *rows = (const uint32_t *)q->h_rows + (size_t)p * g->max_h;
            for (unsigned i = 0; i < g->ph[p]; i++)
                sse[p] += rows[i];
        } else {
            sse[p] = ((const uint64_t *)q->h_rows)[p];
        }
    }
    return psnr_host_frame(fex, &g->host, sse, g->pw, g->ph, fr->index);
}

static int twin_flush(VmafFex *fex)
{
    PsnrGpu *g = fex->twin_priv;
    return psnr_host_flush(fex, &g->host);
}

/* The APSNR totals so far go to the CPU path. */
static int handover(VmafFex *fex)
{
    const PsnrGpu *g = fex->twin_priv;
    psnr_resume(fex, &g->host);
    return 0;
}

const VmafFexTwin vmaf_fex_psnr_gpu = {
    .program = &program,
    .priv_size = sizeof(PsnrGpu),
    .lane_size = sizeof(PsnrLane),
    .init = twin_init,
    .lane_init = lane_init,
    .enqueue = enqueue,
    .conclude = conclude,
    .flush = twin_flush,
    .handover = handover,
};
