/*
 * What an ADM extractor emits for one frame. float_adm and integer_adm (and
 * their GPU twins) compute these the same way in double from their own
 * accumulators and emit them in the same order; only the names differ.
 */
#ifndef EXACTVMAF_ADM_SCORES_H
#define EXACTVMAF_ADM_SCORES_H

#include <stdbool.h>

#define ADM_SCORE_SCALES 4
/** Emitted always: adm2, aim, adm3, the four scale scores. */
#define ADM_OUT_SCORES 7
/** With debug: then adm, num, den and num/den of each scale. */
#define ADM_OUT_COUNT 18

typedef struct AdmScores {
    double adm2, aim, adm3;
    double scale[ADM_SCORE_SCALES];     /**< num_scale / den_scale */
    double num, den;                    /**< after the frame floor */
    double num_scale[ADM_SCORE_SCALES];
    double den_scale[ADM_SCORE_SCALES];
} AdmScores;

typedef struct VmafFex VmafFex;

/**
 * Emit frame `index`'s scores under names[] (the extractor's, in the order
 * above: adm2, aim, adm3, scale0..3, then for debug adm, num, den,
 * num_scale0, den_scale0, ... num_scale3, den_scale3).
 * @return 0 or the first error of vmaf_fex_emit().
 */
int adm_scores_emit(VmafFex *fex, const char *const names[ADM_OUT_COUNT], const AdmScores *sc,
                    bool debug, unsigned index);

#endif
