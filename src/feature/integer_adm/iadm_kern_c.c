/*
 * The plain C build of the integer ADM kernels (the reference every other
 * build is checked against) and the run-time choice of the widest build.
 */
#define IADM_SUFFIX c
#include "iadm_kern_tmpl.c"

void iadm_dsp_init_c(IadmDsp *d)
{
    fill_c(d);
}

void iadm_dsp_init(IadmDsp *d)
{
    iadm_dsp_init_c(d);
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        iadm_dsp_init_avx2(d);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512cd"))
        iadm_dsp_init_avx512(d);
#endif
}
