/*
 * Integer VIF's instance state, shared by the CPU path (integer_vif.c) and
 * the GPU twin (integer_vif_gpu.c): the options, which integer_vif.c's
 * table parses into it, and what the CPU path's init sets up.
 */
#ifndef EXACTVMAF_INTEGER_VIF_STATE_H
#define EXACTVMAF_INTEGER_VIF_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ivif_arith.h"
#include "ivif_dsp.h"

typedef struct IvifState {
    /* Options, written by the framework before init. */
    bool debug;
    double vif_enhn_gain_limit;
    bool vif_skip_scale0;

    /* Set up by init. */
    unsigned w, h, bpc;
    int scale_start;
    int sw[IVIF_NUM_SCALES], sh[IVIF_NUM_SCALES];
    uint16_t filter[IVIF_NUM_SCALES][IVIF_MAX_TAPS];
    uint16_t *log2_table;                /**< 65537 entries, [32767, 65535] filled */
    uint16_t *img[IVIF_NUM_SCALES][2];   /**< scales 1..3, ref and dis; sw[s] per row */
    uint16_t *img_block;                 /**< the one allocation img[][] point into */
    IvifScratch scratch;
    IvifDsp dsp;

    /* A shared pass (vmaf_fex_share_find): a leader computes every gain
     * limit of gl, its own first, and keeps the frame's sums for its
     * followers; a follower only emits from its limit's sums. */
    IvifGainLimits gl;
    IvifAccum acc[IVIF_NUM_SCALES][IVIF_MAX_GAIN_LIMITS];
    const struct IvifState *leader;
    int limit;                  /**< this instance's index in its leader's gl */
} IvifState;

#endif
