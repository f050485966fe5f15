/*
 * float_adm host-side geometry and conclusion, shared by every backend: a
 * backend produces, per scale, the nine fp32 band accumulators (row sums
 * added top to bottom in fp32); everything after that runs here on the host
 * with the host's libm (powf), in the reference's types.
 */
#ifndef EXACTVMAF_ADM_POOL_H
#define EXACTVMAF_ADM_POOL_H

#include <stdbool.h>

#include "adm_csf.h"
#include "feature/common/adm_scores.h"

/** Half-open rectangle [l, r) x [t, b) in band coordinates. */
typedef struct AdmRect {
    int l, r, t, b;
} AdmRect;

/** Band geometry of one scale. */
typedef struct AdmScaleGeom {
    int in_w, in_h;     /**< size of this scale's input (frame or band_a) */
    int w, h;           /**< band size: (in + 1) / 2 */
    AdmRect dec;        /**< decouple / CSF region (r, a and filtered CSF written) */
    AdmRect cm;         /**< denominator / masking region (terms summed) */
} AdmScaleGeom;

/** Geometry of scales 0..3 for a frame of w x h (the reference's double math). */
void adm_geometry(int w, int h, AdmScaleGeom geom[ADM_NUM_SCALES]);

/** Band order of the accumulators. */
enum { ADM_BAND_H = 0, ADM_BAND_V = 1, ADM_BAND_D = 2 };

/**
 * Per-scale fp32 accumulators: sum over the cm region of the per-sample
 * term (row totals added top to bottom), for each band h, v, d.
 */
typedef struct AdmScaleAccum {
    float den[3];   /**< |rfactor * o|^p of the reference bands */
    float num[3];   /**< masked |rfactor * r|^p (DLM numerator) */
    float aim[3];   /**< masked |rfactor * a|^p (AIM numerator) */
} AdmScaleAccum;

/** The options that act after the accumulators. */
typedef struct AdmPoolParams {
    double noise_weight;    /**< adm_noise_weight */
    double p_norm;          /**< adm_p_norm */
    double dlm_weight;      /**< adm_dlm_weight */
    double min_val;         /**< adm_min_val */
    bool adm3_apply_hm;     /**< adm_adm3_apply_hm */
    int skip_aim_scale;     /**< adm_skip_aim_scale (-1: none) */
    bool skip_scale0;       /**< adm_skip_scale0 */
} AdmPoolParams;


/**
 * Conclude one frame: the per-band p-th roots plus noise floors, the scale
 * sums, the frame floor and the adm2 / aim / adm3 / adm_scaleN outputs.
 * With skip_scale0, acc[0] is not read. w and h are the frame size.
 *
 * When the floored denominator is 0 the reference sets adm2 = 1 and leaves
 * aim uninitialised (stack residue). Here aim is 0 then: the frame is
 * scored as unimpaired, as adm2 is. The residue measured with Netflix's
 * build is a stack address read as a double (about 6.9e-310), for which
 * its linear adm3 is exactly the one computed here from aim = 0.
 */
void adm_conclude(const AdmScaleAccum acc[ADM_NUM_SCALES],
                  const AdmScaleGeom geom[ADM_NUM_SCALES],
                  const AdmPoolParams *p, int w, int h, AdmScores *out);

/**
 * Emit one frame's scores in Netflix's order and names: the seven outputs,
 * then with debug the eleven debug ones. "adm" is not a provided feature, so
 * it is never renamed; every other debug name is. Shared by every backend.
 */
int adm_emit(VmafFex *fex, const AdmScores *sc, bool debug, unsigned index);

#endif
