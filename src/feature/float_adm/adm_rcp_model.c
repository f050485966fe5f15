/* The start-up probe of the RCPSS table model (adm_rcp_model.h). Host only. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "adm_rcp.h"
#include "adm_rcp_model.h"

static uint32_t table[ADM_RCP_TABLE_SIZE];
static int verdict;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#if ADM_HAVE_RCPSS
static int agrees(uint32_t x)
{
    return adm_rcp_model_bits(table, x) == ev_f32_bits(adm_rcpss(ev_bits_f32(x)));
}

static void probe(void)
{
    for (uint32_t k = 0; k < ADM_RCP_TABLE_SIZE; k++)
        table[k] = ev_f32_bits(adm_rcpss(ev_bits_f32(
            (UINT32_C(127) << 23) | (k << ADM_RCP_TABLE_SHIFT))));

    /* Every mantissa of [1, 2): the table index and the ignored low bits. */
    for (uint32_t m = 0; m < (UINT32_C(1) << 23); m++)
        if (!agrees((UINT32_C(127) << 23) | m)) return;
    /* Every exponent and sign: 2048 mantissas each, both ends of every
     * table entry and a spread of low bits. */
    for (uint32_t sign = 0; sign < 2; sign++) {
        for (uint32_t e = 1; e < 255; e++) {
            for (uint32_t k = 0; k < 2048; k++) {
                const uint32_t m = ((2 * k + (k & 1)) << ADM_RCP_TABLE_SHIFT) |
                                   ((k * 2654435761u) >> 21 & 0x7ffu);
                if (!agrees(sign << 31 | e << 23 | (m & 0x7fffffu))) return;
            }
        }
    }
    /* Zeros, subnormals, infinities, quiet and signalling NaNs. */
    static const uint32_t special[] = {
        0x00000000u, 0x00000001u, 0x00400000u, 0x007fffffu, 0x7f800000u,
        0x7fc00000u, 0x7fa00000u, 0x7f800001u, 0x7fffffffu,
    };
    for (uint32_t sign = 0; sign < 2; sign++)
        for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
            if (!agrees(sign << 31 | special[i])) return;
    verdict = 1;
}
#else
static void probe(void)
{
    verdict = -ENOTSUP;
}
#endif

int adm_rcp_model_probe(const uint32_t **out)
{
    pthread_once(&once, probe);
    *out = table;
    return verdict;
}
