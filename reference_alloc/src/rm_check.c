/* rm_check.c - the heap checker: walks every segment of every arena and every bin, and checks
 * each invariant listed in rm_types.h; exported as refmalloc_check_heap() for the tests.
 *
 * Always true: an arena is checked under its lock; only the calling thread's tcache is checked
 * (other threads' caches change without locks); a problem is reported on stderr as
 * "refmalloc: check: <what> at 0x<addr>" and counted; the checker itself never aborts.
 * Fastbin chunks are checked by rm_fast_check (rm_fast.c), which knows their lists.
 */
#include "rm_types.h"

static __thread int rm_check_errors; /* per thread: checkers may run concurrently */

/* Reports one broken invariant at address where. */
static void rm_bad(const char *what, const void *where)
{
    char buf[160];
    char *end = buf + sizeof buf - 2;
    char *p = rm_fmt_str(buf, end, "refmalloc: check: ");
    p = rm_fmt_str(p, end, what);
    p = rm_fmt_str(p, end, " at 0x");
    for (int shift = 60; shift >= 0; shift -= 4)
        *p++ = "0123456789abcdef"[((uintptr_t)where >> shift) & 15];
    rm_fmt_str(p, end, "\n");
    rm_os_write(buf);
    rm_check_errors++;
}

/* Walks segment s of a chunk by chunk; returns the number of free chunks (top excluded). */
static size_t rm_check_segment(rm_arena *a, rm_seg *s)
{
    size_t abit = a->is_main ? 0 : RM_A, nfree = 0, prevsize = 0;
    int prev_free = 0;
    char *end = (char *)s + s->size;
    rm_chunk *c = rm_at(s, s->first);
    for (;;) {
        if ((char *)c + RM_FENCE > end || ((uintptr_t)c & (RM_ALIGN - 1))) {
            rm_bad("chunk outside its segment or misaligned", c);
            return nfree;
        }
        if ((c->size & RM_A) != abit || (c->size & RM_M))
            rm_bad("chunk flags disagree with its arena", c);
        if (((c->size & RM_P) != 0) == prev_free)
            rm_bad("P bit disagrees with the chunk below", c);
        if (prev_free && c->prev_size != prevsize)
            rm_bad("prev_size disagrees with the free chunk below", c);
        if (c == a->top || rm_is_fence(c)) {
            if (c == a->top && (s != a->seg || (char *)c + rm_csize(c) != end))
                rm_bad("top is not the end of the newest segment", c);
            if (rm_is_fence(c) && s == a->seg)
                rm_bad("newest segment ends in a fence", c);
            return nfree;
        }
        size_t size = rm_csize(c);
        if (size < RM_MIN_CHUNK || (size & (RM_ALIGN - 1)) || (char *)c + size > end) {
            rm_bad("bad chunk size", c);
            return nfree;
        }
        int is_free = !rm_inuse(c);
        if (is_free && prev_free)
            rm_bad("two adjacent free chunks", c);
        nfree += (size_t)is_free;
        prev_free = is_free;
        prevsize = size;
        c = rm_at(c, size);
    }
}

/* Checks one chunk c found in bin i after prev. */
static void rm_check_binned(rm_arena *a, unsigned i, rm_chunk *prev, rm_chunk *c)
{
    size_t size = rm_csize(c);
    if (c->bk != prev)
        rm_bad("bin list broken (bk)", c);
    if (i != RM_UNSORTED && rm_bin_index(size) != i)
        rm_bad("chunk in the wrong bin", c);
    if (size < RM_MIN_CHUNK || rm_inuse(c) || rm_next(c)->prev_size != size || c == a->top)
        rm_bad("binned chunk is not a well-formed free chunk", c);
    if (i == RM_UNSORTED || rm_in_smallbin(size))
        return;
    int first_of_size = prev == &a->bins[i] || rm_csize(prev) != size;
    if (prev != &a->bins[i] && rm_csize(prev) < size)
        rm_bad("large bin not sorted", c);
    if (first_of_size != (c->fd_nextsize != NULL))
        rm_bad("nextsize ring membership wrong", c);
    if (c->fd_nextsize && (c->fd_nextsize->bk_nextsize != c || c->bk_nextsize->fd_nextsize != c))
        rm_bad("nextsize ring broken", c);
}

/* Checks every bin of a; returns the number of chunks binned. */
static size_t rm_check_bins(rm_arena *a)
{
    size_t total = 0, limit = a->system_mem / RM_MIN_CHUNK + 1;
    for (unsigned i = RM_UNSORTED; i < RM_NBINS; i++) {
        rm_chunk *b = &a->bins[i], *prev = b;
        size_t n = 0;
        for (rm_chunk *c = b->fd; c != b; prev = c, c = c->fd) {
            if (++n > limit) {
                rm_bad("bin list does not end", b);
                break;
            }
            rm_check_binned(a, i, prev, c);
        }
        if (b->bk != prev)
            rm_bad("bin sentinel bk is not the last chunk", b);
        if (n && i != RM_UNSORTED && !(a->binmap[i >> 6] & ((uint64_t)1 << (i & 63))))
            rm_bad("binmap bit clear for a non-empty bin", b);
        total += n;
    }
    return total;
}

/* Checks arena a completely (a locked by the caller). */
static void rm_check_arena(rm_arena *a)
{
    size_t nfree = 0, held = 0;
    for (rm_seg *s = a->seg; s; s = s->prev) {
        if (s->arena != a)
            rm_bad("segment names another arena", s);
        if (s->reserved && s->size > s->reserved)
            rm_bad("segment larger than its mapping", s);
        nfree += rm_check_segment(a, s);
        held += s->size;
    }
    rm_check_errors += rm_fast_check(a);
    if (rm_check_bins(a) != nfree)
        rm_bad("free chunks in segments and in bins differ", a);
    if (held > a->system_mem)
        rm_bad("segments hold more than system_mem", a);
}

/* Checks every arena and this thread's cache; 0 when all invariants hold, -1 otherwise. */
int refmalloc_check_heap(void)
{
    rm_ensure_init();
    rm_check_errors = 0;
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a)) {
        int locked = rm_lock(a);
        rm_check_arena(a);
        rm_unlock(a, locked);
    }
    rm_check_errors += rm_tcache_check();
    return rm_check_errors ? -1 : 0;
}
