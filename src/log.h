/* Logging. The level is taken from the most recent VmafConfiguration. */
#ifndef EXACTVMAF_LOG_H
#define EXACTVMAF_LOG_H

#include "libvmaf/libvmaf.h"

void vmaf_log_set_level(enum VmafLogLevel level);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void vmaf_log(enum VmafLogLevel level, const char *fmt, ...);

#endif
