/*
 * What integer VIF's CUDA twin (integer_vif_cuda.c) and its kernels
 * (integer_vif_cuda.cu) share: the gain limits one pass serves and the
 * layout of each scale's integer sums.
 */
#ifndef EXACTVMAF_IVIF_CUDA_H
#define EXACTVMAF_IVIF_CUDA_H

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
