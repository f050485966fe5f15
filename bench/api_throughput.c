/*
 * api_throughput: frames per second of the library itself, fed through the
 * public API with preallocated pictures already in memory (no file reading,
 * no copies: the same M distinct frame pairs are handed over again and
 * again by reference). What it measures is what a caller that decodes
 * frames into the library's pictures gets at best.
 *
 * usage: api_throughput --model NAME[,NAME...] | --feature NAME[,NAME...]
 *                       --size WxH --frames N
 *                       [--backend cpu|cuda|opencl|auto] [--gpu LIST|all]
 *                       [--opencl-fp64 auto|off] [--threads N]
 *                       [--frames-in-flight K] [--distinct M]
 *                       [--source FILE.yuv --source-size WxH] [--device-pictures]
 *
 * --device-pictures (CUDA): the pictures are the library's device pictures
 * (VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE), filled once from the host;
 * frames then reach the pipeline with no copy over PCIe, as from a GPU
 * decoder, and what is measured is the pipeline alone.
 *
 * --source is a raw 8-bit 4:2:0 file whose first M frames (nearest-neighbour
 * resized to --size, rows shifted a little per frame) are the reference; the distorted frame is the same
 * with a deterministic quantisation and noise. Without it the content is a
 * moving synthetic texture. Prints, per model, the pooled mean at full
 * precision (to compare backends), then a last line "fps N": frames over
 * the wall time from the end of the warm-up (the first 10% of the frames,
 * at least 8) to the end of the flush.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "exactvmaf/exactvmaf.h"

#define MAX_MODELS 8
#define MAX_GPUS 16

typedef struct Args {
    const char *models;
    const char *features;   /* --feature NAME[,NAME...]: extractors instead of models */
    unsigned w, h, frames, distinct, threads, fif;
    enum ExactvmafBackend backend;
    enum ExactvmafFp64 fp64;
    int gpu[MAX_GPUS];
    int n_gpu;          /* -1: not given; 0: all */
    const char *source;
    unsigned sw, sh;
    int device_pictures;
} Args;

static int usage(void)
{
    fprintf(stderr, "usage: api_throughput --model NAME[,NAME...] --size WxH --frames N "
                    "[--feature NAME[,NAME...]] [--backend cpu|cuda|opencl|auto] "
                    "[--gpu LIST|all] [--opencl-fp64 auto|off] [--threads N] "
                    "[--frames-in-flight K] [--distinct M] [--source FILE.yuv "
                    "--source-size WxH] [--device-pictures]\n");
    return 2;
}

static int parse_size(const char *s, unsigned *w, unsigned *h)
{
    return sscanf(s, "%ux%u", w, h) == 2 && *w && *h ? 0 : -1;
}

static int parse(int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof(*a));
    a->backend = EXACTVMAF_BACKEND_AUTO;
    a->n_gpu = -1;
    a->distinct = 8;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--device-pictures")) {
            a->device_pictures = 1;
            continue;
        }
        if (!v) return -1;
        i++;
        if (!strcmp(o, "--model")) a->models = v;
        else if (!strcmp(o, "--feature")) a->features = v;
        else if (!strcmp(o, "--opencl-fp64")) {
            if (!strcmp(v, "auto")) a->fp64 = EXACTVMAF_FP64_AUTO;
            else if (!strcmp(v, "off")) a->fp64 = EXACTVMAF_FP64_OFF;
            else return -1;
        }
        else if (!strcmp(o, "--size")) { if (parse_size(v, &a->w, &a->h)) return -1; }
        else if (!strcmp(o, "--frames")) a->frames = (unsigned)atoi(v);
        else if (!strcmp(o, "--distinct")) a->distinct = (unsigned)atoi(v);
        else if (!strcmp(o, "--threads")) a->threads = (unsigned)atoi(v);
        else if (!strcmp(o, "--frames-in-flight")) a->fif = (unsigned)atoi(v);
        else if (!strcmp(o, "--source")) a->source = v;
        else if (!strcmp(o, "--source-size")) { if (parse_size(v, &a->sw, &a->sh)) return -1; }
        else if (!strcmp(o, "--backend")) {
            if (!strcmp(v, "cpu")) a->backend = EXACTVMAF_BACKEND_CPU;
            else if (!strcmp(v, "cuda")) a->backend = EXACTVMAF_BACKEND_CUDA;
            else if (!strcmp(v, "auto")) a->backend = EXACTVMAF_BACKEND_AUTO;
            else if (!strcmp(v, "opencl")) a->backend = EXACTVMAF_BACKEND_OPENCL;
            else return -1;
        } else if (!strcmp(o, "--gpu")) {
            a->n_gpu = 0;
            if (strcmp(v, "all")) {
                for (const char *p = v; *p && a->n_gpu < MAX_GPUS;) {
                    a->gpu[a->n_gpu++] = atoi(p);
                    p += strcspn(p, ",");
                    if (*p == ',') p++;
                }
            }
        } else {
            return -1;
        }
    }
    if ((!a->models == !a->features) || !a->w || !a->frames || !a->distinct) return -1;
    if (a->source && !a->sw) return -1;
    return 0;
}

static uint32_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

/* Frame n of the content: reference plane values, from the source or the texture. */
static void fill(const Args *a, const uint8_t *src, unsigned n, VmafPicture *ref,
                 VmafPicture *dis)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ ((uint64_t)n << 20);
    for (unsigned p = 0; p < 3; p++) {
        const unsigned pw = ref->w[p], ph = ref->h[p];
        const unsigned sw = p ? a->sw / 2 : a->sw, sh = p ? a->sh / 2 : a->sh;
        const size_t off = p ? (size_t)a->sw * a->sh + (p - 1) * (size_t)sw * sh : 0;
        for (unsigned i = 0; i < ph; i++) {
            uint8_t *r = (uint8_t *)ref->data[p] + (size_t)i * ref->stride[p];
            uint8_t *d = (uint8_t *)dis->data[p] + (size_t)i * dis->stride[p];
            for (unsigned j = 0; j < pw; j++) {
                unsigned v;
                if (src) {
                    /* Rows shifted by frame, so that motion is not zero. */
                    v = src[off + (size_t)((i * sh / ph + 3 * n) % sh) * sw + (j * sw / pw)];
                } else {
                    const double x = (double)(j + 3 * n) / (pw + 1), y = (double)(i + n) / (ph + 1);
                    const double t = 0.5 + 0.25 * sin(12.0 * x + 5.0 * y) +
                                     0.15 * cos(31.0 * x * y) + 0.05 * sin(97.0 * x);
                    v = t <= 0 ? 0 : t >= 1 ? 255 : (unsigned)(t * 255);
                }
                /* The distorted frame: quantised by 4 plus a little noise. */
                int dv = (int)(v & ~3u) + (int)(rng(&seed) % 5) - 2;
                r[j] = (uint8_t)v;
                d[j] = (uint8_t)(dv < 0 ? 0 : dv > 255 ? 255 : dv);
            }
        }
    }
}

/*
 * Host picture h copied into device picture d (device 0's primary context,
 * where the library's pool is when no CUDA state is imported), through the
 * driver opened here: the benchmark links only the public API.
 */
static int upload(const VmafPicture *h, VmafPicture *d)
{
    typedef int (*Retain)(void **, int);
    typedef int (*Push)(void *);
    typedef int (*Pop)(void **);
    typedef int (*HtoD)(unsigned long long, const void *, size_t);
    static void *ctx;
    static Push push;
    static Pop pop;
    static HtoD htod;
    if (!ctx) {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW);
        Retain retain = lib ? (Retain)dlsym(lib, "cuDevicePrimaryCtxRetain") : NULL;
        push = lib ? (Push)dlsym(lib, "cuCtxPushCurrent_v2") : NULL;
        pop = lib ? (Pop)dlsym(lib, "cuCtxPopCurrent_v2") : NULL;
        htod = lib ? (HtoD)dlsym(lib, "cuMemcpyHtoD_v2") : NULL;
        if (!retain || !push || !pop || !htod || retain(&ctx, 0)) return -ENODEV;
    }
    if (push(ctx)) return -EIO;
    int err = 0;
    for (unsigned p = 0; p < 3 && !err; p++)
        for (unsigned i = 0; i < h->h[p] && !err; i++)
            err = htod((unsigned long long)(uintptr_t)d->data[p] + (size_t)i * d->stride[p],
                       (const uint8_t *)h->data[p] + (size_t)i * h->stride[p], h->w[p]) ? -EIO : 0;
    void *prev;
    pop(&prev);
    return err;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    Args a;
    if (parse(argc, argv, &a)) return usage();

    uint8_t *src = NULL;
    const size_t src_frame = a.source ? (size_t)a.sw * a.sh * 3 / 2 : 0;
    if (a.source) {
        FILE *f = fopen(a.source, "rb");
        src = malloc(src_frame * a.distinct);
        if (!f || !src) {
            fprintf(stderr, "api_throughput: cannot read %s\n", a.source);
            return 1;
        }
        /* A short source repeats its frames. */
        unsigned n_read = 0;
        for (unsigned k = 0; k < a.distinct; k++) {
            if (n_read == k && fread(src + k * src_frame, 1, src_frame, f) == src_frame) {
                n_read++;
                continue;
            }
            if (!n_read) {
                fprintf(stderr, "api_throughput: %s holds no %ux%u frame\n", a.source, a.sw,
                        a.sh);
                return 1;
            }
            memcpy(src + k * src_frame, src + (k % n_read) * src_frame, src_frame);
        }
        fclose(f);
    }

    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = a.threads };
    int err = vmaf_init(&vmaf, cfg);
    if (!err) err = exactvmaf_set_backend(vmaf, a.backend, a.n_gpu > 0 ? a.gpu[0] : 0);
    if (!err && a.n_gpu >= 0) err = exactvmaf_set_gpus(vmaf, a.gpu, (unsigned)a.n_gpu);
    if (!err && a.fif) err = exactvmaf_set_frames_in_flight(vmaf, a.fif);
    if (!err && a.backend == EXACTVMAF_BACKEND_OPENCL) err = exactvmaf_set_opencl_fp64(vmaf, a.fp64);
    if (err) {
        fprintf(stderr, "api_throughput: cannot set up the context: %s\n", strerror(-err));
        return 1;
    }

    VmafModel *model[MAX_MODELS];
    char name[MAX_MODELS][64];
    unsigned n_model = 0;
    for (const char *p = a.features; p && *p;) {
        const size_t n = strcspn(p, ",");
        char f[64];
        snprintf(f, sizeof(f), "%.*s", (int)n, p);
        err = vmaf_use_feature(vmaf, f, NULL);
        if (err) {
            fprintf(stderr, "api_throughput: feature %s: %s\n", f, strerror(-err));
            return 1;
        }
        p += n;
        if (*p == ',') p++;
    }
    for (const char *p = a.models; p && *p && n_model < MAX_MODELS;) {
        const size_t n = strcspn(p, ",");
        snprintf(name[n_model], sizeof(name[0]), "%.*s", (int)n, p);
        VmafModelConfig mc = { .name = name[n_model] };
        err = vmaf_model_load(&model[n_model], &mc, name[n_model]);
        if (!err) err = vmaf_use_features_from_model(vmaf, model[n_model]);
        if (err) {
            fprintf(stderr, "api_throughput: model %s: %s\n", name[n_model], strerror(-err));
            return 1;
        }
        n_model++;
        p += n;
        if (*p == ',') p++;
    }

    VmafPictureConfiguration pc = { .pic_cnt = 2 * a.distinct };
    pc.pic_params.w = a.w;
    pc.pic_params.h = a.h;
    pc.pic_params.bpc = 8;
    pc.pic_params.pix_fmt = VMAF_PIX_FMT_YUV420P;
    if (a.device_pictures) {
        VmafCudaPictureConfiguration cc = { .pic_prealloc_method =
                                                VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE };
        cc.pic_params.w = a.w;
        cc.pic_params.h = a.h;
        cc.pic_params.bpc = 8;
        cc.pic_params.pix_fmt = VMAF_PIX_FMT_YUV420P;
        err = vmaf_cuda_preallocate_pictures(vmaf, cc);
    } else {
        err = vmaf_preallocate_pictures(vmaf, pc);
    }
    VmafPicture *ref = calloc(a.distinct, sizeof(*ref)), *dis = calloc(a.distinct, sizeof(*dis));
    if (err || !ref || !dis) {
        fprintf(stderr, "api_throughput: cannot preallocate pictures\n");
        return 1;
    }
    for (unsigned k = 0; k < a.distinct && !err; k++) {
        err = vmaf_cuda_fetch_preallocated_picture(vmaf, &ref[k]);
        if (!err) err = vmaf_cuda_fetch_preallocated_picture(vmaf, &dis[k]);
        if (err || !a.device_pictures) {
            if (!err) fill(&a, src ? src + k * src_frame : NULL, k, &ref[k], &dis[k]);
            continue;
        }
        VmafPicture hr, hd;
        err = vmaf_picture_alloc(&hr, pc.pic_params.pix_fmt, 8, a.w, a.h);
        if (err) break;
        err = vmaf_picture_alloc(&hd, pc.pic_params.pix_fmt, 8, a.w, a.h);
        if (!err) {
            fill(&a, src ? src + k * src_frame : NULL, k, &hr, &hd);
            err = upload(&hr, &ref[k]);
            if (!err) err = upload(&hd, &dis[k]);
            vmaf_picture_unref(&hd);
        }
        vmaf_picture_unref(&hr);
    }
    free(src);

    const unsigned warm = a.frames / 10 > 8 ? a.frames / 10 : (a.frames > 8 ? 8 : 0);
    double t0 = now_s();
    for (unsigned i = 0; i < a.frames && !err; i++) {
        if (i == warm) t0 = now_s();
        VmafPicture r, d;
        err = exactvmaf_picture_ref(&r, &ref[i % a.distinct]);
        if (!err) err = exactvmaf_picture_ref(&d, &dis[i % a.distinct]);
        if (!err) err = vmaf_read_pictures(vmaf, &r, &d, i);
    }
    if (!err) err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    const double t1 = now_s();
    if (err) {
        fprintf(stderr, "api_throughput: computing failed: %s\n", strerror(-err));
        return 1;
    }
    for (unsigned m = 0; m < n_model; m++) {
        double score;
        err = vmaf_score_pooled(vmaf, model[m], VMAF_POOL_METHOD_MEAN, &score, 0, a.frames - 1);
        if (err) {
            fprintf(stderr, "api_throughput: pooling %s failed: %s\n", name[m], strerror(-err));
            return 1;
        }
        printf("%s %.17g\n", name[m], score);
        vmaf_model_destroy(model[m]);
    }
    for (unsigned k = 0; k < a.distinct; k++) {
        vmaf_picture_unref(&ref[k]);
        vmaf_picture_unref(&dis[k]);
    }
    free(ref);
    free(dis);
    vmaf_close(vmaf);
    printf("fps %.2f\n", (a.frames - warm) / (t1 - t0));
    return 0;
}
