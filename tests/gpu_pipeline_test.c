/*
 * The GPU frame pipeline against the CPU, bit for bit, where the pipeline's
 * own logic can go wrong: every frames-in-flight count K with 1, K-1, K,
 * K+1 and 1000 frames; frames spread over two pipelines on one device
 * (block seams, motion's history rebuilt there); a bad frame mid-stream
 * (the frames before it still concluded and reported); subsampling; eight
 * contexts in eight threads on one GPU; and device memory too short for
 * the frames in flight asked (a clear error) or not asked (fewer frames in
 * flight). Pictures in device memory (CUDA): from the context's pool
 * (METHOD_DEVICE, filled as FFmpeg's filter fills them) and a caller's
 * frames wrapped in place, planar and semi-planar (NV12, P010), with padded
 * pitches and shifted samples, on the GPU and on the CPU (downloaded), equal
 * to the same frames as host pictures; every wrapped frame released once.
 * The same on OpenCL with --backend opencl (every OpenCL twin; the device
 * memory and device picture checks are CUDA's). Exits 77 (skipped) without
 * a usable device of the backend (a failure under EXACTVMAF_REQUIRE_GPU=1,
 * tests/no_device.h).
 *
 * usage: gpu_pipeline_test [--quick | --sanitize[=light]] [--device-pictures]
 *                          [--backend cuda|opencl]
 * (--device-pictures: only the device picture checks; --sanitize: every
 * check with the fewest frames that still reach it, seams and all, for
 * runs under compute-sanitizer, whose tools slow kernels a hundredfold;
 * --sanitize=light: one case for each thing the pipeline does (several
 * frames in flight, seams between two pipelines on one device, 8 and
 * 10 bits, odd sizes; device pictures with --device-pictures), for
 * racecheck, whose every context costs half a minute)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "exactvmaf/exactvmaf.h"
#include "context.h"
#include "feature_collector.h"
#include "gpu/cuda/cuda_backend.h"
#if EXACTVMAF_HAVE_CUDA
#include "gpu/cuda/cuda_common.h"
#endif
#include "no_device.h"

/* The backend under test (--backend), and its name in the outputs' "backends". */
static enum ExactvmafBackend gpu_backend = EXACTVMAF_BACKEND_CUDA;
static const char *gpu_backend_name = "cuda";

typedef struct Clip {
    unsigned w, h, bpc, frames;
    enum VmafPixelFormat fmt;
} Clip;

/* Host pictures, the context's device pool, or frames wrapped in place. */
enum DevPics { HOST_PICS = 0, POOL_PICS, WRAP_PLANAR, WRAP_NV12, WRAP_SHIFTED };

typedef struct Run {
    enum ExactvmafBackend backend;
    const int *gpus;
    unsigned n_gpus;            /* 0: one GPU, device 0 */
    unsigned fif;               /* frames in flight, 0: default */
    unsigned subsample;
    unsigned bad_frame;         /* a frame of another size at this index; 0: none */
    const char *const *features;
    enum DevPics dev_pics;      /* how the pictures are handed over */
} Run;

typedef struct Scores {
    int err, flush_err;
    unsigned n_names, frames;
    char **name;
    double *v;                  /* n_names x frames */
    bool *set;
} Scores;

static unsigned failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static uint32_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static void generate(const Clip *c, unsigned n, VmafPicture *ref, VmafPicture *dis)
{
    const unsigned maxv = (1u << c->bpc) - 1;
    uint64_t seed = 0x243f6a8885a308d3ull ^ ((uint64_t)n * 0x9e3779b97f4a7c15ull);
    for (unsigned p = 0; p < 3 && ref->data[p]; p++) {
        for (unsigned i = 0; i < ref->h[p]; i++) {
            for (unsigned j = 0; j < ref->w[p]; j++) {
                const double x = (double)(j + 2 * n) / (ref->w[p] + 1);
                const double y = (double)(i + n % 7) / (ref->h[p] + 1);
                double t = 0.5 + 0.3 * sin(11.0 * x + 4.0 * y + 0.1 * n) + 0.1 * cos(29.0 * x * y);
                unsigned r = t <= 0 ? 0 : t >= 1 ? maxv : (unsigned)(t * maxv);
                int d = (int)r + ((int)(rng(&seed) % 13) - 6) * (int)(maxv / 255 + 1);
                d = d < 0 ? 0 : d > (int)maxv ? (int)maxv : d;
                uint8_t *rr = (uint8_t *)ref->data[p] + (size_t)i * ref->stride[p];
                uint8_t *dr = (uint8_t *)dis->data[p] + (size_t)i * dis->stride[p];
                if (c->bpc > 8) {
                    ((uint16_t *)rr)[j] = (uint16_t)r;
                    ((uint16_t *)dr)[j] = (uint16_t)d;
                } else {
                    rr[j] = (uint8_t)r;
                    dr[j] = (uint8_t)d;
                }
            }
        }
    }
}

static void scores_free(Scores *s)
{
    for (unsigned i = 0; i < s->n_names; i++) free(s->name[i]);
    free(s->name);
    free(s->v);
    free(s->set);
    memset(s, 0, sizeof(*s));
}

static int use(VmafContext *vmaf, const char *spec)
{
    char name[64];
    const char *eq = strchr(spec, '=');
    const size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    snprintf(name, sizeof(name), "%.*s", (int)n, spec);
    VmafFeatureDictionary *d = NULL;
    if (eq) {
        char *buf = strdup(eq + 1), *save = NULL;
        for (char *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
            char *v = strchr(kv, '=');
            if (v) *v++ = '\0';
            vmaf_feature_dictionary_set(&d, kv, v ? v : "");
        }
        free(buf);
    }
    return vmaf_use_feature(vmaf, name, d);
}

static unsigned wrapped, released;

#if EXACTVMAF_HAVE_CUDA
#define CU(call) (evc_check((call), #call, __FILE__, __LINE__))

static CUcontext test_ctx;

/* Called on one of the library's threads: this thread's context is not known. */
static void free_frame(void *opaque)
{
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)opaque;
    CUcontext prev;
    if (!evc_driver()->cuCtxPushCurrent(test_ctx)) {
        CU(evc_driver()->cuMemFree(p));
        evc_driver()->cuCtxPopCurrent(&prev);
    }
    __atomic_fetch_add(&released, 1, __ATOMIC_SEQ_CST);
}

/*
 * Host picture h as a device picture of the kind `how`: the pool's (filled
 * by a 2-D copy per plane on the legacy default stream, as FFmpeg fills
 * them), or a frame of the test's own memory wrapped in place: rows padded
 * to a pitch of their own, chroma interleaved (NV12/P010 style), samples
 * shifted to the top of 16 bits (P010 style) where asked.
 */
static int to_device_in(VmafContext *vmaf, const VmafPicture *h, enum DevPics how,
                        VmafPicture *d);

/* The copies and allocations run in device 0's primary context, as the library's. */
static int to_device(VmafContext *vmaf, const VmafPicture *h, enum DevPics how, VmafPicture *d)
{
    const EvcDriver *drv = evc_driver();
    CUdevice dev;
    int err = test_ctx ? 0 : CU(drv->cuDeviceGet(&dev, 0));
    if (!err && !test_ctx) err = CU(drv->cuDevicePrimaryCtxRetain(&test_ctx, dev));
    if (!err) err = CU(drv->cuCtxPushCurrent(test_ctx));
    if (err) return err;
    err = to_device_in(vmaf, h, how, d);
    CUcontext prev;
    drv->cuCtxPopCurrent(&prev);
    return err;
}

static int to_device_in(VmafContext *vmaf, const VmafPicture *h, enum DevPics how,
                        VmafPicture *d)
{
    const EvcDriver *drv = evc_driver();
    const unsigned b = h->bpc > 8 ? 2 : 1, planes = h->pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
    EvcMemcpy2D m = { 0 };
    m.srcMemoryType = EVC_CU_MEMORYTYPE_HOST;
    m.dstMemoryType = EVC_CU_MEMORYTYPE_DEVICE;
    if (how == POOL_PICS) {
        int err = vmaf_cuda_fetch_preallocated_picture(vmaf, d);
        for (unsigned p = 0; p < planes && !err; p++) {
            m.srcHost = h->data[p];
            m.srcPitch = (size_t)h->stride[p];
            m.dstDevice = (CUdeviceptr)(uintptr_t)d->data[p];
            m.dstPitch = (size_t)d->stride[p];
            m.WidthInBytes = (size_t)h->w[p] * b;
            m.Height = h->h[p];
            err = CU(drv->cuMemcpy2DAsync(&m, NULL));
        }
        return err;
    }
    const bool semi = how == WRAP_NV12 || (how == WRAP_SHIFTED && planes == 3 &&
                                           h->pix_fmt == VMAF_PIX_FMT_YUV420P);
    /* 8-bit video has 1-byte words: nothing to shift (NV12 is the 8-bit P010). */
    const unsigned shift = how == WRAP_SHIFTED && b == 2 ? 16 - h->bpc : 0;
    const unsigned wb = b;                                  /* bytes per stored sample */
    ExactvmafCudaFrame f = { .pix_fmt = h->pix_fmt, .bpc = h->bpc, .w = h->w[0], .h = h->h[0],
                             .semi_planar = semi, .shift = shift, .release = free_frame };
    size_t off[3], total = 0;
    const unsigned stored = semi ? 2 : planes;
    for (unsigned p = 0; p < stored; p++) {
        const size_t row = (size_t)h->w[p] * wb * (semi && p ? 2 : 1);
        f.pitch[p] = (row + 511) / 512 * 512 + 64;          /* padded, as NVDEC's */
        off[p] = total;
        total += f.pitch[p] * h->h[p];
    }
    uint8_t *img = calloc(1, total);
    CUdeviceptr mem = 0;
    int err = img ? 0 : -ENOMEM;
    for (unsigned p = 0; p < planes && !err; p++) {
        const unsigned sp = semi && p ? 1 : p, step = semi && p ? 2 : 1, k = semi && p == 2;
        for (unsigned i = 0; i < h->h[p]; i++) {
            const uint8_t *s = (const uint8_t *)h->data[p] + (size_t)i * h->stride[p];
            uint8_t *t = img + off[sp] + (size_t)i * f.pitch[sp];
            for (unsigned j = 0; j < h->w[p]; j++) {
                const unsigned v = b == 2 ? ((const uint16_t *)s)[j] : s[j];
                if (wb == 2) ((uint16_t *)t)[(size_t)j * step + k] = (uint16_t)(v << shift);
                else t[(size_t)j * step + k] = (uint8_t)v;
            }
        }
    }
    if (!err) err = CU(drv->cuMemAlloc(&mem, total));
    if (!err) err = CU(drv->cuMemcpyHtoDAsync(mem, img, total, NULL));
    free(img);
    for (unsigned p = 0; p < stored; p++) f.data[p] = mem + off[p];
    f.opaque = (void *)(uintptr_t)mem;
    if (!err) err = exactvmaf_cuda_picture_wrap(d, &f);
    if (err && mem) drv->cuMemFree(mem);
    if (!err) __atomic_fetch_add(&wrapped, 1, __ATOMIC_SEQ_CST);
    return err;
}
#else
static int to_device(VmafContext *vmaf, const VmafPicture *h, enum DevPics how, VmafPicture *d)
{
    (void)vmaf, (void)h, (void)how, (void)d;
    return -ENOSYS;
}
#endif

static int run(const Clip *c, const Run *r, Scores *out)
{
    memset(out, 0, sizeof(*out));
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_subsample = r->subsample };
    int err = vmaf_init(&vmaf, cfg);
    if (err) return out->err = err;
    err = exactvmaf_set_backend(vmaf, r->backend, 0);
    if (!err && r->n_gpus) err = exactvmaf_set_gpus(vmaf, r->gpus, r->n_gpus);
    if (!err && r->fif) err = exactvmaf_set_frames_in_flight(vmaf, r->fif);
    for (const char *const *f = r->features; !err && *f; f++) err = use(vmaf, *f);
    if (!err && r->dev_pics == POOL_PICS) {
        VmafCudaPictureConfiguration pc = {
            .pic_params = { c->w, c->h, c->bpc, c->fmt },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE };
        err = vmaf_cuda_preallocate_pictures(vmaf, pc);
    }
    unsigned n;
    for (n = 0; !err && n < c->frames; n++) {
        const bool bad = r->bad_frame && n == r->bad_frame;
        VmafPicture ref, dis;
        err = vmaf_picture_alloc(&ref, c->fmt, c->bpc, c->w + (bad ? 2 : 0), c->h);
        if (err) break;
        err = vmaf_picture_alloc(&dis, c->fmt, c->bpc, c->w + (bad ? 2 : 0), c->h);
        if (err) {
            vmaf_picture_unref(&ref);
            break;
        }
        generate(c, n, &ref, &dis);
        if (r->dev_pics && !bad) {
            VmafPicture dref, ddis = { 0 };
            err = to_device(vmaf, &ref, r->dev_pics, &dref);
            if (!err) {
                err = to_device(vmaf, &dis, r->dev_pics, &ddis);
                if (err) vmaf_picture_unref(&dref);
            }
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dis);
            if (err) break;
            ref = dref;
            dis = ddis;
        }
        err = vmaf_read_pictures(vmaf, &ref, &dis, n);
        if (err && bad) {
            /* Refused: the frames before it must still be concluded. */
            out->err = err;
            err = 0;
            break;
        }
    }
    if (!err) err = out->flush_err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (!out->err) out->err = err;
    VmafFeatureCollector *fc = vmaf_ctx_collector(vmaf);
    out->frames = c->frames;
    out->n_names = vmaf_fc_count(fc);
    out->name = calloc(out->n_names + 1, sizeof(*out->name));
    out->v = calloc((size_t)out->n_names * c->frames + 1, sizeof(double));
    out->set = calloc((size_t)out->n_names * c->frames + 1, sizeof(bool));
    for (unsigned i = 0; i < out->n_names; i++) {
        const VmafFeatureVector *v = vmaf_fc_at(fc, i);
        out->name[i] = strdup(v->name);
        for (unsigned k = 0; k < c->frames && k < v->capacity; k++) {
            out->set[(size_t)i * c->frames + k] = v->written[k];
            if (v->written[k]) out->v[(size_t)i * c->frames + k] = v->value[k];
        }
    }
    const VmafDict *b = vmaf_ctx_backends(vmaf);
    for (unsigned i = 0; b && r->backend != EXACTVMAF_BACKEND_CPU && i < b->cnt; i++)
        CHECK(!strcmp(b->entry[i].val, gpu_backend_name), "%s computed on %s, not %s",
              b->entry[i].key, b->entry[i].val, gpu_backend_name);
    vmaf_close(vmaf);
    return out->err;
}

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof(u));
    return u;
}

/* Every value the CPU wrote for frames [0, upto) equals the GPU's, bit for bit. */
static void compare(const char *what, const Scores *cpu, const Scores *gpu, unsigned upto)
{
    unsigned long long same = 0, total = 0;
    for (unsigned i = 0; i < cpu->n_names; i++) {
        int g = -1;
        for (unsigned k = 0; k < gpu->n_names && g < 0; k++)
            if (!strcmp(gpu->name[k], cpu->name[i])) g = (int)k;
        for (unsigned f = 0; f < upto; f++) {
            const size_t ci = (size_t)i * cpu->frames + f;
            if (!cpu->set[ci]) continue;
            total++;
            const size_t gi = (size_t)g * gpu->frames + f;
            if (g >= 0 && gpu->set[gi] && bits(gpu->v[gi]) == bits(cpu->v[ci])) {
                same++;
            } else if (total - same <= 5) {
                printf("  %s: %s[%u] cpu %.17g gpu %.17g\n", what, cpu->name[i], f, cpu->v[ci],
                       g >= 0 && gpu->set[gi] ? gpu->v[gi] : NAN);
            }
        }
    }
    CHECK(total && same == total, "%s: %llu of %llu outputs identical", what, same, total);
    printf("%-58s %llu/%llu identical\n", what, same, total);
}

static const char *const vmaf_features[] = { "adm", "vif", "motion", "psnr", NULL };
static const char *const float_features[] = { "float_adm", "float_vif", "float_motion",
                                              "float_psnr", NULL };
/* VMAF and VMAF NEG together: the two VIF instances share one pass. */
static const char *const neg_features[] = {
    "adm", "adm=adm_enhn_gain_limit=1.0", "vif=debug=true", "vif=vif_enhn_gain_limit=1.0:debug=true",
    "vif=vif_enhn_gain_limit=1.37", "motion", NULL };
/* Every twin device pictures feed, and the float features read the host's copy. */
static const char *const both_features[] = { "adm", "vif", "motion", "psnr", "float_adm",
                                             "float_vif", "float_motion", "float_psnr",
                                             "float_ssim", NULL };
static const char *const window_features[] = {
    "motion=motion_five_frame_window=true:debug=true",
    "float_motion=motion_add_scale1=true:debug=true", "vif=debug=true", NULL };

/* A run's backend: the one under test. */
#define GPU gpu_backend

/* The later twins: the temporal one (speed_temporal) rebuilds its history at
 * seams from the primed pictures. SpEED needs 80x80 chroma. */
static const char *const more_features[] = {
    "speed_temporal", "speed_chroma", "float_ssim", "float_moment", "psnr_hvs",
    "float_psnr", "float_ms_ssim", NULL };
/* Twins with a prepare (worker threads, frames out of order) among others. */
static const char *const prepare_features[] = {
    "cambi", "cambi=full_ref=true:topk=1.0", "speed_chroma", "motion", NULL };

static void check(const char *what, const Clip *c, const Run *gpu_run)
{
    Run cpu_run = *gpu_run;
    cpu_run.backend = EXACTVMAF_BACKEND_CPU;
    cpu_run.n_gpus = 0;
    cpu_run.dev_pics = HOST_PICS;
    Scores cpu, gpu;
    run(c, &cpu_run, &cpu);
    run(c, gpu_run, &gpu);
    if (gpu_run->bad_frame) {
        CHECK(gpu.err && !gpu.flush_err, "%s: the bad frame refused (%d), the flush fine (%d)",
              what, gpu.err, gpu.flush_err);
        compare(what, &cpu, &gpu, gpu_run->bad_frame);
    } else {
        CHECK(!cpu.err && !gpu.err, "%s: runs succeed (cpu %d, gpu %d)", what, cpu.err, gpu.err);
        compare(what, &cpu, &gpu, c->frames);
    }
    scores_free(&cpu);
    scores_free(&gpu);
}

typedef struct ThreadJob {
    const Clip *clip;
    Run run;
    Scores out;
} ThreadJob;

static void *thread_main(void *arg)
{
    ThreadJob *j = arg;
    run(j->clip, &j->run, &j->out);
    return NULL;
}

/* Frames of a clip: n, or under --sanitize at most `few`. */
static unsigned sanitize_few;
static unsigned frames(unsigned n, unsigned few)
{
    return sanitize_few && few < n ? few : n;
}

/*
 * --sanitize=light: each thing the pipeline does once, in as few contexts
 * as reach it (a context is what costs under racecheck, not a frame).
 */
static void light_checks(bool only_dev)
{
    static const int twice[] = { 0, 0 };
    if (!only_dev) {
        /* Frames in flight: K=3 and 2K+1 frames, the lanes reused twice. */
        const Clip c8 = { 64, 48, 8, 7, VMAF_PIX_FMT_YUV420P };
        check("light: K=3, 7 frames, 8-bit, vmaf features", &c8,
              &(Run){ GPU, .fif = 3, .features = vmaf_features });
        const Clip c10 = { 321, 241, 10, 4, VMAF_PIX_FMT_YUV422P };
        check("light: K=3, 4 frames, 10-bit 4:2:2 321x241, vmaf + float", &c10,
              &(Run){ GPU, .fif = 3, .features = both_features });
        /* Blocks of 2 x 8 frames: a seam each way, motion's history primed. */
        const Clip seam = { 96, 64, 8, 33, VMAF_PIX_FMT_YUV420P };
        check("light: two pipelines on device 0, K=2, 33 frames", &seam,
              &(Run){ GPU, twice, 2, .fif = 2, .features = vmaf_features });
        return;
    }
    if (gpu_backend != EXACTVMAF_BACKEND_CUDA) return;
    /* P010-style frames (semi-planar, shifted, padded pitches) of an odd
     * size; then NV12-style ones across seams. */
    const unsigned w0 = wrapped, r0 = released;
    const Clip p010 = { 321, 241, 10, 4, VMAF_PIX_FMT_YUV420P };
    check("light: wrapped shifted, 321x241 10-bit, K=3, vmaf + float", &p010,
          &(Run){ GPU, .fif = 3, .features = both_features, .dev_pics = WRAP_SHIFTED });
    const Clip seam = { 96, 64, 8, 33, VMAF_PIX_FMT_YUV420P };
    check("light: wrapped semi-planar, two pipelines on device 0, K=2", &seam,
          &(Run){ GPU, twice, 2, .fif = 2, .features = vmaf_features, .dev_pics = WRAP_NV12 });
    CHECK(wrapped - w0 == released - r0 && wrapped > w0, "light: %u frames wrapped, %u released",
          wrapped - w0, released - r0);
    printf("%-58s %u wrapped, %u released\n", "light: device pictures", wrapped - w0,
           released - r0);
}

int main(int argc, char **argv)
{
    bool quick = false, only_dev = false, light = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = true;
        } else if (!strcmp(argv[i], "--sanitize")) {
            quick = true;
            sanitize_few = 1;
        } else if (!strcmp(argv[i], "--sanitize=light")) {
            quick = light = true;
            sanitize_few = 1;
        } else if (!strcmp(argv[i], "--device-pictures")) {
            only_dev = true;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc &&
                   !strcmp(argv[i + 1], "opencl")) {
            gpu_backend = EXACTVMAF_BACKEND_OPENCL;
            gpu_backend_name = "opencl";
            i++;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "cuda")) {
            i++;
        } else {
            fprintf(stderr, "usage: gpu_pipeline_test [--quick | --sanitize[=light]] "
                    "[--device-pictures] [--backend cuda|opencl]\n");
            return 2;
        }
    }
    if (only_dev && gpu_backend != EXACTVMAF_BACKEND_CUDA) {
        printf("SKIP: device pictures are CUDA's\n");
        return 77;
    }
    int count = 0;
    char why[256] = "";
    if (gpu_backend == EXACTVMAF_BACKEND_OPENCL) {
        char line[512] = "";
        if (exactvmaf_device_describe(EXACTVMAF_BACKEND_OPENCL, 0, line, sizeof(line))) {
            return no_device("no usable OpenCL device%s%s", *line ? ": " : "", line);
        }
        printf("backend %s\n", line);
        count = 1;
    } else if (evc_device_count(&count, why, sizeof(why)) || !count) {
        return no_device("no usable CUDA device: %s", count ? why : why[0] ? why : "none");
    }

    if (light) {
        light_checks(only_dev);
        goto done;
    }

    /* Every K with 1, K-1, K, K+1 and many frames. */
    static const unsigned ks[] = { 2, 3, 4, 7, 16 };
    for (size_t i = 0; !only_dev && i < sizeof(ks) / sizeof(ks[0]); i++) {
        const unsigned k = ks[i];
        const unsigned counts[] = { 1, k - 1, k, k + 1, frames(quick ? 60 : 1000, 2 * k + 1) };
        for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
            if (!counts[j]) continue;
            const Clip c = { 64, 48, 8, counts[j], VMAF_PIX_FMT_YUV420P };
            char what[96];
            snprintf(what, sizeof(what), "K=%u, %u frames, vmaf features", k, counts[j]);
            check(what, &c, &(Run){ GPU, .fif = k, .features = vmaf_features });
            snprintf(what, sizeof(what), "K=%u, %u frames, float features", k, counts[j]);
            const Clip c10 = { 66, 50, 10, counts[j], VMAF_PIX_FMT_YUV422P };
            check(what, &c10, &(Run){ GPU, .fif = k, .features = float_features });
        }
    }

    if (!only_dev) {
        /* The default K, a larger frame, subsampling, history two frames back. */
        const Clip mid = { 640, 360, 8, frames(40, 8), VMAF_PIX_FMT_YUV420P };
        check("default K, 640x360, 40 frames", &mid,
              &(Run){ GPU, .features = vmaf_features });
        check("default K, subsample 3", &mid,
              &(Run){ GPU, .subsample = 3, .features = vmaf_features });
        check("K=3, five-frame window, scale1", &mid,
              &(Run){ GPU, .fif = 3, .features = window_features });
        check("VMAF and NEG features, shared VIF pass", &mid,
              &(Run){ GPU, .features = neg_features });
        const Clip mid10 = { 642, 362, 10, frames(12, 6), VMAF_PIX_FMT_YUV420P };
        check("VMAF and NEG features, 10-bit", &mid10,
              &(Run){ GPU, .features = neg_features });

        /* A bad frame mid-stream: frames before it concluded, reported, equal. */
        const Clip bad = { 96, 64, 8, 30, VMAF_PIX_FMT_YUV420P };
        check("bad frame 17 of 30 (K=4)", &bad,
              &(Run){ GPU, .fif = 4, .bad_frame = 17, .features = vmaf_features });

    }

    /* Two pipelines on one device: blocks of frames alternate, seams rebuild history. */
    static const int twice[] = { 0, 0 };
    /* Under --sanitize two seams each way at K = 3 (blocks of 24 frames). */
    const Clip seam = { 96, 64, 8, frames(quick ? 100 : 300, 50), VMAF_PIX_FMT_YUV420P };
    if (!only_dev) {
        check("two pipelines on device 0, vmaf features", &seam,
              &(Run){ GPU, twice, 2, .fif = 3, .features = vmaf_features });
        check("two pipelines on device 0, float features", &seam,
              &(Run){ GPU, twice, 2, .fif = 2, .features = float_features });
        const Clip seam2 = { 176, 176, 8, frames(quick ? 100 : 300, 50), VMAF_PIX_FMT_YUV420P };
        check("K=3, the later twins", &seam2, &(Run){ GPU, .fif = 3, .features = more_features });
        check("two pipelines on device 0, the later twins", &seam2,
              &(Run){ GPU, twice, 2, .fif = 2, .features = more_features });
        const Clip wide = { 320, 240, 8, frames(quick ? 40 : 120, 12), VMAF_PIX_FMT_YUV420P };
        check("K=5, twins with a prepare", &wide, &(Run){ GPU, .fif = 5, .features = prepare_features });
        check("two pipelines on device 0, twins with a prepare", &wide,
              &(Run){ GPU, twice, 2, .fif = 2, .features = prepare_features });
        check("two pipelines on device 0, five-frame window", &seam,
              &(Run){ GPU, twice, 2, .fif = 3, .features = window_features });
        if (count > 1) {
            static const int all_gpus[] = { 0, 1 };
            check("devices 0 and 1", &seam,
                  &(Run){ GPU, all_gpus, 2, .features = vmaf_features });
        }

    }

    /* Pictures in device memory: each kind, on the GPU and on the CPU. */
    if (gpu_backend == EXACTVMAF_BACKEND_CUDA) {
        static const struct { enum DevPics how; const char *name; } kinds[] = {
            { POOL_PICS, "device pool" }, { WRAP_PLANAR, "wrapped planar" },
            { WRAP_NV12, "wrapped semi-planar" }, { WRAP_SHIFTED, "wrapped shifted" } };
        static const char *const host_read[] = {
            "motion=motion_force_zero=true", "adm", "vif", "float_motion=motion_force_zero=true",
            NULL };
        const Clip dc[] = { { 642, 362, 8, frames(20, 5), VMAF_PIX_FMT_YUV420P },
                            { 321, 241, 10, frames(12, 5), VMAF_PIX_FMT_YUV420P },
                            { 176, 176, 12, frames(9, 5), VMAF_PIX_FMT_YUV444P },
                            { 200, 120, 16, frames(7, 5), VMAF_PIX_FMT_YUV422P } };
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
            for (size_t j = 0; j < sizeof(dc) / sizeof(dc[0]); j++) {
                /* Semi-planar frames are 4:2:0 (NV12 8-bit only; P010 is the shifted kind). */
                if (kinds[i].how == WRAP_NV12 && (dc[j].fmt != VMAF_PIX_FMT_YUV420P || dc[j].bpc > 8))
                    continue;
                const unsigned w0 = wrapped, r0 = released;
                char what[128];
                snprintf(what, sizeof(what), "%s, %ux%u %u-bit, K=3, vmaf + float", kinds[i].name,
                         dc[j].w, dc[j].h, dc[j].bpc);
                check(what, &dc[j], &(Run){ GPU, .fif = 3, .features = both_features,
                                            .dev_pics = kinds[i].how });
                snprintf(what, sizeof(what), "%s, %ux%u %u-bit, on the CPU", kinds[i].name,
                         dc[j].w, dc[j].h, dc[j].bpc);
                check(what, &dc[j], &(Run){ EXACTVMAF_BACKEND_CPU, .features = both_features,
                                            .dev_pics = kinds[i].how });
                snprintf(what, sizeof(what), "%s, %ux%u %u-bit, twins reading the host",
                         kinds[i].name, dc[j].w, dc[j].h, dc[j].bpc);
                check(what, &dc[j], &(Run){ GPU, .features = host_read,
                                            .dev_pics = kinds[i].how });
                if (kinds[i].how != POOL_PICS) {
                    CHECK(wrapped - w0 == released - r0 && wrapped > w0,
                          "%s: %u frames wrapped, %u released", what, wrapped - w0, released - r0);
                    printf("%-58s %u wrapped, %u released\n", kinds[i].name, wrapped - w0,
                           released - r0);
                }
            }
        }
        check("wrapped shifted, two pipelines on device 0 (seams primed)", &seam,
              &(Run){ GPU, twice, 2, .fif = 3, .features = vmaf_features,
                      .dev_pics = WRAP_SHIFTED });
    }

    if (only_dev) goto done;

    /* Eight contexts in eight threads on one GPU. */
    {
        const Clip c = { 320, 180, 8, frames(50, 6), VMAF_PIX_FMT_YUV420P };
        Run cpu_run = { EXACTVMAF_BACKEND_CPU, .features = vmaf_features };
        Scores cpu;
        run(&c, &cpu_run, &cpu);
        ThreadJob job[8];
        pthread_t th[8];
        for (int t = 0; t < 8; t++) {
            job[t] = (ThreadJob){ &c, { GPU, .features = vmaf_features } };
            pthread_create(&th[t], NULL, thread_main, &job[t]);
        }
        for (int t = 0; t < 8; t++) {
            pthread_join(th[t], NULL);
            char what[64];
            snprintf(what, sizeof(what), "eight contexts in threads: context %d", t);
            CHECK(!job[t].out.err, "%s failed (%d)", what, job[t].out.err);
            compare(what, &cpu, &job[t].out, c.frames);
            scores_free(&job[t].out);
        }
        scores_free(&cpu);
    }

    /* Device memory: 32 frames in flight of 11264x11264 (about 6.8 GB each
     * with the float features) do not fit in an H200: asked for, a clear
     * error; not asked for, fewer frames in flight and a result. The size is
     * the largest square float_vif takes (INT_MAX / 16 samples). */
    if (!quick && gpu_backend == EXACTVMAF_BACKEND_CUDA) {
        const Clip huge = { 11264, 11264, 8, 2, VMAF_PIX_FMT_YUV420P };
        Scores s;
        int err = run(&huge, &(Run){ GPU, .fif = 32,
                                     .features = float_features }, &s);
        printf("11264x11264, 32 frames in flight asked: %d (%s)\n", err, strerror(-err));
        CHECK(err == -ENOMEM, "32 huge frames in flight: -ENOMEM expected, got %d", err);
        scores_free(&s);
        err = run(&huge, &(Run){ GPU, .features = float_features }, &s);
        printf("11264x11264, frames in flight chosen: %d\n", err);
        CHECK(!err, "huge frames with the default K: %d", err);
        scores_free(&s);
    }

done:
    printf("%u checks, %u failed\n", checks, failures);
    /* A run that checked nothing proved nothing (the sanitizer script counts on it). */
    return failures || !checks ? 1 : 0;
}
