/*
 * float_ssim's instance state, shared by the CPU path (float_ssim.c) and the
 * GPU twin (float_ssim_gpu.c): the options, which float_ssim.c's table
 * parses into it, and what the CPU path's init derives from them.
 */
#ifndef EXACTVMAF_FLOAT_SSIM_STATE_H
#define EXACTVMAF_FLOAT_SSIM_STATE_H

#include <stdbool.h>

#include "ssim_host.h"

typedef struct SsimState {
    /* Options, written by the framework before init. */
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    int scale;

    /* Set up by init. */
    unsigned w, h, bpc;
    int factor;          /**< decimation factor actually used (1: none) */
    int sw, sh;          /**< size after the decimation */
    double max_db;
    float *ref, *dist;   /**< compact w x h images (decimated here when in place) */
    bool out_of_place;   /**< decimate into dref/ddist (same values, see init) */
    float *dref, *ddist; /**< decimated images, sw x sh */
    int *cols;           /**< ssim_box_columns table */
    double *acc;         /**< one decimated row of fp64 sums */
    SsimEngine engine;
} SsimState;

#endif
