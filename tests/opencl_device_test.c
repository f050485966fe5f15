/*
 * The OpenCL device layer (src/gpu/opencl/opencl_device.h) on the first
 * OpenCL device: enumeration and device specs, memory and copies at
 * offsets, a kernel with a (buffer, offset) argument pair, events across
 * two queues, no contraction under the build options, and the error paths
 * (a program that does not build, a kernel that is not there). Exits 77
 * (skipped) without OpenCL or without a device (a failure under
 * EXACTVMAF_REQUIRE_GPU=1, tests/no_device.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exactvmaf/exactvmaf.h"
#include "gpu/opencl/opencl_device.h"
#include "no_device.h"

static unsigned checks, failures;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; printf("FAIL %s:%d: ", \
    __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* Everything logged since the last log_clear(), for checks on messages. */
static char log_text[65536];
static size_t log_len;

static void log_cb(void *opaque, enum VmafLogLevel level, const char *msg)
{
    (void)opaque;
    (void)level;
    fprintf(stderr, "  [log] %s\n", msg);
    const int n = snprintf(log_text + log_len, sizeof(log_text) - log_len, "%s\n", msg);
    if (n > 0) log_len += (size_t)n < sizeof(log_text) - log_len ? (size_t)n : 0;
}

static void log_clear(void)
{
    log_len = 0;
    log_text[0] = '\0';
}

/* The test's own prelude: the library prepends nothing (ev_opencl.h is
 * inlined by cl2c.py at build time), so the macros are repeated here. */
static const char good_src[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#if EV_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#define EV_BUF(T, name) global T *name##_mem_, ulong name##_off_\n"
    "#define EV_AT(T, name) ((global T *)((global uchar *)name##_mem_ + name##_off_))\n"
    "kernel void add(EV_BUF(int, buf), int v, int n)\n"
    "{\n"
    "    global int *b = EV_AT(int, buf);\n"
    "    const int i = (int)get_global_id(0);\n"
    "    if (i < n) b[i] += v;\n"
    "}\n"
    "kernel void fp(EV_BUF(float, out), float a, float b, float c)\n"
    "{\n"
    "    global float *o = EV_AT(float, out);\n"
    "    o[0] = a * b + c;\n"
    "    o[1] = (float)EV_FP64;\n"
    "#if EV_FP64\n"
    "    o[2] = (float)((double)a * (double)b + (double)c);\n"
    "#else\n"
    "    o[2] = -1.0f;\n"
    "#endif\n"
    "}\n";

static const char bad_src[] =
    "kernel void broken(global int *p)\n"
    "{\n"
    "    p[0] = undeclared_thing +;\n"
    "}\n";

static const VmafGpuBlob good_blobs[] = { { "opencl", good_src }, { NULL, NULL } };
static const VmafGpuBlob bad_blobs[] = { { "opencl", bad_src }, { NULL, NULL } };
/* A blob for another backend only: OpenCL has nothing to build. */
static const VmafGpuBlob cuda_blobs[] = { { "cuda", good_src }, { NULL, NULL } };
static const VmafGpuProgram good = { "opencl_device_test", good_blobs };
static const VmafGpuProgram bad = { "broken_program", bad_blobs };
static const VmafGpuProgram none = { "cuda_only", cuda_blobs };

/* Threads asking for the same program at once: one build, a kernel each. */
static const VmafGpuProgram shared_prog = { "shared", good_blobs };

typedef struct Asker {
    VmafGpuDev *d;
    VmafGpuKernel *k;
    int err;
} Asker;

static void *ask(void *arg)
{
    Asker *a = arg;
    a->err = a->d->ops->kernel(a->d, &shared_prog, "add", &a->k);
    return NULL;
}

static void check_threads(VmafGpuDev *d)
{
    enum { T = 4 };
    pthread_t t[T];
    Asker a[T];
    bool started[T];
    for (int i = 0; i < T; i++) {
        a[i] = (Asker){ d, NULL, -1 };
        started[i] = !pthread_create(&t[i], NULL, ask, &a[i]);
    }
    for (int i = 0; i < T; i++) {
        if (started[i]) pthread_join(t[i], NULL);
        CHECK(started[i] && !a[i].err && a[i].k, "thread %d: kernel %d", i, a[i].err);
        for (int j = 0; j < i; j++) CHECK(a[i].k != a[j].k, "threads %d, %d share a kernel", i, j);
    }
}

static void check_specs(int n)
{
    int idx = -1;
    CHECK(evl_device_parse("0", &idx) == 0 && idx == 0, "spec 0 -> %d", idx);
    idx = -1;
    CHECK(evl_device_parse("0:0", &idx) == 0 && idx == 0, "spec 0:0 -> %d", idx);
    char spec[32];
    snprintf(spec, sizeof(spec), "%d", n);
    const char *bad_specs[] = { "", "abc", "1:", ":0", "0:0:0", "-1", "0:99", "99:0", spec };
    for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]); i++) {
        log_clear();
        CHECK(evl_device_parse(bad_specs[i], &idx) == -EINVAL && log_len,
              "spec \"%s\" is refused with a message", bad_specs[i]);
    }
    CHECK(evl_device_parse(NULL, &idx) == -EINVAL, "NULL spec");
}

static void check_options(void)
{
    static const char *const relaxing[] = {
        "-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only", "-cl-denorms-are-zero", "-cl-no-signed-zeros",
    };
    const char *opts[2] = { EVL_BUILD_OPTIONS(0), EVL_BUILD_OPTIONS(1) };
    for (int f = 0; f < 2; f++) {
        CHECK(strstr(opts[f], "-cl-std=CL1.2") != NULL, "options \"%s\" lack -cl-std", opts[f]);
        CHECK(strstr(opts[f], f ? "-DEV_FP64=1" : "-DEV_FP64=0") != NULL,
              "options \"%s\" for fp64=%d", opts[f], f);
        for (size_t i = 0; i < sizeof(relaxing) / sizeof(relaxing[0]); i++)
            CHECK(!strstr(opts[f], relaxing[i]), "options \"%s\" relax with %s", opts[f],
                  relaxing[i]);
    }
}

/* fp64 modes: ON needs the device's doubles, OFF builds EV_FP64=0. */
static void check_fp64_modes(const EvlDeviceInfo *info)
{
    char why[256] = "";
    VmafGpuDev *d = NULL;
    int err = evl_device_open(&d, 0, EVL_FP64_ON, why, sizeof(why));
    if (info->fp64) {
        CHECK(!err && evl_device_fp64(d), "fp64 on: %d (%s)", err, why);
    } else {
        CHECK(err == -ENOTSUP && strstr(why, "double"), "fp64 on without doubles: %d (%s)",
              err, why);
    }
    if (d) d->ops->close(d);
    d = NULL;
    err = evl_device_open(&d, 0, EVL_FP64_OFF, why, sizeof(why));
    CHECK(!err && !evl_device_fp64(d) && strstr(evl_device_build_options(d), "-DEV_FP64=0"),
          "fp64 off: %d (%s)", err, why);
    if (d) d->ops->close(d);
    d = NULL;
    CHECK(evl_device_open(&d, 0, 7, why, sizeof(why)) == -EINVAL && !d, "fp64 mode 7");
    CHECK(evl_device_open(&d, 1 << 20, EVL_FP64_AUTO, why, sizeof(why)) == -ENODEV && !d,
          "device 1<<20: %s", why);
}

static void run(VmafGpuDev *d, const EvlDeviceInfo *info)
{
    const VmafGpuOps *o = d->ops;
    VmafGpuQueue *q1 = NULL, *q2 = NULL;
    VmafGpuEvent *e1 = NULL, *e2 = NULL, *never = NULL;
    VmafGpuPtr buf = { 0, 0 }, buf2 = { 0, 0 }, buf3 = { 0, 0 }, empty = { 0, 0 };
    VmafGpuKernel *add = NULL, *add2 = NULL, *fp = NULL, *k = NULL;
    int32_t *host = NULL;
    unsigned char *bytes = NULL;
    enum { N = 256, OFF = 64, BUF = OFF + N * 4 };

    CHECK(!strcmp(o->name, "opencl"), "ops identity");
    CHECK(strstr(o->device_name(d), "(OpenCL, ") && strstr(o->device_name(d), info->name),
          "device name \"%s\"", o->device_name(d));
    CHECK(o->enter(d) == 0, "enter");
    o->leave(d);

    int err = o->queue_create(d, &q1);
    if (!err) err = o->queue_create(d, &q2);
    if (!err) err = o->event_create(d, &e1, true);
    if (!err) err = o->event_create(d, &e2, true);
    if (!err) err = o->event_create(d, &never, false);
    if (!err) err = o->alloc(d, &buf, BUF);
    if (!err) err = o->host_alloc(d, (void **)&host, BUF);
    CHECK(!err, "setup: %d", err);
    if (err) goto end;
    CHECK(((uintptr_t)host & 4095) == 0, "host memory page-aligned");

    size_t free_b = 0, total_b = 0;
    CHECK(!o->mem_info(d, &free_b, &total_b) && total_b == info->global_mem &&
          free_b == total_b - BUF, "mem_info %zu of %zu", free_b, total_b);

    /* Zero bytes is a valid request, and free clears the handle. */
    CHECK(!o->alloc(d, &empty, 0) && empty.mem, "alloc 0");
    o->free(d, &empty, 0);
    CHECK(!empty.mem && !empty.off, "free clears the pointer");
    o->free(d, &empty, 0);

    /* Upload, add 5 to the ints past OFF bytes on q1, download on q2 after e1. */
    int32_t src[BUF / 4];
    for (int i = 0; i < BUF / 4; i++) src[i] = 1000 * i - 7;
    const int v = 5, n = N;
    const VmafGpuPtr at = vmaf_gpu_at(buf, OFF);
    err = o->upload(q1, buf, src, BUF);
    CHECK(!err, "upload: %d", err);
    err = o->kernel(d, &good, "add", &add);
    CHECK(!err && add, "kernel add: %d", err);
    if (add) {
        const VmafGpuArg args[] = { VMAF_GPU_ARG(at), VMAF_GPU_ARG(v), VMAF_GPU_ARG(n) };
        err = o->launch(q1, add, N / 64, 1, 1, 64, 1, args, 3);
        CHECK(!err, "launch: %d", err);
        log_clear();
        CHECK(o->launch(q1, add, 0, 1, 1, 64, 1, args, 3) == -EINVAL && log_len,
              "empty grid refused");
    }
    CHECK(!o->record(q1, e1), "record e1");
    CHECK(!o->wait(q2, e1), "q2 waits for e1");
    CHECK(!o->download(q2, host, buf, BUF), "download");
    CHECK(!o->record(q2, e2), "record e2");
    CHECK(!o->sync(e2), "sync e2");
    bool ok = true;
    for (int i = 0; i < BUF / 4; i++) ok &= host[i] == src[i] + (i >= OFF / 4 ? v : 0);
    CHECK(ok, "add at an offset of %d bytes", OFF);
    const double ms = o->elapsed_ms(e1, e2);
    CHECK(ms >= 0.0, "elapsed_ms %g", ms);
    CHECK(o->elapsed_ms(e1, never) == -1.0, "elapsed_ms of a never-recorded event");

    /* A second record replaces the first; an unrecorded event waits for nothing. */
    CHECK(!o->record(q1, e1) && !o->record(q1, e1) && !o->sync(e1), "re-record e1");
    CHECK(o->wait(q1, never) == 0 && o->sync(never) == 0, "never-recorded event");

    /* The program is built once; each call makes a kernel of its own. */
    err = o->kernel(d, &good, "add", &add2);
    CHECK(!err && add2 && add2 != add, "second kernel add: %d", err);

    /* memset0 at an offset. */
    CHECK(!o->memset0(q1, vmaf_gpu_at(buf, OFF + 4), 128), "memset0");
    CHECK(!o->memset0(q1, buf, 0), "memset0 of 0 bytes");
    CHECK(!o->download(q1, host, buf, BUF) && !o->queue_sync(q1), "download after memset0");
    ok = true;
    for (int i = 0; i < BUF / 4; i++) {
        const bool zeroed = i >= (OFF + 4) / 4 && i < (OFF + 4 + 128) / 4;
        ok &= host[i] == (zeroed ? 0 : src[i] + (i >= OFF / 4 ? v : 0));
    }
    CHECK(ok, "memset0 cleared exactly its bytes");

    /* copy between offsets of two buffers. */
    bytes = (unsigned char *)host;
    unsigned char expect[BUF];
    memcpy(expect, host, BUF);
    err = o->alloc(d, &buf2, 200);
    CHECK(!err, "alloc buf2");
    if (!err) {
        CHECK(!o->memset0(q1, buf2, 200), "memset0 buf2");
        CHECK(!o->copy(q1, vmaf_gpu_at(buf2, 8), vmaf_gpu_at(buf, OFF - 4), 100), "copy");
        CHECK(!o->copy(q1, buf2, buf, 0), "copy of 0 bytes");
        CHECK(!o->download(q1, bytes, buf2, 200) && !o->queue_sync(q1), "download buf2");
        ok = true;
        for (int i = 0; i < 200; i++)
            ok &= bytes[i] == (i >= 8 && i < 108 ? expect[OFF - 4 + i - 8] : 0);
        CHECK(ok, "copy moved exactly its bytes");
    }

    /* upload_2d: 9 rows of 17 bytes from rows 24 apart, packed at offset 3. */
    enum { W = 17, H = 9, SP = 24 };
    unsigned char rows[SP * H];
    for (int i = 0; i < SP * H; i++) rows[i] = (unsigned char)(i * 7 + 1);
    err = o->alloc(d, &buf3, 3 + W * H + 5);
    CHECK(!err, "alloc buf3");
    if (!err) {
        CHECK(!o->memset0(q2, buf3, 3 + W * H + 5), "memset0 buf3");
        CHECK(!o->upload_2d(q2, vmaf_gpu_at(buf3, 3), rows, SP, W, H), "upload_2d");
        CHECK(!o->upload_2d(q2, buf3, rows, SP, 0, H), "upload_2d of 0 bytes");
        CHECK(!o->download(q2, bytes, buf3, 3 + W * H + 5) && !o->queue_sync(q2),
              "download buf3");
        ok = true;
        for (int i = 0; i < 3 + W * H + 5; i++) {
            const int j = i - 3;
            ok &= bytes[i] == (j >= 0 && j < W * H ? rows[j / W * SP + j % W] : 0);
        }
        CHECK(ok, "upload_2d packed the rows");
    }

    /* No contraction: with a = b = 1 + 2^-12 and c = -(1 + 2^-11), a * b + c
     * is 0 in two roundings and 2^-24 fused. */
    err = o->kernel(d, &good, "fp", &fp);
    CHECK(!err, "kernel fp: %d", err);
    if (fp) {
        const float a = 1.0f + 1.0f / 4096, b = a, c = -(1.0f + 1.0f / 2048);
        const VmafGpuPtr out = vmaf_gpu_at(buf, 16);
        const VmafGpuArg args[] = { VMAF_GPU_ARG(out), VMAF_GPU_ARG(a), VMAF_GPU_ARG(b),
                                    VMAF_GPU_ARG(c) };
        float res[3] = { -9, -9, -9 };
        CHECK(!o->launch(q1, fp, 1, 1, 1, 1, 1, args, 4), "launch fp");
        CHECK(!o->download(q1, res, out, sizeof(res)) && !o->queue_sync(q1), "download fp");
        CHECK(res[0] == 0.0f, "a * b + c = %a: contracted", res[0]);
        CHECK(res[1] == (evl_device_fp64(d) ? 1.0f : 0.0f), "EV_FP64 %g", res[1]);
        if (evl_device_fp64(d))
            CHECK(res[2] == (float)((double)a * b + c), "double %a", res[2]);
    }

    /* Errors: a program that does not build, a kernel that is not there, no source. */
    log_clear();
    k = NULL;
    err = o->kernel(d, &bad, "broken", &k);
    CHECK(err == -EINVAL && !k, "broken program: %d", err);
    CHECK(strstr(log_text, "broken_program") && strstr(log_text, "build log") &&
          strstr(log_text, "undeclared_thing"), "the build log was logged");
    log_clear();
    err = o->kernel(d, &good, "nope", &k);
    CHECK(err == -EINVAL && !k && strstr(log_text, "CL_INVALID_KERNEL_NAME") &&
          strstr(log_text, "nope"), "unknown kernel: %d", err);
    log_clear();
    err = o->kernel(d, &none, "add", &k);
    CHECK(err == -ENOSYS && !k && !log_len, "program without OpenCL source: %d", err);

end:
    if (host) o->host_free(d, (void **)&host);
    CHECK(!host, "host_free clears the pointer");
    o->free(d, &buf, BUF);
    o->free(d, &buf2, 200);
    o->free(d, &buf3, 3 + W * H + 5);
    CHECK(!o->mem_info(d, &free_b, &total_b) && free_b == total_b, "all memory returned");
    o->event_destroy(d, e1);
    o->event_destroy(d, e2);
    o->event_destroy(d, never);
    o->queue_destroy(d, q1);
    o->queue_destroy(d, q2);
}

int main(void)
{
    exactvmaf_set_default_logger(log_cb, NULL);
    char why[256] = "";
    int n = 0;
    int err = evl_driver_load(why, sizeof(why));
    if (!err) err = evl_device_count(&n, why, sizeof(why));
    if (err || !n) {
        return no_device("opencl_device_test: no OpenCL device: %s", why);
    }
    CHECK(evl_list_devices(stdout) == n, "list_devices");
    CHECK(!strcmp(evl_error_name(-5), "CL_OUT_OF_RESOURCES") &&
          !strcmp(evl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR"), "error names");
    log_clear();
    CHECK(evl_check(-4, "call()", "f.c", 1) == -ENOMEM && evl_check(-6, "c", "f", 1) == -ENOMEM &&
          evl_check(-1, "c", "f", 1) == -ENODEV && evl_check(-38, "c", "f", 1) == -EINVAL &&
          evl_check(-5, "c", "f", 1) == -EIO && evl_check(0, "c", "f", 1) == 0,
          "error codes to errno");
    /* The function's name; our source line is not for people (debug level only). */
    CHECK(strstr(log_text, "opencl: call failed with CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)\n") !=
          NULL && !strstr(log_text, "f.c"), "check message: %s", log_text);

    EvlDeviceInfo info;
    err = evl_device_info(0, &info);
    CHECK(!err && info.flat_index == 0 && info.name[0], "device info: %d", err);
    CHECK(evl_device_info(n, &info) == -ENODEV, "device info out of range");
    err = evl_device_info(0, &info);
    check_specs(n);
    check_options();
    check_fp64_modes(&info);

    VmafGpuDev *d = NULL;
    err = evl_device_open(&d, 0, EVL_FP64_AUTO, why, sizeof(why));
    CHECK(!err, "open device 0: %d (%s)", err, why);
    if (!err) {
        printf("device 0: %s, fp64 %s, options \"%s\"\n", d->ops->device_name(d),
               evl_device_fp64(d) ? "yes" : "no", evl_device_build_options(d));
        CHECK(evl_device_fp64(d) == info.fp64, "fp64 auto");
        CHECK(!strcmp(evl_device_build_options(d), EVL_BUILD_OPTIONS(info.fp64)),
              "build options");
        run(d, &info);
        check_threads(d);
        d->ops->close(d);
    }
    printf("%u checks, %u failed\n", checks, failures);
    return failures ? 1 : 0;
}
