/* float_adm CPU reference: the per-scale loops, producing the band accumulators. */
#ifndef EXACTVMAF_ADM_CPU_H
#define EXACTVMAF_ADM_CPU_H

#include <stdbool.h>
#include <stddef.h>

#include "adm_pool.h"
#include "simd.h"

/** Per-frame settings of the CPU loops. */
typedef struct AdmCpuParams {
    float rfactor[ADM_NUM_SCALES][3];   /**< from adm_csf_rfactors() */
    double enhn_gain_limit;             /**< adm_enhn_gain_limit */
    double p_norm;                      /**< adm_p_norm */
    bool bypass_cm;                     /**< adm_bypass_cm */
    bool skip_scale0;                   /**< adm_skip_scale0 */
    bool rcp_division;                  /**< divide as n * rcp_s(d) (x86 only) */
} AdmCpuParams;

/** Buffers of one extractor instance, all allocated at init. */
typedef struct AdmCpu {
    int w, h;
    AdmScaleGeom geom[ADM_NUM_SCALES];
    size_t frame_stride;    /**< floats per row of ref / dis */
    size_t band_stride;     /**< floats per row of every band buffer */
    float *ref, *dis;       /**< converted luma, offset -128 */
    /* Band buffers, scale-0 sized, reused by every scale. band_a of a scale
     * is the next scale's input (the DWT runs in place, see adm_cpu.c). */
    float *ref_a, *ref_b[3], *dis_a, *dis_b[3];
    float *rst[3], *add[3];         /**< decoupled r and a, bands h, v, d */
    float *flt_add[3], *flt_rst[3]; /**< filtered CSF of a and of r */
    float *row_lo, *row_hi;         /**< vertical DWT rows, with mirror padding */
    float *thr, *term[3];           /**< one row of thresholds and terms */
    void *block;
} AdmCpu;

/** Allocate for a w x h frame (w, h >= 17 checked by the caller). */
int adm_cpu_init(AdmCpu *c, int w, int h);
void adm_cpu_close(AdmCpu *c);

/** Run the four scales on c->ref / c->dis and fill the accumulators. */
void adm_cpu_scales(AdmCpu *c, const AdmCpuParams *p, AdmScaleAccum acc[ADM_NUM_SCALES]);

/** adm_cpu_scales as each instruction set's build has it (adm_cpu_simd_tmpl.c, src/simd.h). */
typedef void (*AdmScalesFn)(AdmCpu *c, const AdmCpuParams *p, AdmScaleAccum acc[ADM_NUM_SCALES]);
EV_SIMD_DECLARE(AdmScalesFn, adm_cpu_scales);

#endif
