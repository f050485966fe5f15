/*
 * checkasm room: whole extractors at each instruction set. The loops that
 * the rooms keep static (cambi's mask, scales and c-values, psnr_hvs's
 * eight-block lanes, SpEED's taps and covariance sums, float_motion's blur,
 * float_vif's filters and statistic, float_adm's loops) are reached only through their
 * extractor; so are the integer kernels' dispatch and the SSIM loops in place. Each case runs a few frames through
 * the library with the instruction-set cap at C, then at each set this
 * processor runs (cpu.h's ev_cpu_set_isa_max, which every room's dispatch
 * reads), and compares every output of every frame as a 64-bit pattern.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "context.h"
#include "cpu.h"
#include "feature_collector.h"
#include "exactvmaf/exactvmaf.h"
#include "libvmaf/libvmaf.h"

typedef struct Case {
    const char *feature;
    const char *options;          /**< "name=value:name=value" or NULL */
    enum VmafPixelFormat fmt;
    unsigned bpc, w, h;
} Case;

/* Sizes: the smallest each extractor takes or near it, and widths that are
 * not a multiple of any vector length. */
static const Case cases[] = {
    { "float_ssim", NULL, VMAF_PIX_FMT_YUV420P, 8, 37, 29 },
    { "float_ssim", "scale=2", VMAF_PIX_FMT_YUV420P, 10, 67, 45 },
    { "float_ssim", "scale=3", VMAF_PIX_FMT_YUV444P, 12, 101, 35 },
    { "float_ms_ssim", NULL, VMAF_PIX_FMT_YUV420P, 8, 181, 177 },
    { "float_ms_ssim", NULL, VMAF_PIX_FMT_YUV420P, 10, 203, 191 },
    { "psnr_hvs", NULL, VMAF_PIX_FMT_YUV420P, 8, 16, 16 },
    { "psnr_hvs", NULL, VMAF_PIX_FMT_YUV420P, 8, 125, 37 },
    { "psnr_hvs", NULL, VMAF_PIX_FMT_YUV444P, 12, 67, 23 },
    { "cambi", NULL, VMAF_PIX_FMT_YUV420P, 8, 217, 37 },
    { "cambi", NULL, VMAF_PIX_FMT_YUV420P, 10, 67, 233 },
    { "cambi", "window_size=15:topk=0.1", VMAF_PIX_FMT_YUV420P, 10, 241, 121 },
    { "cambi", "enc_width=223:enc_height=151:full_ref=true", VMAF_PIX_FMT_YUV420P, 8, 281, 163 },
    { "cambi", "enc_bitdepth=8", VMAF_PIX_FMT_YUV420P, 10, 233, 67 },
    /* The high-res speed-up's decimation along with the load (the least
     * picture it applies to, odd). */
    { "cambi", "cambi_high_res_speedup=1080", VMAF_PIX_FMT_YUV420P, 8, 1921, 1081 },
    { "speed_chroma", NULL, VMAF_PIX_FMT_YUV444P, 8, 161, 97 },
    { "speed_chroma", NULL, VMAF_PIX_FMT_YUV420P, 10, 263, 181 },
    { "speed_temporal", NULL, VMAF_PIX_FMT_YUV420P, 8, 163, 99 },
    { "speed_temporal", NULL, VMAF_PIX_FMT_YUV420P, 12, 211, 133 },
    { "float_motion", NULL, VMAF_PIX_FMT_YUV420P, 8, 17, 9 },
    { "float_motion", "motion_add_scale1=true", VMAF_PIX_FMT_YUV420P, 10, 131, 67 },
    { "motion", NULL, VMAF_PIX_FMT_YUV420P, 8, 35, 21 },
    { "motion", NULL, VMAF_PIX_FMT_YUV420P, 16, 133, 37 },
    { "float_vif", NULL, VMAF_PIX_FMT_YUV420P, 8, 37, 35 },
    { "float_vif", "vif_enhn_gain_limit=1.0", VMAF_PIX_FMT_YUV420P, 10, 131, 67 },
    { "float_vif", "vif_kernelscale=0.5", VMAF_PIX_FMT_YUV420P, 12, 77, 41 },
    { "vif", NULL, VMAF_PIX_FMT_YUV420P, 8, 37, 35 },
    { "vif", "vif_enhn_gain_limit=1.0", VMAF_PIX_FMT_YUV420P, 10, 129, 67 },
    { "float_adm", NULL, VMAF_PIX_FMT_YUV420P, 8, 33, 35 },
    { "float_adm", "adm_csf_mode=2", VMAF_PIX_FMT_YUV420P, 8, 97, 53 },
    { "float_adm", "adm_enhn_gain_limit=1.2:adm_p_norm=2.5", VMAF_PIX_FMT_YUV420P, 10, 131, 71 },
    { "float_adm", "adm_csf_mode=2:adm_bypass_cm=1", VMAF_PIX_FMT_YUV444P, 12, 77, 45 },
    { "adm", NULL, VMAF_PIX_FMT_YUV420P, 8, 33, 35 },
    { "adm", "adm_enhn_gain_limit=1.2", VMAF_PIX_FMT_YUV420P, 12, 131, 71 },
};

enum { FRAMES = 3 };

/* Every output of every frame, in the collector's order, as bit patterns. */
typedef struct Outputs {
    unsigned n;
    char names[64][64];
    uint64_t bits[64][FRAMES];
    bool written[64][FRAMES];
} Outputs;

static int use_feature(VmafContext *v, const Case *c)
{
    VmafFeatureDictionary *d = NULL;
    if (c->options) {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", c->options);
        for (char *tok = strtok(buf, ":"); tok; tok = strtok(NULL, ":")) {
            char *eq = strchr(tok, '=');
            if (!eq)
                return -EINVAL;
            *eq = '\0';
            vmaf_feature_dictionary_set(&d, tok, eq + 1);
        }
    }
    return vmaf_use_feature(v, c->feature, d);
}

/* Frame i of a case: content `kind` (ref) and a variation of it (dist). */
static void fill_picture(VmafPicture *p, const Case *c, enum CaKind kind, int frame, int dist)
{
    for (int pl = 0; pl < 3; pl++) {
        for (unsigned y = 0; y < p->h[pl]; y++) {
            void *row = (uint8_t *)p->data[pl] + (size_t)y * p->stride[pl];
            /* Flat content stays flat in the distorted picture a third of the time. */
            const enum CaKind k = dist && ca_rand_below(3) == 0 ? CA_IN_RANGE : kind;
            ca_fill(row, (int)p->w[pl], c->bpc, k, (int)y + frame);
            if (kind == CA_RANDOM && c->bpc > 8) {
                /* Keep within the bit depth: the library refuses nothing, but
                 * the reference's behaviour above it is not the point here. */
                uint16_t *r16 = row;
                for (unsigned x = 0; x < p->w[pl]; x++)
                    r16[x] &= (uint16_t)((1u << c->bpc) - 1);
            }
        }
    }
}

/* CPU time of the process, not wall time: the runs are single-threaded, and
 * on a shared machine CPU time does not count the waits for a core. */
static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Run a case's frames; *compute_ms (if not NULL) gets the time spent in the
 * library (the pictures' filling left out). */
static int run_case(const Case *c, enum CaKind kind, Outputs *out, double *compute_ms)
{
    double ms = 0.0;
    VmafContext *v = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    int err = vmaf_init(&v, cfg);
    if (err)
        return err;
    err = use_feature(v, c);
    for (int i = 0; !err && i < FRAMES; i++) {
        VmafPicture r, d;
        if ((err = vmaf_picture_alloc(&r, c->fmt, c->bpc, c->w, c->h)))
            break;
        if ((err = vmaf_picture_alloc(&d, c->fmt, c->bpc, c->w, c->h))) {
            vmaf_picture_unref(&r);
            break;
        }
        fill_picture(&r, c, kind, i, 0);
        fill_picture(&d, c, kind, i, 1);
        const double t0 = now_ms();
        err = vmaf_read_pictures(v, &r, &d, (unsigned)i);
        ms += now_ms() - t0;
    }
    if (!err) {
        const double t0 = now_ms();
        err = vmaf_read_pictures(v, NULL, NULL, 0);
        ms += now_ms() - t0;
    }
    if (compute_ms)
        *compute_ms = ms;
    if (!err) {
        VmafFeatureCollector *fc = vmaf_ctx_collector(v);
        out->n = vmaf_fc_count(fc);
        if (out->n > 64)
            out->n = 64;
        for (unsigned k = 0; k < out->n; k++) {
            const VmafFeatureVector *fv = vmaf_fc_at(fc, k);
            snprintf(out->names[k], sizeof(out->names[k]), "%s", fv->name);
            for (unsigned i = 0; i < FRAMES; i++) {
                out->written[k][i] = i < fv->capacity && fv->written[i];
                out->bits[k][i] = 0;
                if (out->written[k][i])
                    memcpy(&out->bits[k][i], &fv->value[i], sizeof(uint64_t));
            }
        }
    }
    vmaf_close(v);
    return err;
}

void checkasm_extractors(int isa_max)
{
    static Outputs ref, got;
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        const Case *c = &cases[ci];
#if EV_HAVE_NEON
        /* On AArch64 only integer VIF and ADM have kernels besides their C
         * build: the other rooms' loops are built once (vectorised with
         * NEON by the compiler), so there is nothing to compare. */
        if (strcmp(c->feature, "vif") && strcmp(c->feature, "adm"))
            continue;
#endif
        char kernel[48];
        snprintf(kernel, sizeof(kernel), "extractor %s", c->feature);
        for (int isa = EV_ISA_C + 1; isa <= isa_max; isa++)
            ca_declare(kernel, ev_isa_name(isa));
        for (int kind = 0; kind < CA_KIND_COUNT; kind++) {
            if (kind == CA_RANDOM && c->bpc == 8)
                continue;   /* the same as in-range at 8 bits */
            /* Every run draws the same pictures: the generator restarts. */
            const uint64_t state = ca_rand_state();
            ev_cpu_set_isa_max(EV_ISA_C);
            memset(&ref, 0, sizeof(ref));
            const int err = run_case(c, (enum CaKind)kind, &ref, NULL);
            for (int isa = EV_ISA_C + 1; isa <= isa_max; isa++) {
                ev_cpu_set_isa_max(isa);
                memset(&got, 0, sizeof(got));
                ca_rand_restart(state);
                const int err2 = err ? err : run_case(c, (enum CaKind)kind, &got, NULL);
                bool same = !err && !err2 && ref.n == got.n && ref.n > 0;
                for (unsigned k = 0; same && k < ref.n; k++)
                    same = !strcmp(ref.names[k], got.names[k]) &&
                           !memcmp(ref.written[k], got.written[k], sizeof(ref.written[k])) &&
                           !memcmp(ref.bits[k], got.bits[k], sizeof(ref.bits[k]));
                ca_check(kernel, ev_isa_name(isa), same,
                         "%s %ux%u bpc %u %s: %s (%d)", c->options ? c->options : "defaults",
                         c->w, c->h, c->bpc, ca_kind_name[kind],
                         err || err2 ? "the run failed" : "outputs differ", err ? err : err2);
            }
        }
    }
    ev_cpu_set_isa_max(EV_ISA_COUNT - 1);
}

void checkasm_bench(int isa_max)
{
    static Outputs out;
    printf("\nCPU ms per 1920x1080 8-bit frame, one thread, at each instruction set:\n%-16s", "");
    for (int isa = EV_ISA_C; isa <= isa_max; isa++)
        printf(" %9s", ev_isa_name(isa));
    printf("\n");
    /* Every extractor of the library's registry. */
    const char *feature;
    for (unsigned f = 0; (feature = exactvmaf_extractor_name(f)); f++) {
        const Case c = { feature, NULL, VMAF_PIX_FMT_YUV420P, 8, 1920, 1080 };
        printf("%-16s", feature);
        for (int isa = EV_ISA_C; isa <= isa_max; isa++) {
            ev_cpu_set_isa_max(isa);
            double best = 1e30;
            for (int rep = 0; rep < 2; rep++) {
                double ms = 0.0;
                if (run_case(&c, CA_MID_NOISE, &out, &ms)) {
                    best = -1.0;
                    break;
                }
                best = ms < best ? ms : best;
            }
            printf(" %9.2f", best / FRAMES);
        }
        printf("\n");
    }
    ev_cpu_set_isa_max(EV_ISA_COUNT - 1);
}
