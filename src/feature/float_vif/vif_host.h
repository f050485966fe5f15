/*
 * float_vif host-side pieces shared by every backend: the Gaussian kernels,
 * the prescaler and the pooling of per-scale sums into outputs. GPU twins
 * take the kernel taps from here as bit patterns and pool with vif_pool().
 */
#ifndef EXACTVMAF_VIF_HOST_H
#define EXACTVMAF_VIF_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "feature/common/prescale.h"

/** Four scales, as in the reference. */
#define VIF_NUM_SCALES 4
/** Widest kernel any accepted vif_kernelscale gives (ks <= 4: 17*4 -> 69). */
#define VIF_MAX_FWIDTH 128

/** 1 when ks is within 1e-3 of one of the reference's 21 kernel scales. */
bool vif_kernelscale_valid(float ks);

/** Filter width of `scale` (0..3) for kernel scale ks: odd, at least 3. */
int vif_filter_width(int scale, float ks);

/**
 * Write the normalised Gaussian taps of `scale` into out (vif_filter_width()
 * entries, at most VIF_MAX_FWIDTH), in the reference's mixed float/double
 * types. Returns the width.
 */
int vif_filter_taps(float *out, int scale, float ks);

/** vif_prescale_method by name ("nearest", ...); -EINVAL (logged) for an unknown name. */
int vif_prescale_method_parse(const char *name, enum EvPrescaleMethod *method);

/**
 * A prescale from src_w x src_h to dst_w x dst_h (feature/common/prescale.h):
 * per-column and per-row source indices and weights, computed once at init.
 * An identity plan (equal sizes) copies, as the reference does for every
 * method.
 */
typedef struct VifPrescale {
    enum EvPrescaleMethod method;
    int src_w, src_h, dst_w, dst_h;
    bool identity;
    EvPrescaleAxis cols, rows;
} VifPrescale;

/**
 * Build the tables. -EINVAL (logged) when the source is too small for the
 * method's reach (the reference would read outside the picture), -ENOMEM.
 */
int vif_prescale_init(VifPrescale *ps, enum EvPrescaleMethod method,
                      int src_w, int src_h, int dst_w, int dst_h);

/** Free the tables; safe on a zeroed or half-built plan. */
void vif_prescale_close(VifPrescale *ps);

/** Scale one plane (strides in floats). Not for identity plans. */
void vif_prescale_apply(const VifPrescale *ps, const float *src, size_t src_stride,
                        float *dst, size_t dst_stride);

/** Per-frame outputs in the reference's emission order. */
enum VifOutput {
    VIF_OUT_SCALE0, VIF_OUT_SCALE1, VIF_OUT_SCALE2, VIF_OUT_SCALE3,
    VIF_OUT_VIF, VIF_OUT_NUM, VIF_OUT_DEN,
    VIF_OUT_NUM_SCALE0, VIF_OUT_DEN_SCALE0,
    VIF_OUT_NUM_SCALE1, VIF_OUT_DEN_SCALE1,
    VIF_OUT_NUM_SCALE2, VIF_OUT_DEN_SCALE2,
    VIF_OUT_NUM_SCALE3, VIF_OUT_DEN_SCALE3,
    VIF_OUT_COUNT,
    VIF_OUT_SCALES = VIF_OUT_VIF, /**< outputs emitted without debug */
};

/** Canonical output names, indexed by enum VifOutput. */
extern const char *const vif_output_names[VIF_OUT_COUNT];

/**
 * Pool per-scale fp32 sums into the outputs, in double as the reference
 * does. Scales below `scale_start` (1 with vif_skip_scale0) are ignored;
 * min_val[0..2] floor scales 1..3.
 */
void vif_pool(const float num[VIF_NUM_SCALES], const float den[VIF_NUM_SCALES],
              unsigned scale_start, const double min_val[3],
              double out[VIF_OUT_COUNT]);

typedef struct VmafFex VmafFex;

/**
 * vif_pool(), then emit frame `index`'s outputs (the four scale scores, and
 * the debug ones with debug). Every backend concludes here.
 */
int vif_emit(VmafFex *fex, const float num[VIF_NUM_SCALES], const float den[VIF_NUM_SCALES],
             unsigned scale_start, const double min_val[3], bool debug, unsigned index);

#endif
