/*
 * src/log.c's holds: errors held back for a target and released shown or
 * dropped; the first one handed to the caller; nesting (what an inner hold
 * shows passes to the enclosing one); the holds' reach (every thread bound
 * to the target, never the default target); the debug level, where a held
 * error is told as it happens; the cap on kept errors; allocation failure.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "unit.h"

static char text[4096];

/* "E:message" or "D:message", one a line, in the order they came. */
static void capture(void *opaque, enum VmafLogLevel level, const char *message)
{
    (void)opaque;
    const size_t n = strlen(text);
    snprintf(text + n, sizeof(text) - n, "%c:%s\n",
             level == VMAF_LOG_LEVEL_ERROR ? 'E' : level == VMAF_LOG_LEVEL_DEBUG ? 'D' : 'I',
             message);
}

static uint64_t target(enum VmafLogLevel level)
{
    const uint64_t id = vmaf_log_register(level);
    CHECK(id != 0);
    CHECK(vmaf_log_set_callback(id, capture, NULL) == 0);
    vmaf_log_bind(id);
    text[0] = '\0';
    return id;
}

static void done(uint64_t id)
{
    vmaf_log_bind(0);
    vmaf_log_unregister(id);
}

static void test_release(void)
{
    const uint64_t id = target(VMAF_LOG_LEVEL_INFO);
    char first[64];
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "a %d", 1);
    vmaf_log(VMAF_LOG_LEVEL_INFO, "notice");       /* not an error: not held */
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "b");
    CHECK(!strcmp(text, "I:notice\n"));
    vmaf_log_release(id, false, first, sizeof(first));
    CHECK(!strcmp(first, "a 1"));
    CHECK(!strcmp(text, "I:notice\n"));

    text[0] = '\0';
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "c");
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "d");
    vmaf_log_release(id, true, NULL, 0);
    CHECK(!strcmp(text, "E:c\nE:d\n"));

    /* Released: errors are shown as they come; a hold without errors gives "". */
    text[0] = '\0';
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "e");
    CHECK(!strcmp(text, "E:e\n"));
    vmaf_log_hold(id);
    strcpy(first, "x");
    vmaf_log_release(id, true, first, sizeof(first));
    CHECK(!strcmp(first, ""));
    /* A release without a hold changes nothing. */
    vmaf_log_release(id, true, first, sizeof(first));
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "f");
    CHECK(!strcmp(text, "E:e\nE:f\n"));
    done(id);
}

static void test_nested(void)
{
    const uint64_t id = target(VMAF_LOG_LEVEL_INFO);
    char first[64];
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "outer");
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "dropped");
    vmaf_log_release(id, false, first, sizeof(first));
    CHECK(!strcmp(first, "dropped"));
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "passed on");
    vmaf_log_release(id, true, first, sizeof(first));
    CHECK(!strcmp(first, "passed on"));
    CHECK(!strcmp(text, ""));                      /* the outer hold still holds */
    vmaf_log_release(id, true, first, sizeof(first));
    CHECK(!strcmp(first, "outer"));
    CHECK(!strcmp(text, "E:outer\nE:passed on\n"));

    /* Deeper than the holds kept apart: the deepest share the innermost. */
    text[0] = '\0';
    for (int i = 0; i < 6; i++) vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "deep");
    for (int i = 0; i < 5; i++) vmaf_log_release(id, true, NULL, 0);
    CHECK(!strcmp(text, ""));
    vmaf_log_release(id, true, NULL, 0);
    CHECK(!strcmp(text, "E:deep\n"));
    done(id);
}

static void test_cap(void)
{
    const uint64_t id = target(VMAF_LOG_LEVEL_INFO);
    vmaf_log_hold(id);
    for (int i = 0; i < 11; i++) vmaf_log(VMAF_LOG_LEVEL_ERROR, "%d", i);
    vmaf_log_release(id, true, NULL, 0);
    CHECK(!strcmp(text, "E:0\nE:1\nE:2\nE:3\nE:4\nE:5\nE:6\nE:7\nE:(3 more errors)\n"));

    /* Passed on to a full enclosing hold, the count goes on. */
    text[0] = '\0';
    vmaf_log_hold(id);
    for (int i = 0; i < 7; i++) vmaf_log(VMAF_LOG_LEVEL_ERROR, "o%d", i);
    vmaf_log_hold(id);
    for (int i = 0; i < 3; i++) vmaf_log(VMAF_LOG_LEVEL_ERROR, "i%d", i);
    vmaf_log_release(id, true, NULL, 0);
    vmaf_log_release(id, true, NULL, 0);
    CHECK(!strcmp(text, "E:o0\nE:o1\nE:o2\nE:o3\nE:o4\nE:o5\nE:o6\nE:i0\nE:(2 more errors)\n"));

    /* Unregistered while held: what was kept goes (the sanitizer build sees leaks). */
    vmaf_log_hold(id);
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "gone");
    done(id);
}

static void test_debug(void)
{
    /* At the debug level a held error is told as debug where it happens. */
    const uint64_t id = target(VMAF_LOG_LEVEL_DEBUG);
    char first[64];
    vmaf_log_hold(id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "held");
    CHECK(!strcmp(text, "D:held\n"));
    vmaf_log_release(id, false, first, sizeof(first));
    CHECK(!strcmp(first, "held"));
    CHECK(!strcmp(text, "D:held\n"));
    done(id);
}

static uint64_t worker_id;

static void *worker(void *arg)
{
    (void)arg;
    vmaf_log_bind(worker_id);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "from a worker");
    return NULL;
}

static void test_reach(void)
{
    /* Every thread bound to the target is held. */
    const uint64_t id = worker_id = target(VMAF_LOG_LEVEL_INFO);
    char first[64];
    vmaf_log_hold(id);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
    pthread_join(t, NULL);
    CHECK(!strcmp(text, ""));
    vmaf_log_release(id, false, first, sizeof(first));
    CHECK(!strcmp(first, "from a worker"));

    /* Another target is not. */
    const uint64_t other = vmaf_log_register(VMAF_LOG_LEVEL_INFO);
    CHECK(vmaf_log_set_callback(other, capture, NULL) == 0);
    vmaf_log_hold(id);
    vmaf_log_bind(other);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "other");
    vmaf_log_bind(id);
    vmaf_log_release(id, false, NULL, 0);
    CHECK(!strcmp(text, "E:other\n"));
    vmaf_log_unregister(other);
    done(id);

    /* Nor the default target, whose threads are any caller's. */
    unit_capture_log();
    unit_log_clear();
    vmaf_log_hold(0);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "default");
    vmaf_log_release(0, false, NULL, 0);
    CHECK(!strcmp(unit_log(), "default\n"));
}

static void test_alloc_failure(void)
{
    /* A message that cannot be kept is counted; the others are kept. */
    const uint64_t id = target(VMAF_LOG_LEVEL_INFO);
    vmaf_log_hold(id);
    unit_fail_alloc(0);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "lost");
    CHECK(unit_alloc_failed());
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "kept");
    char first[64];
    vmaf_log_release(id, true, first, sizeof(first));
    CHECK(!strcmp(first, "kept"));
    CHECK(!strcmp(text, "E:kept\nE:(1 more errors)\n"));
    done(id);
}

int main(void)
{
    test_release();
    test_nested();
    test_cap();
    test_debug();
    test_reach();
    test_alloc_failure();
    return unit_report("log");
}
