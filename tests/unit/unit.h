/*
 * What the unit tests share: CHECK, which counts and reports without
 * stopping, and allocation failure on demand.
 *
 * The unit tests link with -Wl,--wrap for malloc, calloc, realloc, strdup
 * and strndup (unit/meson.build), so every allocation the library's code
 * makes goes through alloc_fail.c. unit_fail_alloc(n) makes the n-th
 * allocation from then on (0: the next) return NULL, once; a test runs an
 * operation with n = 0, 1, 2, ... until it completes without reaching the
 * failure, and so takes every error path an allocation has. Leaks on those
 * paths are the sanitizer build's to find (scripts/run-asan-tests.sh).
 * Single-threaded: arm a failure only where one thread allocates.
 */
#ifndef EXACTVMAF_TESTS_UNIT_H
#define EXACTVMAF_TESTS_UNIT_H

#include <stdbool.h>
#include <stdio.h>

extern int unit_checks, unit_failures;

#define CHECK(cond) do { \
    unit_checks++; \
    if (!(cond)) { \
        unit_failures++; \
        fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    } \
} while (0)

/** Fail the n-th allocation from now (0: the next one); -1: none. */
void unit_fail_alloc(long n);
/** Whether the failure set by unit_fail_alloc() has happened; disarms it. */
bool unit_alloc_failed(void);
/** Whether it has happened, leaving it armed when not. */
bool unit_alloc_failed_yet(void);

/**
 * Messages outside every context go to a buffer from now on (the default
 * logger): unit_log() is what was logged since the last unit_log_clear(),
 * one message a line.
 */
void unit_capture_log(void);
const char *unit_log(void);
void unit_log_clear(void);

/** Print the tally; the exit status for main(). */
int unit_report(const char *name);

#endif
