/*
 * ciede's CPU functions that its GPU twin (ciede_gpu.c) concludes with.
 */
#ifndef EXACTVMAF_CIEDE_H
#define EXACTVMAF_CIEDE_H

#include "feature/extractor.h"

/** ciede_chroma_at()'s layout for pix_fmt (4:2:0, 4:2:2, 4:4:4), and the chroma width. */
int ciede_chroma_layout(enum VmafPixelFormat pix_fmt, unsigned w, unsigned *cw);
/** ΔE00 of pixel (i, j) of the pair, read as the CPU path reads it (chroma on the luma grid). */
float ciede_pixel(const VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                  unsigned i, unsigned j);
/** The frame's score from the raster-order fp64 sum of its ΔE00 values, emitted. */
int ciede_emit(VmafFex *fex, double sum, unsigned index);

#endif
