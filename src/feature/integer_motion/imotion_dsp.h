/*
 * Integer motion SAD kernels: the plain-C reference (imotion_sad_ref, the
 * reference's loops) and a faster one built once per instruction set
 * (imotion_sad_c, imotion_sad_avx2, ...: plain C for the compiler's
 * vectoriser, NEON intrinsics for 8-bit input on AArch64). All return the
 * reference's uint64 SAD bit for bit; tests/checkasm compares them on
 * random and edge inputs.
 */
#ifndef EXACTVMAF_IMOTION_DSP_H
#define EXACTVMAF_IMOTION_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "imotion_arith.h"
#include "simd.h"

/* IMOTION_FILTER's three distinct taps (it is symmetric), for the kernels
 * that add the mirrored samples first: F0 * (d0 + d4) + F1 * (d1 + d3) + F2 * d2. */
enum { IMOTION_F0 = 3571, IMOTION_F1 = 16004, IMOTION_F2 = 26386 };

/** Scratch rows for a frame width of w_max (IMOTION_RADIUS padding each side). */
typedef struct ImotionScratch {
    int32_t *y;     /**< vertical results (reference kernel) */
    int32_t *yh;    /**< y >> 8 (fast kernel) */
    int32_t *yl;    /**< y & 255 (fast kernel) */
} ImotionScratch;

/**
 * SAD of the filtered difference prev - cur of two w x h luma planes
 * (uint8_t samples for bpc 8, else uint16_t; strides in bytes). w, h >= 3.
 */
typedef uint64_t (*ImotionSadFn)(const void *prev, ptrdiff_t prev_stride, const void *cur,
                                 ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                                 const ImotionScratch *s);

uint64_t imotion_sad_ref(const void *prev, ptrdiff_t prev_stride, const void *cur,
                       ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                       const ImotionScratch *s);
/** The fast kernel, each instruction set's build (imotion_simd_tmpl.c, src/simd.h). */
EV_SIMD_DECLARE(ImotionSadFn, imotion_sad);

/** The fastest kernel this processor runs. */
ImotionSadFn imotion_sad_best(void);

/** Allocate scratch for rows of up to w_max samples; -ENOMEM. */
int imotion_scratch_alloc(ImotionScratch *s, int w_max);
void imotion_scratch_free(ImotionScratch *s);

#endif
