/*
 * Logging, per context (see log.c): a context's messages go to its own
 * callback, filtered by its own level; the others to the default target.
 */
#ifndef EXACTVMAF_LOG_H
#define EXACTVMAF_LOG_H

#include <stdbool.h>
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

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void vmaf_log(enum VmafLogLevel level, const char *fmt, ...);

#endif
