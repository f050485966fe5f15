/*
 * What cambi_cpu.c shares with its loops, cambi_simd_tmpl.c: the band
 * image's entries, a strip of columns, and the loops' table per
 * instruction set (src/simd.h).
 */
#ifndef EXACTVMAF_CAMBI_KERN_H
#define EXACTVMAF_CAMBI_KERN_H

#include <stdbool.h>
#include <stdint.h>

#include "cambi_cpu.h"
#include "simd.h"

/* Band image entries (see the c-values below). */
#define NO_ROW 0x7fff
#define ACTIVE 0x8000
/* ACTIVE is a function of the value: equal band entries are equal values. */
#define ROW_OF(b) ((unsigned)(b) & 0x7fffu)

/* A strip of columns of the window counts (cambi_cpu.c). */
typedef struct Strip {
    int x0, x1;         /**< columns whose counts are kept */
    int in0, in1;       /**< columns whose pixels reach them */
} Strip;

typedef struct CambiKern {
    void (*load_mask)(CambiCpu *cpu, const VmafPicture *pic, const CambiResample *rs,
                      bool antidither_on, bool decimate);
    void (*decimate)(CambiCpu *cpu, unsigned w, unsigned h);
    void (*mode_filter)(CambiCpu *cpu, const CambiParams *p, unsigned w, unsigned h, bool band);
    void (*band_image)(CambiCpu *cpu, const CambiParams *p, unsigned cols, unsigned h);
    void (*slide_rows)(CambiCpu *cpu, const Strip *st, int pad, const uint16_t *bo,
                       const uint16_t *bi);
    void (*c_value_row)(float *restrict c, const CambiParams *p, const uint16_t *hist, int hw,
                        const uint16_t *b, int n, CambiPoolStats *st);
} CambiKern;

/** Each instruction set's build (cambi_simd_tmpl.c). */
EV_SIMD_DECLARE(CambiKern, cambi_kern);

#endif
