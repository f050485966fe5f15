/*
 * What a C test does when the machine lacks the GPU, CUDA or OpenCL device
 * it needs: it exits 77 (meson's skip), or, with EXACTVMAF_REQUIRE_GPU=1
 * (scripts/gpu-check.sh, on a machine that has the GPU), fails, so that a
 * broken backend never reads as a skip. tests/testlib.py's no_device() is
 * the same for the Python tests.
 */
#ifndef EXACTVMAF_TESTS_NO_DEVICE_H
#define EXACTVMAF_TESTS_NO_DEVICE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints why on stdout ("SKIP: ..." or "FAIL: ...") and returns the exit
 * status: 77, or 1 under EXACTVMAF_REQUIRE_GPU=1. */
static inline int no_device(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static inline int no_device(const char *fmt, ...)
{
    const char *req = getenv("EXACTVMAF_REQUIRE_GPU");
    const int required = req && !strcmp(req, "1");
    va_list ap;
    va_start(ap, fmt);
    fputs(required ? "FAIL: " : "SKIP: ", stdout);
    vprintf(fmt, ap);
    va_end(ap);
    puts(required ? " (EXACTVMAF_REQUIRE_GPU=1: a device must be there)" : "");
    fflush(stdout);
    return required ? 1 : 77;
}

#endif
