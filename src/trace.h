/*
 * EXACTVMAF_TRACE=1: one stderr line per phase of a run ("exactvmaf trace
 * 0.412 s: ..."), seconds since the process started, so that a run's fixed
 * costs (device and decoder start-up, the first frame, the end) can be
 * measured where they happen. Header-only and free of the library's state:
 * the command-line tool, which sees the public API only, uses it too, and
 * both print on one time base (the kernel's record of the process start).
 */
#ifndef EXACTVMAF_TRACE_H
#define EXACTVMAF_TRACE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "os/process_time.h"

static inline bool ev_trace_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("EXACTVMAF_TRACE");
        on = e && !strcmp(e, "1");
    }
    return on;
}

static inline void ev_trace(const char *fmt, ...)
{
    if (!ev_trace_on()) return;
    const double t = vmaf_os_process_seconds();
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "exactvmaf trace %.3f s: %s\n", t, line);
}

/* A monotonic clock in seconds, for time summed over a run's calls (0 when
 * tracing is off, so that the sums cost nothing then). */
static inline double ev_trace_clock(void)
{
    if (!ev_trace_on()) return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#endif
