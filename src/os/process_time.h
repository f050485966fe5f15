/*
 * The portability room's clock of the trace (trace.h): seconds since this
 * process started. Header-only, as trace.h is: the tool's FFmpeg module
 * uses it and sees none of the library's hidden symbols.
 */
#ifndef EXACTVMAF_OS_PROCESS_TIME_H
#define EXACTVMAF_OS_PROCESS_TIME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

/* 100 ns units since 1601. */
static inline double vmaf_os_filetime_seconds(FILETIME f)
{
    return (double)(((unsigned long long)f.dwHighDateTime << 32) | f.dwLowDateTime) * 1e-7;
}

static inline double vmaf_os_process_seconds(void)
{
    FILETIME created, exited, kernel, user, now;
    GetSystemTimeAsFileTime(&now);
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) return 0;
    return vmaf_os_filetime_seconds(now) - vmaf_os_filetime_seconds(created);
}
#elif defined(__linux__)
#include <unistd.h>

/*
 * The kernel's record of the process start: field 22 of /proc/self/stat,
 * clock ticks since boot (10 ms steps), on CLOCK_BOOTTIME's scale; 0 where
 * unknown. CLOCK_BOOTTIME is Linux's (7 on every Linux architecture), named
 * by number so that a strict POSIX compile needs no _GNU_SOURCE.
 */
static inline double vmaf_os_process_seconds(void)
{
    static double start = -1;
    if (start < 0) {
        start = 0;
        FILE *f = fopen("/proc/self/stat", "r");
        if (f) {
            char buf[1024];
            const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
            fclose(f);
            buf[n] = 0;
            /* The command name (field 2) may hold spaces: count from its ')'. */
            const char *p = strrchr(buf, ')');
            for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
            const long tck = sysconf(_SC_CLK_TCK);
            if (p && tck > 0) start = strtod(p + 1, NULL) / tck;
        }
    }
    struct timespec t;
#ifdef CLOCK_BOOTTIME
    clock_gettime(CLOCK_BOOTTIME, &t);
#else
    clock_gettime((clockid_t)7, &t);
#endif
    return t.tv_sec + t.tv_nsec * 1e-9 - start;
}
#else
/* Elsewhere (macOS): since the first call. */
static inline double vmaf_os_process_seconds(void)
{
    static double start = -1;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    const double now = t.tv_sec + t.tv_nsec * 1e-9;
    if (start < 0) start = now;
    return now - start;
}
#endif

#endif
