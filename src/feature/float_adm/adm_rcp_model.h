/*
 * A model of the processor's RCPSS reciprocal estimate, so that a GPU twin
 * divides exactly as the CPU extractor's rcp mode does on the same host
 * (design of the seed's ADR-1420). On the processors measured, the estimate
 * of a normal x depends only on the top 12 bits of its mantissa, scaled by
 * the exponent: a 4096-entry table of the estimates for [1, 2) gives every
 * other normal value. Zeros and subnormals give a signed infinity,
 * infinities a signed zero, NaNs are quieted, and results below the normal
 * range are a signed zero. adm_rcp_model_probe() fills the table from the
 * processor's own instruction and proves the model before a twin uses it.
 */
#ifndef EXACTVMAF_ADM_RCP_MODEL_H
#define EXACTVMAF_ADM_RCP_MODEL_H

#include <stdint.h>
#if !defined(__CUDA_ARCH__)
#include <string.h>
#endif

#include "fp.h"

#define ADM_RCP_TABLE_SIZE 4096
/** Mantissa bits below the table index. */
#define ADM_RCP_TABLE_SHIFT 11

/* The table's address space: an OpenCL kernel reads it from a buffer. */
#if defined(__OPENCL_C_VERSION__)
#define ADM_RCP_TABLE_MEM global
#else
#define ADM_RCP_TABLE_MEM
#endif

/** The model's estimate of 1 / x, as bits; table[k] = estimate bits of 1.k (k = top 12 bits). */
EV_FN uint32_t adm_rcp_model_bits(const ADM_RCP_TABLE_MEM uint32_t *table, uint32_t x)
{
    const uint32_t sign = x & 0x80000000u;
    const uint32_t e = (x >> 23) & 0xffu;
    const uint32_t m = x & 0x007fffffu;
    if (e == 0)
        return sign | 0x7f800000u;
    if (e == 0xffu)
        return m ? (x | 0x00400000u) : sign;
    const uint32_t t = table[m >> ADM_RCP_TABLE_SHIFT];
    const int32_t re = (int32_t)((t >> 23) & 0xffu) - ((int32_t)e - 127);
    if (re <= 0)
        return sign;
    return sign | ((uint32_t)re << 23) | (t & 0x007fffffu);
}

EV_FN float adm_rcp_model(const ADM_RCP_TABLE_MEM uint32_t *table, float x)
{
    return ev_bits_f32(adm_rcp_model_bits(table, ev_f32_bits(x)));
}

#if !defined(__CUDACC__) && !defined(__OPENCL_C_VERSION__)
/**
 * Fill table from this processor's RCPSS and prove the model against it:
 * every mantissa at one exponent, every exponent and both signs at 2048
 * mantissas each, and the special values. Computed once per process.
 * @return 1 when the model holds (table usable), 0 when it does not,
 *         -ENOTSUP on a processor without RCPSS.
 */
int adm_rcp_model_probe(const uint32_t **table);
#endif

#endif
