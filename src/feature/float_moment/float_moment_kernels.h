/*
 * float_moment's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h;
 * float_moment_cuda.cu and float_moment_opencl.cl include it, the host side
 * is float_moment_gpu.c). Each item takes one luma sample of each picture
 * through moment_arith.h's row functions (a row of one sample) and the
 * group adds its unit totals to the frame's four: the 1st and 2nd moments
 * of the reference and of the distorted picture. The totals are integer
 * sums, so the order of the additions does not matter.
 */
#include "fp.h"
#include "feature/float_moment/moment_arith.h"

/* The host launches groups of MOMENT_GROUP along a row (float_moment_gpu.c). */
#define MOMENT_GROUP 256

/* Add the group's four totals to total[0..3] (uint64 each). */
#define MOMENT_GROUP_ADD(s, scratch, total)                                      \
    for (int c = 0; c < 4; c++) {                                                \
        const uint64_t t = ev_group_sum_u64(s[c], scratch);                      \
        if (!ev_local_item() && t) ev_atomic_add_u64(total + 2 * c, t);          \
    }

/*
 * Totals: ref 1st, dist 1st, ref 2nd, dist 2nd. T the sample type, ROW its
 * row function (10 to 16 bits: the general one, since a square below 2^24
 * rounds to itself).
 */
#define MOMENT_UNITS(NAME, T, ROW)                                                       \
    EV_KERNEL NAME(EV_BUF(const T, ref), EV_BUF(const T, dis), int w,                    \
                   EV_BUF(uint32_t, total))                                              \
    {                                                                                    \
        EV_LOCAL uint64_t scratch[MOMENT_GROUP];                                         \
        const int j = ev_gid(0), i = ev_gid(1);                                          \
        uint64_t s[4] = { 0, 0, 0, 0 };                                                  \
        if (j < w) {                                                                     \
            const size_t o = (size_t)i * (size_t)w + (size_t)j;                          \
            const T r = EV_AT(const T, ref)[o], d = EV_AT(const T, dis)[o];              \
            ROW(&r, 1, &s[0], &s[2]);                                                    \
            ROW(&d, 1, &s[1], &s[3]);                                                    \
        }                                                                                \
        MOMENT_GROUP_ADD(s, scratch, EV_AT(uint32_t, total));                            \
    }

MOMENT_UNITS(moment_units_u8, uint8_t, moment_units_row_u8)
MOMENT_UNITS(moment_units_u16, uint16_t, moment_units_row_u16)
