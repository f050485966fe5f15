/*
 * float_vif's instance state, shared by the CPU path (float_vif.c) and the
 * GPU twin (float_vif_gpu.c): the options, which float_vif.c's table parses
 * into it, and what the CPU path's init derives from them.
 */
#ifndef EXACTVMAF_FLOAT_VIF_STATE_H
#define EXACTVMAF_FLOAT_VIF_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "simd.h"
#include "vif_arith.h"
#include "vif_host.h"

/* The five filtered quantities of a scale. */
enum { VIF_P_MU1, VIF_P_MU2, VIF_P_XX, VIF_P_YY, VIF_P_XY, VIF_P_COUNT };

typedef struct VifState {
    /* Options, written by the framework before init. */
    bool debug;
    double vif_enhn_gain_limit;
    double vif_kernelscale;
    double vif_prescale;
    double vif_scale1_min_val;
    double vif_scale2_min_val;
    double vif_scale3_min_val;
    const char *vif_prescale_method;
    double vif_sigma_nsq;
    bool vif_skip_scale0;

    /* Set up by init. */
    unsigned w, h, bpc;
    unsigned scale_start;
    VifStatConst stat;
    double min_val[3];
    int fw[VIF_NUM_SCALES];
    float filter[VIF_NUM_SCALES][VIF_MAX_FWIDTH];
    VifPrescale prescale;
    size_t in_stride;               /**< floats per row of in_ref/in_dis */
    float *in_ref, *in_dis;         /**< the pictures as float, offset -128 */
    int sw[VIF_NUM_SCALES], sh[VIF_NUM_SCALES];
    size_t stride[VIF_NUM_SCALES];  /**< floats per row of ref[s]/dis[s] */
    float *ref[VIF_NUM_SCALES];     /**< image of each scale; [0] may alias in_* */
    float *dis[VIF_NUM_SCALES];
    float *owned[2 * VIF_NUM_SCALES];
    int max_radius;
    float *vrow[VIF_P_COUNT];       /**< vertical pass, max_radius pad each side */
    float *hrow[VIF_P_COUNT];       /**< horizontal pass */
    float *num_row, *den_row;
} VifState;

/** The CPU loops, each instruction set's build (float_vif_simd_tmpl.c, src/simd.h). */
typedef struct VifKern {
    void (*filter_decimate)(const VifState *s, int scale, const float *src, size_t src_stride,
                            int w, int h, float *dst, size_t dst_stride);
    void (*scale_sums)(const VifState *s, int scale, float *num, float *den);
} VifKern;
EV_SIMD_DECLARE(VifKern, vif_kern);

#endif
