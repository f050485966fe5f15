/*
 * Integer motion SAD kernels: the plain-C reference (imotion_sad_c, the
 * reference's loops) and a faster version written for the compiler's
 * vectoriser, built for the baseline instruction set (imotion_sad_vec), for
 * AVX2 (imotion_sad_avx2) and for AVX-512 (imotion_sad_avx512), and NEON intrinsics on AArch64
 * (imotion_sad_neon). All return the reference's uint64 SAD bit for bit;
 * tests/checkasm compares them on random and edge inputs.
 */
#ifndef EXACTVMAF_IMOTION_DSP_H
#define EXACTVMAF_IMOTION_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "imotion_arith.h"

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

uint64_t imotion_sad_c(const void *prev, ptrdiff_t prev_stride, const void *cur,
                       ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                       const ImotionScratch *s);
uint64_t imotion_sad_vec(const void *prev, ptrdiff_t prev_stride, const void *cur,
                         ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                         const ImotionScratch *s);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define IMOTION_HAVE_AVX2 1
/** Needs a processor with AVX2. */
uint64_t imotion_sad_avx2(const void *prev, ptrdiff_t prev_stride, const void *cur,
                          ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                          const ImotionScratch *s);
/** Needs the AVX-512 subsets of EV_ISA_AVX512. */
uint64_t imotion_sad_avx512(const void *prev, ptrdiff_t prev_stride, const void *cur,
                            ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                            const ImotionScratch *s);
#else
#define IMOTION_HAVE_AVX2 0
#endif
#if defined(__aarch64__) && defined(__ARM_NEON) && (defined(__GNUC__) || defined(__clang__))
#define IMOTION_HAVE_NEON 1
/** NEON intrinsics for 8-bit input (imotion_neon.c); deeper input: imotion_sad_vec. */
uint64_t imotion_sad_neon(const void *prev, ptrdiff_t prev_stride, const void *cur,
                          ptrdiff_t cur_stride, int w, int h, unsigned bpc,
                          const ImotionScratch *s);
#else
#define IMOTION_HAVE_NEON 0
#endif

/** The fastest kernel this processor runs. */
ImotionSadFn imotion_sad_best(void);

/** Allocate scratch for rows of up to w_max samples; -ENOMEM. */
int imotion_scratch_alloc(ImotionScratch *s, int w_max);
void imotion_scratch_free(ImotionScratch *s);

#endif
