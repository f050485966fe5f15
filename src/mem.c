/* Frame-sized buffers on huge pages (mem.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

#define PAGE ((size_t)4096)

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

static void advise_huge(void *p, size_t size)
{
#if defined(MADV_HUGEPAGE)
    /* Refused where THP is off or unknown: then the pages are small. */
    (void)madvise(p, size, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
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
    return round_up(size, huge(size) ? VMAF_HUGE_PAGE : PAGE);
}

#if defined(MAP_ANONYMOUS)
void *vmaf_mem_map(size_t size)
{
    const size_t n = vmaf_mem_map_size(size);
    if (!n) return NULL;
    if (!huge(size)) {
        void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    /* Map one huge page more, keep the aligned part, give the rest back. */
    uint8_t *m = mmap(NULL, n + VMAF_HUGE_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    uint8_t *p = (uint8_t *)round_up((uintptr_t)m, VMAF_HUGE_PAGE);
    const size_t head = (size_t)(p - m), tail = VMAF_HUGE_PAGE - head;
    if (head) munmap(m, head);
    if (tail) munmap(p + n, tail);
    advise_huge(p, n);
    return p;
}

void vmaf_mem_unmap(void *p, size_t size)
{
    if (p) munmap(p, size);
}
#else
void *vmaf_mem_map(size_t size)
{
    const size_t n = vmaf_mem_map_size(size);
    void *p = n ? aligned_alloc(PAGE, n) : NULL;
    if (p) memset(p, 0, n);
    return p;
}

void vmaf_mem_unmap(void *p, size_t size)
{
    (void)size;
    free(p);
}
#endif

void *vmaf_mem_alloc_large(size_t size)
{
    if (!huge(size)) return aligned_alloc(64, round_up(size ? size : 1, 64));
    if (size > SIZE_MAX - VMAF_HUGE_PAGE) return NULL;
    const size_t n = round_up(size, VMAF_HUGE_PAGE);
    void *p = aligned_alloc(VMAF_HUGE_PAGE, n);
    if (p) advise_huge(p, n);
    return p;
}
