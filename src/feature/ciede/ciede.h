/*
 * ciede's CPU functions that its GPU twin (ciede_gpu.c) concludes with.
 */
#ifndef EXACTVMAF_CIEDE_H
#define EXACTVMAF_CIEDE_H

#include "feature/extractor.h"

/** ΔE00 of pixel (i, j) of the pair, read as the CPU path reads it (chroma on the luma grid). */
float ciede_pixel(const VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                  unsigned i, unsigned j);
/** The frame's score from the raster-order fp64 sum of its ΔE00 values, emitted. */
int ciede_emit(VmafFex *fex, double sum, unsigned index);

#endif
