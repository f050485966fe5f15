/*
 * The x86 reciprocal estimate (RCPSS) that Netflix's float ADM divides with
 * (adm_tools.c rcp_s() under __SSE2__ and ADM_OPT_RECIP_DIVISION). Host only.
 */
#ifndef EXACTVMAF_ADM_RCP_H
#define EXACTVMAF_ADM_RCP_H

#if defined(__x86_64__) || defined(_M_X64) || \
    ((defined(__i386__) || defined(_M_IX86)) && defined(__SSE__))
#define ADM_HAVE_RCPSS 1
#include <xmmintrin.h>

/** The processor's own RCPSS estimate of 1 / x (processor specific). */
static inline float adm_rcpss(float x)
{
    return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
}
#else
#define ADM_HAVE_RCPSS 0
#endif

#endif
