/*
 * checkasm room: the integer ADM kernels (src/feature/integer_adm/iadm_kern.h)
 * of every vector build (AVX2, AVX-512) against the plain C build, on random
 * and edge inputs (extreme sample values, flat rows, tiny and odd widths,
 * unaligned column ranges), then whole frames through the CPU pipeline,
 * one to three gain limits in one pass.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu.h"
#include "feature/integer_adm/iadm_cpu.h"
#include "feature/integer_adm/iadm_host.h"
#include "feature/integer_adm/iadm_kern.h"

#define MAXW 2048
#define PAD 32

static uint64_t rnd(void)
{
    return ca_rand();
}

/* Value generators: mode 0 full range, 1 small, 2 extremes only, 3 zero,
 * 4 mixed extremes and random. */
static int32_t gen_i32(int mode)
{
    static const int32_t ext[] = { INT32_MIN, INT32_MIN + 1, -65536, -32769, -32768,
                                   -1, 0, 1, 32767, 32768, 65535, INT32_MAX - 1,
                                   INT32_MAX };
    switch (mode) {
    case 0: return (int32_t)(uint32_t)rnd();
    case 1: return (int32_t)(rnd() % 4001) - 2000;
    case 2: return ext[rnd() % (sizeof(ext) / sizeof(ext[0]))];
    case 3: return 0;
    default:
        return rnd() & 1 ? ext[rnd() % (sizeof(ext) / sizeof(ext[0]))]
                         : (int32_t)(uint32_t)rnd() >> (rnd() % 31);
    }
}

static int16_t gen_i16(int mode)
{
    static const int16_t ext[] = { -32768, -32767, -16384, -1, 0, 1, 16383, 32766, 32767 };
    switch (mode) {
    case 0: return (int16_t)(uint16_t)rnd();
    case 1: return (int16_t)((int32_t)(rnd() % 401) - 200);
    case 2: return ext[rnd() % (sizeof(ext) / sizeof(ext[0]))];
    case 3: return 0;
    default:
        return rnd() & 1 ? ext[rnd() % (sizeof(ext) / sizeof(ext[0]))]
                         : (int16_t)((int16_t)(uint16_t)rnd() >> (rnd() % 15));
    }
}

/* A sample of widths and column ranges: tiny, odd, vector-boundary, large. */
static const int widths[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63,
                              64, 65, 127, 129, 255, 481, 960, 1920 };
#define NWIDTHS (int)(sizeof(widths) / sizeof(widths[0]))

typedef struct Bufs {
    int16_t *a16[8], *b16[8], *c16[8];
    int32_t *a32[8], *b32[8], *c32[8];
    uint8_t *u8[4];
    uint16_t *u16[4];
    int32_t *div;
    int32_t *scratch;   /* 8 rows, the decoupling's */
} Bufs;

static void *zalloc(size_t n)
{
    return ca_alloc(n);
}

static void bufs_init(Bufs *b)
{
    for (int k = 0; k < 8; k++) {
        b->a16[k] = (int16_t *)zalloc((MAXW + 2 * PAD) * 2) + PAD;
        b->b16[k] = (int16_t *)zalloc((MAXW + 2 * PAD) * 2) + PAD;
        b->c16[k] = (int16_t *)zalloc((MAXW + 2 * PAD) * 2) + PAD;
        b->a32[k] = (int32_t *)zalloc((MAXW + 2 * PAD) * 4) + PAD;
        b->b32[k] = (int32_t *)zalloc((MAXW + 2 * PAD) * 4) + PAD;
        b->c32[k] = (int32_t *)zalloc((MAXW + 2 * PAD) * 4) + PAD;
    }
    for (int k = 0; k < 4; k++) {
        b->u8[k] = zalloc(MAXW + 2 * PAD);
        b->u16[k] = zalloc((MAXW + 2 * PAD) * 2);
    }
    b->div = zalloc(IADM_DIV_TABLE_SIZE * sizeof(int32_t));
    b->scratch = zalloc(8 * MAXW * sizeof(int32_t));
    iadm_div_table(b->div);
}

static void bufs_free(Bufs *b)
{
    for (int k = 0; k < 8; k++) {
        free(b->a16[k] - PAD);
        free(b->b16[k] - PAD);
        free(b->c16[k] - PAD);
        free(b->a32[k] - PAD);
        free(b->b32[k] - PAD);
        free(b->c32[k] - PAD);
    }
    for (int k = 0; k < 4; k++) {
        free(b->u8[k]);
        free(b->u16[k]);
    }
    free(b->div);
    free(b->scratch);
}

static void fill16(int16_t *p, int from, int to, int mode)
{
    for (int j = from; j < to; j++)
        p[j] = gen_i16(mode);
}

static void fill32(int32_t *p, int from, int to, int mode)
{
    for (int j = from; j < to; j++)
        p[j] = gen_i32(mode);
}

static void check_dwt(const char *isa, const IadmDsp *c, const IadmDsp *v, Bufs *b)
{
    for (int wi = 0; wi < NWIDTHS; wi++) {
        const int n = widths[wi];
        for (int mode = 0; mode < 5; mode++) {
            /* 8-bit: random, flat 0 / 255, alternating extremes. */
            for (int r = 0; r < 4; r++)
                for (int j = 0; j < n; j++)
                    b->u8[r][j] = mode == 0 ? (uint8_t)rnd()
                                : mode == 1 ? (uint8_t)(128 + rnd() % 8)
                                : mode == 2 ? ((j + r) & 1 ? 255 : 0)
                                : mode == 3 ? 0 : 255;
            for (int lo_only = 0; lo_only < 2; lo_only++) {
                c->dwt0_vert_8(b->u8[0], b->u8[1], b->u8[2], b->u8[3], n, b->a16[0],
                               lo_only ? NULL : b->a16[1]);
                v->dwt0_vert_8(b->u8[0], b->u8[1], b->u8[2], b->u8[3], n, b->b16[0],
                               lo_only ? NULL : b->b16[1]);
                ca_check("iadm dwt0_vert_8", isa, !(memcmp(b->a16[0], b->b16[0], n * 2) ||
                    (!lo_only && memcmp(b->a16[1], b->b16[1], n * 2))), "output differs" " (n = %d)", n);
            }
            for (int bpc = 9; bpc <= 16; bpc++) {
                const uint32_t maxv = (1u << bpc) - 1;
                for (int r = 0; r < 4; r++)
                    for (int j = 0; j < n; j++)
                        b->u16[r][j] = (uint16_t)(mode == 0 ? rnd() % (maxv + 1)
                                     : mode == 1 ? maxv / 2 + rnd() % 8
                                     : mode == 2 ? ((j + r) & 1 ? maxv : 0)
                                     : mode == 3 ? 0 : maxv);
                c->dwt0_vert_16(b->u16[0], b->u16[1], b->u16[2], b->u16[3], n, bpc,
                                b->a16[0], b->a16[1]);
                v->dwt0_vert_16(b->u16[0], b->u16[1], b->u16[2], b->u16[3], n, bpc,
                                b->b16[0], b->b16[1]);
                ca_check("iadm dwt0_vert_16", isa, !(memcmp(b->a16[0], b->b16[0], n * 2) || memcmp(b->a16[1], b->b16[1], n * 2)), "output differs" " (n = %d)", n);
            }
            /* Horizontal: rows padded at -1, n, n + 1. */
            const int n_out = (n + 1) / 2;
            fill16(b->c16[0], -1, n + 2, mode);
            fill16(b->c16[1], -1, n + 2, mode);
            for (int lo_only = 0; lo_only < 2; lo_only++) {
                int16_t *ha = lo_only ? NULL : b->c16[1];
                c->dwt0_horiz(b->c16[0], ha, n_out, b->a32[0], lo_only ? NULL : b->a16[1],
                              lo_only ? NULL : b->a16[2], lo_only ? NULL : b->a16[3]);
                v->dwt0_horiz(b->c16[0], ha, n_out, b->b32[0], lo_only ? NULL : b->b16[1],
                              lo_only ? NULL : b->b16[2], lo_only ? NULL : b->b16[3]);
                ca_check("iadm dwt0_horiz", isa, !(memcmp(b->a32[0], b->b32[0], n_out * 4)), "band a differs" " (n = %d)", n);
                for (int k = 1; k < (lo_only ? 1 : 4); k++)
                    ca_check("iadm dwt0_horiz", isa, !(memcmp(b->a16[k], b->b16[k], n_out * 2)), "output differs" " (n = %d)", n);
            }
            for (int s = 1; s <= 3; s++) {
                const int64_t add_v = s == 1 ? 0 : 32768, add_h = s == 2 ? 32768 : 16384;
                const int sh_v = s == 1 ? 0 : 16, sh_h = s == 2 ? 16 : 15;
                for (int r = 0; r < 4; r++)
                    fill32(b->c32[r], 0, n, mode);
                c->dwt_vert(b->c32[0], b->c32[1], b->c32[2], b->c32[3], n, add_v, sh_v,
                            b->a32[0], b->a32[1]);
                v->dwt_vert(b->c32[0], b->c32[1], b->c32[2], b->c32[3], n, add_v, sh_v,
                            b->b32[0], b->b32[1]);
                ca_check("iadm dwt_vert", isa, !(memcmp(b->a32[0], b->b32[0], n * 4) || memcmp(b->a32[1], b->b32[1], n * 4)), "output differs" " (n = %d)", n);
                if (s == 1) {
                    /* Scale 1 reads int16 values. */
                    for (int r = 0; r < 4; r++)
                        for (int j = 0; j < n; j++)
                            b->c32[r][j] = gen_i16(mode);
                    c->dwt1_vert(b->c32[0], b->c32[1], b->c32[2], b->c32[3], n, b->a32[0],
                                 b->a32[1]);
                    v->dwt1_vert(b->c32[0], b->c32[1], b->c32[2], b->c32[3], n, b->b32[0],
                                 b->b32[1]);
                    ca_check("iadm dwt1_vert", isa, !(memcmp(b->a32[0], b->b32[0], n * 4) || memcmp(b->a32[1], b->b32[1], n * 4)), "output differs" " (n = %d)", n);
                    /* And it equals the int64 kernel's result (C against C). */
                    c->dwt_vert(b->c32[0], b->c32[1], b->c32[2], b->c32[3], n, 0, 0,
                                b->c32[6], b->c32[7]);
                    ca_check("iadm dwt1_vert = dwt_vert", "c", !(memcmp(b->a32[0], b->c32[6], n * 4) || memcmp(b->a32[1], b->c32[7], n * 4)), "differs from dwt_vert" " (n = %d)", n);
                }
                fill32(b->c32[4], -1, n + 2, mode);
                fill32(b->c32[5], -1, n + 2, mode);
                c->dwt_horiz(b->c32[4], b->c32[5], n_out, add_h, sh_h, b->a32[0],
                             b->a32[1], b->a32[2], b->a32[3]);
                v->dwt_horiz(b->c32[4], b->c32[5], n_out, add_h, sh_h, b->b32[0],
                             b->b32[1], b->b32[2], b->b32[3]);
                for (int k = 0; k < 4; k++)
                    ca_check("iadm dwt_horiz", isa, !(memcmp(b->a32[k], b->b32[k], n_out * 4)), "output differs" " (n = %d)", n);
            }
        }
    }
}

static const double egls[] = { 1.0, 1.2, 2.0, 37.5, 99.99, 100.0 };

static void check_decouple(const char *isa, const IadmDsp *c, const IadmDsp *v, Bufs *b,
                           float cos2)
{
    for (int wi = 0; wi < NWIDTHS; wi++) {
        const int n = widths[wi];
        for (int mode = 0; mode < 5; mode++) {
            for (int e = 0; e < (int)(sizeof(egls) / sizeof(egls[0])); e++) {
                const int jr = (int)(rnd() % 3), j0 = jr < n ? jr : 0;
                /* o and t: same mode for both, or t a scaled copy of o (the
                 * angle test's interesting side). */
                for (int k = 0; k < 6; k++)
                    fill16(b->c16[k], 0, n, mode);
                if (rnd() & 1)
                    for (int k = 0; k < 3; k++)
                        for (int j = 0; j < n; j++)
                            b->c16[3 + k][j] = (int16_t)(b->c16[k][j] / (int)(1 + rnd() % 3));
                const int16_t *o[3] = { b->c16[0], b->c16[1], b->c16[2] };
                const int16_t *t[3] = { b->c16[3], b->c16[4], b->c16[5] };
                int16_t *ra[3] = { b->a16[0], b->a16[1], b->a16[2] };
                int16_t *aa[3] = { b->a16[3], b->a16[4], b->a16[5] };
                int16_t *rb[3] = { b->b16[0], b->b16[1], b->b16[2] };
                int16_t *ab[3] = { b->b16[3], b->b16[4], b->b16[5] };
                c->decouple0(o, t, j0, n, b->div, cos2, egls[e], b->scratch, ra, aa);
                v->decouple0(o, t, j0, n, b->div, cos2, egls[e], b->scratch, rb, ab);
                for (int k = 0; k < 6; k++)
                    ca_check("iadm decouple0", isa, !(memcmp(b->a16[k] + j0, b->b16[k] + j0, (n - j0) * 2)), "output differs" " (n = %d)", n);

                for (int k = 0; k < 6; k++)
                    fill32(b->c32[k], 0, n, mode);
                if (rnd() & 1)
                    for (int k = 0; k < 3; k++)
                        for (int j = 0; j < n; j++)
                            b->c32[3 + k][j] = b->c32[k][j] / (int32_t)(1 + rnd() % 3);
                const int32_t *o4[3] = { b->c32[0], b->c32[1], b->c32[2] };
                const int32_t *t4[3] = { b->c32[3], b->c32[4], b->c32[5] };
                int32_t *ra4[3] = { b->a32[0], b->a32[1], b->a32[2] };
                int32_t *aa4[3] = { b->a32[3], b->a32[4], b->a32[5] };
                int32_t *rb4[3] = { b->b32[0], b->b32[1], b->b32[2] };
                int32_t *ab4[3] = { b->b32[3], b->b32[4], b->b32[5] };
                c->decouple(o4, t4, j0, n, b->div, cos2, egls[e], b->scratch, ra4, aa4);
                v->decouple(o4, t4, j0, n, b->div, cos2, egls[e], b->scratch, rb4, ab4);
                for (int k = 0; k < 6; k++)
                    ca_check("iadm decouple", isa, !(memcmp(b->a32[k] + j0, b->b32[k] + j0, (n - j0) * 4)), "output differs" " (n = %d)", n);
            }
        }
    }
}

static void check_den_csf_cm(const char *isa, const IadmDsp *c, const IadmDsp *v, Bufs *b)
{
    for (int wi = 0; wi < NWIDTHS; wi++) {
        const int n = widths[wi];
        if (n < 2)
            continue;
        for (int mode = 0; mode < 5; mode++) {
            const int jr = (int)(rnd() % 3), j0 = jr < n ? jr : 0;
            const int j1 = n - (int)(rnd() % 2);
            if (j1 <= j0)
                continue;

            for (int k = 0; k < 3; k++) {
                fill16(b->c16[k], 0, n, mode);
                fill32(b->c32[k], 0, n, mode);
            }
            const int16_t *s16[3] = { b->c16[0], b->c16[1], b->c16[2] };
            const int32_t *s32[3] = { b->c32[0], b->c32[1], b->c32[2] };
            uint64_t dc[3], dv[3];
            c->den0(s16, j0, j1, dc);
            v->den0(s16, j0, j1, dv);
            ca_check("iadm den0", isa, !(memcmp(dc, dv, sizeof(dc))), "sums differ" " (n = %d)", n);
            for (int sq = 30; sq <= 31; sq++) {
                const int cub = (int)(rnd() % 12);
                const uint64_t cub_add = cub ? (uint64_t)1 << (cub - 1) : 0;
                c->den(s32, j0, j1, sq, cub_add, cub, dc);
                v->den(s32, j0, j1, sq, cub_add, cub, dv);
                ca_check("iadm den", isa, !(memcmp(dc, dv, sizeof(dc))), "sums differ" " (n = %d)", n);
            }

            const int32_t rf0[3] = { (int32_t)(rnd() & 0xffff), (int32_t)(rnd() & 0xffff),
                                     (int32_t)(rnd() & 0xffff) };
            const int32_t rf0_def[3] = { 36453, 36453, 49417 };
            const int32_t *rf = rnd() & 1 ? rf0 : rf0_def;
            c->csf0(s16, rf, j0, j1, b->a32[0], b->a32[1]);
            v->csf0(s16, rf, j0, j1, b->b32[0], b->b32[1]);
            ca_check("iadm csf0", isa, !(memcmp(b->a32[0] + j0, b->b32[0] + j0, (j1 - j0) * 4) ||
                memcmp(b->a32[1] + j0, b->b32[1] + j0, (j1 - j0) * 4)), "output differs" " (n = %d)", n);
            const uint32_t rf123[3] = { (uint32_t)rnd(), (uint32_t)rnd() >> (rnd() % 24),
                                        (uint32_t)rnd() >> 8 };
            c->csf(s32, rf123, j0, j1, b->a32[0], b->a32[1]);
            v->csf(s32, rf123, j0, j1, b->b32[0], b->b32[1]);
            ca_check("iadm csf", isa, !(memcmp(b->a32[0] + j0, b->b32[0] + j0, (j1 - j0) * 4) ||
                memcmp(b->a32[1] + j0, b->b32[1] + j0, (j1 - j0) * 4)), "output differs" " (n = %d)", n);

            /* Masking: F rows and G as csf would make them, or raw. */
            for (int k = 0; k < 4; k++)
                fill32(b->c32[3 + k], 0, n, mode == 0 ? 1 : mode);
            IadmCmParams p;
            for (int k = 0; k < 3; k++) {
                p.rf0[k] = rf[k];
                p.rf123[k] = rf123[k];
                p.cub_shift[k] = (int)(rnd() % 14);
                p.cub_add[k] = p.cub_shift[k] ? (int64_t)1 << (p.cub_shift[k] - 1) : 0;
                /* Any rounding constant: then a column with nothing above its
                 * threshold adds cub_add >> cub_shift, which the vector
                 * kernels add per block of such columns. */
                if (rnd() & 1)
                    p.cub_add[k] = (int64_t)(rnd() % 200001) - 100000;
            }
            int64_t cc[3], cv[3];
            c->cm0(s16, b->c32[3], b->c32[4], b->c32[5], b->c32[6], j0, j1, n, &p,
                   b->a32[7], cc);
            v->cm0(s16, b->c32[3], b->c32[4], b->c32[5], b->c32[6], j0, j1, n, &p,
                   b->b32[7], cv);
            ca_check("iadm cm0", isa, !(memcmp(cc, cv, sizeof(cc))), "sums differ" " (n = %d)", n);
            for (int k = 1; k < 3; k++) {
                p.cub_shift[k] = p.cub_shift[0];
                p.cub_add[k] = p.cub_add[0];
            }
            c->cm(s32, b->c32[3], b->c32[4], b->c32[5], b->c32[6], j0, j1, n, &p,
                  b->a32[7], cc);
            v->cm(s32, b->c32[3], b->c32[4], b->c32[5], b->c32[6], j0, j1, n, &p,
                  b->b32[7], cv);
            ca_check("iadm cm", isa, !(memcmp(cc, cv, sizeof(cc))), "sums differ" " (n = %d)", n);
        }
    }
}

/* Whole frames through the pipeline: C kernels against the vector ones. */
static void check_frames(const char *isa, const IadmDsp *vd)
{
    static const int sizes[][2] = { { 17, 17 }, { 18, 22 }, { 32, 17 }, { 33, 35 },
                                    { 64, 48 }, { 481, 321 }, { 176, 144 } };
    static const unsigned bpcs[] = { 8, 10, 12, 16 };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        const int w = sizes[si][0], h = sizes[si][1];
        for (size_t bi = 0; bi < sizeof(bpcs) / sizeof(bpcs[0]); bi++) {
            const unsigned bpc = bpcs[bi];
            const size_t bytes = bpc == 8 ? 1 : 2;
            uint8_t *pr = zalloc((size_t)w * h * bytes), *pd = zalloc((size_t)w * h * bytes);
            for (int content = 0; content < 4; content++) {
                const uint32_t maxv = (1u << bpc) - 1;
                for (int i = 0; i < w * h; i++) {
                    uint32_t r, d;
                    switch (content) {
                    case 0: r = (uint32_t)rnd() & maxv; d = (uint32_t)rnd() & maxv; break;
                    case 1: r = (i % w + i / w) & 1 ? maxv : 0; d = ((i % w) & 2) ? maxv : 0; break;
                    case 2: r = maxv / 3; d = (uint32_t)rnd() & maxv; break;
                    default: r = (uint32_t)(i * 7) & maxv; d = (r + (uint32_t)(rnd() % 9)) & maxv;
                    }
                    if (bpc == 8) {
                        pr[i] = (uint8_t)r;
                        pd[i] = (uint8_t)d;
                    } else {
                        ((uint16_t *)pr)[i] = (uint16_t)r;
                        ((uint16_t *)pd)[i] = (uint16_t)d;
                    }
                }
                VmafPicture R = { 0 }, D = { 0 };
                R.bpc = D.bpc = bpc;
                R.w[0] = D.w[0] = (unsigned)w;
                R.h[0] = D.h[0] = (unsigned)h;
                R.stride[0] = D.stride[0] = (ptrdiff_t)(w * bytes);
                R.data[0] = pr;
                D.data[0] = pd;
                for (int opt = 0; opt < 3; opt++) {
                    const IadmOptions o = {
                        .enhn_gain_limit = opt == 1 ? 1.2 : 100.0,
                        .norm_view_dist = 3.0, .ref_display_height = 1080,
                        .csf_mode = opt == 2 ? 1 : 0, .csf_scale = 1.0,
                        .csf_diag_scale = 1.0, .noise_weight = 0.03125,
                        .dlm_weight = 0.5, .min_val = 0.0,
                        .skip_aim = opt == 2, .skip_scale0 = false,
                    };
                    IadmParams p;
                    iadm_params(&o, &p);
                    /* The kernels under test serve up to three gain limits in one
                     * pass (where the size allows); each limit's sums must be the
                     * C reference's single pass with that limit. */
                    const double egls[3] = { p.egl, p.egl == 1.2 ? 100.0 : 1.2, 1.0 };
                    IadmCpu cc, cv;
                    if (iadm_cpu_init(&cc, w, h, 1) < 0 || iadm_cpu_init(&cv, w, h, 3) < 0) {
                        fprintf(stderr, "init failed\n");
                        exit(1);
                    }
                    cc.dsp = iadm_dsp_c;
                    cv.dsp = *vd;
                    const int n = iadm_cpu_can_share(&cv) ? 3 : 1;
                    IadmAccum ac[3][IADM_NUM_SCALES], av[3][IADM_NUM_SCALES];
                    for (int e = 0; e < n; e++)
                        iadm_cpu_frame(&cc, &p, &egls[e], 1, &R, &D, &ac[e]);
                    iadm_cpu_frame(&cv, &p, egls, n, &R, &D, av);
                    for (int e = 0; e < n; e++)
                        ca_check("iadm frame", isa, !memcmp(ac[e], av[e], sizeof(ac[e])),
                                 "%dx%d bpc %u content %d options %d: %s", w, h, bpc, content,
                                 opt, e ? "a shared limit's accumulators differ"
                                        : "accumulators differ");
                    iadm_cpu_close(&cc);
                    iadm_cpu_close(&cv);
                }
            }
            free(pr);
            free(pd);
        }
    }
}

static const char *const iadm_kernels[] = {
    "dwt0_vert_8", "dwt0_vert_16", "dwt0_horiz", "dwt_vert", "dwt1_vert", "dwt_horiz",
    "decouple0", "decouple", "den0", "den", "csf0", "csf", "cm0", "cm", "frame",
};

void checkasm_iadm(int isa_max)
{
    Bufs b;
    bufs_init(&b);
    IadmParams prm;
    const IadmOptions o = { .enhn_gain_limit = 100, .norm_view_dist = 3,
                            .ref_display_height = 1080, .noise_weight = 0.03125 };
    iadm_params(&o, &prm);

    /* The C build is the reference; each other build of the table up to
     * isa_max is compared with it. */
    static const IadmDsp *const table[EV_ISA_COUNT] = EV_SIMD_TABLE(iadm_dsp);
    const IadmDsp c = iadm_dsp_c;
    ca_declare("iadm dwt1_vert = dwt_vert", "c");
    for (int isa = EV_ISA_C + 1; isa <= isa_max; isa++) {
        const char *name = ev_isa_name(isa);
        const IadmDsp v = *table[isa];
        for (size_t k = 0; k < sizeof(iadm_kernels) / sizeof(iadm_kernels[0]); k++) {
            char kernel[48];
            snprintf(kernel, sizeof(kernel), "iadm %s", iadm_kernels[k]);
            ca_declare(kernel, name);
        }
        check_dwt(name, &c, &v, &b);
        check_decouple(name, &c, &v, &b, prm.cos2);
        check_den_csf_cm(name, &c, &v, &b);
        check_frames(name, &v);
    }
    bufs_free(&b);
}
