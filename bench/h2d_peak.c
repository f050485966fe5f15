/*
 * The pinned host-to-device copy peak of one GPU: the ceiling the GPU
 * pipeline's uploads are measured against (bench/gpu.py). Copies a 64 MiB
 * page-locked buffer to the device `reps` times on one stream, timed by
 * events, and prints the best rate.
 *
 * usage: h2d_peak [--gpu N] [--mib M] [--reps R]; last line "h2d_peak_gbps X"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda/cuda_common.h"

int main(int argc, char **argv)
{
    int gpu = 0, mib = 64, reps = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--gpu")) gpu = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mib")) mib = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: h2d_peak [--gpu N] [--mib M] [--reps R]\n");
            return 2;
        }
    }
    if (mib <= 0 || mib > 4096 || reps <= 0 || reps > 1000) {
        fprintf(stderr, "h2d_peak: --mib 1..4096, --reps 1..1000\n");
        return 2;
    }
    char why[256] = "";
    VmafCudaState *st = NULL;
    if (evc_state_open(&st, gpu, why, sizeof(why))) {
        fprintf(stderr, "h2d_peak: no CUDA device %d: %s\n", gpu, why);
        return 77;
    }
    const EvcDriver *d = evc_driver();
    const size_t bytes = (size_t)mib << 20;
    void *host = NULL;
    CUdeviceptr dev = 0;
    CUstream s = NULL;
    CUevent e0 = NULL, e1 = NULL;
    char name[128];
    snprintf(name, sizeof(name), "%s", evc_state_device_name(st));
    const int pushed = !evc_push(st);
    int err = pushed ? 0 : -1;
    if (!err) err = evc_host_alloc(st, &host, bytes);
    if (!err) err = evc_alloc(st, &dev, bytes);
    if (!err) err = EVC_CHECK(d->cuStreamCreate(&s, EVC_CU_STREAM_NON_BLOCKING));
    if (!err) err = EVC_CHECK(d->cuEventCreate(&e0, EVC_CU_EVENT_DEFAULT));
    if (!err) err = EVC_CHECK(d->cuEventCreate(&e1, EVC_CU_EVENT_DEFAULT));
    if (!err) memset(host, 1, bytes);
    double best = 0;
    for (int r = 0; r < reps + 1 && !err; r++) {   /* the first copy warms up */
        float ms = 0;
        err = EVC_CHECK(d->cuEventRecord(e0, s));
        if (!err) err = EVC_CHECK(d->cuMemcpyHtoDAsync(dev, host, bytes, s));
        if (!err) err = EVC_CHECK(d->cuEventRecord(e1, s));
        if (!err) err = EVC_CHECK(d->cuEventSynchronize(e1));
        if (!err) err = EVC_CHECK(d->cuEventElapsedTime(&ms, e0, e1));
        if (!err && r > 0 && ms > 0 && bytes / (ms * 1e6) > best) best = bytes / (ms * 1e6);
    }
    if (e1) d->cuEventDestroy(e1);
    if (e0) d->cuEventDestroy(e0);
    if (s) d->cuStreamDestroy(s);
    evc_free(st, &dev, bytes);
    evc_host_free(st, &host);
    if (pushed) evc_pop(st);
    evc_state_close(st);
    if (err) {
        fprintf(stderr, "h2d_peak: a CUDA call failed (%d)\n", err);
        return 1;
    }
    printf("%s: %d MiB pinned host -> device, best of %d\n", name, mib, reps);
    printf("h2d_peak_gbps %.2f\n", best);
    return 0;
}
