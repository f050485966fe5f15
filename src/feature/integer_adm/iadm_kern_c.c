/*
 * The plain C build of the integer ADM kernels (the reference every other
 * build is checked against) and the run-time choice of the widest build.
 */
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
    const int isa = ev_cpu_isa();
    if (isa >= EV_ISA_AVX2)
        iadm_dsp_init_avx2(d);
    if (isa >= EV_ISA_AVX512)
        iadm_dsp_init_avx512(d);
}
