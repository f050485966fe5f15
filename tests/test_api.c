/* Unit tests of the libvmaf-compatible API: ownership, errors, naming. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "exactvmaf/exactvmaf.h"
#include "feature_collector.h"
#include "context.h"

static int failures, checks;

#define CHECK(cond) do { \
    checks++; \
    if (!(cond)) { failures++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

/* Deterministic content: a gradient plus a pseudo-random texture. */
static void fill(VmafPicture *p, unsigned seed, int shift)
{
    uint32_t s = seed * 2654435761u + 1;
    for (unsigned pl = 0; pl < 3 && p->data[pl]; pl++) {
        for (unsigned i = 0; i < p->h[pl]; i++) {
            for (unsigned j = 0; j < p->w[pl]; j++) {
                s = s * 1664525u + 1013904223u;
                unsigned v = ((i * 3 + j * 5 + (s >> 28)) + (unsigned)shift) & 255;
                if (p->bpc == 8)
                    ((uint8_t *)p->data[pl])[i * p->stride[pl] + j] = (uint8_t)v;
                else
                    ((uint16_t *)((uint8_t *)p->data[pl] + i * p->stride[pl]))[j] =
                        (uint16_t)(v << (p->bpc - 8));
            }
        }
    }
}

static void test_picture(void)
{
    VmafPicture p;
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 8, 33, 17) == 0);
    CHECK(p.w[0] == 33 && p.h[0] == 17 && p.w[1] == 16 && p.h[1] == 8);
    int zero = 1;
    for (unsigned pl = 0; pl < 3; pl++)
        for (unsigned i = 0; i < p.h[pl]; i++)
            for (unsigned j = 0; j < p.w[pl]; j++)
                zero &= ((uint8_t *)p.data[pl])[i * p.stride[pl] + j] == 0;
    CHECK(zero);
    CHECK(vmaf_picture_unref(&p) == 0);
    CHECK(p.data[0] == NULL);
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 7, 16, 16) == -EINVAL);
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 8, 0, 16) == -EINVAL);
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_UNKNOWN, 8, 16, 16) == -EINVAL);
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV444P, 8, 2000000000u, 2000000000u) == -EINVAL);
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV444P, 10, 9, 5) == 0);
    CHECK(p.w[2] == 9 && p.stride[0] >= 18);
    vmaf_picture_unref(&p);
}

static void test_registration_errors(void)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    CHECK(vmaf_init(&v, cfg) == 0);
    CHECK(vmaf_use_feature(v, "no_such_metric", NULL) == -EINVAL);

    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "no_such_option", "1");
    CHECK(vmaf_use_feature(v, "float_adm", d) == -EINVAL);   /* consumes d */

    d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "abc");
    CHECK(vmaf_use_feature(v, "float_adm", d) == -EINVAL);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1000");  /* range [1, 100] */
    CHECK(vmaf_use_feature(v, "float_adm", d) == -EINVAL);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "debug", "maybe");
    CHECK(vmaf_use_feature(v, "float_vif", d) == -EINVAL);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "egl", "1.2");   /* alias accepted */
    CHECK(vmaf_use_feature(v, "float_adm", d) == 0);

    /* No pictures after a flush; a flush with nothing read is fine. */
    CHECK(vmaf_read_pictures(v, NULL, NULL, 0) == 0);
    VmafPicture r, s;
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 64);
    vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, 8, 64, 64);
    CHECK(vmaf_read_pictures(v, &r, &s, 0) == -EINVAL);
    /* taken over even on error: nothing for the caller to free */
    CHECK(r.ref == NULL && s.ref == NULL);
    CHECK(vmaf_read_pictures(v, NULL, NULL, 0) == -EINVAL);
    CHECK(vmaf_close(v) == 0);
}

/* Scores of a short synthetic clip, all outputs, with n threads. */
static int run_clip(unsigned threads, unsigned w, unsigned h, unsigned bpc,
                    double *out, unsigned max_out, unsigned *n_out,
                    const char *names[], unsigned n_names)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = threads };
    if (vmaf_init(&v, cfg)) return -1;
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "debug", "true");
    int err = vmaf_use_feature(v, "float_adm", d);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "debug", "true");
    err |= vmaf_use_feature(v, "float_vif", d);
    err |= vmaf_use_feature(v, "float_motion", NULL);
    for (unsigned i = 0; !err && i < 5; i++) {
        VmafPicture r, s;
        vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, bpc, w, h);
        vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, bpc, w, h);
        fill(&r, i, 0);
        fill(&s, i + 100, 3);
        err |= vmaf_read_pictures(v, &r, &s, i);
        /* ownership passed: the structs were cleared */
        CHECK(r.data[0] == NULL && s.data[0] == NULL);
    }
    err |= vmaf_read_pictures(v, NULL, NULL, 0);
    unsigned n = 0;
    for (unsigned k = 0; !err && k < n_names; k++)
        for (unsigned i = 0; i < 5 && n < max_out; i++)
            if (vmaf_feature_score_at_index(v, names[k], &out[n++], i)) err = -1;
    *n_out = n;
    vmaf_close(v);
    return err;
}

static void test_threads_identical(void)
{
    static const char *names[] = {
        "adm2", "aim", "adm3", "adm_num", "adm_den", "vif_scale0", "vif_scale3",
        "vif_num", "motion", "motion2", "motion3",
    };
    const unsigned nn = sizeof(names) / sizeof(names[0]);
    double a[64], b[64];
    unsigned na = 0, nb = 0;
    CHECK(run_clip(0, 96, 72, 8, a, 64, &na, names, nn) == 0);
    CHECK(na == 5 * nn);
    for (unsigned t = 1; t <= 3; t++) {
        CHECK(run_clip(t, 96, 72, 8, b, 64, &nb, names, nn) == 0);
        CHECK(nb == na && memcmp(a, b, na * sizeof(double)) == 0);
    }
    /* the same content at 10 bits scores the same as 8 bits (exact conversion) */
    CHECK(run_clip(2, 96, 72, 10, b, 64, &nb, names, nn) == 0);
    CHECK(nb == na && memcmp(a, b, na * sizeof(double)) == 0);
}

static void test_feature_names(void)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    CHECK(vmaf_init(&v, cfg) == 0);
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.2");
    vmaf_feature_dictionary_set(&d, "adm_csf_mode", "1");
    CHECK(vmaf_use_feature(v, "float_adm", d) == 0);
    VmafPicture r, s;
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
    vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
    fill(&r, 1, 0);
    fill(&s, 2, 0);
    CHECK(vmaf_read_pictures(v, &r, &s, 0) == 0);
    CHECK(vmaf_read_pictures(v, NULL, NULL, 0) == 0);
    double x;
    /* suffixes ordered by option name: adm_csf_mode < adm_enhn_gain_limit */
    CHECK(vmaf_feature_score_at_index(v, "adm2_csf_1_egl_1.2", &x, 0) == 0);
    CHECK(vmaf_feature_score_at_index(v, "adm2", &x, 0) == -EINVAL);
    vmaf_close(v);
}

static void test_tiny_frames_refused(void)
{
    const char *fex[] = { "float_adm", "float_vif", "float_motion" };
    const unsigned size[] = { 16, 15, 2 };
    for (unsigned k = 0; k < 3; k++) {
        VmafContext *v = NULL;
        VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
        vmaf_init(&v, cfg);
        CHECK(vmaf_use_feature(v, fex[k], NULL) == 0);
        VmafPicture r, s;
        vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, size[k], size[k]);
        vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, 8, size[k], size[k]);
        CHECK(vmaf_read_pictures(v, &r, &s, 0) < 0);
        vmaf_close(v);
    }
}

static void test_dictionary(void)
{
    VmafFeatureDictionary *d = NULL;
    CHECK(vmaf_feature_dictionary_set(&d, "a", "1") == 0);
    CHECK(vmaf_feature_dictionary_set(&d, "a", "2") == 0);
    CHECK(vmaf_feature_dictionary_set(&d, NULL, "2") == -EINVAL);
    CHECK(vmaf_feature_dictionary_free(&d) == 0);
    CHECK(d == NULL);
}

/* Messages collected by a logger. */
typedef struct Log {
    char text[4096];
    unsigned n;
} Log;

static void collect(void *opaque, enum VmafLogLevel level, const char *message)
{
    Log *l = opaque;
    const size_t len = strlen(l->text);
    snprintf(l->text + len, sizeof(l->text) - len, "%d:%s\n", (int)level, message);
    l->n++;
}

/* Each context's messages reach its own logger; the rest the default one. */
static void test_loggers(void)
{
    static Log def, a, b;
    exactvmaf_set_default_logger(collect, &def);
    VmafContext *va = NULL, *vb = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = 2 };
    CHECK(vmaf_init(&va, cfg) == 0);
    CHECK(vmaf_init(&vb, cfg) == 0);
    CHECK(exactvmaf_set_logger(va, collect, &a) == 0);
    CHECK(exactvmaf_set_logger(vb, collect, &b) == 0);
    CHECK(vmaf_use_feature(va, "no_such_metric_a", NULL) == -EINVAL);
    CHECK(vmaf_use_feature(vb, "no_such_metric_b", NULL) == -EINVAL);
    CHECK(strstr(a.text, "no_such_metric_a") && !strstr(a.text, "no_such_metric_b"));
    CHECK(strstr(b.text, "no_such_metric_b") && !strstr(b.text, "no_such_metric_a"));
    CHECK(def.n == 0);
    /* Errors pass a context's level NONE; they are level 1. */
    CHECK(!strncmp(a.text, "1:", 2));

    /* A model is loaded outside any context, even right after a context's call. */
    VmafModel *m = NULL;
    VmafModelConfig mc = { 0 };
    CHECK(vmaf_model_load(&m, &mc, "no_such_model") < 0);
    CHECK(def.n > 0 && strstr(def.text, "no_such_model"));
    const unsigned a_n = a.n;

    /* A context without a logger (or after NULL) uses the default target;
     * a closed context's thread state does not reach its old logger. */
    CHECK(exactvmaf_set_logger(va, NULL, NULL) == 0);
    const unsigned def_n = def.n;
    CHECK(vmaf_use_feature(va, "no_such_metric_c", NULL) == -EINVAL);
    CHECK(def.n > def_n && a.n == a_n);
    CHECK(vmaf_close(vb) == 0);
    CHECK(vmaf_model_load(&m, &mc, "no_such_model_2") < 0);
    CHECK(!strstr(b.text, "no_such_model_2"));
    CHECK(vmaf_close(va) == 0);
    CHECK(exactvmaf_set_logger(NULL, collect, &a) == -EINVAL);
    exactvmaf_set_default_logger(NULL, NULL);
}

static unsigned released;

static void count_release(void *opaque)
{
    (void)opaque;
    released++;
}

/*
 * Pictures in device memory where no CUDA device can be used (CI; the H200
 * covers the rest in gpu_pipeline_test): METHOD_DEVICE and a wrapped frame
 * are refused with an error and leave nothing behind; a frame the library
 * cannot take is refused before any driver call. With a device, the same
 * calls must succeed.
 */
static void test_device_pictures(void)
{
    char line[256] = "";
    const bool gpu = !exactvmaf_device_describe(EXACTVMAF_BACKEND_CUDA, 0, line, sizeof(line));
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    CHECK(vmaf_init(&v, cfg) == 0);
    VmafCudaPictureConfiguration pc = {
        .pic_params = { 64, 48, 8, VMAF_PIX_FMT_YUV420P },
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE };
    const int err = vmaf_cuda_preallocate_pictures(v, pc);
    CHECK(gpu ? err == 0 : (err == -ENODEV || err == -ENOSYS));
    VmafPicture p;
    if (!gpu) CHECK(vmaf_cuda_fetch_preallocated_picture(v, &p) < 0);
    CHECK(vmaf_close(v) == 0);

    ExactvmafCudaFrame f = { .pix_fmt = VMAF_PIX_FMT_YUV420P, .bpc = 10, .w = 64, .h = 48,
                             .semi_planar = 1, .shift = 7, .data = { 0x1000, 0x2000 },
                             .pitch = { 128, 128 }, .release = count_release };
    /* A build without CUDA refuses every frame (-ENOSYS) before looking at it. */
    const int bad = EXACTVMAF_HAVE_CUDA ? -EINVAL : -ENOSYS;
    memset(&p, 0xff, sizeof(p));
    CHECK(exactvmaf_cuda_picture_wrap(&p, &f) == bad);        /* 10 bits << 7 > 16 */
    CHECK(p.ref == NULL && p.data[0] == NULL);
    f.shift = 6;
    f.pitch[1] = 64;                                          /* chroma rows are 128 bytes */
    CHECK(exactvmaf_cuda_picture_wrap(&p, &f) == bad);
    f.pitch[1] = 128;
    const int werr = exactvmaf_cuda_picture_wrap(&p, &f);
    /* Host addresses are not device memory; without CUDA the call says so. */
    CHECK(gpu ? werr == -EINVAL : (werr == -ENODEV || werr == -ENOSYS));
    CHECK(p.ref == NULL && released == 0);
}

/* EXACTVMAF_PRECISION sets the writers' default for programs that cannot call us (FFmpeg). */
static void test_precision_env(void)
{
    static const struct { const char *env; int digits; } cases[] = {
        { NULL, 6 }, { "max", 0 }, { "3", 3 }, { "40", 0 }, { "", 6 } };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cases[i].env) vmaf_os_setenv("EXACTVMAF_PRECISION", cases[i].env);
        else vmaf_os_unsetenv("EXACTVMAF_PRECISION");
        VmafContext *v = NULL;
        VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
        CHECK(vmaf_init(&v, cfg) == 0);
        CHECK(vmaf_ctx_output_precision(v) == cases[i].digits);
        vmaf_close(v);
    }
    vmaf_os_unsetenv("EXACTVMAF_PRECISION");
}

/*
 * exactvmaf_frames_concluded(): the count never goes back, never passes the
 * frames read, a frame counted is final (its values equal the flushed
 * run's, bit for bit), and integer motion's motion2/motion3 conclude one
 * frame late (two at the start with the five-frame window) on the calling
 * thread.
 */
static void frames_concluded_run(unsigned threads, bool five)
{
    enum { N = 7, K = 3 };
    /* The five-frame window renames motion's outputs (a feature parameter). */
    const char *names[K] = {
        five ? "integer_motion2_mffw" : "VMAF_integer_feature_motion2_score",
        five ? "integer_motion3_mffw" : "VMAF_integer_feature_motion3_score",
        "VMAF_integer_feature_adm2_score",
    };
    double early[N][K], last[N][K];
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = threads };
    if (vmaf_init(&v, cfg)) {
        CHECK(0);
        return;
    }
    VmafFeatureDictionary *d = NULL;
    if (five) vmaf_feature_dictionary_set(&d, "motion_five_frame_window", "true");
    int err = vmaf_use_feature(v, "motion", d);
    if (!err) err = vmaf_use_feature(v, "adm", NULL);
    unsigned n = 0, seen = 0;
    CHECK(exactvmaf_frames_concluded(v, &n) == 0 && n == 0);
    CHECK(exactvmaf_frames_concluded(NULL, &n) == -EINVAL);
    CHECK(exactvmaf_frames_concluded(v, NULL) == -EINVAL);
    for (unsigned i = 0; !err && i < N; i++) {
        VmafPicture r, s;
        vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
        vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
        fill(&r, i * 7, 0);
        fill(&s, i * 7 + 1, 2);
        err = vmaf_read_pictures(v, &r, &s, i);
        CHECK(!err && exactvmaf_frames_concluded(v, &n) == 0);
        CHECK(n >= seen && n <= i + 1);
        if (!threads) {
            const unsigned late = five && i < 2 ? 0 : i;
            CHECK(n == late);
        }
        for (; seen < n; seen++)
            for (unsigned k = 0; k < K; k++)
                CHECK(vmaf_feature_score_at_index(v, names[k], &early[seen][k], seen) == 0);
    }
    CHECK(!err && vmaf_read_pictures(v, NULL, NULL, 0) == 0);
    CHECK(exactvmaf_frames_concluded(v, &n) == 0 && n == N);
    for (unsigned i = 0; i < N; i++)
        for (unsigned k = 0; k < K; k++)
            CHECK(vmaf_feature_score_at_index(v, names[k], &last[i][k], i) == 0);
    CHECK(memcmp(early, last, seen * sizeof(early[0])) == 0);
    if (!threads) CHECK(seen == N - 1);
    vmaf_close(v);
}

static void test_frames_concluded(void)
{
    for (unsigned threads = 0; threads <= 2; threads += 2) {
        frames_concluded_run(threads, false);
        frames_concluded_run(threads, true);
    }
}

/*
 * exactvmaf_start(): the context starts where the caller says, refuses a
 * second start, later registrations and pictures of another geometry, and
 * gives the bits of a context the first picture started.
 */
static int start_run(unsigned threads, bool named, double *out, unsigned n_out)
{
    enum { N = 4 };
    static const char *const names[] = { "VMAF_integer_feature_motion2_score",
                                         "VMAF_integer_feature_adm2_score" };
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = threads };
    if (vmaf_init(&v, cfg)) return -1;
    CHECK(exactvmaf_start(v, VMAF_PIX_FMT_YUV420P, 8, 64, 48) == -EINVAL);  /* nothing registered */
    int err = vmaf_use_feature(v, "motion", NULL);
    if (!err) err = vmaf_use_feature(v, "adm", NULL);
    if (named && !err) {
        CHECK(exactvmaf_start(v, VMAF_PIX_FMT_YUV420P, 7, 64, 48) == -EINVAL);
        CHECK(exactvmaf_start(NULL, VMAF_PIX_FMT_YUV420P, 8, 64, 48) == -EINVAL);
        err = exactvmaf_start(v, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
        CHECK(err == 0);
        CHECK(exactvmaf_start(v, VMAF_PIX_FMT_YUV420P, 8, 64, 48) == -EINVAL);
        CHECK(vmaf_use_feature(v, "psnr", NULL) == -EINVAL);
        VmafPicture r, s;
        vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 66, 48);
        vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, 8, 66, 48);
        CHECK(vmaf_read_pictures(v, &r, &s, 0) == -EINVAL);
    }
    for (unsigned i = 0; !err && i < N; i++) {
        VmafPicture r, s;
        vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
        vmaf_picture_alloc(&s, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
        fill(&r, i * 3, 0);
        fill(&s, i * 3 + 1, 2);
        err = vmaf_read_pictures(v, &r, &s, i);
    }
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    for (unsigned k = 0, n = 0; !err && k < 2; k++)
        for (unsigned i = 0; !err && i < N && n < n_out; i++)
            err = vmaf_feature_score_at_index(v, names[k], &out[n++], i);
    vmaf_close(v);
    return err;
}

static void test_start(void)
{
    for (unsigned threads = 0; threads <= 3; threads += 3) {
        double a[8], b[8];
        CHECK(start_run(threads, false, a, 8) == 0);
        CHECK(start_run(threads, true, b, 8) == 0);
        CHECK(memcmp(a, b, sizeof(a)) == 0);
    }
}

/*
 * exactvmaf_backend_resolve(): a named backend stays itself; auto is CUDA
 * exactly where the machine lists a CUDA device (exactvmaf_device_describe),
 * else the CPU with the reason; unknown backends and negative indices are
 * refused.
 */
static void test_backend_resolve(void)
{
    char why[256], line[256];
    CHECK(exactvmaf_backend_resolve(EXACTVMAF_BACKEND_CPU, 0, why, sizeof(why)) ==
          EXACTVMAF_BACKEND_CPU && !why[0]);
    CHECK(exactvmaf_backend_resolve(EXACTVMAF_BACKEND_CUDA, 3, why, sizeof(why)) ==
          EXACTVMAF_BACKEND_CUDA);
    CHECK(exactvmaf_backend_resolve(EXACTVMAF_BACKEND_OPENCL, 0, NULL, 0) ==
          EXACTVMAF_BACKEND_OPENCL);
    CHECK(exactvmaf_backend_resolve((enum ExactvmafBackend)9, 0, why, sizeof(why)) == -EINVAL);
    CHECK(exactvmaf_backend_resolve(EXACTVMAF_BACKEND_AUTO, -1, why, sizeof(why)) == -EINVAL);
    const bool listed = !exactvmaf_device_describe(EXACTVMAF_BACKEND_CUDA, 0, line, sizeof(line));
    const int got = exactvmaf_backend_resolve(EXACTVMAF_BACKEND_AUTO, 0, why, sizeof(why));
    CHECK(got == (listed ? EXACTVMAF_BACKEND_CUDA : EXACTVMAF_BACKEND_CPU));
    CHECK(listed ? !why[0] : why[0] != '\0');
    /* A device past the last one: the CPU, saying so. */
    CHECK(exactvmaf_backend_resolve(EXACTVMAF_BACKEND_AUTO, 4096, why, sizeof(why)) ==
          EXACTVMAF_BACKEND_CPU && why[0]);
}

/* The registry's listing and the backends' names: every entry whole, the ends clean. */
static void test_listings(void)
{
    unsigned n = 0;
    const char *name, *opt, *alias, *help;
    for (; (name = exactvmaf_extractor_name(n)); n++) {
        CHECK(exactvmaf_extractor_output(n, 0) != NULL);
        CHECK(exactvmaf_extractor_twins(n) >= 0);
        for (unsigned k = 0; !exactvmaf_extractor_option(n, k, &opt, &alias, &help); k++)
            CHECK(exactvmaf_option_name(name, opt) == opt);
    }
    CHECK(n >= 16);
    CHECK(exactvmaf_extractor_output(n, 0) == NULL);
    CHECK(exactvmaf_extractor_option(n, 0, &opt, &alias, &help) == -ENOENT);
    CHECK(exactvmaf_extractor_twins(n) == -ENOENT);
    for (int b = EXACTVMAF_BACKEND_CPU; b <= EXACTVMAF_BACKEND_AUTO_OPENCL; b++)
        CHECK(exactvmaf_backend_from_name(exactvmaf_backend_name((enum ExactvmafBackend)b)) == b);
    CHECK(exactvmaf_backend_name((enum ExactvmafBackend)(EXACTVMAF_BACKEND_AUTO_OPENCL + 1)) == NULL);
    CHECK(exactvmaf_backend_from_name("gpu") == -EINVAL);
    CHECK(exactvmaf_backend_from_name(NULL) == -EINVAL);
}

int main(void)
{
    test_loggers();
    test_picture();
    test_dictionary();
    test_registration_errors();
    test_feature_names();
    test_tiny_frames_refused();
    test_threads_identical();
    test_frames_concluded();
    test_start();
    test_device_pictures();
    test_precision_env();
    test_backend_resolve();
    test_listings();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
