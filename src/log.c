/*
 * Logging per context. A context registers a log target (its level, and
 * the caller's callback if any) under a number; a thread doing a context's
 * work (its API calls, its workers, its GPU completion thread) binds that
 * number, and vmaf_log() finds the target by it. A number outlives its
 * context harmlessly: a closed context's number is simply not found, and
 * its messages go to the default target (the default callback, or stderr).
 */
#include <pthread.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"

#define HELD_MAX 8

typedef struct LogTarget {
    uint64_t id;
    int level;
    ExactvmafLogCallback cb;
    void *opaque;
    /* Errors held back (vmaf_log_hold), the first HELD_MAX of them. */
    bool hold;
    unsigned n_held;
    char *held[HELD_MAX];
} LogTarget;

static pthread_mutex_t targets_lock = PTHREAD_MUTEX_INITIALIZER;
static LogTarget *targets;
static unsigned n_targets, cap_targets;
static uint64_t next_id = 1;
/* Messages outside every context: the level of the most recent
 * configuration (as libvmaf), and the default callback. */
static int default_level = VMAF_LOG_LEVEL_WARNING;
static ExactvmafLogCallback default_cb;
static void *default_opaque;

static _Thread_local uint64_t bound_id;
static _Thread_local bool errors_held;
static _Thread_local char held_error[512];

void vmaf_log_hold_errors(bool on)
{
    errors_held = on;
    if (on) held_error[0] = '\0';
}

const char *vmaf_log_held_error(void)
{
    return held_error;
}

static void emit(enum VmafLogLevel level, ExactvmafLogCallback cb, void *opaque,
                 const char *buf);

void vmaf_log_set_level(enum VmafLogLevel level)
{
    pthread_mutex_lock(&targets_lock);
    default_level = (int)level;
    pthread_mutex_unlock(&targets_lock);
}

uint64_t vmaf_log_register(enum VmafLogLevel level)
{
    uint64_t id = 0;
    pthread_mutex_lock(&targets_lock);
    if (n_targets == cap_targets) {
        const unsigned cap = cap_targets ? 2 * cap_targets : 8;
        LogTarget *t = realloc(targets, cap * sizeof(*t));
        if (t) {
            targets = t;
            cap_targets = cap;
        }
    }
    if (n_targets < cap_targets) {
        id = next_id++;
        targets[n_targets++] = (LogTarget){ .id = id, .level = (int)level };
    }
    pthread_mutex_unlock(&targets_lock);
    return id;     /* 0: no room; the context then logs to the default target */
}

static LogTarget *find(uint64_t id)
{
    for (unsigned i = 0; id && i < n_targets; i++)
        if (targets[i].id == id) return &targets[i];
    return NULL;
}

static void drop_held(LogTarget *t)
{
    for (unsigned i = 0; i < t->n_held && i < HELD_MAX; i++) free(t->held[i]);
    t->n_held = 0;
}

void vmaf_log_unregister(uint64_t id)
{
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    if (t) drop_held(t);
    if (t) *t = targets[--n_targets];
    if (!n_targets) {
        free(targets);
        targets = NULL;
        cap_targets = 0;
    }
    pthread_mutex_unlock(&targets_lock);
}

int vmaf_log_set_callback(uint64_t id, ExactvmafLogCallback cb, void *opaque)
{
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    if (t) {
        t->cb = cb;
        t->opaque = cb ? opaque : NULL;
    }
    pthread_mutex_unlock(&targets_lock);
    return t ? 0 : -ENOENT;
}

void vmaf_log_bind(uint64_t id)
{
    bound_id = id;
}

VMAF_EXPORT void exactvmaf_set_default_logger(ExactvmafLogCallback cb, void *opaque)
{
    pthread_mutex_lock(&targets_lock);
    default_cb = cb;
    default_opaque = cb ? opaque : NULL;
    pthread_mutex_unlock(&targets_lock);
}

void vmaf_log(enum VmafLogLevel level, const char *fmt, ...)
{
    if (errors_held && level == VMAF_LOG_LEVEL_ERROR) {
        if (!held_error[0]) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(held_error, sizeof(held_error), fmt, ap);
            va_end(ap);
        }
        level = VMAF_LOG_LEVEL_DEBUG;
    }
    pthread_mutex_lock(&targets_lock);
    const LogTarget *t = find(bound_id);
    const int max_level = t ? t->level : default_level;
    ExactvmafLogCallback cb = t ? t->cb : default_cb;
    void *opaque = t ? t->opaque : default_opaque;
    if (t && !cb) {
        cb = default_cb;
        opaque = default_opaque;
    }
    const bool hold = t && t->hold && level == VMAF_LOG_LEVEL_ERROR;
    pthread_mutex_unlock(&targets_lock);
    /* Errors are always shown: a failing call must say why. */
    if (level != VMAF_LOG_LEVEL_ERROR && (int)level > max_level) return;

    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (hold) {
        pthread_mutex_lock(&targets_lock);
        LogTarget *h = find(bound_id);
        const bool held = h && h->hold;
        if (held && h->n_held < HELD_MAX) h->held[h->n_held] = strdup(buf);
        if (held) h->n_held++;
        pthread_mutex_unlock(&targets_lock);
        if (held) return;
    }
    emit(level, cb, opaque, buf);
}

static void emit(enum VmafLogLevel level, ExactvmafLogCallback cb, void *opaque,
                 const char *buf)
{
    if (cb) {
        cb(opaque, level, buf);
        return;
    }
    static const char *const prefix[] = {
        [VMAF_LOG_LEVEL_NONE] = "", [VMAF_LOG_LEVEL_ERROR] = "error",
        [VMAF_LOG_LEVEL_WARNING] = "warning", [VMAF_LOG_LEVEL_INFO] = "info",
        [VMAF_LOG_LEVEL_DEBUG] = "debug",
    };
    fprintf(stderr, "exactvmaf %s: %s\n",
            level <= VMAF_LOG_LEVEL_DEBUG ? prefix[level] : "", buf);
}

void vmaf_log_hold(uint64_t id)
{
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    if (t) t->hold = true;
    pthread_mutex_unlock(&targets_lock);
}

void vmaf_log_release(uint64_t id, bool show, char *first, size_t len)
{
    if (first && len) first[0] = '\0';
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    char *held[HELD_MAX] = { 0 };
    unsigned n = 0, n_all = 0;
    ExactvmafLogCallback cb = default_cb;
    void *opaque = default_opaque;
    if (t) {
        t->hold = false;
        n_all = t->n_held;
        n = n_all < HELD_MAX ? n_all : HELD_MAX;
        memcpy(held, t->held, n * sizeof(*held));
        t->n_held = 0;
        if (t->cb) {
            cb = t->cb;
            opaque = t->opaque;
        }
    }
    pthread_mutex_unlock(&targets_lock);
    if (n && held[0] && first && len) snprintf(first, len, "%s", held[0]);
    for (unsigned i = 0; i < n; i++) {
        if (show && held[i]) emit(VMAF_LOG_LEVEL_ERROR, cb, opaque, held[i]);
        free(held[i]);
    }
    if (show && n_all > n) {
        char more[64];
        snprintf(more, sizeof(more), "(%u more errors)", n_all - n);
        emit(VMAF_LOG_LEVEL_ERROR, cb, opaque, more);
    }
}
