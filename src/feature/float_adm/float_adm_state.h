/*
 * float_adm's instance state, shared by the CPU path (float_adm.c) and the
 * GPU twin (float_adm_gpu.c): the options, which float_adm.c's table parses
 * into it, and what the CPU path's init derives from them.
 */
#ifndef EXACTVMAF_FLOAT_ADM_STATE_H
#define EXACTVMAF_FLOAT_ADM_STATE_H

#include <stdbool.h>

#include "adm_cpu.h"
#include "adm_pool.h"

typedef struct AdmState {
    /* Options, written by the framework before init. */
    bool debug;
    double adm_enhn_gain_limit;
    double adm_norm_view_dist;
    double adm_noise_weight;
    double adm_csf_scale;
    double adm_csf_diag_scale;
    int adm_ref_display_height;
    int adm_csf_mode;
    int adm_bypass_cm;
    bool adm_adm3_apply_hm;
    double adm_p_norm;
    double adm_dlm_weight;
    double adm_min_val;
    double adm_f1s[ADM_NUM_SCALES];
    double adm_f2s[ADM_NUM_SCALES];
    int adm_skip_aim_scale;
    bool adm_skip_scale0;

    /* Set up by init. */
    AdmCpu cpu;
    AdmCpuParams cpu_params;
    AdmPoolParams pool_params;
} AdmState;

#endif
