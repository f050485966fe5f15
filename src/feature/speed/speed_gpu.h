/*
 * What SpEED's GPU twins (speed_gpu.c) call of the CPU paths: the per-frame
 * emission. The instance states the twins read are speed_state.h's.
 */
#ifndef EXACTVMAF_SPEED_GPU_H
#define EXACTVMAF_SPEED_GPU_H

#include <stdbool.h>

#include "feature/extractor.h"

/** Emit the u, v and uv scores from the planes' scores, as the CPU path does. */
int speed_chroma_emit(VmafFex *fex, float u, float v, bool sing_u, bool sing_v,
                      unsigned index);

/** Emit speed_temporal's score of frame `index` (0 for the first frame). */
int speed_temporal_emit(VmafFex *fex, float score, unsigned index);

#endif
