/* float_adm CSF weights (host only: they call libm in the reference's types). */
#ifndef EXACTVMAF_ADM_CSF_H
#define EXACTVMAF_ADM_CSF_H

#define ADM_NUM_SCALES 4

/** Inputs of the CSF weights; the option values as the extractor holds them. */
typedef struct AdmCsfParams {
    double norm_view_dist;      /**< adm_norm_view_dist */
    int ref_display_height;     /**< adm_ref_display_height */
    int csf_mode;               /**< 1 Barten, 2 ADM native, any other Watson97 */
    double csf_scale;           /**< Barten, factor1 */
    double csf_diag_scale;      /**< Barten, factor2 */
    double f1[ADM_NUM_SCALES];  /**< adm_f1sN; >= 0 overrides factor1 */
    double f2[ADM_NUM_SCALES];  /**< adm_f2sN; >= 0 overrides factor2 */
} AdmCsfParams;

/**
 * The per-scale rfactor {f1, f1, f2} (h, v, d) that Netflix's adm_csf_s,
 * adm_csf_den_scale_s and adm_cm_s compute, bit for bit, for scales 0..3.
 */
void adm_csf_rfactors(const AdmCsfParams *p, float rfactor[ADM_NUM_SCALES][3]);

#endif
