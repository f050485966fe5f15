/*
 * The integer ADM kernels built for AArch64's NEON: the same source as the C
 * build (iadm_kern_tmpl.c), vectorised by the compiler with the baseline's
 * Advanced SIMD, where the C build is kept scalar (iadm_kern_c.c). Integer
 * arithmetic and IEEE double operations, unfused (-ffp-contract=off), give
 * the same bits at every vector width. NEON has no gather: the division
 * table is read lane by lane, as in the C build.
 */
#include "iadm_kern.h"

#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__GNUC__)
#define IADM_SUFFIX neon
#include "iadm_kern_tmpl.c"

int iadm_dsp_init_neon(IadmDsp *d)
{
    fill_neon(d);
    return 1;
}
#else
int iadm_dsp_init_neon(IadmDsp *d)
{
    (void)d;
    return 0;
}
#endif
