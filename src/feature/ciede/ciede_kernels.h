/*
 * ciede's kernels, one text for CUDA and OpenCL (gpu/ev_kernel.h; the host
 * side is ciede_gpu.c): each pixel's ΔE00 from ciede_arith.h, certified
 * (ciede_de2000_certified), into the frame's values; a certified value is
 * also added to the frame's integer total of 2^-30 units and to its
 * smallest value. A hard pixel is listed for the host to compute with the
 * CPU's function; an open one (only glibc's powf(C̄', 7) in doubt) is
 * listed with its certified parts, for the host to finish with glibc's
 * powf and sin; both are NaN in the values. Pixels whose triples are
 * equal in both pictures have ΔE00 = +0, as on the CPU, and cost nothing.
 *
 * Chroma on the luma grid as the CPU reads it: ciede_chroma_at()
 * (ciede_arith.h), the chroma planes packed (cw samples per row).
 */
#include "fp.h"

/* Binary64 throughout: without native doubles (OpenCL's fp64-free mode) the
 * twin declines and there are no kernels. */
#if !defined(__OPENCL_C_VERSION__) || EV_FP64
#include "feature/ciede/ciede_arith.h"

/* List pixel o as hard (its value NaN, for the host). */
EV_DEVICE_FN void ciede_list_hard(EV_GPTR(uint32_t) res, EV_GPTR(uint32_t) hard, uint32_t o)
{
    const uint32_t k = ev_atomic_inc_u32(&res[CIEDE_RES_HARD]);
    if (k < CIEDE_HARD_MAX) hard[k] = o;
}

/* List pixel o as open with its parts; as hard when the list is full. */
EV_DEVICE_FN void ciede_list_open(EV_GPTR(uint32_t) res, EV_GPTR(uint32_t) open,
                           EV_GPTR(uint32_t) hard, uint32_t o, const CiedeParts *p)
{
    const uint32_t k = ev_atomic_inc_u32(&res[CIEDE_RES_OPEN]);
    if (k >= CIEDE_OPEN_MAX) {
        ciede_list_hard(res, hard, o);
        return;
    }
    EV_GPTR(uint32_t) e = open + (size_t)k * CIEDE_OPEN_WORDS;
    e[0] = o;
    e[1] = ev_f32_bits(p->lightness);
    e[2] = ev_f32_bits(p->chroma);
    e[3] = ev_f32_bits(p->hue);
    e[4] = ev_f32_bits(p->cbp);
    e[5] = ev_f32_bits(p->theta);
}

#define CIEDE_DE(NAME, T)                                                                  \
    EV_KERNEL NAME(EV_BUF(const T, ry), EV_BUF(const T, ru), EV_BUF(const T, rv),          \
                   EV_BUF(const T, dy), EV_BUF(const T, du), EV_BUF(const T, dv), int w,   \
                   int h, int cw, int fmt, int bpc, double libm, EV_BUF(float, de),        \
                   EV_BUF(uint32_t, res), EV_BUF(uint32_t, hard), EV_BUF(uint32_t, open))  \
    {                                                                                      \
        EV_LOCAL uint64_t scratch[CIEDE_GROUP];                                            \
        EV_LOCAL uint32_t group_min;                                                       \
        const int j = ev_gid(0), i = ev_gid(1);                                            \
        if (!ev_local_item()) group_min = 0x7f800000u;                                     \
        ev_barrier();                                                                      \
        uint64_t units = 0;                                                                \
        if (j < w) {                                                                       \
            const size_t o = (size_t)i * (size_t)w + (size_t)j;                            \
            const size_t c = ciede_chroma_at(fmt, i, j, cw);                               \
            const unsigned y1 = EV_AT(const T, ry)[o], u1 = EV_AT(const T, ru)[c];         \
            const unsigned v1 = EV_AT(const T, rv)[c], y2 = EV_AT(const T, dy)[o];         \
            const unsigned u2 = EV_AT(const T, du)[c], v2 = EV_AT(const T, dv)[c];         \
            float x = 0.0f;                                                                \
            if (y1 != y2 || u1 != u2 || v1 != v2) {                                        \
                const CiedeRange rg = ciede_range((unsigned)bpc);                          \
                CiedeCert cert;                                                            \
                cert.hard = 0;                                                             \
                cert.libm = libm;                                                          \
                const CiedeLab l1 = ciede_lab_cert(&cert, &rg, (float)y1, (float)u1,       \
                                                   (float)v1);                             \
                const CiedeLab l2 = ciede_lab_cert(&cert, &rg, (float)y2, (float)u2,       \
                                                   (float)v2);                             \
                const CiedeParts p = ciede_parts(&cert, l1, l2);                           \
                int open_ = 0;                                                             \
                x = ciede_de2000_certified(&cert, &p, &open_);                             \
                if (!(x < CIEDE_MAX_VALUE)) cert.hard = 1; /* the total's bound; NaN */   \
                if (cert.hard || open_) {                                                  \
                    if (cert.hard)                                                         \
                        ciede_list_hard(EV_AT(uint32_t, res), EV_AT(uint32_t, hard),       \
                                        (uint32_t)o);                                      \
                    else                                                                   \
                        ciede_list_open(EV_AT(uint32_t, res), EV_AT(uint32_t, open),       \
                                        EV_AT(uint32_t, hard), (uint32_t)o, &p);           \
                    x = ev_bits_f32(0x7fc00000u);                                       \
                } else if (x != 0.0f) {                                                    \
                    const uint32_t b = ev_f32_bits(x);                                  \
                    ev_atomic_min_local_u32(&group_min, b);                                \
                    units = ciede_sum_units(b);                                            \
                }                                                                          \
            }                                                                              \
            EV_AT(float, de)[o] = x;                                                       \
        }                                                                                  \
        units = ev_group_sum_u64(units, scratch);                                          \
        if (!ev_local_item()) {                                                            \
            if (units) ev_atomic_add_u64(EV_AT(uint32_t, res), units);                     \
            if (group_min != 0x7f800000u)                                                  \
                ev_atomic_min_u32(&EV_AT(uint32_t, res)[CIEDE_RES_MIN], group_min);        \
        }                                                                                  \
        (void)h;                                                                           \
    }

CIEDE_DE(ciede_de_u8, uint8_t)
CIEDE_DE(ciede_de_u16, uint16_t)

#endif
