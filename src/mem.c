/* Frame-sized buffers on huge pages (mem.h); the system calls are the room's (os/os.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "os/os.h"

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

/* From half a huge page up a buffer takes whole huge pages: a 1080p plane
 * (2 073 600 bytes) is just under one. */
static int huge(size_t size)
{
    return size >= VMAF_HUGE_PAGE / 2;
}

size_t vmaf_mem_map_size(size_t size)
{
    if (!size || size > SIZE_MAX / 2) return 0;
    return round_up(size, huge(size) ? VMAF_HUGE_PAGE : VMAF_OS_PAGE);
}

void *vmaf_mem_map(size_t size)
{
    const size_t n = vmaf_mem_map_size(size);
    if (!n) return NULL;
    return huge(size) ? vmaf_os_map(n, VMAF_HUGE_PAGE, 1) : vmaf_os_map(n, VMAF_OS_PAGE, 0);
}

void vmaf_mem_unmap(void *p, size_t size)
{
    vmaf_os_unmap(p, size);
}

void *vmaf_mem_alloc_large(size_t size)
{
    if (!huge(size)) return vmaf_os_aligned_alloc(64, round_up(size ? size : 1, 64));
    if (size > SIZE_MAX - VMAF_HUGE_PAGE) return NULL;
    const size_t n = round_up(size, VMAF_HUGE_PAGE);
    void *p = vmaf_os_aligned_alloc(VMAF_HUGE_PAGE, n);
    if (p) vmaf_os_advise_huge(p, n);
    return p;
}

void vmaf_mem_free_large(void *p)
{
    vmaf_os_aligned_free(p);
}
