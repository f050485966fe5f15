/*
 * psnr's host side, shared by every backend: the per-depth constants, the
 * per-frame conclusion (integer SSE -> MSE -> dB, in the reference's double
 * arithmetic with the host's libm) and the run-level APSNR. A backend only
 * computes the per-plane SSE (psnr_arith.h) and hands it here, frame by
 * frame in index order.
 */
#ifndef EXACTVMAF_PSNR_HOST_H
#define EXACTVMAF_PSNR_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "feature/extractor.h"

typedef struct PsnrHost {
    bool enable_mse;
    bool enable_apsnr;
    unsigned n_planes;      /**< 3, or 1 without chroma (option, or 4:0:0) */
    uint32_t peak;          /**< 2^bpc - 1, or 255 << (bpc - 8) when reduced */
    double psnr_max[3];
    uint64_t apsnr_sse[3];  /**< running totals over the frames seen */
    uint64_t apsnr_px[3];
} PsnrHost;

/**
 * Set up from the options and the stream format (peak, per-plane psnr_max,
 * plane count, cleared APSNR totals). min_sse is the option's value.
 */
void psnr_host_init(PsnrHost *ph, bool enable_chroma, bool enable_mse,
                    bool enable_apsnr, bool reduced_hbd_peak, double min_sse,
                    enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w,
                    unsigned h);

/**
 * Conclude frame `index` from its per-plane SSE (ph->n_planes entries) and
 * plane sizes: emits psnr_y (then mse_y), psnr_cb, ... and adds to the
 * APSNR totals. Returns 0 or the first negative error.
 */
int psnr_host_frame(VmafFex *fex, PsnrHost *ph, const uint64_t *sse,
                    const unsigned *plane_w, const unsigned *plane_h,
                    unsigned index);

/** End of stream: the three APSNR aggregates, when enabled. */
int psnr_host_flush(VmafFex *fex, const PsnrHost *ph);

/** The CPU path of instance fex continues from a GPU twin's totals ph. */
void psnr_resume(VmafFex *fex, const PsnrHost *ph);

#endif
