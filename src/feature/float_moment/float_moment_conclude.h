/*
 * float_moment's conclusion, shared by the CPU path and the GPU twin: the
 * four outputs from the pictures' unit totals (moment_arith.h), the
 * reference's raster loop taking over a 2nd-moment total that is too large
 * to be exact.
 */
#ifndef EXACTVMAF_FLOAT_MOMENT_CONCLUDE_H
#define EXACTVMAF_FLOAT_MOMENT_CONCLUDE_H

#include <stdint.h>

#include "feature/extractor.h"

/** s1[0], s2[0]: the reference's totals; s1[1], s2[1]: the distorted picture's. */
int float_moment_conclude(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                          const uint64_t s1[2], const uint64_t s2[2], unsigned index);

#endif
