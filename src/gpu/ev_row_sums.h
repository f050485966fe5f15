/*
 * fp32 row sums in the reference's order, in the kernel dialect
 * (gpu/ev_kernel.h), for every twin that reduces a plane row by row:
 * out[r] = (((+0 + v(r,0)) + v(r,1)) + ...) + v(r,w-1), one rounding per
 * add (FADD), left to right. The order is the CPU's, so the adds of a row
 * stay one serial chain on one item; what the group does together is the
 * loading. A group owns EV_RS_ROWS rows: each of its EV_RS_CHUNK items loads
 * its column of every row of a chunk (coalesced along the rows) into local
 * memory, then item r adds row r's values of the chunk in order, while the
 * next chunk's loads are already in flight.
 *
 * The host launches RS_THREADS(h) items in groups of RS_BLOCK
 * (gpu/pipeline.h): one group of EV_RS_CHUNK items per EV_RS_ROWS rows.
 *
 * EV_ROW_SUMS(NAME, TERM) defines the group function
 *     void NAME(EV_GPTR(const float) a, EV_GPTR(const float) b, int pitch,
 *               int w, int h, EV_GPTR(float) out, EV_LPTR(float) tile)
 * that writes out[r] for the group's rows r < h of an h x w source, `pitch`
 * floats per row. TERM(a, b, o) is the value the reference adds at offset
 * o = r * pitch + c (a plane's sample: EV_RS_PLANE; or a term of two planes,
 * such as motion's |a - b|). tile is the kernel's
 *     EV_LOCAL float tile[EV_RS_TILE];
 * and every item of the group calls NAME.
 */
#ifndef EXACTVMAF_EV_ROW_SUMS_H
#define EXACTVMAF_EV_ROW_SUMS_H

#include "fp.h"

#define EV_RS_ROWS 32
/* Columns per chunk, and items per group (RS_BLOCK): one column an item. */
#define EV_RS_CHUNK 128
/* One column of padding: item r reading row r at column k hits bank (r + k) % 32. */
#define EV_RS_TILE (EV_RS_ROWS * (EV_RS_CHUNK + 1))

/** The TERM of a plane's own samples. */
#define EV_RS_PLANE(a, b, o) ((a)[o])

#define EV_ROW_SUMS(NAME, TERM)                                                              \
    /* v[q] = the term at row row0 + q, column c (0 outside the source). */                 \
    EV_DEVICE_FN void NAME##_load_(EV_GPTR(const float) a, EV_GPTR(const float) b,           \
                                   int pitch, int w, int h, int row0, int c, float *v)       \
    {                                                                                        \
        size_t o = (size_t)row0 * (size_t)pitch + (size_t)c;                                 \
        _Pragma("unroll") for (int q = 0; q < EV_RS_ROWS; q++, o += (size_t)pitch)           \
            v[q] = row0 + q < h && c < w ? TERM(a, b, o) : 0.0f;                             \
    }                                                                                        \
    EV_GROUP_FN void NAME(EV_GPTR(const float) a, EV_GPTR(const float) b, int pitch, int w,  \
                          int h, EV_GPTR(float) out, EV_LPTR(float) tile)                    \
    {                                                                                        \
        const int item = ev_lid(0), row0 = ev_grp(0) * EV_RS_ROWS;                           \
        if (row0 >= h) return;                                                               \
        float v[EV_RS_ROWS];                                                                 \
        float acc = 0.0f;                                                                    \
        NAME##_load_(a, b, pitch, w, h, row0, item, v);                                      \
        for (int c0 = 0; c0 < w; c0 += EV_RS_CHUNK) {                                        \
            _Pragma("unroll") for (int q = 0; q < EV_RS_ROWS; q++)                           \
                tile[q * (EV_RS_CHUNK + 1) + item] = v[q];                                   \
            ev_barrier();                                                                    \
            if (c0 + EV_RS_CHUNK < w)                                                        \
                NAME##_load_(a, b, pitch, w, h, row0, c0 + EV_RS_CHUNK + item, v);           \
            if (item < EV_RS_ROWS) {                                                         \
                const int n = w - c0 < EV_RS_CHUNK ? w - c0 : EV_RS_CHUNK;                   \
                for (int k = 0; k < n; k++)                                                  \
                    acc = FADD(acc, tile[item * (EV_RS_CHUNK + 1) + k]);                     \
            }                                                                                \
            ev_barrier();                                                                    \
        }                                                                                    \
        if (item < EV_RS_ROWS && row0 + item < h) out[row0 + item] = acc;                    \
    }

#endif
