/**
 * @file exactvmaf.h
 * exactvmaf extensions to the libvmaf API.
 */
#ifndef EXACTVMAF_EXACTVMAF_H
#define EXACTVMAF_EXACTVMAF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VmafContext VmafContext;

/** How float ADM divides. */
enum ExactvmafDivision {
    /** IEEE quotient: host independent (default). */
    EXACTVMAF_DIVISION_IEEE = 0,
    /**
     * The processor's RCPSS estimate refined by one Newton step, as
     * Netflix's x86 build does: equals Netflix libvmaf on the same host.
     * Only on x86; elsewhere vmaf_set_division() returns -ENOTSUP.
     */
    EXACTVMAF_DIVISION_RCP = 1,
};

/** Where the metrics are computed. */
enum ExactvmafBackend {
    /** Every metric on the CPU (default). */
    EXACTVMAF_BACKEND_CPU = 0,
    /**
     * Metrics with a CUDA twin on the GPU, the others on the CPU, in the
     * same run; the scores equal the CPU's bit for bit. No usable device or
     * driver is an error at the first picture.
     */
    EXACTVMAF_BACKEND_CUDA = 1,
    /** CUDA when a device is usable, otherwise the CPU (logged). */
    EXACTVMAF_BACKEND_AUTO = 2,
};

/**
 * Choose the backend and, for CUDA, the device (0 = first). Must be called
 * before the first picture. @return 0 or negative errno.
 */
int exactvmaf_set_backend(VmafContext *vmaf, enum ExactvmafBackend backend, int gpu_index);

/**
 * Choose the division mode. Must be called before the first
 * vmaf_use_feature*() call of the context. @return 0 or negative errno.
 */
int exactvmaf_set_division(VmafContext *vmaf, enum ExactvmafDivision division);

/**
 * Number format of vmaf_write_output(). The default, 6, is Netflix's:
 * "%.6f", or "%.16f" for a value whose fraction starts with more than six
 * zeros. digits in 1..16 uses digits decimals by the same rule. digits <= 0
 * (or above 16) selects "%.17g", which round-trips every double exactly.
 * fps stays "%.2f". @return 0 or negative errno.
 */
int exactvmaf_set_output_precision(VmafContext *vmaf, int digits);

/** FNV-1a-64 of the raw RCPSS estimate over every mantissa in [1,2); 0 off x86. */
unsigned long long exactvmaf_rcpss_fingerprint(void);

/**
 * How many x in [1,2) have a refined reciprocal (RCPSS + one Newton step,
 * as float ADM's rcp mode) different from the IEEE quotient 1/x.
 * A processor signature published with the goldens (AMD Zen 4/5:
 * 2562503; Intel Xeon family 6 model 207: 2607172). 0 off x86.
 */
unsigned exactvmaf_rcpss_refined_mismatches(void);

#ifdef __cplusplus
}
#endif

#endif
