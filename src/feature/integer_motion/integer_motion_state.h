/*
 * Integer motion's instance state, shared by the CPU path
 * (integer_motion.c) and the GPU twin (integer_motion_gpu.c): the options,
 * which integer_motion.c's table parses into it, and what the CPU path's
 * init sets up.
 */
#ifndef EXACTVMAF_INTEGER_MOTION_STATE_H
#define EXACTVMAF_INTEGER_MOTION_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "imotion_conclude.h"
#include "imotion_dsp.h"

typedef struct ImotionState {
    /* Options, written by the framework before init. */
    bool motion_force_zero;
    double motion_blend_factor;
    double motion_blend_offset;
    double motion_fps_weight;
    double motion_max_val;
    bool motion_five_frame_window;
    bool motion_moving_average;
    bool debug;

    /* Set up by init. */
    unsigned w, h, bpc;
    unsigned n_prev;            /**< luma planes kept: 1, or 2 with the five-frame window */
    size_t row_bytes;
    uint8_t *prev[2];           /**< luma of earlier calls, ring indexed by call count */
    unsigned calls;             /**< extract calls so far */
    ImotionScratch scratch;
    ImotionSadFn sad;

    ImotionScores scores;
} ImotionState;

#endif
