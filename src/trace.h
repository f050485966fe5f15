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
#include <unistd.h>

static inline bool ev_trace_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("EXACTVMAF_TRACE");
        on = e && !strcmp(e, "1");
    }
    return on;
}

/* The process's start on CLOCK_BOOTTIME's scale, in seconds: field 22 of
 * /proc/self/stat, in clock ticks since boot (10 ms steps; 0 where unknown). */
static inline double ev_trace_process_start(void)
{
    static double start = -1;
    if (start >= 0) return start;
    start = 0;
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return start;
    char buf[1024];
    const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    /* The command name (field 2) may hold spaces: count from its ')'. */
    const char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
    const long tck = sysconf(_SC_CLK_TCK);
    if (p && tck > 0) start = strtod(p + 1, NULL) / tck;
    return start;
}

static inline void ev_trace(const char *fmt, ...)
{
    if (!ev_trace_on()) return;
    struct timespec t;
    clock_gettime(CLOCK_BOOTTIME, &t);
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "exactvmaf trace %.3f s: %s\n",
            t.tv_sec + t.tv_nsec * 1e-9 - ev_trace_process_start(), line);
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
