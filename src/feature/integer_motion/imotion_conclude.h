/*
 * Integer motion's end-of-stream values (docs/numerics.md section 9), shared by
 * every backend: a backend computes each frame's score (imotion_score of
 * its SAD) and hands the scores of frames 0..n-1 here at the flush.
 */
#ifndef EXACTVMAF_IMOTION_CONCLUDE_H
#define EXACTVMAF_IMOTION_CONCLUDE_H

#include <stdbool.h>

#include "feature/extractor.h"

typedef struct ImotionParams {
    double blend_factor;     /**< motion_blend_factor */
    double blend_offset;     /**< motion_blend_offset */
    double max_val;          /**< motion_max_val */
    bool five_frame_window;  /**< motion_five_frame_window */
    bool moving_average;     /**< motion_moving_average */
} ImotionParams;

/**
 * Emit motion2[i] and motion3[i] for i in [0, n) from the frame scores
 * score[0..n) (the reference reads its SAD scores back from index 0 while
 * they are consecutive), in the reference's order and arithmetic:
 * - frames below the window's first scored frame (1, or 2 with the
 *   five-frame window) get motion2 = 0 and motion3 = the blended score of
 *   that first frame (0 when it does not exist);
 * - later frames get motion2 = min(score[i - (stride-1)], score[i+1])
 *   (just score[i+1] when i - (stride-1) is below the first scored frame,
 *   and score[i] for the last frame), and motion3 = min(blend(motion2),
 *   max_val), averaged with the previous motion3 value when
 *   motion_moving_average is set.
 * Returns 0 or the first error of vmaf_fex_emit().
 */
int imotion_conclude(VmafFex *fex, const double *score, unsigned n, const ImotionParams *p);

/**
 * The CPU path of instance fex continues a GPU twin's run: it takes the
 * twin's kept scores (score[0..n), capacity cap, malloc'd; owned from here)
 * and whether their indices broke off (gap).
 */
void imotion_resume(VmafFex *fex, double *score, unsigned n, unsigned cap, bool gap);

#endif
