/*
 * Integer ADM's instance state, shared by the CPU path (integer_adm.c) and
 * the GPU twin (integer_adm_gpu.c): the options, which integer_adm.c's
 * table parses into it, and what the CPU path's init derives from them.
 */
#ifndef EXACTVMAF_INTEGER_ADM_STATE_H
#define EXACTVMAF_INTEGER_ADM_STATE_H

#include <stdbool.h>

#include "iadm_cpu.h"
#include "iadm_host.h"

/** Room for IadmState's pass key, its terminating zero included. */
#define IADM_PASS_KEY_SIZE 512

typedef struct IadmState {
    /* Options, written by the framework before init. */
    bool debug;
    bool adm_skip_aim;
    bool adm_skip_scale0;
    double adm_csf_diag_scale;
    double adm_csf_scale;
    double adm_dlm_weight;
    double adm_enhn_gain_limit;
    double adm_norm_view_dist;
    double adm_noise_weight;
    double adm_min_val;
    int adm_ref_display_height;
    int adm_csf_mode;

    /* Set up by init. */
    IadmParams params;
    /** Every option but the gain limit and debug: instances with equal keys share a pass. */
    char pass_key[IADM_PASS_KEY_SIZE];
    IadmCpu cpu;

    /* A shared pass (vmaf_fex_share_find): a leader computes every gain
     * limit of egl[], its own first, and keeps the frame's sums for its
     * followers; a follower only concludes and emits from its limit's. */
    double egl[IADM_MAX_GAIN_LIMITS];
    int n_egl;
    IadmAccum acc[IADM_MAX_GAIN_LIMITS][IADM_NUM_SCALES];
    const struct IadmState *leader;
    int limit;                  /**< this instance's index in its leader's egl[] */
} IadmState;

#endif
