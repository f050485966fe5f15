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
#define HOLD_DEPTH 4

/* One vmaf_log_hold(): the errors logged while it is the innermost, the
 * first HELD_MAX of them kept, the others counted. */
typedef struct LogHold {
    unsigned n_kept, n_more;
    char *kept[HELD_MAX];
} LogHold;

typedef struct LogTarget {
    uint64_t id;
    int level;
    ExactvmafLogCallback cb;
    void *opaque;
    /* Holds in force; past HOLD_DEPTH a hold shares the innermost one's. */
    unsigned depth;
    LogHold hold[HOLD_DEPTH];
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

static void emit(enum VmafLogLevel level, ExactvmafLogCallback cb, void *opaque,
                 const char *buf);

void vmaf_log_set_level(enum VmafLogLevel level)
{
    pthread_mutex_lock(&targets_lock);
    default_level = (int)level;
    pthread_mutex_unlock(&targets_lock);
}

enum VmafLogLevel vmaf_log_default_level(void)
{
    pthread_mutex_lock(&targets_lock);
    const int level = default_level;
    pthread_mutex_unlock(&targets_lock);
    return (enum VmafLogLevel)level;
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

static void drop_kept(LogHold *h)
{
    for (unsigned i = 0; i < h->n_kept; i++) free(h->kept[i]);
    *h = (LogHold){ 0 };
}

void vmaf_log_unregister(uint64_t id)
{
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    for (unsigned i = 0; t && i < HOLD_DEPTH; i++) drop_kept(&t->hold[i]);
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

/* Keep `msg` in target id's innermost hold; false when it holds nothing (any more). */
static bool keep(uint64_t id, const char *msg)
{
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    LogHold *h = t && t->depth ? &t->hold[(t->depth < HOLD_DEPTH ? t->depth : HOLD_DEPTH) - 1]
                               : NULL;
    char *copy = h && h->n_kept < HELD_MAX ? strdup(msg) : NULL;
    if (copy) h->kept[h->n_kept++] = copy;
    else if (h) h->n_more++;
    pthread_mutex_unlock(&targets_lock);
    return h;
}

void vmaf_log(enum VmafLogLevel level, const char *fmt, ...)
{
    pthread_mutex_lock(&targets_lock);
    const LogTarget *t = find(bound_id);
    const int max_level = t ? t->level : default_level;
    ExactvmafLogCallback cb = t ? t->cb : default_cb;
    void *opaque = t ? t->opaque : default_opaque;
    if (t && !cb) {
        cb = default_cb;
        opaque = default_opaque;
    }
    const bool held = t && t->depth && level == VMAF_LOG_LEVEL_ERROR;
    pthread_mutex_unlock(&targets_lock);
    /* Errors are always shown (a failing call must say why), except while
     * held: then they are kept for the release, and told at the debug
     * level where they happen. */
    const bool shown = held ? max_level >= VMAF_LOG_LEVEL_DEBUG
                            : level == VMAF_LOG_LEVEL_ERROR || (int)level <= max_level;
    if (!held && !shown) return;

    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (held && !keep(bound_id, buf))
        level = VMAF_LOG_LEVEL_ERROR;     /* released meanwhile: an error like any */
    else if (held && shown)
        level = VMAF_LOG_LEVEL_DEBUG;
    else if (held)
        return;
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
    if (t) t->depth++;
    pthread_mutex_unlock(&targets_lock);
}

void vmaf_log_release(uint64_t id, bool show, char *first, size_t len)
{
    if (first && len) first[0] = '\0';
    pthread_mutex_lock(&targets_lock);
    LogTarget *t = find(id);
    if (!t || !t->depth || t->depth-- > HOLD_DEPTH) {
        /* No hold, or one past HOLD_DEPTH: its errors are the enclosing hold's. */
        pthread_mutex_unlock(&targets_lock);
        return;
    }
    LogHold h = t->hold[t->depth];
    t->hold[t->depth] = (LogHold){ 0 };
    if (h.n_kept && first && len) snprintf(first, len, "%s", h.kept[0]);
    if (show && t->depth) {
        /* Still held by an enclosing hold: the errors are now its own. */
        LogHold *outer = &t->hold[t->depth - 1];
        for (unsigned i = 0; i < h.n_kept; i++) {
            if (outer->n_kept < HELD_MAX) {
                outer->kept[outer->n_kept++] = h.kept[i];
            } else {
                free(h.kept[i]);
                outer->n_more++;
            }
        }
        outer->n_more += h.n_more;
        pthread_mutex_unlock(&targets_lock);
        return;
    }
    ExactvmafLogCallback cb = t->cb ? t->cb : default_cb;
    void *opaque = t->cb ? t->opaque : default_opaque;
    pthread_mutex_unlock(&targets_lock);
    for (unsigned i = 0; i < h.n_kept; i++) {
        if (show) emit(VMAF_LOG_LEVEL_ERROR, cb, opaque, h.kept[i]);
        free(h.kept[i]);
    }
    if (show && h.n_more) {
        char more[64];
        snprintf(more, sizeof(more), "(%u more errors)", h.n_more);
        emit(VMAF_LOG_LEVEL_ERROR, cb, opaque, more);
    }
}
