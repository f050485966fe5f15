/*
 * Logging, per context (see log.c): a context's messages go to its own
 * callback, filtered by its own level; the others to the default target.
 */
#ifndef EXACTVMAF_LOG_H
#define EXACTVMAF_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * While held (on the calling thread), errors are logged at the debug level
 * instead, and the first is kept: an attempt whose failure is not the run's
 * (a GPU that auto then replaces with the CPU) says what failed once, in
 * its caller's notice. Turning it on forgets the kept one.
 */
void vmaf_log_hold_errors(bool on);
/** The first error logged while held on this thread; "" when none. */
const char *vmaf_log_held_error(void);
/**
 * Hold back target id's errors (not shown, kept) until vmaf_log_release():
 * under backend auto a GPU's failure is the CPU's to take over, not yet an
 * error of the run.
 */
void vmaf_log_hold(uint64_t id);
/**
 * Stop holding: the held errors are shown (show) or dropped; the first one
 * is copied to `first` (len bytes, may be NULL).
 */
void vmaf_log_release(uint64_t id, bool show, char *first, size_t len);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void vmaf_log(enum VmafLogLevel level, const char *fmt, ...);

#endif
