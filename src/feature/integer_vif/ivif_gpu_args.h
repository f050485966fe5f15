/*
 * What integer VIF's GPU twin (integer_vif_gpu.c) and its kernels
 * (integer_vif_kernels.h) share besides IvifGainLimits (ivif_arith.h): the
 * layout of each scale's integer sums.
 */
#ifndef EXACTVMAF_IVIF_GPU_ARGS_H
#define EXACTVMAF_IVIF_GPU_ARGS_H

#include "ivif_arith.h"

/** A scale's sums (int64, two's complement): the shared ones, then num_log per limit. */
enum {
    IVIF_ACC_DEN_LOG,
    IVIF_ACC_NUM_NON_LOG,
    IVIF_ACC_DEN_NON_LOG,
    IVIF_ACC_NUM_LOG,
    IVIF_ACC = IVIF_ACC_NUM_LOG + IVIF_MAX_GAIN_LIMITS,
};

#endif
