/* rm_chunk.c - malloc, free, in-place realloc and memalign inside one arena (ptmalloc2's
 * _int_malloc/_int_free): splitting, coalescing, the unsorted pass, best fit, the top chunk.
 *
 * Always true: the caller holds a's lock (rm_lock); every chunk header written here carries
 * the arena's A bit; a chunk handed out has the P bit of its upper neighbour set; a freed
 * chunk is merged with free neighbours before it is binned, so no two free chunks touch.
 * Order of malloc: fastbin, exact small bin, unsorted pass (exact fits returned, the rest
 * binned), best fit in the request's large bin, the next non-empty bin above, the top; with fast
 * chunks pending they are consolidated and the search repeated; then the OS. Large requests
 * consolidate the fastbins first.
 */
#include "rm_types.h"

#include <string.h>

/* The A bit for chunks of arena a. */
static size_t rm_abit(const rm_arena *a) { return a->is_main ? 0 : RM_A; }

/* Hands out free chunk c (already out of its bin) for a request of nb bytes: a remainder of at
 * least RM_MIN_CHUNK becomes a free chunk in the unsorted bin; returns the user pointer. */
static void *rm_use(rm_arena *a, rm_chunk *c, size_t nb, int remember)
{
    size_t size = rm_csize(c);
    size_t abit = rm_abit(a);
    if (size - nb >= RM_MIN_CHUNK) {
        rm_chunk *r = rm_at(c, nb);
        r->size = (size - nb) | RM_P | abit;
        rm_set_foot(r, size - nb);
        c->size = nb | (c->size & RM_P) | abit;
        rm_bin_put_unsorted(a, r);
        if (remember)
            a->last_remainder = r;
    } else {
        rm_next(c)->size |= RM_P;
    }
    return rm_mem(c);
}

/* Cuts nb bytes off the bottom of the top chunk (which must hold nb + RM_MIN_CHUNK). */
static void *rm_use_top(rm_arena *a, size_t nb)
{
    rm_chunk *t = a->top;
    size_t size = rm_csize(t);
    size_t abit = rm_abit(a);
    t->size = nb | (t->size & RM_P) | abit;
    a->top = rm_at(t, nb);
    a->top->size = (size - nb) | RM_P | abit;
    return rm_mem(t);
}

/* The unsorted pass: returns an exact fit (or a split of the last remainder for a small request),
 * sorting every other chunk it meets into its bin; NULL when nothing fit. */
static void *rm_unsorted_pass(rm_arena *a, size_t nb)
{
    rm_chunk *u = &a->bins[RM_UNSORTED];
    rm_chunk *c;
    for (int iters = 0; (c = u->bk) != u && iters < RM_UNSORTED_MAX_ITERS; iters++) {
        size_t size = rm_csize(c);
        if (size < RM_MIN_CHUNK || size > a->system_mem)
            rm_fatal("malloc(): invalid size (unsorted)");
        if (rm_in_smallbin(nb) && c == a->last_remainder && c->bk == u && size >= nb + RM_MIN_CHUNK) {
            rm_bin_unlink(a, c);
            return rm_use(a, c, nb, 1);
        }
        rm_bin_unlink(a, c);
        if (size == nb) {
            rm_next(c)->size |= RM_P;
            return rm_mem(c);
        }
        rm_bin_place(a, c);
    }
    return NULL;
}

/* After a fastbin or small-bin hit for size nb: moves more chunks of that size from the same
 * bin into this thread's cache while it has room (glibc does the same), so the next requests
 * of that size take no lock. Moved chunks are in use for the arena. */
static void rm_stash(rm_arena *a, size_t nb, int from_fast)
{
    for (size_t room = rm_tcache_room(nb); room > 0; room--) {
        rm_chunk *c = from_fast ? rm_fast_take(a, nb) : rm_bin_take_small(a, nb);
        if (!c)
            return;
        if (!from_fast)
            rm_next(c)->size |= RM_P;
        rm_tcache_keep(c);
    }
}

/* Allocates a chunk of nb bytes (a request2size result) from arena a, growing it or mapping a
 * chunk of its own when needed; returns the user pointer, NULL when the OS refuses. */
void *rm_int_malloc(rm_arena *a, size_t nb)
{
    rm_chunk *c = rm_fast_take(a, nb);
    if (c) {
        rm_stash(a, nb, 1);
        return rm_mem(c);
    }
    if (rm_in_smallbin(nb) && (c = rm_bin_take_small(a, nb)) != NULL) {
        rm_next(c)->size |= RM_P;
        rm_stash(a, nb, 0);
        return rm_mem(c);
    }
    if (!rm_in_smallbin(nb) && a->have_fast)
        rm_fast_consolidate(a);
    for (;;) {
        void *p = rm_unsorted_pass(a, nb);
        if (p)
            return p;
        if (!rm_in_smallbin(nb) && (c = rm_bin_take_best_large(a, nb)) != NULL)
            return rm_use(a, c, nb, 0);
        if ((c = rm_bin_take_above(a, rm_bin_index(nb))) != NULL)
            return rm_use(a, c, nb, rm_in_smallbin(nb));
        if (a->top && rm_csize(a->top) >= nb + RM_MIN_CHUNK)
            return rm_use_top(a, nb);
        if (!a->have_fast)
            break;
        rm_fast_consolidate(a); /* merged fast chunks may now fit: one more pass */
    }
    void *p;
    int tried_mmap = nb >= rm_mp.mmap_threshold; /* as glibc's sysmalloc: never map twice */
    if (tried_mmap && (p = rm_mmap_alloc(nb)) != NULL)
        return p;
    if (rm_arena_grow(a, nb))
        return rm_use_top(a, nb);
    return tried_mmap ? NULL : rm_mmap_alloc(nb);
}

/* Merges in-use chunk c of arena a with its free neighbours and puts the result in the unsorted
 * bin, or into the top when it touches it; returns the size of the merged chunk. */
size_t rm_chunk_coalesce(rm_arena *a, rm_chunk *c)
{
    size_t size = rm_csize(c);
    size_t abit = rm_abit(a);
    rm_chunk *next = rm_at(c, size);
    size_t nextsize = rm_csize(next);
    if (!(c->size & RM_P)) {
        size_t prevsize = c->prev_size;
        rm_chunk *prev = rm_at(c, (size_t)0 - prevsize);
        if (rm_csize(prev) != prevsize)
            rm_fatal("corrupted size vs. prev_size while consolidating");
        rm_bin_unlink(a, prev);
        size += prevsize;
        c = prev;
    }
    if (next != a->top) {
        int next_inuse = rm_is_fence(next) || (rm_at(next, nextsize)->size & RM_P);
        if (!next_inuse) {
            rm_bin_unlink(a, next);
            size += nextsize;
        } else {
            next->size &= ~RM_P;
        }
        c->size = size | RM_P | abit;
        rm_set_foot(c, size);
        rm_bin_put_unsorted(a, c);
    } else {
        size += nextsize;
        c->size = size | RM_P | abit;
        a->top = c;
    }
    return size;
}

/* Returns in-use chunk c of arena a to the arena, in glibc's _int_free order: a chunk of at
 * most max_fast bytes goes onto its fastbin after the one check glibc makes there (the next
 * chunk's size); any other is checked for a double free and a bad neighbour, then merged with
 * its free neighbours (rm_chunk_coalesce), and a large result may trim the top. */
void rm_int_free(rm_arena *a, rm_chunk *c)
{
    size_t size = rm_csize(c);
    rm_chunk *next = rm_at(c, size);
    size_t nextsize = rm_csize(next);
    if (size <= rm_mp.max_fast) {
        if (nextsize < RM_FENCE || nextsize >= a->system_mem)
            rm_fatal("free(): invalid next size (fast)");
        if (rm_mp.perturb)
            memset(rm_mem(c), (int)rm_mp.perturb, size - RM_HDR);
        rm_fast_put(a, c);
        return;
    }
    if (c == a->top)
        rm_fatal("double free or corruption (top)");
    if (!(next->size & RM_P))
        rm_fatal("double free or corruption (!prev)");
    if (nextsize < RM_FENCE || nextsize >= a->system_mem)
        rm_fatal("free(): invalid next size (normal)");
    if (rm_mp.perturb)
        memset(rm_mem(c), (int)rm_mp.perturb, size - RM_HDR);
    size = rm_chunk_coalesce(a, c);
    if (size >= RM_CONSOLIDATE_TRIM) {
        if (a->have_fast)
            rm_fast_consolidate(a);
        if (rm_csize(a->top) >= rm_mp.trim_threshold)
            rm_trim_top(a, rm_mp.top_pad);
    }
}

/* Cuts in-use chunk c down to nb bytes, freeing the tail when it can form a chunk. */
static void rm_shrink(rm_arena *a, rm_chunk *c, size_t nb)
{
    size_t size = rm_csize(c);
    if (size - nb < RM_MIN_CHUNK)
        return;
    size_t abit = rm_abit(a);
    c->size = nb | (c->size & RM_P) | abit;
    rm_chunk *r = rm_at(c, nb);
    r->size = (size - nb) | RM_P | abit;
    rm_int_free(a, r);
}

/* Resizes in-use, non-mapped chunk c to nb bytes without moving it: shrinks, or grows into the
 * top or a free upper neighbour. Returns 1 on success, 0 when the caller must move the data. */
int rm_int_grow_inplace(rm_arena *a, rm_chunk *c, size_t nb)
{
    size_t oldsize = rm_csize(c);
    if (oldsize >= nb) {
        rm_shrink(a, c, nb);
        return 1;
    }
    rm_chunk *next = rm_at(c, oldsize);
    size_t abit = rm_abit(a);
    if (next == a->top) {
        size_t total = oldsize + rm_csize(next);
        if (total < nb + RM_MIN_CHUNK)
            return 0;
        c->size = nb | (c->size & RM_P) | abit;
        a->top = rm_at(c, nb);
        a->top->size = (total - nb) | RM_P | abit;
        return 1;
    }
    if (rm_is_fence(next) || (rm_at(next, rm_csize(next))->size & RM_P))
        return 0;
    size_t total = oldsize + rm_csize(next);
    if (total < nb)
        return 0;
    rm_bin_unlink(a, next);
    c->size = total | (c->size & RM_P) | abit;
    rm_next(c)->size |= RM_P;
    rm_shrink(a, c, nb);
    return 1;
}

/* Allocates nb bytes aligned to align (a power of two > 16) from arena a: over-allocates, then
 * frees the misaligned lead and the unused tail back into the arena. */
void *rm_int_memalign(rm_arena *a, size_t align, size_t nb)
{
    void *m = rm_int_malloc(a, nb + align + RM_MIN_CHUNK);
    if (!m)
        return NULL;
    rm_chunk *c = rm_chunk_of(m);
    if (((uintptr_t)m & (align - 1)) != 0) {
        char *want = (char *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1)) - RM_HDR;
        if ((size_t)(want - (char *)c) < RM_MIN_CHUNK)
            want += align;
        rm_chunk *n = (rm_chunk *)want;
        size_t lead = (size_t)(want - (char *)c);
        size_t newsize = rm_csize(c) - lead;
        if (rm_is_mmapped(c)) {
            n->prev_size = c->prev_size + lead;
            n->size = newsize | RM_M;
            return rm_mem(n);
        }
        size_t abit = rm_abit(a);
        n->size = newsize | RM_P | abit;
        c->size = lead | (c->size & RM_P) | abit;
        rm_int_free(a, c);
        c = n;
    }
    if (!rm_is_mmapped(c))
        rm_shrink(a, c, nb);
    return rm_mem(c);
}
