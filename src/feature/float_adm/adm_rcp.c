/* The RCPSS fingerprint: identifies which processor's estimate table a host has. */
#include <stdint.h>
#include <string.h>

#include "export.h"
#include "exactvmaf/exactvmaf.h"
#include "adm_arith.h"
#include "adm_rcp.h"

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL

/*
 * FNV-1a-64 over the raw estimate of every float in [1, 2) (exponent 127,
 * mantissa 0 .. 2^23 - 1 ascending), each result hashed as its 4 bytes in
 * little-endian order.
 */
VMAF_EXPORT unsigned long long exactvmaf_rcpss_fingerprint(void)
{
#if ADM_HAVE_RCPSS
    uint64_t hash = FNV64_OFFSET;
    for (uint32_t m = 0; m < (1u << 23); m++) {
        const uint32_t in_bits = (UINT32_C(127) << 23) | m;
        float x, est;
        uint32_t est_bits;
        memcpy(&x, &in_bits, sizeof(x));
        est = adm_rcpss(x);
        memcpy(&est_bits, &est, sizeof(est_bits));
        for (int byte = 0; byte < 4; byte++) {
            hash ^= (est_bits >> (8 * byte)) & 0xff;
            hash *= FNV64_PRIME;
        }
    }
    return hash;
#else
    return 0;
#endif
}

VMAF_EXPORT unsigned exactvmaf_rcpss_refined_mismatches(void)
{
#if ADM_HAVE_RCPSS
    unsigned n = 0;
    for (uint32_t m = 0; m < (1u << 23); m++) {
        const uint32_t in_bits = (UINT32_C(127) << 23) | m;
        float x;
        memcpy(&x, &in_bits, sizeof(x));
        n += adm_rcp_refine(x, adm_rcpss(x)) != 1.0f / x;
    }
    return n;
#else
    return 0;
#endif
}
