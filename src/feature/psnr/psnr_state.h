/*
 * psnr's instance state, shared by the CPU path (psnr.c) and the GPU twin
 * (psnr_gpu.c): the options, which psnr.c's table parses into it, and what
 * the CPU path's init sets up.
 */
#ifndef EXACTVMAF_PSNR_STATE_H
#define EXACTVMAF_PSNR_STATE_H

#include <stdbool.h>

#include "psnr_host.h"

typedef struct PsnrState {
    /* Options, written by the framework before init. */
    bool enable_chroma;
    bool enable_mse;
    bool enable_apsnr;
    bool reduced_hbd_peak;
    double min_sse;

    /* Set up by init. */
    unsigned bpc;
    PsnrHost host;
} PsnrState;

#endif
