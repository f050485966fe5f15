/*
 * float_ms_ssim's instance state, shared by the CPU path (float_ms_ssim.c)
 * and the GPU twin (float_ms_ssim_gpu.c): the options, which
 * float_ms_ssim.c's table parses into it, and what the CPU path's init
 * derives from them.
 */
#ifndef EXACTVMAF_FLOAT_MS_SSIM_STATE_H
#define EXACTVMAF_FLOAT_MS_SSIM_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "ssim_host.h"

typedef struct MsSsimState {
    /* Options, written by the framework before init. */
    bool enable_lcs;
    bool enable_db;
    bool clip_db;

    /* Set up by init. */
    unsigned w, h, bpc;
    double max_db;
    int sw[MS_SSIM_SCALES], sh[MS_SSIM_SCALES];
    size_t stride[MS_SSIM_SCALES];
    float *buf[2][MS_SSIM_SCALES];    /**< allocations: [ref/dist][scale] */
    float *split;                     /**< ms_ssim_decimate's work buffers */
    double *acc;
    SsimEngine engine;
} MsSsimState;

#endif
