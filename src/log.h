/*
 * Logging, per context (see log.c): a context's messages go to its own
 * callback, filtered by its own level; the others to the default target.
 */
#ifndef EXACTVMAF_LOG_H
#define EXACTVMAF_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/os.h"
#include "libvmaf/libvmaf.h"
#include "exactvmaf/exactvmaf.h"

/** Level of messages outside every context (the most recent configuration's). */
void vmaf_log_set_level(enum VmafLogLevel level);
/** A new target at `level`; its number, or 0 when none could be made. */
uint64_t vmaf_log_register(enum VmafLogLevel level);
void vmaf_log_unregister(uint64_t id);
/** @return 0, or -ENOENT for an unknown number. */
int vmaf_log_set_callback(uint64_t id, ExactvmafLogCallback cb, void *opaque);
/**
 * The calling thread works for target `id` from now on (0: for none). Every
 * API entry point binds its context's number (or 0), and each of a
 * context's threads binds it when it starts.
 */
void vmaf_log_bind(uint64_t id);

/**
 * Hold back target id's errors, whichever of its threads logs them, until
 * the matching vmaf_log_release(): an attempt whose failure may not be the
 * run's (a GPU that auto replaces with the CPU, a frame in flight that
 * fewer frames replace) says what failed in its caller's notice, or not at
 * all. A held error is kept, and told at the debug level as it happens.
 * Holds nest (the innermost keeps); id 0, the default target, is never
 * held: a caller without a context holds a target of its own, bound to
 * its thread.
 */
void vmaf_log_hold(uint64_t id);
/**
 * End the innermost hold of target id: its errors are shown (show) or
 * dropped, and the first one is copied to `first` (len bytes, may be NULL;
 * "" when none). Shown errors of a nested hold pass to the enclosing hold.
 */
void vmaf_log_release(uint64_t id, bool show, char *first, size_t len);
/** The level of messages outside every context. */
enum VmafLogLevel vmaf_log_default_level(void);

#if defined(__GNUC__)
VMAF_OS_PRINTF(2, 3)
#endif
void vmaf_log(enum VmafLogLevel level, const char *fmt, ...);

#endif
