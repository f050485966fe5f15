#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "log.h"

static atomic_int log_level = VMAF_LOG_LEVEL_WARNING;

void vmaf_log_set_level(enum VmafLogLevel level)
{
    atomic_store(&log_level, (int)level);
}

void vmaf_log(enum VmafLogLevel level, const char *fmt, ...)
{
    /* Errors are always shown: a failing call must say why. */
    if (level != VMAF_LOG_LEVEL_ERROR && (int)level > atomic_load(&log_level)) return;
    static const char *const prefix[] = {
        [VMAF_LOG_LEVEL_NONE] = "", [VMAF_LOG_LEVEL_ERROR] = "error",
        [VMAF_LOG_LEVEL_WARNING] = "warning", [VMAF_LOG_LEVEL_INFO] = "info",
        [VMAF_LOG_LEVEL_DEBUG] = "debug",
    };
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(stderr, "exactvmaf %s: %s\n",
            level <= VMAF_LOG_LEVEL_DEBUG ? prefix[level] : "", buf);
}
