/*
 * What integer VIF's GPU twin (integer_vif_gpu.c) and its kernels
 * (integer_vif_kernels.h) share besides IvifGainLimits (ivif_arith.h): the
 * layout of each scale's integer sums.
 */
#ifndef EXACTVMAF_IVIF_GPU_ARGS_H
#define EXACTVMAF_IVIF_GPU_ARGS_H

#include "ivif_arith.h"

/** Items per group of every integer VIF kernel. */
#define IVIF_THREADS 256
/** Statistic tile: IVIF_STAT_TW x IVIF_STAT_TH outputs per group (the
 * kernels' register blocking needs TW a multiple of 6 and TH of 8). */
#define IVIF_STAT_TW 48
#define IVIF_STAT_TH 32
/** Decimation tile: IVIF_DEC_TW x IVIF_DEC_TH outputs per group. */
#define IVIF_DEC_TW 32
#define IVIF_DEC_TH 16

/** A scale's sums (int64, two's complement): the shared ones, then num_log per limit. */
enum {
    IVIF_ACC_DEN_LOG,
    IVIF_ACC_NUM_NON_LOG,
    IVIF_ACC_DEN_NON_LOG,
    IVIF_ACC_NUM_LOG,
    IVIF_ACC = IVIF_ACC_NUM_LOG + IVIF_MAX_GAIN_LIMITS,
};

#endif
