/*
 * Buffers of whole frames (pictures, planes of intermediate results) backed
 * by transparent huge pages where the system offers them.
 *
 * Why: every fresh 4 KiB page costs a page fault on its first write, and a
 * fault is dear (in a virtual machine measured at 7-11 ms per 2 MiB plane,
 * against 0.3 ms when the same plane comes as one 2 MiB page). A run pays
 * this for every buffer it makes before the pool starts recycling, which
 * in a short run is every frame. The advice is only advice: without THP the
 * buffers are ordinary pages and nothing else changes.
 */
#ifndef EXACTVMAF_MEM_H
#define EXACTVMAF_MEM_H

#include <stddef.h>

/* The huge page size the buffers are aligned to (x86-64 and 4 KiB-granule AArch64). */
#define VMAF_HUGE_PAGE ((size_t)2 << 20)

/* What vmaf_mem_map() maps for `size` bytes: whole pages, whole huge pages
 * from half a huge page up; 0 when that does not fit in a size_t. */
size_t vmaf_mem_map_size(size_t size);

/*
 * A mapping of vmaf_mem_map_size(size) bytes of zeroed memory, starting on a
 * page (on a huge page from half a huge page up), or NULL. Released by
 * vmaf_mem_unmap() with the same size.
 */
void *vmaf_mem_map(size_t size);
void vmaf_mem_unmap(void *p, size_t size);

/*
 * malloc-like: at least `size` bytes aligned to 64 (from half a huge page
 * up, whole huge pages, advised as huge), not zeroed; vmaf_mem_free_large()
 * releases it (not free(): on Windows it is _aligned_malloc's).
 */
void *vmaf_mem_alloc_large(size_t size);
void vmaf_mem_free_large(void *p);

#endif
