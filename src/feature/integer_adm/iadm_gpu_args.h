/*
 * The per-scale constants integer ADM's GPU kernels take by value, one
 * layout for the twin's host side (integer_adm_gpu.c) and its kernels
 * (integer_adm_kernels.h). egl is fp.h's ev_d: a double on the host, in
 * CUDA and on an OpenCL device with fp64, and the same 8 bytes read as the
 * double's bit pattern on one without.
 */
#ifndef EXACTVMAF_IADM_GPU_ARGS_H
#define EXACTVMAF_IADM_GPU_ARGS_H

#include "fp.h"

/** Per-scale constants (iadm_cpu.c's geometry and parameters). */
typedef struct IadmScaleArgs {
    int32_t s;                      /**< scale */
    int32_t w, h;                   /**< band size */
    int32_t ext_l, ext_t, ext_r, ext_b;
    int32_t cm_l, cm_t, cm_r, cm_b;
    int32_t den_sq_shift, den_cub_shift;
    uint64_t den_cub_add;
    int32_t cub_shift[3];
    int64_t cub_add[3];
    int32_t rf0[3];
    uint32_t rf123[3];
    float cos2;
    ev_d egl;
    int32_t egl_int;
    int32_t skip_aim;
} IadmScaleArgs;

/* The same size on every side (the host's offsetof check is in integer_adm_gpu.c). */
#if defined(__OPENCL_C_VERSION__)
typedef char iadm_scale_args_size_check_[sizeof(IadmScaleArgs) == 152 ? 1 : -1];
#elif defined(__cplusplus)
static_assert(sizeof(IadmScaleArgs) == 152, "IadmScaleArgs: one layout on every side");
#else
_Static_assert(sizeof(IadmScaleArgs) == 152, "IadmScaleArgs: one layout on every side");
#endif

#endif
