/*
 * Parity gate: every backend against the CPU, bit for bit.
 *
 * For every case (the fixtures, generated content of many geometries, bit
 * depths, chroma layouts and frame counts, and every option set of every
 * twin) each metric is computed once on the CPU and once on each other
 * backend, and every output of every frame is compared as a 64-bit pattern.
 * Prints a table metric x backend (identical / total, largest |difference|,
 * outputs not computed on the backend) and exits 0 only when everything is
 * identical and every metric asked for compared at least one output (a
 * metric whose every case was refused, or an unknown --only name, fails);
 * 77 (skipped) when this machine has no usable GPU (a failure under
 * EXACTVMAF_REQUIRE_GPU=1, tests/no_device.h).
 *
 * usage: parity [--data DIR] [--quick] [--lite] [--sanitize] [--verbose] [--self-check]
 *               [--sets N] [--only M,M...] [--backend cuda|opencl] [--opencl-fp64 auto|off]
 *               [--opencl-device N|P:D] [--ciede-host-pixels] [--shard K/N]
 *   --data DIR    the unpacked test data (the build's test-data/): fixtures/ and
 *                 golden/netflix-v3.2.0/manifest.json (the float_adm option sets of
 *                 the goldens are read from it)
 *   --backend B   the backend under test (default cuda); opencl checks the
 *                 metrics that have an OpenCL twin (the registry says) unless --only
 *   --opencl-fp64 native fp64 where the device has it (auto), or the
 *                 fp64-free routines everywhere (off)
 *   --quick       fewer generated cases (no 2160p, 300 frames at 32x32)
 *   --lite        with --quick: on the fixtures the first LITE_SETS option sets
 *                 of each metric, every set on the small generated cases only
 *                 (for CI on a slow OpenCL CPU device; the full run is --quick)
 *   --sets N      --lite with the first N option sets on the fixtures
 *   --sanitize    small generated content only (every bit depth and chroma
 *                 layout, odd sizes, 2-3 frames), each metric's first option
 *                 set: every twin's code paths at a size that a run under
 *                 compute-sanitizer can afford (scripts/gpu-sanitize.sh)
 *   --self-check  compare the CPU with itself (checks this program, needs no GPU)
 *   --only M,...  only these extractors (e.g. adm,vif,motion)
 *   --ciede-host-pixels  ciede's twin must leave hard and open pixels to
 *                 the host (as it does with EXACTVMAF_CIEDE_LIBM set to a
 *                 large assumed libm difference): counted from its debug
 *                 lines, the run fails unless there were open pixels, frames
 *                 with hard pixels listed and frames with more hard pixels
 *                 than the list holds (each a path of the host's)
 *   --shard K/N   only the cases whose index (fixtures, then generated content)
 *                 is K modulo N: one long metric's run split over N processes
 *                 (scripts/gpu-check.sh runs float_adm's option sets so)
 *   --list        print the metrics such a run checks, one a line, and exit
 *                 without opening a device (scripts/gpu-check.sh runs a
 *                 process per metric)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "exactvmaf/exactvmaf.h"
#include "context.h"
#include "feature_collector.h"
#include "gpu/cuda/cuda_backend.h"
#if EXACTVMAF_HAVE_OPENCL
#include "gpu/opencl/opencl_device.h"
#endif
#include "feature/extractor.h"
#include "feature/ciede/ciede_arith.h"
#include "feature/float_adm/adm_rcp_model.h"
#include "no_device.h"

#define MAX_SETS 128
/* Option sets per metric on each fixture with --lite. */
#define LITE_SETS 3
#define MAX_MISMATCH_LINES 40

/* ---- Content ---- */

typedef struct Geometry {
    unsigned w, h, bpc;
    enum VmafPixelFormat fmt;
} Geometry;

/* PAT_BANDS: flat vertical bands one code apart, 16 columns wide, with a
 * sparse pixel two codes off (cambi's worst case: c-values large almost
 * everywhere and some small ones, top-k sums that can round). */
/* PAT_LUMA_STEP: flat, a few luma samples one code up in even frames,
 * chroma equal (at 16 bits every nonzero ΔE00 of ciede is then below its
 * GPU sum's unit). */
enum Pattern { PAT_TEXTURE, PAT_FLAT, PAT_NEAR_FLAT, PAT_MAX, PAT_NOISE, PAT_BANDS,
               PAT_LUMA_STEP };

typedef struct Content {
    char name[160];
    Geometry g;
    unsigned frames;
    /* A fixture: raw planar file pair; else generated with `pattern`. */
    const char *ref_path, *dis_path;
    FILE *ref_f, *dis_f;
    enum Pattern pattern;
} Content;

static uint32_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static void put(VmafPicture *p, unsigned plane, unsigned i, unsigned j, unsigned v)
{
    uint8_t *row = (uint8_t *)p->data[plane] + (size_t)i * p->stride[plane];
    if (p->bpc > 8) ((uint16_t *)row)[j] = (uint16_t)v;
    else row[j] = (uint8_t)v;
}

/* Generated frame n: texture moving with n (so motion is not 0); the
 * distorted one is the reference plus small noise, clamped. */
static void generate(const Content *c, unsigned n, VmafPicture *ref, VmafPicture *dis)
{
    const unsigned maxv = (1u << c->g.bpc) - 1;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ ((uint64_t)n * 0x100000001b3ull) ^
                    ((uint64_t)c->g.w << 32) ^ c->g.h ^ ((uint64_t)c->pattern << 48);
    for (unsigned p = 0; p < 3; p++) {
        if (!ref->data[p]) continue;
        for (unsigned i = 0; i < ref->h[p]; i++) {
            for (unsigned j = 0; j < ref->w[p]; j++) {
                unsigned r, d;
                const uint32_t noise = rng_next(&seed);
                switch (c->pattern) {
                case PAT_FLAT:
                    r = d = maxv / 3;
                    break;
                case PAT_NEAR_FLAT:
                    r = maxv / 2;
                    d = r + (i == ref->h[p] / 2 && j == ref->w[p] / 3 && (n & 1) == 0);
                    break;
                case PAT_MAX:
                    r = maxv;
                    d = maxv - (noise % 3 == 0);
                    break;
                case PAT_LUMA_STEP:
                    r = maxv / 2;
                    d = r + (p == 0 && (i * 7 + j * 3) % 61 == 0 && (n & 1) == 0);
                    break;
                case PAT_NOISE:
                    r = noise % (maxv + 1);
                    d = (noise >> 7) % (maxv + 1);
                    break;
                case PAT_BANDS:
                    r = maxv / 4 + (j + 5 * n) / 16 % 64 + 2 * ((i * 31 + j * 17) % 997 == 0);
                    d = maxv / 4 + (j + 5 * n + i / 64) / 16 % 64 +
                        2 * ((i * 31 + j * 17) % 997 == 0);
                    break;
                default: {
                    const double x = (double)(j + 3 * n) / (ref->w[p] + 1);
                    const double y = (double)(i + n) / (ref->h[p] + 1);
                    const double v = 0.5 + 0.25 * sin(12.0 * x + 5.0 * y) +
                                     0.15 * cos(31.0 * x * y) + 0.05 * sin(97.0 * x);
                    r = (unsigned)(v * maxv);
                    if (r > maxv) r = maxv;
                    const int delta = (int)(noise % 17) - 8;
                    const int dv = (int)r + delta * (int)(maxv / 255 + 1);
                    d = dv < 0 ? 0 : dv > (int)maxv ? maxv : (unsigned)dv;
                }
                }
                put(ref, p, i, j, r);
                put(dis, p, i, j, d);
            }
        }
    }
}

/* One frame of a raw file: planes at their rounded-up size, as written. */
static int read_raw(FILE *f, const Geometry *g, VmafPicture *pic)
{
    const unsigned bytes = g->bpc > 8 ? 2 : 1;
    const unsigned ss_x = g->fmt != VMAF_PIX_FMT_YUV444P, ss_y = g->fmt == VMAF_PIX_FMT_YUV420P;
    for (unsigned p = 0; p < 3; p++) {
        const unsigned fw = p ? (g->w + ss_x) >> ss_x : g->w;
        const unsigned fh = p ? (g->h + ss_y) >> ss_y : g->h;
        uint8_t *row = malloc((size_t)fw * bytes);
        if (!row) return -ENOMEM;
        for (unsigned i = 0; i < fh; i++) {
            if (fread(row, bytes, fw, f) != fw) {
                free(row);
                return -EIO;
            }
            if (i < pic->h[p])
                memcpy((uint8_t *)pic->data[p] + (size_t)i * pic->stride[p], row,
                       (size_t)pic->w[p] * bytes);
        }
        free(row);
    }
    return 0;
}

/*
 * The extractor named by the first n bytes of `name`, among those parity
 * knows: every one the library's registry has built. Its name is the
 * metric's tally key.
 */
static const char *metric_named(const char *name, size_t n)
{
    char buf[64];
    if (n >= sizeof(buf)) return NULL;
    memcpy(buf, name, n);
    buf[n] = '\0';
    const VmafFeatureExtractor *f = vmaf_fex_find(buf);
    return f ? f->name : NULL;
}

/* ---- Runs ---- */

typedef struct Output {
    char *name;
    unsigned n;
    double *v;
    bool *set;
} Output;

typedef struct Result {
    int err;            /**< 0, or the first error of the run */
    Output *out;
    unsigned n_out;
    char backend[16];   /**< backend the metric was computed on */
} Result;

static void result_free(Result *r)
{
    for (unsigned i = 0; i < r->n_out; i++) {
        free(r->out[i].name);
        free(r->out[i].v);
        free(r->out[i].set);
    }
    free(r->out);
    memset(r, 0, sizeof(*r));
}

static int parse_opts(const char *spec, char *name, size_t name_len, VmafFeatureDictionary **d)
{
    /* "extractor[=k=v[:k=v...]]" */
    const char *eq = strchr(spec, '=');
    const size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    snprintf(name, name_len, "%.*s", (int)n, spec);
    *d = NULL;
    if (!eq) return 0;
    char *buf = strdup(eq + 1);
    if (!buf) return -ENOMEM;
    int err = 0;
    for (char *save = NULL, *kv = strtok_r(buf, ":", &save); kv && !err;
         kv = strtok_r(NULL, ":", &save)) {
        char *v = strchr(kv, '=');
        if (!v) { err = -EINVAL; break; }
        *v++ = '\0';
        err = vmaf_feature_dictionary_set(d, kv, v);
    }
    free(buf);
    return err;
}

/* --ciede-host-pixels: the pixels ciede's twin left to the host, from its
 * debug lines (logged on the pipeline's worker threads). */
static bool count_ciede;
static atomic_ullong ciede_frames, ciede_hard, ciede_open, ciede_listed, ciede_full;

static void count_ciede_lines(void *opaque, enum VmafLogLevel level, const char *message)
{
    unsigned frame, n_hard, n_open;
    if (sscanf(message, "ciede: frame %u: %u hard, %u open pixels", &frame, &n_hard, &n_open) == 3) {
        atomic_fetch_add(&ciede_frames, 1);
        atomic_fetch_add(&ciede_hard, n_hard);
        atomic_fetch_add(&ciede_open, n_open);
        if (n_hard > CIEDE_HARD_MAX) atomic_fetch_add(&ciede_full, 1);
        else if (n_hard) atomic_fetch_add(&ciede_listed, 1);
    } else if (level == VMAF_LOG_LEVEL_ERROR) {
        fprintf(stderr, "exactvmaf error: %s\n", message);
    }
}

/* The OpenCL fp64 mode and device under test (--opencl-fp64, --opencl-device). */
static enum ExactvmafFp64 test_fp64 = EXACTVMAF_FP64_AUTO;
static const char *test_device;

static int run(Content *c, const char *spec, enum ExactvmafBackend backend,
               enum ExactvmafDivision division, Result *res)
{
    memset(res, 0, sizeof(*res));
    VmafContext *vmaf = NULL;
    const bool counting = count_ciede && backend != EXACTVMAF_BACKEND_CPU;
    VmafConfiguration cfg = { .log_level = counting ? VMAF_LOG_LEVEL_DEBUG : VMAF_LOG_LEVEL_NONE,
                              .n_threads = 0 };
    int err = vmaf_init(&vmaf, cfg);
    if (err) return res->err = err;
    char name[64];
    VmafFeatureDictionary *d = NULL;
    if (counting) err = exactvmaf_set_logger(vmaf, count_ciede_lines, NULL);
    if (!err) err = exactvmaf_set_backend(vmaf, backend, 0);
    if (!err && backend == EXACTVMAF_BACKEND_OPENCL)
        err = exactvmaf_set_opencl_fp64(vmaf, test_fp64);
    if (!err && backend == EXACTVMAF_BACKEND_OPENCL && test_device)
        err = exactvmaf_set_opencl_device(vmaf, test_device);
    if (!err) err = exactvmaf_set_division(vmaf, division);
    if (!err) err = parse_opts(spec, name, sizeof(name), &d);
    if (!err) err = vmaf_use_feature(vmaf, name, d);
    if (c->ref_path) {
        c->ref_f = fopen(c->ref_path, "rb");
        c->dis_f = fopen(c->dis_path, "rb");
        if (!c->ref_f || !c->dis_f) err = err ? err : -ENOENT;
    }
    for (unsigned n = 0; !err && n < c->frames; n++) {
        VmafPicture ref, dis;
        err = vmaf_picture_alloc(&ref, c->g.fmt, c->g.bpc, c->g.w, c->g.h);
        if (err) break;
        err = vmaf_picture_alloc(&dis, c->g.fmt, c->g.bpc, c->g.w, c->g.h);
        if (err) {
            vmaf_picture_unref(&ref);
            break;
        }
        if (c->ref_path) {
            err = read_raw(c->ref_f, &c->g, &ref);
            if (!err) err = read_raw(c->dis_f, &c->g, &dis);
        } else {
            generate(c, n, &ref, &dis);
        }
        if (err) {
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dis);
            break;
        }
        err = vmaf_read_pictures(vmaf, &ref, &dis, n);
    }
    if (!err) err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (c->ref_f) fclose(c->ref_f);
    if (c->dis_f) fclose(c->dis_f);
    c->ref_f = c->dis_f = NULL;

    const VmafDict *b = vmaf_ctx_backends(vmaf);
    const char *bk = b ? vmaf_dict_get(b, name) : NULL;
    snprintf(res->backend, sizeof(res->backend), "%s", bk ? bk : "none");

    VmafFeatureCollector *fc = vmaf_ctx_collector(vmaf);
    const unsigned n_vec = err ? 0 : vmaf_fc_count(fc);
    res->out = calloc(n_vec ? n_vec : 1, sizeof(*res->out));
    if (!res->out && !err) err = -ENOMEM;
    for (unsigned i = 0; !err && i < n_vec; i++) {
        const VmafFeatureVector *v = vmaf_fc_at(fc, i);
        Output *o = &res->out[res->n_out++];
        o->name = strdup(v->name);
        o->n = v->capacity < c->frames ? v->capacity : c->frames;
        o->v = calloc(o->n ? o->n : 1, sizeof(double));
        o->set = calloc(o->n ? o->n : 1, sizeof(bool));
        if (!o->name || !o->v || !o->set) { err = -ENOMEM; break; }
        for (unsigned k = 0; k < o->n; k++) {
            o->set[k] = v->written[k];
            if (v->written[k]) o->v[k] = v->value[k];
        }
    }
    vmaf_close(vmaf);
    return res->err = err;
}

/* ---- Comparison and table ---- */

typedef struct Tally {
    const char *metric;
    unsigned long long identical, total;
    double max_diff;
    unsigned cases, refused_both, not_on_backend, run_failures;
} Tally;

static Tally tally[32];
static unsigned n_tally;
static unsigned mismatch_lines;
static bool verbose;
/* The backend under test; the CPU itself with --self-check. */
static enum ExactvmafBackend test_backend = EXACTVMAF_BACKEND_CUDA;
/* Its name, exactvmaf_backend_name()'s, set with it. */
static const char *test_backend_name;
/*
 * --backend opencl without --only: the extractors the library has an
 * OpenCL twin of (its registry, exactvmaf_extractor_twins()), comma
 * separated; without those that need native fp64 in the fp64-free mode
 * (they run on the CPU there). The others run on the CPU on that backend.
 */
static char opencl_twins[1024];

static const char *list_opencl_twins(bool fp64)
{
    size_t at = 0;
    const char *name;
    for (unsigned i = 0; (name = exactvmaf_extractor_name(i)); i++) {
        const int t = exactvmaf_extractor_twins(i);
        if (!(t & EXACTVMAF_TWIN_OPENCL) || (!fp64 && (t & EXACTVMAF_TWIN_OPENCL_NEEDS_FP64)))
            continue;
        const int n = snprintf(opencl_twins + at, sizeof(opencl_twins) - at, "%s%s",
                               at ? "," : "", name);
        if (n < 0 || (size_t)n >= sizeof(opencl_twins) - at) break;
        at += (size_t)n;
    }
    return opencl_twins;
}

static Tally *tally_for(const char *metric)
{
    for (unsigned i = 0; i < n_tally; i++)
        if (!strcmp(tally[i].metric, metric)) return &tally[i];
    tally[n_tally].metric = metric;
    return &tally[n_tally++];
}

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof(u));
    return u;
}

static void compare(const char *case_name, const char *spec, const char *metric,
                    const Result *cpu, const Result *gpu)
{
    Tally *t = tally_for(metric);
    t->cases++;
    if (cpu->err && gpu->err) {
        t->refused_both++;
        if (verbose) printf("  %s %s: refused by both (%d, %d)\n", case_name, spec, cpu->err, gpu->err);
        return;
    }
    if (cpu->err || gpu->err) {
        t->run_failures++;
        printf("MISMATCH %s %s: cpu run %d, gpu run %d\n", case_name, spec, cpu->err, gpu->err);
        return;
    }
    if (strcmp(gpu->backend, test_backend_name)) t->not_on_backend++;
    for (unsigned i = 0; i < cpu->n_out; i++) {
        const Output *a = &cpu->out[i];
        const Output *b = NULL;
        for (unsigned k = 0; k < gpu->n_out; k++)
            if (!strcmp(gpu->out[k].name, a->name)) b = &gpu->out[k];
        for (unsigned k = 0; k < a->n; k++) {
            if (!a->set[k]) continue;
            t->total++;
            const bool have = b && k < b->n && b->set[k];
            if (have && bits(a->v[k]) == bits(b->v[k])) {
                t->identical++;
                continue;
            }
            const double diff = have ? fabs(a->v[k] - b->v[k]) : INFINITY;
            if (!(diff <= t->max_diff)) t->max_diff = diff;
            if (mismatch_lines++ < MAX_MISMATCH_LINES)
                printf("MISMATCH %s %s: %s[%u] cpu %.17g gpu %.17g\n", case_name, spec,
                       a->name, k, a->v[k], have ? b->v[k] : NAN);
        }
    }
    for (unsigned k = 0; k < gpu->n_out; k++) {
        bool found = false;
        for (unsigned i = 0; i < cpu->n_out && !found; i++)
            found = !strcmp(gpu->out[k].name, cpu->out[i].name);
        if (!found) {
            t->total++;
            if (mismatch_lines++ < MAX_MISMATCH_LINES)
                printf("MISMATCH %s %s: the gpu has an extra output %s\n", case_name, spec,
                       gpu->out[k].name);
        }
    }
}

static void check_case(Content *c, const char *spec, enum ExactvmafDivision division)
{
    const char *metric = metric_named(spec, strcspn(spec, "="));
    if (!metric) {      /* a set in the tables below names an unknown extractor */
        printf("FAIL: option set %s names no extractor parity knows\n", spec);
        exit(1);
    }

    char label[320];
    snprintf(label, sizeof(label), "%s%s", c->name, division == EXACTVMAF_DIVISION_RCP ? " [rcp]" : "");
    Result cpu, gpu;
    run(c, spec, EXACTVMAF_BACKEND_CPU, division, &cpu);
    run(c, spec, test_backend, division, &gpu);
    if (verbose) printf("  %s %s: cpu %d, %s %d\n", label, spec, cpu.err, gpu.backend, gpu.err);
    compare(label, spec, metric, &cpu, &gpu);
    result_free(&cpu);
    result_free(&gpu);
}

/* ---- Option sets ---- */

static const char *adm_sets[MAX_SETS] = {
    "float_adm=debug=true",
    "float_adm=debug=false",
};
static unsigned n_adm_sets = 2;

static const char *const vif_sets[] = {
    "float_vif=debug=true",
    "float_vif=debug=false",
    "float_vif=debug=true:vif_enhn_gain_limit=1.0",
    "float_vif=debug=true:vif_kernelscale=0.5",
    "float_vif=debug=true:vif_kernelscale=2.0",
    "float_vif=debug=true:vif_kernelscale=1.5",
    "float_vif=debug=true:vif_skip_scale0=true",
    "float_vif=debug=true:vif_sigma_nsq=1.0",
    "float_vif=debug=true:vif_scale1_min_val=0.9:vif_scale2_min_val=0.8:vif_scale3_min_val=0.95",
    "float_vif=debug=true:vif_prescale=2.0",
    "float_vif=debug=true:vif_prescale=0.5:vif_prescale_method=bilinear",
    "float_vif=debug=true:vif_prescale=1.5:vif_prescale_method=bicubic",
    "float_vif=debug=true:vif_prescale=1.25:vif_prescale_method=lanczos4",
};

static const char *const motion_sets[] = {
    "float_motion=debug=true",
    "float_motion=debug=false",
    "float_motion=debug=true:motion_force_zero=true",
    "float_motion=debug=true:motion_filter_size=3",
    "float_motion=debug=true:motion_filter_size=1",
    "float_motion=debug=true:motion_add_scale1=true",
    "float_motion=debug=true:motion_add_uv=true",
    "float_motion=debug=true:motion_add_uv=true:motion_add_scale1=true",
    "float_motion=debug=true:motion_fps_weight=2.5:motion_max_val=20",
    "float_motion=debug=true:motion_blend_factor=0.5:motion_blend_offset=10",
};

static const char *const ivif_sets[] = {
    "vif=debug=true",
    "vif=debug=false",
    "vif=debug=true:vif_enhn_gain_limit=1.0",
    "vif=debug=true:vif_enhn_gain_limit=1.37",
    "vif=debug=true:vif_skip_scale0=true",
};

static const char *const imotion_sets[] = {
    "motion=debug=true",
    "motion=debug=false",
    "motion=debug=true:motion_force_zero=true",
    "motion=debug=true:motion_five_frame_window=true",
    "motion=debug=true:motion_moving_average=true",
    "motion=debug=true:motion_five_frame_window=true:motion_moving_average=true",
    "motion=debug=true:motion_fps_weight=2.5:motion_max_val=20",
    "motion=debug=true:motion_blend_factor=0.5:motion_blend_offset=10",
};

static const char *const iadm_sets[] = {
    "adm=debug=true",
    "adm=debug=false",
    "adm=debug=true:adm_enhn_gain_limit=1.0",
    "adm=debug=true:adm_enhn_gain_limit=1.37",
    "adm=debug=true:adm_skip_aim=true",
    "adm=debug=true:adm_skip_scale0=true",
    "adm=debug=true:adm_skip_scale0=true:adm_skip_aim=true",
    "adm=debug=true:adm_csf_mode=1",
    "adm=debug=true:adm_csf_mode=2",
    "adm=debug=true:adm_csf_mode=3",
    "adm=debug=true:adm_norm_view_dist=1.5:adm_ref_display_height=2160",
    "adm=debug=true:adm_csf_scale=2.5:adm_csf_diag_scale=0.5",
    "adm=debug=true:adm_noise_weight=0.1:adm_dlm_weight=0.7:adm_min_val=0.1",
};

static const char *const psnr_sets[] = {
    "psnr",
    "psnr=enable_mse=true",
    "psnr=enable_chroma=false",
    "psnr=enable_apsnr=true:enable_mse=true",
    "psnr=reduced_hbd_peak=true",
    "psnr=min_sse=0.5:enable_mse=true",
};

static const char *const float_psnr_sets[] = {
    "float_psnr",
};

static const char *const moment_sets[] = {
    "float_moment",
};

static const char *const ssim_sets[] = {
    "float_ssim",
    "float_ssim=enable_lcs=true",
    "float_ssim=enable_db=true",
    "float_ssim=enable_db=true:clip_db=true",
    "float_ssim=scale=1",
    "float_ssim=scale=2:enable_lcs=true",
    "float_ssim=scale=3",
    "float_ssim=scale=5",
};

static const char *const speed_sets[] = {
    "speed_chroma",
    "speed_chroma=speed_prescale=0.5:speed_prescale_method=bilinear",
    "speed_chroma=speed_weight_var_mode=5:speed_sigma_nn=0.19:speed_nn_floor=0.1",
    "speed_chroma=speed_prescale=1.5:speed_prescale_method=bicubic",
    "speed_chroma=speed_prescale=0.75:speed_prescale_method=lanczos4",
    "speed_chroma=speed_prescale=0.6:speed_prescale_method=nearest",
    "speed_chroma=speed_kernelscale=2.0",
    "speed_chroma=speed_kernelscale=0.5:speed_weight_var_mode=3",
    "speed_temporal",
    "speed_temporal=speed_use_ref_diff=true",
    "speed_temporal=speed_prescale=0.5:speed_prescale_method=bilinear",
    "speed_temporal=speed_kernelscale=1.5:speed_sigma_nn=0.19:speed_nn_floor=0.1",
};

/* Every option that changes a stage: window, pooling, contrast range and
 * EOTF, encode size (resampling) and depth (anti-dithering on or off),
 * full-reference with its own source size, the visibility floor (up to one
 * above every threshold: nothing visible), the high-res speed-up, the clip. */
static const char *const cambi_sets[] = {
    "cambi",
    "cambi=window_size=33",
    "cambi=window_size=15:topk=0.2",
    "cambi=topk=1.0",
    "cambi=cambi_topk=0.01",
    "cambi=max_log_contrast=0",
    "cambi=max_log_contrast=5:tvi_threshold=0.05",
    "cambi=max_log_contrast=3:eotf=pq",
    "cambi=enc_bitdepth=10",
    "cambi=enc_bitdepth=8",
    "cambi=enc_width=320:enc_height=180",
    "cambi=full_ref=true",
    "cambi=full_ref=true:src_width=400:src_height=225",
    "cambi=cambi_vis_lum_threshold=20",
    "cambi=cambi_vis_lum_threshold=300",
    "cambi=cambi_high_res_speedup=1080",
    "cambi=cambi_max_val=0.5",
};

static const char *const hvs_sets[] = {
    "psnr_hvs",
};

static const char *const ciede_sets[] = {
    "ciede",
};

static const char *const ms_ssim_sets[] = {
    "float_ms_ssim",
    "float_ms_ssim=enable_lcs=true",
    "float_ms_ssim=enable_db=true",
    "float_ms_ssim=enable_db=true:clip_db=true",
};

/* The float_adm option sets the goldens were made with: every distinct
 * "float_adm=..." argument in manifest.json (a plain text scan). */
static void load_manifest_sets(const char *data)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/golden/netflix-v3.2.0/manifest.json", data);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("note: %s not found; built-in float_adm option sets only\n", path);
        return;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        fclose(f);
        return;
    }
    text[n] = '\0';
    fclose(f);
    for (const char *p = text; (p = strstr(p, "\"float_adm=")) != NULL;) {
        const char *s = p + 1, *e = strchr(s, '"');
        if (!e) break;
        char *set = malloc((size_t)(e - s) + 1);
        if (set) {
            memcpy(set, s, (size_t)(e - s));
            set[e - s] = '\0';
        }
        bool dup = !set;
        for (unsigned i = 0; set && i < n_adm_sets && !dup; i++)
            dup = !strcmp(adm_sets[i], set);
        if (!dup && n_adm_sets < MAX_SETS) adm_sets[n_adm_sets++] = set;
        else free(set);
        p = e;
    }
    free(text);
}

/* ---- Fixtures (fixtures.json, read by a plain scan) ---- */

static const char *field(const char *obj, const char *end, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\"", key);
    const char *p = strstr(obj, pat);
    if (!p || p > end) return NULL;
    p = strchr(p + strlen(pat), ':');
    if (!p) return NULL;
    p++;
    while (*p == ' ' || *p == '"') p++;
    size_t k = 0;
    while (*p && *p != '"' && *p != ',' && *p != '\n' && k + 1 < len) out[k++] = *p++;
    out[k] = '\0';
    return out;
}

static unsigned load_fixtures(const char *data, Content *out, unsigned max)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/fixtures/fixtures.json", data);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    static char text[1 << 20];
    const size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    unsigned count = 0;
    for (const char *p = text; count < max && (p = strchr(p, '{')) != NULL;) {
        const char *end = strchr(p, '}');
        if (!end) break;
        char name[128], w[16], h[16], fmt[32], bd[16], fr[16];
        if (field(p, end, "name", name, sizeof(name)) && field(p, end, "width", w, sizeof(w)) &&
            field(p, end, "height", h, sizeof(h)) && field(p, end, "pix_fmt", fmt, sizeof(fmt)) &&
            field(p, end, "bitdepth", bd, sizeof(bd)) && field(p, end, "frames", fr, sizeof(fr))) {
            Content *c = &out[count];
            memset(c, 0, sizeof(*c));
            snprintf(c->name, sizeof(c->name), "%s", name);
            c->g.w = (unsigned)atoi(w);
            c->g.h = (unsigned)atoi(h);
            c->g.bpc = (unsigned)atoi(bd);
            c->g.fmt = strstr(fmt, "444") ? VMAF_PIX_FMT_YUV444P :
                       strstr(fmt, "422") ? VMAF_PIX_FMT_YUV422P : VMAF_PIX_FMT_YUV420P;
            c->frames = (unsigned)atoi(fr);
            char *rp = malloc(1200), *dp = malloc(1200);
            if (!rp || !dp) { free(rp); free(dp); break; }
            snprintf(rp, 1200, "%s/fixtures/%s/ref.yuv", data, name);
            snprintf(dp, 1200, "%s/fixtures/%s/dis.yuv", data, name);
            c->ref_path = rp;
            c->dis_path = dp;
            count++;
        }
        p = end;
    }
    return count;
}

/* ---- Main ---- */

/* --only: a comma-separated list of extractors; NULL runs every one. */
static const char *only;

static bool wanted(const char *spec)
{
    if (!only) return true;
    const size_t n = strcspn(spec, "=");
    for (const char *p = only; *p;) {
        const size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, spec, n)) return true;
        p += k + (p[k] == ',');
    }
    return false;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Every set of `sets` (or the first `limit`), those --only asks for. */
/* With --sanitize: only the first set of each extractor a list names. */
static bool sanitize;

static bool first_of_its_name(const char *const *sets, size_t k)
{
    const size_t len = strcspn(sets[k], "=");
    for (size_t j = 0; j < k; j++)
        if (strcspn(sets[j], "=") == len && !strncmp(sets[j], sets[k], len)) return false;
    return true;
}

static void check_sets(Content *c, const char *const *sets, size_t n, size_t limit)
{
    for (size_t k = 0; k < n && (sanitize || k < limit); k++)
        if (wanted(sets[k]) && (!sanitize || first_of_its_name(sets, k)))
            check_case(c, sets[k], EXACTVMAF_DIVISION_IEEE);
}

static void add_generated(Content *out, unsigned *n, unsigned w, unsigned h, unsigned bpc,
                          enum VmafPixelFormat fmt, unsigned frames, enum Pattern pat)
{
    static const char *const pat_name[] = { "texture", "flat", "near-flat", "max", "noise",
                                            "bands", "luma-step" };
    static const char *const fmt_name[] = { "?", "420", "422", "444", "400" };
    Content *c = &out[(*n)++];
    memset(c, 0, sizeof(*c));
    c->g = (Geometry){ w, h, bpc, fmt };
    c->frames = frames;
    c->pattern = pat;
    snprintf(c->name, sizeof(c->name), "gen %ux%u %s %ub %s x%u", w, h, fmt_name[fmt], bpc,
             pat_name[pat], frames);
}

int main(int argc, char **argv)
{
    const char *data = NULL;
    bool quick = false, lite = false;
    size_t lite_sets = LITE_SETS;
    bool list = false;
    unsigned shard_k = 0, shard_n = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--lite")) lite = quick = true;
        else if (!strcmp(argv[i], "--sets") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            lite_sets = (size_t)atoi(argv[++i]), lite = quick = true;
        else if (!strcmp(argv[i], "--sanitize")) sanitize = quick = true;
        else if (!strcmp(argv[i], "--verbose")) verbose = true;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--ciede-host-pixels")) count_ciede = true;
        else if (!strcmp(argv[i], "--list")) list = true;
        else if (!strcmp(argv[i], "--shard") && i + 1 < argc &&
                 sscanf(argv[i + 1], "%u/%u", &shard_k, &shard_n) == 2 && shard_n &&
                 shard_n <= 64 && shard_k < shard_n)
            i++;
        else if (!strcmp(argv[i], "--self-check")) {
            test_backend = EXACTVMAF_BACKEND_CPU;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc &&
                   (exactvmaf_backend_from_name(argv[i + 1]) == EXACTVMAF_BACKEND_CUDA ||
                    exactvmaf_backend_from_name(argv[i + 1]) == EXACTVMAF_BACKEND_OPENCL)) {
            test_backend = (enum ExactvmafBackend)exactvmaf_backend_from_name(argv[++i]);
        } else if (!strcmp(argv[i], "--opencl-device") && i + 1 < argc) {
            test_device = argv[++i];
        } else if (!strcmp(argv[i], "--opencl-fp64") && i + 1 < argc &&
                   (!strcmp(argv[i + 1], "auto") || !strcmp(argv[i + 1], "off"))) {
            test_fp64 = !strcmp(argv[++i], "off") ? EXACTVMAF_FP64_OFF : EXACTVMAF_FP64_AUTO;
        } else {
            fprintf(stderr, "usage: parity [--data DIR] [--quick] [--lite] [--sets N] [--sanitize] [--verbose] "
                            "[--self-check] [--only M,M...] [--backend cuda|opencl] [--opencl-fp64 auto|off] "
                            "[--opencl-device N|P:D] [--ciede-host-pixels] [--shard K/N] [--list]\n");
            return 2;
        }
    }
    test_backend_name = exactvmaf_backend_name(test_backend);
    for (const char *p = only; p && *p;) {
        const size_t k = strcspn(p, ",");
        if (!metric_named(p, k)) {
            printf("FAIL: --only names \"%.*s\", which is no extractor parity knows\n", (int)k, p);
            return 2;
        }
        p += k + (p[k] == ',');
    }
    /* OpenCL: the metrics with a twin, unless --only names others. */
    const bool all_twins = !only && test_backend == EXACTVMAF_BACKEND_OPENCL;
    if (all_twins) only = list_opencl_twins(test_fp64 != EXACTVMAF_FP64_OFF);
    if (list) {
        for (const VmafFeatureExtractor *const *f = vmaf_fex_list(); *f; f++)
            if ((*f)->extract && wanted((*f)->name)) puts((*f)->name);
        return 0;
    }

    /* Held open to the end: the device's primary context then lives across
     * the runs instead of being created again for each. */
    VmafCudaState *keep = NULL;
#if EXACTVMAF_HAVE_OPENCL
    VmafGpuDev *ocl_keep = NULL;
#endif
    if (test_backend == EXACTVMAF_BACKEND_CUDA) {
        char why[256] = "";
        if (evc_state_open(&keep, 0, why, sizeof(why))) {
            return no_device("no usable GPU backend on this machine: %s", why);
        }
        printf("backend cuda: %s\n", evc_state_device_name(keep));
    } else if (test_backend == EXACTVMAF_BACKEND_OPENCL) {
        char line[512];
        /* The device the runs take: the one named, else the library's
         * default (the first GPU), which need not be 0 (PoCL's CPU device
         * may come first). Described and held open as one. */
        unsigned dev = test_device && !strchr(test_device, ':') ? (unsigned)atoi(test_device) : 0;
#if EXACTVMAF_HAVE_OPENCL
        int flat = 0;
        char why[256] = "";
        const int herr = test_device ? evl_device_parse(test_device, &flat)
                                     : evl_device_default(&flat, why, sizeof(why));
        if (!herr) dev = (unsigned)flat;
#endif
        if (exactvmaf_device_describe(EXACTVMAF_BACKEND_OPENCL, dev, line, sizeof(line))) {
            return no_device("no usable OpenCL device on this machine%s%s", *line ? ": " : "",
                             line);
        }
        printf("backend %s, fp64 %s\n", line, test_fp64 == EXACTVMAF_FP64_OFF ? "off" : "auto");
#if EXACTVMAF_HAVE_OPENCL
        /* Held for the whole run: every run's open of the device shares its
         * context and built programs (a build per program, not per run). */
        if (herr || evl_device_open(&ocl_keep, flat,
                                    test_fp64 == EXACTVMAF_FP64_OFF ? EVL_FP64_OFF : EVL_FP64_AUTO,
                                    why, sizeof(why)))
            printf("note: the OpenCL device is not held open (%s): each run builds its "
                   "programs\n", why);
#endif
        if (all_twins)
            printf("the metrics with an OpenCL twin: %s\n", only);
    }
    const uint32_t *table;
    const int proven = adm_rcp_model_probe(&table);
    printf("float_adm rcp division: %s\n",
           proven > 0 ? "this processor's RCPSS follows the table model (proven)" :
           proven == 0 ? "the table model FAILS here: rcp cases are close, not equal" :
                         "no RCPSS on this processor");

    static Content fixtures[64], gen[64];
    unsigned n_fix = data && !sanitize ? load_fixtures(data, fixtures, 64) : 0;
    if (data && !sanitize && !n_fix) {
        /* The build unpacks them: a run without them would pass on generated
         * content alone. */
        printf("FAIL: no fixtures in %s/fixtures/fixtures.json (the build unpacks tests/data "
               "there)\n", data);
        return 1;
    }
    if (data) load_manifest_sets(data);

    unsigned n_gen = 0;
    if (sanitize) {
        add_generated(gen, &n_gen, 17, 17, 8, VMAF_PIX_FMT_YUV420P, 3, PAT_TEXTURE);
        add_generated(gen, &n_gen, 33, 19, 10, VMAF_PIX_FMT_YUV422P, 3, PAT_TEXTURE);
        add_generated(gen, &n_gen, 101, 77, 12, VMAF_PIX_FMT_YUV444P, 3, PAT_NOISE);
        add_generated(gen, &n_gen, 99, 67, 16, VMAF_PIX_FMT_YUV420P, 3, PAT_NEAR_FLAT);
        add_generated(gen, &n_gen, 128, 40, 10, VMAF_PIX_FMT_YUV422P, 2, PAT_TEXTURE);
        add_generated(gen, &n_gen, 81, 49, 12, VMAF_PIX_FMT_YUV444P, 2, PAT_MAX);
        add_generated(gen, &n_gen, 257, 143, 8, VMAF_PIX_FMT_YUV444P, 2, PAT_TEXTURE);
        add_generated(gen, &n_gen, 193, 177, 10, VMAF_PIX_FMT_YUV420P, 3, PAT_TEXTURE);
        add_generated(gen, &n_gen, 200, 180, 8, VMAF_PIX_FMT_YUV422P, 2, PAT_NOISE);
        goto cases;
    }
    add_generated(gen, &n_gen, 17, 17, 8, VMAF_PIX_FMT_YUV420P, 3, PAT_TEXTURE);
    add_generated(gen, &n_gen, 33, 19, 10, VMAF_PIX_FMT_YUV422P, 3, PAT_TEXTURE);
    add_generated(gen, &n_gen, 101, 77, 12, VMAF_PIX_FMT_YUV444P, 3, PAT_NOISE);
    add_generated(gen, &n_gen, 641, 359, 16, VMAF_PIX_FMT_YUV420P, 2, PAT_TEXTURE);
    add_generated(gen, &n_gen, 257, 143, 8, VMAF_PIX_FMT_YUV444P, 2, PAT_TEXTURE);
    add_generated(gen, &n_gen, 96, 64, 8, VMAF_PIX_FMT_YUV420P, 2, PAT_FLAT);
    add_generated(gen, &n_gen, 97, 65, 10, VMAF_PIX_FMT_YUV422P, 3, PAT_NEAR_FLAT);
    add_generated(gen, &n_gen, 99, 67, 16, VMAF_PIX_FMT_YUV420P, 3, PAT_NEAR_FLAT);
    add_generated(gen, &n_gen, 64, 48, 16, VMAF_PIX_FMT_YUV420P, 3, PAT_LUMA_STEP);
    /* 4:2:2 with chroma rows of a multiple of 32 samples: the one 4:2:2 layout
     * ciede computes (its reference reads a run across chroma rows). */
    add_generated(gen, &n_gen, 128, 40, 10, VMAF_PIX_FMT_YUV422P, 2, PAT_TEXTURE);
    add_generated(gen, &n_gen, 80, 48, 8, VMAF_PIX_FMT_YUV420P, 2, PAT_MAX);
    add_generated(gen, &n_gen, 81, 49, 12, VMAF_PIX_FMT_YUV444P, 2, PAT_MAX);
    add_generated(gen, &n_gen, 1920, 1080, 10, VMAF_PIX_FMT_YUV420P, 2, PAT_TEXTURE);
    add_generated(gen, &n_gen, 64, 48, 8, VMAF_PIX_FMT_YUV420P, 1, PAT_TEXTURE);
    add_generated(gen, &n_gen, 1920, 1080, 8, VMAF_PIX_FMT_YUV420P, 1, PAT_BANDS);
    if (quick) {
        add_generated(gen, &n_gen, 32, 32, 8, VMAF_PIX_FMT_YUV420P, 300, PAT_TEXTURE);
    } else {
        add_generated(gen, &n_gen, 64, 48, 8, VMAF_PIX_FMT_YUV420P, 300, PAT_TEXTURE);
        add_generated(gen, &n_gen, 3840, 2160, 8, VMAF_PIX_FMT_YUV420P, 2, PAT_TEXTURE);
    }
cases:

    /* Fixtures: every option set of every twin; rcp division for the ADM sets. */
    for (unsigned i = 0; i < n_fix; i++) {
        Content *c = &fixtures[i];
        if (i % shard_n != shard_k) continue;
        printf("case %s (%ux%u %u-bit, %u frames)\n", c->name, c->g.w, c->g.h, c->g.bpc, c->frames);
        fflush(stdout);
        const size_t fl = lite ? lite_sets : SIZE_MAX;
        for (unsigned k = 0; k < n_adm_sets && k < fl && wanted("float_adm"); k++) {
            check_case(c, adm_sets[k], EXACTVMAF_DIVISION_IEEE);
            check_case(c, adm_sets[k], EXACTVMAF_DIVISION_RCP);
        }
        check_sets(c, vif_sets, N_OF(vif_sets), fl);
        check_sets(c, motion_sets, N_OF(motion_sets), fl);
        check_sets(c, iadm_sets, N_OF(iadm_sets), fl);
        check_sets(c, ivif_sets, N_OF(ivif_sets), fl);
        check_sets(c, imotion_sets, N_OF(imotion_sets), fl);
        check_sets(c, psnr_sets, N_OF(psnr_sets), fl);
        check_sets(c, float_psnr_sets, N_OF(float_psnr_sets), fl);
        check_sets(c, ms_ssim_sets, N_OF(ms_ssim_sets), fl);
        check_sets(c, moment_sets, N_OF(moment_sets), fl);
        check_sets(c, hvs_sets, N_OF(hvs_sets), fl);
        check_sets(c, ssim_sets, N_OF(ssim_sets), fl);
        check_sets(c, speed_sets, N_OF(speed_sets), fl);
        check_sets(c, cambi_sets, N_OF(cambi_sets), fl);
        check_sets(c, ciede_sets, N_OF(ciede_sets), fl);
    }
    /* Generated content: the default sets everywhere, every set on the small ones. */
    for (unsigned i = 0; i < n_gen; i++) {
        Content *c = &gen[i];
        if ((n_fix + i) % shard_n != shard_k) continue;
        const bool small = !sanitize && (uint64_t)c->g.w * c->g.h * c->frames <= 700000;
        printf("case %s\n", c->name);
        fflush(stdout);
        for (unsigned k = 0; k < (small ? n_adm_sets : 1) && wanted("float_adm"); k++) {
            check_case(c, adm_sets[k], EXACTVMAF_DIVISION_IEEE);
            if (k < 2) check_case(c, adm_sets[k], EXACTVMAF_DIVISION_RCP);
        }
        const size_t limit = small ? SIZE_MAX : 1;
        check_sets(c, vif_sets, N_OF(vif_sets), limit);
        check_sets(c, motion_sets, N_OF(motion_sets), limit);
        check_sets(c, iadm_sets, N_OF(iadm_sets), limit);
        check_sets(c, ivif_sets, N_OF(ivif_sets), limit);
        check_sets(c, imotion_sets, N_OF(imotion_sets), limit);
        check_sets(c, psnr_sets, N_OF(psnr_sets), limit);
        check_sets(c, float_psnr_sets, N_OF(float_psnr_sets), limit);
        check_sets(c, ms_ssim_sets, N_OF(ms_ssim_sets), limit);
        check_sets(c, moment_sets, N_OF(moment_sets), limit);
        check_sets(c, hvs_sets, N_OF(hvs_sets), limit);
        check_sets(c, ssim_sets, N_OF(ssim_sets), limit);
        check_sets(c, speed_sets, N_OF(speed_sets), limit);
        /* Every cambi set on the bands: with topk=1.0 some top-k sums could
         * round there, and the GPU twin pools them on the host. */
        check_sets(c, cambi_sets, N_OF(cambi_sets), c->pattern == PAT_BANDS ? SIZE_MAX : limit);
        check_sets(c, ciede_sets, N_OF(ciede_sets), limit);
    }

    bool all = true;
    printf("\n%-14s %-8s %22s %12s %7s %8s %8s %8s\n", "metric", "backend", "identical/total",
           "max|diff|", "cases", "refused", "failed", "not-gpu");
    for (unsigned i = 0; i < n_tally; i++) {
        const Tally *t = &tally[i];
        char frac[64];
        snprintf(frac, sizeof(frac), "%llu/%llu", t->identical, t->total);
        printf("%-14s %-8s %22s %12.3g %7u %8u %8u %8u\n", t->metric, test_backend_name, frac, t->max_diff,
               t->cases, t->refused_both, t->run_failures, t->not_on_backend);
        all = all && t->identical == t->total && !t->run_failures && !t->not_on_backend;
        if (!t->total) {
            printf("FAIL: %s compared no output (%u cases, every one refused)\n", t->metric,
                   t->cases);
            all = false;
        }
    }
    /* Every metric asked for ran some case. */
    for (const VmafFeatureExtractor *const *f = vmaf_fex_list(); *f; f++) {
        const char *metric = (*f)->name;
        if (!(*f)->extract) continue;   /* declared, not built */
        bool ran = false;
        for (unsigned i = 0; i < n_tally && !ran; i++) ran = tally[i].metric == metric;
        if (wanted(metric) && !ran) {
            printf("FAIL: %s was asked for and no case of it ran\n", metric);
            all = false;
        }
    }
    if (count_ciede) {
        const unsigned long long frames = ciede_frames, hard = ciede_hard, open = ciede_open;
        const unsigned long long listed = ciede_listed, full = ciede_full;
        printf("ciede: pixels left to the host over %llu frames: %llu hard, %llu open; "
               "frames with hard pixels listed: %llu, with more than the list holds (%u): %llu\n",
               frames, hard, open, listed, CIEDE_HARD_MAX, full);
        if (!hard || !open || !listed || !full) {
            printf("FAIL: a host path of ciede's twin did not run (%s)\n",
                   !open ? "no open pixel" : !listed ? "no frame with hard pixels listed"
                                           : "no frame with more hard pixels than listed");
            all = false;
        }
    }
    printf("%s\n", all ? "PASS: every output of every backend equals the CPU's bit for bit"
                       : "FAIL: see the MISMATCH and FAIL lines above");
    evc_state_close(keep);
#if EXACTVMAF_HAVE_OPENCL
    if (ocl_keep) ocl_keep->ops->close(ocl_keep);
#endif
    return all ? 0 : 1;
}
