/* What the unit tests share (unit.h): the --wrap targets, the log buffer. */
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "exactvmaf/exactvmaf.h"
#include "unit.h"

int unit_checks, unit_failures;

static long countdown = -1;
static bool failed;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

void unit_fail_alloc(long n)
{
    countdown = n;
    failed = false;
}

bool unit_alloc_failed(void)
{
    const bool f = failed;
    countdown = -1;
    failed = false;
    return f;
}

bool unit_alloc_failed_yet(void)
{
    return failed;
}

/* True for the one allocation that is to fail. */
static bool fail_now(void)
{
    if (countdown < 0) return false;
    if (countdown-- > 0) return false;
    failed = true;
    return true;
}

void *__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fail_now() ? NULL : __real_strdup(s);
}

static char log_text[8192];

static void log_to_buffer(void *opaque, enum VmafLogLevel level, const char *message)
{
    const size_t n = strlen(log_text);
    snprintf(log_text + n, sizeof(log_text) - n, "%s\n", message);
}

void unit_capture_log(void)
{
    exactvmaf_set_default_logger(log_to_buffer, NULL);
}

const char *unit_log(void)
{
    return log_text;
}

void unit_log_clear(void)
{
    log_text[0] = '\0';
}

int unit_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}
