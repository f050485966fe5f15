/*
 * The backends' names: the one table that spells them, for the command
 * line, the messages, the output files' "backends" and the GPU programs'
 * blobs (VmafGpuOps.name is looked up here).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "exactvmaf/exactvmaf.h"
#include "export.h"

/* Indexed by enum ExactvmafBackend, whose values run from 0 without gaps. */
static const char *const names[] = {
    [EXACTVMAF_BACKEND_CPU] = "cpu",
    [EXACTVMAF_BACKEND_CUDA] = "cuda",
    [EXACTVMAF_BACKEND_AUTO] = "auto",
    [EXACTVMAF_BACKEND_OPENCL] = "opencl",
    [EXACTVMAF_BACKEND_AUTO_OPENCL] = "auto-opencl",
};

VMAF_EXPORT const char *exactvmaf_backend_name(enum ExactvmafBackend backend)
{
    return (unsigned)backend < sizeof(names) / sizeof(names[0]) ? names[backend] : NULL;
}

VMAF_EXPORT int exactvmaf_backend_from_name(const char *name)
{
    for (unsigned b = 0; name && b < sizeof(names) / sizeof(names[0]); b++)
        if (!strcmp(names[b], name)) return (int)b;
    return -EINVAL;
}
