/*
 * Integer VIF host-side conclusion, shared by every backend: a backend
 * computes the four integer sums of each scale (IvifAccum, any order) and
 * hands them here.
 */
#ifndef EXACTVMAF_IVIF_HOST_H
#define EXACTVMAF_IVIF_HOST_H

#include <stdbool.h>

#include "ivif_arith.h"

/** Per-frame outputs in the reference's emission order. */
enum IvifOutput {
    IVIF_OUT_SCALE0, IVIF_OUT_SCALE1, IVIF_OUT_SCALE2, IVIF_OUT_SCALE3,
    IVIF_OUT_VIF, IVIF_OUT_NUM, IVIF_OUT_DEN,
    IVIF_OUT_NUM_SCALE0, IVIF_OUT_DEN_SCALE0,
    IVIF_OUT_NUM_SCALE1, IVIF_OUT_DEN_SCALE1,
    IVIF_OUT_NUM_SCALE2, IVIF_OUT_DEN_SCALE2,
    IVIF_OUT_NUM_SCALE3, IVIF_OUT_DEN_SCALE3,
    IVIF_OUT_COUNT,
    IVIF_OUT_SCALES = IVIF_OUT_VIF, /**< outputs emitted without debug */
};

/** Canonical output names, indexed by enum IvifOutput. */
extern const char *const ivif_output_names[IVIF_OUT_COUNT];

/**
 * The outputs from the per-scale sums (acc[0] unused with skip_scale0):
 * scale scores as fp32 quotients of the fp32 num and den, promoted; the
 * debug totals as double sums of the floats. A skipped scale 0 reports
 * score 0, num 0 and den -1, as the reference does.
 */
void ivif_conclude(const IvifAccum acc[IVIF_NUM_SCALES], bool skip_scale0,
                   double out[IVIF_OUT_COUNT]);

typedef struct VmafFex VmafFex;

/**
 * ivif_conclude(), then emit frame `index`'s outputs (the four scale scores,
 * and the debug ones with debug). Every backend concludes here.
 */
int ivif_emit(VmafFex *fex, const IvifAccum acc[IVIF_NUM_SCALES], bool skip_scale0, bool debug,
              unsigned index);

#endif
