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
#include "libvmaf/picture.h"

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
    unsigned n_prev;            /**< pictures kept: 1, or 2 with the five-frame window */
    /** References to the reference pictures of earlier calls (no copy), a
     * ring indexed by call count; .ref NULL where none is kept yet. */
    VmafPicture prev[2];
    unsigned calls;             /**< extract calls so far */
    ImotionScratch scratch;
    ImotionSadFn sad;

    ImotionScores scores;
} ImotionState;

#endif
