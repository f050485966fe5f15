/*
 * checkasm room: the SSIM engine's loops (src/feature/ssim/ssim_host.h,
 * SsimKern): the 11x11 Gaussian statistic, float_ssim's box decimation and
 * MS-SSIM's 9x9 decimation, each instruction set's build against the C
 * build, on images of pixel values at 8 to 16 bits (random, extremes,
 * flat, checkerboard), at the smallest sizes each takes and at widths on
 * either side of the vector lengths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu.h"
#include "feature/ssim/ssim_host.h"

/* Widths around 4, 8 and 16 floats and doubles per vector, plus odd ones. */
static const int sizes[] = { 11, 12, 13, 15, 16, 17, 19, 23, 31, 32, 33, 47, 64, 65, 97 };
#define N_SIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

/* A w x h image (stride floats per row) of samples at bpc, as float. */
static void fill_image(float *img, size_t stride, int w, int h, unsigned bpc, enum CaKind kind)
{
    uint16_t *row = ca_alloc((size_t)w * sizeof(uint16_t));
    for (int y = 0; y < h; y++) {
        ca_fill(row, w, bpc, kind, y);
        for (int x = 0; x < w; x++)
            img[(size_t)y * stride + x] = (float)(bpc == 8 ? ((uint8_t *)row)[x] : row[x]);
    }
    free(row);
}

static void check_means(const SsimKern *c, const SsimKern *v, const char *isa)
{
    SsimEngine e;
    if (ssim_engine_init(&e, sizes[N_SIZES - 1])) {
        fprintf(stderr, "checkasm: ssim_engine_init failed\n");
        exit(2);
    }
    for (int wi = 0; wi < N_SIZES; wi++) {
        for (int hi = 0; hi < N_SIZES; hi += 4) {
            const int w = sizes[wi], h = sizes[hi];
            const unsigned bpc = ca_rand_below(2) ? 8 : 8 + 2 * ca_rand_below(5);
            const enum CaKind kr = (enum CaKind)ca_rand_below(CA_KIND_COUNT);
            const enum CaKind kd = ca_rand_below(3) ? kr : (enum CaKind)ca_rand_below(CA_KIND_COUNT);
            const size_t stride = (size_t)w + ca_rand_below(5);
            float *ref = ca_alloc(stride * h * sizeof(float));
            float *cmp = ca_alloc(stride * h * sizeof(float));
            fill_image(ref, stride, w, h, bpc, kr);
            fill_image(cmp, stride, w, h, bpc, kd);
            SsimMeans mc, mv;
            memset(&mc, 0, sizeof(mc));
            memset(&mv, 0, sizeof(mv));
            c->engine_means(&e, ref, cmp, stride, w, h, &mc);
            v->engine_means(&e, ref, cmp, stride, w, h, &mv);
            ca_check("ssim engine_means", isa, !memcmp(&mc, &mv, sizeof(mc)),
                     "%dx%d bpc %u %s/%s", w, h, bpc, ca_kind_name[kr], ca_kind_name[kd]);
            free(ref);
            free(cmp);
        }
    }
    ssim_engine_free(&e);
}

static void check_box(const SsimKern *c, const SsimKern *v, const char *isa)
{
    for (int f = 2; f <= 5; f++) {
        for (int wi = 0; wi < N_SIZES; wi++) {
            const int w = sizes[wi], h = sizes[(wi * 7) % N_SIZES];
            const int sw = ssim_decimated_size(w, f), sh = ssim_decimated_size(h, f);
            const enum CaKind kind = (enum CaKind)ca_rand_below(CA_KIND_COUNT);
            const size_t stride = (size_t)w + ca_rand_below(3);
            float *src = ca_alloc(stride * h * sizeof(float));
            fill_image(src, stride, w, h, 8 + 2 * ca_rand_below(5), kind);
            int *cols = ca_alloc((size_t)f * (sw + 1) * sizeof(int));
            ssim_box_columns(w, f, cols);
            float *dc = ca_alloc((size_t)sw * sh * sizeof(float));
            float *dv = ca_alloc((size_t)sw * sh * sizeof(float));
            double *acc = ca_alloc((size_t)(sw + 1) * sizeof(double));
            c->box_decimate(src, stride, w, h, f, cols, dc, acc);
            v->box_decimate(src, stride, w, h, f, cols, dv, acc);
            ca_check("ssim box_decimate", isa, !memcmp(dc, dv, (size_t)sw * sh * sizeof(float)),
                     "%dx%d factor %d %s", w, h, f, ca_kind_name[kind]);
            free(src);
            free(cols);
            free(dc);
            free(dv);
            free(acc);
        }
    }
}

static void check_ms(const SsimKern *c, const SsimKern *v, const char *isa)
{
    for (int wi = 0; wi < N_SIZES; wi++) {
        for (int hi = 0; hi < N_SIZES; hi += 3) {
            const int w = sizes[wi], h = sizes[hi];
            const int sw = ssim_decimated_size(w, 2), sh = ssim_decimated_size(h, 2);
            const enum CaKind kind = (enum CaKind)ca_rand_below(CA_KIND_COUNT);
            const size_t stride = (size_t)w + 2 * MS_SSIM_PAD + ca_rand_below(3);
            float *buf = ca_alloc(stride * h * sizeof(float));
            float *src = buf + MS_SSIM_PAD;
            fill_image(src, stride, w, h, 8 + 2 * ca_rand_below(5), kind);
            ms_ssim_pad_columns(src, stride, w, h);
            const size_t ds = (size_t)sw + ca_rand_below(3);
            float *dc = ca_alloc(ds * sh * sizeof(float)), *dv = ca_alloc(ds * sh * sizeof(float));
            float *split = ca_alloc((size_t)h * ms_ssim_split_stride(w) * sizeof(float));
            double *acc = ca_alloc((size_t)(w / 2 + 1) * sizeof(double));
            c->ms_decimate(src, stride, w, h, dc, ds, split, acc);
            v->ms_decimate(src, stride, w, h, dv, ds, split, acc);
            ca_check("ssim ms_decimate", isa, !memcmp(dc, dv, ds * sh * sizeof(float)),
                     "%dx%d %s", w, h, ca_kind_name[kind]);
            free(buf);
            free(dc);
            free(dv);
            free(split);
            free(acc);
        }
    }
}

void checkasm_ssim(int isa_max)
{
    const SsimKern *c = ssim_kern_for(EV_ISA_C);
    for (int isa = EV_ISA_C + 1; isa <= isa_max; isa++) {
        const SsimKern *v = ssim_kern_for(isa);
        if (v == c)
            continue;   /* this build has no vector loops */
        const char *name = ev_isa_name(isa);
        ca_declare("ssim engine_means", name);
        ca_declare("ssim box_decimate", name);
        ca_declare("ssim ms_decimate", name);
        check_means(c, v, name);
        check_box(c, v, name);
        check_ms(c, v, name);
    }
}
