/*
 * What SpEED's GPU twins (speed_gpu.c) share with the CPU paths: each
 * instance's estimator (its tables and the host's scratch) and the
 * per-frame emission.
 */
#ifndef EXACTVMAF_SPEED_GPU_H
#define EXACTVMAF_SPEED_GPU_H

#include <stdbool.h>

#include "feature/extractor.h"
#include "speed_core.h"

/** speed_chroma's estimator, set up by its init. */
SpeedCore *speed_chroma_core(VmafFex *fex);

/** Emit the u, v and uv scores from the planes' scores, as the CPU path does. */
int speed_chroma_emit(VmafFex *fex, float u, float v, bool sing_u, bool sing_v,
                      unsigned index);

/** speed_temporal's estimator, set up by its init. */
SpeedCore *speed_temporal_core(VmafFex *fex);

/** Emit speed_temporal's score of frame `index` (0 for the first frame). */
int speed_temporal_emit(VmafFex *fex, float score, unsigned index);

#endif
