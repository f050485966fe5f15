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
 * Frame scores of frames 0, 1, ... while their indices come consecutively
 * (the reference reads its SAD scores back from index 0 while they are
 * consecutive; a gap ends the series), and how far their motion2/motion3
 * have been emitted.
 */
typedef struct ImotionScores {
    double *score;          /**< malloc'd, capacity cap */
    unsigned n, cap;
    bool gap;
    unsigned emitted;       /**< motion2/motion3 written for frames [0, emitted) */
    double prev_processed;  /**< the moving average's previous value */
} ImotionScores;

/**
 * Keep frame `index`'s score and emit motion2/motion3 of every frame whose
 * values no later frame can change: frame i once score[i+1] is known (and,
 * below the window's first scored frame, once that frame's score is). The
 * values and their listing order are the flush's (imotion_conclude).
 * Returns 0, -ENOMEM or the first error of vmaf_fex_emit().
 */
int imotion_keep(VmafFex *fex, ImotionScores *sc, unsigned index, double score,
                 const ImotionParams *p);

/**
 * End of stream: emit motion2[i] and motion3[i] for the frames imotion_keep
 * left, i in [emitted, n), in the reference's order and arithmetic:
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
int imotion_conclude(VmafFex *fex, ImotionScores *sc, const ImotionParams *p);

/** Frames whose every output is written: [0, the returned count). */
unsigned imotion_concluded(const ImotionScores *sc);

/**
 * The CPU path of instance fex continues a GPU twin's run: it takes the
 * twin's scores (their array is owned from here; *sc is emptied).
 */
void imotion_resume(VmafFex *fex, ImotionScores *sc);

#endif
