/* rm_trim.c - giving memory back: shrinking the top of an arena (automatically when it passes
 * the trim threshold, or through malloc_trim), and malloc_trim's release of whole free pages
 * inside binned chunks.
 *
 * Always true: the caller holds the arena lock; at least pad bytes plus RM_MIN_CHUNK stay in the
 * top; the main arena lowers the break only when the break still ends at its top (a program
 * that moved the break keeps its memory); thread heaps keep their mapping and return pages with
 * madvise; chunk headers are never inside a released page range.
 */
#include "rm_types.h"
#include "interpose.h"

/* Shrinks the top of a to pad bytes (rounded to pages) plus a minimal chunk; returns 1 when
 * memory went back to the system. */
int rm_trim_top(rm_arena *a, size_t pad)
{
    rm_chunk *t = a->top;
    if (!t)
        return 0;
    size_t page = rm_os_pagesize();
    size_t size = rm_csize(t);
    if (size <= pad + RM_MIN_CHUNK + page)
        return 0;
    char *end = (char *)t + size;
    size_t extra = (size - pad - RM_MIN_CHUNK) & ~(page - 1);
    if (extra == 0 || extra >= size)
        return 0;
    if (a->seg->kind == RM_SEG_BRK) {
        if (rm_os_sbrk(0) != end || !rm_os_sbrk(-(intptr_t)extra))
            return 0;
    } else if (a->seg->kind == RM_SEG_HEAP) {
        rm_os_discard(end - extra, extra);
    } else {
        return 0;
    }
    t->size -= extra;
    a->seg->size -= extra;
    a->system_mem -= extra;
    return 1;
}

/* Releases the whole pages inside free chunk c (keeping its header and bin links). */
static int rm_trim_chunk(rm_chunk *c)
{
    size_t page = rm_os_pagesize();
    uintptr_t start = ((uintptr_t)c + sizeof(rm_chunk) + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t end = ((uintptr_t)c + rm_csize(c)) & ~(uintptr_t)(page - 1);
    if (end <= start)
        return 0;
    rm_os_discard((void *)start, end - start);
    return 1;
}

/* malloc_trim for one arena: consolidates the fastbins, trims the top to pad, then releases whole free pages inside every
 * binned chunk. Returns 1 when anything was released. */
int rm_trim_arena(rm_arena *a, size_t pad)
{
    if (a->have_fast)
        rm_fast_consolidate(a);
    int released = rm_trim_top(a, pad);
    for (unsigned i = RM_UNSORTED; i < RM_NBINS; i++) {
        rm_chunk *b = &a->bins[i];
        for (rm_chunk *c = b->fd; c != b; c = c->fd)
            released |= rm_trim_chunk(c);
    }
    return released;
}

/* malloc_trim: trims every arena; returns 1 when any memory was released. */
int ip_backend_trim(size_t pad)
{
    int released = 0;
    rm_ensure_init();
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a)) {
        int locked = rm_lock(a);
        released |= rm_trim_arena(a, pad);
        rm_unlock(a, locked);
    }
    return released;
}
