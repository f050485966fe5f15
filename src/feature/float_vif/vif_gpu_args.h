/*
 * What float_vif's GPU twin (float_vif_gpu.c) and its kernels
 * (float_vif_kernels.h) share: the filter passed by value to the tiled
 * kernels, which exist for the default kernel scale's widths.
 */
#ifndef EXACTVMAF_VIF_GPU_ARGS_H
#define EXACTVMAF_VIF_GPU_ARGS_H

/** The widest filter of a tiled kernel (scale 0 at vif_kernelscale 1). */
#define VIF_TILED_MAX_TAPS 17

typedef struct VifTaps {
    float f[VIF_TILED_MAX_TAPS];
} VifTaps;

/** 1 when width fw has a tiled kernel: vif_stat_tiled_<fw> (and vif_dec_tiled_<fw> below 17). */
#define VIF_TILED_WIDTH(fw) ((fw) == 17 || (fw) == 9 || (fw) == 5 || (fw) == 3)

#endif
