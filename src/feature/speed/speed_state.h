/*
 * SpEED's instance states, shared by the CPU paths (speed_chroma.c,
 * speed_temporal.c) and their GPU twins (speed_gpu.c): the options, which
 * each extractor's table parses into its state, and what its init sets up
 * (the estimator, SpeedCore).
 */
#ifndef EXACTVMAF_SPEED_STATE_H
#define EXACTVMAF_SPEED_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "speed_core.h"

typedef struct SpeedChromaState {
    /* Options, written by the framework before init. */
    double speed_kernelscale;
    double speed_prescale;
    const char *speed_prescale_method;
    double speed_sigma_nn;
    double speed_nn_floor;
    double speed_max_val;
    int speed_weight_var_mode;

    /* Set up by init. */
    SpeedCore core;
    unsigned w, h, bpc;     /**< luma size and depth given at init */
    size_t stride;          /**< floats per row of plane */
    float *plane;           /**< one chroma plane as float */
} SpeedChromaState;

typedef struct SpeedTemporalState {
    /* Options, written by the framework before init. */
    double speed_kernelscale;
    double speed_prescale;
    const char *speed_prescale_method;
    double speed_sigma_nn;
    double speed_nn_floor;
    double speed_max_val;
    bool speed_use_ref_diff;

    /* Set up by init. */
    SpeedCore core;
    unsigned w, h, bpc;
    size_t stride;          /**< floats per row of the buffers below */
    float *ref[2], *dis[2]; /**< frame n as float in [n & 1] */
    float *dref, *ddis;     /**< previous - current */
    unsigned next_index;
} SpeedTemporalState;

#endif
