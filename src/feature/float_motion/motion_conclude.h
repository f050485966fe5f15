/*
 * float_motion's emission schedule (docs/numerics.md section 5.2), shared by the
 * CPU reference and every twin: a backend computes the per-frame score
 * m[n] = SAD(blur[n-1], blur[n]) (double; luma, or luma+u+v) and hands it
 * here, in frame order; this decides what is emitted, for which index, and
 * with which double arithmetic.
 */
#ifndef EXACTVMAF_MOTION_CONCLUDE_H
#define EXACTVMAF_MOTION_CONCLUDE_H

#include <stdbool.h>

#include "feature/extractor.h"
#include "motion_arith.h"

typedef struct MotionConclusion {
    MotionParams p;
    bool debug;          /**< emit VMAF_feature_motion_score */
    bool started;        /**< frame 0 has been concluded */
    unsigned last_index; /**< index of the last concluded frame */
    double last_score;   /**< m[last_index]; 0 for frame 0 */
} MotionConclusion;

/**
 * Conclude frame `index` (0, 1, 2, ... in order). `score` is m[index], unused
 * for index 0. Frame 0 emits motion2[0] = 0 (and motion[0] = 0); frame 1
 * emits motion[1] and motion3[0] = blended(m1); frame n >= 2 emits motion[n],
 * motion2[n-1] and motion3[n-1] from min(m[n-1], m[n]).
 * Returns 0 or the first negative error of vmaf_fex_emit().
 */
int motion_conclude_frame(VmafFex *fex, MotionConclusion *c, unsigned index,
                          double score);

/**
 * End of stream: motion2/motion3 of the last frame from m[last] alone, or
 * motion3[0] = 0 when only frame 0 was seen. Nothing when no frame was seen.
 */
int motion_conclude_flush(VmafFex *fex, const MotionConclusion *c);

/** The CPU path of instance fex continues from a GPU twin's schedule c. */
void motion_resume(VmafFex *fex, const MotionConclusion *c);

#endif
