/*
 * float_motion's instance state, shared by the CPU path (float_motion.c)
 * and the GPU twin (float_motion_gpu.c): the options, which
 * float_motion.c's table parses into it, and what the CPU path's init
 * derives from them.
 */
#ifndef EXACTVMAF_FLOAT_MOTION_STATE_H
#define EXACTVMAF_FLOAT_MOTION_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "motion_arith.h"
#include "simd.h"
#include "motion_conclude.h"

typedef struct MotionPlane {
    unsigned w, h;         /**< this plane's size in the pictures */
    unsigned alloc_w, alloc_h;
    size_t stride;         /**< floats per row of src and blur */
    float *src;            /**< the picture plane as float */
    float *blur[2];        /**< blur of frame n in blur[n & 1] */
} MotionPlane;

typedef struct MotionScale1 {
    int w, h;              /**< (int)(W*0.5+0.5) x (int)(H*0.5+0.5) */
    int *x1, *x2, *y1, *y2;
    float *dx, *dy;
    float *img[3][2];      /**< plane p's downscaled blur of frame n: img[p][n & 1] */
} MotionScale1;

typedef struct MotionState {
    /* Options, written by the framework before init. */
    bool debug;
    bool motion_force_zero;
    double motion_fps_weight;
    double motion_blend_factor;
    double motion_blend_offset;
    bool motion_add_scale1;
    int motion_filter_size;
    bool motion_add_uv;
    double motion_max_val;

    /* Set up by init. */
    unsigned bpc;
    float taps[MOTION_MAX_TAPS];
    int n_taps;
    unsigned min_size;     /**< smallest plane width/height the blur handles */
    unsigned n_planes;
    MotionPlane plane[3];
    MotionScale1 s1;
    float *row;            /**< vertical-pass row with `radius` pad each side */
    float *row_sums;       /**< per-row SAD totals of one plane */
    unsigned next_index;
    MotionConclusion conc;
} MotionState;

/**
 * The CPU loops, each instruction set's build (float_motion_simd_tmpl.c,
 * src/simd.h): the blur of a plane (with prev, the SADs of its rows against
 * prev as each block of rows is done), and the SADs of n rows alone.
 */
typedef struct MotionKern {
    void (*blur_plane)(const float *taps, int n_taps, const float *src, float *dst,
                       const float *prev, float *row_buf, float *row_sums, unsigned w,
                       unsigned h, size_t stride);
    void (*sad_rows)(const float *a, const float *b, size_t stride, unsigned w, unsigned n,
                     float *row_sums);
} MotionKern;
EV_SIMD_DECLARE(MotionKern, motion_kern);

#endif
