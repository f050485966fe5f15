/*
 * The prescale of libvmaf v3.2.0's vif_scale_frame_s(), which float_vif
 * (vif_prescale_method) and SpEED (speed_prescale_method) both run before
 * their filters: a float plane resampled by nearest, bilinear, bicubic
 * (Keys, a = -0.75) or lanczos4 (docs/numerics.md 4.3). Every position and
 * weight depends on the output column or the output row only, so the axes'
 * tables are built once at init with the reference's expressions; the
 * per-sample sums are prescale_arith.h's, the same text on every backend.
 */
#ifndef EXACTVMAF_FEATURE_COMMON_PRESCALE_H
#define EXACTVMAF_FEATURE_COMMON_PRESCALE_H

#include <stddef.h>

/* The values are the GPU kernels' method numbers. */
enum EvPrescaleMethod {
    EV_PRESCALE_NEAREST,
    EV_PRESCALE_BILINEAR,
    EV_PRESCALE_BICUBIC,
    EV_PRESCALE_LANCZOS4,
};

/**
 * The methods' names, by enum EvPrescaleMethod, then NULL: the one list that
 * both extractors' options offer (VmafOption.choices) and parse.
 */
extern const char *const ev_prescale_method_names[];

/** Method by name ("nearest", "bilinear", "bicubic", "lanczos4"); -EINVAL, silently. */
int ev_prescale_method_parse(const char *name, enum EvPrescaleMethod *method);

/** One axis: for each of its n outputs, `taps` source indices and weights. */
typedef struct EvPrescaleAxis {
    int taps;       /**< 1 (nearest), 2 (bilinear), 4 (bicubic), 9 (lanczos4) */
    int *idx;       /**< n * taps source indices */
    float *wt;      /**< n * taps weights (bilinear: the fraction, then 0) */
} EvPrescaleAxis;

/**
 * The tables of n outputs from `len` source samples: 0, -ENOMEM, or -EINVAL
 * where a tap, mirrored once, still falls outside the source (the reference
 * would read outside the picture); the caller says so in its own words.
 */
int ev_prescale_axis_build(EvPrescaleAxis *ax, enum EvPrescaleMethod method, int len, int n);

/** Free the tables; safe on a zeroed or half-built axis. */
void ev_prescale_axis_free(EvPrescaleAxis *ax);

/**
 * Output row y (as many samples as ax has outputs, `w`) from the plane src
 * (stride in floats), with the axes of ev_prescale_axis_build().
 */
void ev_prescale_row(enum EvPrescaleMethod method, const EvPrescaleAxis *ax,
                     const EvPrescaleAxis *ay, int y, int w, const float *src, size_t stride,
                     float *dst);

#endif
