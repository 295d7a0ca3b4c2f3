/* rm_mmap.c - chunks with a mapping of their own: large requests (above the mmap threshold),
 * the dynamic threshold, and mremap for realloc.
 *
 * Always true: a mapped chunk has the M bit, its prev_size is its offset from the start of its
 * mapping (non-zero only after memalign), offset + size is a multiple of the page size, and
 * it is fresh zeroed memory when handed out by rm_mmap_alloc (calloc relies on that).
 * Freeing a mapped chunk larger than the threshold raises the threshold to its size (up to
 * RM_MMAP_THRESHOLD_MAX) and the trim threshold to twice that, unless the user set either.
 * Counters in rm_mp are updated atomically: no arena lock covers mapped chunks.
 */
#include "rm_types.h"

/* Rounds n up to a multiple of the page size. */
static size_t rm_mmap_page_up(size_t n)
{
    size_t page = rm_os_pagesize();
    return (n + page - 1) & ~(page - 1);
}

/* Adds delta (may be "negative" as a wrapped size_t) to the mapped-bytes counter and keeps the
 * high-water marks. */
static void rm_mmap_account(long count_delta, size_t byte_delta)
{
    size_t n = __atomic_add_fetch(&rm_mp.n_mmaps, (size_t)count_delta, __ATOMIC_RELAXED);
    size_t b = __atomic_add_fetch(&rm_mp.mmapped_mem, byte_delta, __ATOMIC_RELAXED);
    if (n > rm_mp.max_n_mmaps && count_delta > 0)
        rm_mp.max_n_mmaps = n;
    if (b > rm_mp.max_mmapped_mem && (long)byte_delta > 0)
        rm_mp.max_mmapped_mem = b;
}

/* Maps a chunk of at least nb bytes; NULL when mmap_max mappings exist or mmap fails. */
void *rm_mmap_alloc(size_t nb)
{
    if (__atomic_load_n(&rm_mp.n_mmaps, __ATOMIC_RELAXED) >= rm_mp.mmap_max)
        return NULL;
    size_t len = rm_mmap_page_up(nb + RM_SIZE_SZ);
    rm_chunk *c = rm_os_map(len);
    if (!c)
        return NULL;
    c->prev_size = 0;
    c->size = len | RM_M;
    rm_mmap_account(1, len);
    return rm_mem(c);
}

/* Unmaps mapped chunk c, raising the dynamic thresholds as glibc does. Never inlined: free
 * reaches it by a tail call, and inlined it would make free save registers on every call. */
__attribute__((noinline)) void rm_mmap_free(rm_chunk *c)
{
    size_t offset = c->prev_size, size = rm_csize(c);
    size_t page = rm_os_pagesize();
    if (((uintptr_t)c - offset) & (page - 1) || ((offset + size) & (page - 1)))
        rm_fatal("munmap_chunk(): invalid pointer");
    if (!rm_mp.no_dyn_threshold && size > rm_mp.mmap_threshold && size <= RM_MMAP_THRESHOLD_MAX) {
        rm_mp.mmap_threshold = size;
        rm_mp.trim_threshold = 2 * size;
    }
    rm_mmap_account(-1, (size_t)0 - (offset + size));
    rm_os_unmap((char *)c - offset, offset + size);
}

/* Resizes mapped chunk c to hold nb bytes with mremap; returns the user pointer, or NULL when
 * the caller must allocate, copy and free instead. */
void *rm_mmap_realloc(rm_chunk *c, size_t nb)
{
    size_t offset = c->prev_size, size = rm_csize(c);
    size_t len = rm_mmap_page_up(nb + offset + RM_SIZE_SZ);
    if (len == offset + size)
        return rm_mem(c);
    char *base = rm_os_remap((char *)c - offset, offset + size, len);
    if (!base)
        return size - 2 * RM_SIZE_SZ >= nb - RM_SIZE_SZ ? rm_mem(c) : NULL;
    c = (rm_chunk *)(base + offset);
    c->size = (len - offset) | RM_M;
    rm_mmap_account(0, len - (offset + size));
    return rm_mem(c);
}
