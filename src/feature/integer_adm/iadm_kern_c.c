/*
 * The plain C build of the integer ADM kernels (the reference every other
 * build is checked against) and the run-time choice of the widest build.
 *
 * On AArch64 Advanced SIMD is part of the baseline, so the compiler would
 * vectorise this build with NEON and leave nothing to compare the NEON
 * build with: there the reference is built scalar (GCC keeps the command
 * line's -ffp-contract=off under the pragma), and iadm_kern_neon.c is the
 * same source vectorised.
 */
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#include "cpu.h"

#define IADM_SUFFIX c
#include "iadm_kern_tmpl.c"

void iadm_dsp_init_c(IadmDsp *d)
{
    fill_c(d);
}

void iadm_dsp_init(IadmDsp *d)
{
    iadm_dsp_init_c(d);
#if EV_HAVE_X86_SIMD
    const int isa = ev_cpu_isa();
    if (isa >= EV_ISA_AVX2)
        iadm_dsp_init_avx2(d);
    if (isa >= EV_ISA_AVX512)
        iadm_dsp_init_avx512(d);
#elif EV_HAVE_NEON
    if (ev_cpu_isa() >= EV_ISA_NEON)
        iadm_dsp_init_neon(d);
#endif
}
