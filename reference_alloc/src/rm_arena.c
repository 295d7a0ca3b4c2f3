/* rm_arena.c - arenas and their segments: the main arena grown with brk (falling back to mmap'd
 * segments when the break cannot grow or was moved by someone else), thread arenas in heaps
 * aligned to RM_HEAP_MAX, the choice of an arena for a thread, arena_max and reuse.
 *
 * Always true: arenas are never freed and only appended to the ring through ->next; the
 * newest segment of an arena ends with its top chunk, every older one with a fence chunk;
 * rm_list_lock protects attached, next_free, rm_free_list and rm_mp.narenas; a thread's arena
 * is in its initial-exec TLS slot rm_thread_arena and counted in that arena's attached.
 */
#include "rm_types.h"

#include <sys/single_threaded.h>

rm_arena rm_main_arena;
pthread_mutex_t rm_list_lock = PTHREAD_MUTEX_INITIALIZER;
__thread rm_arena *rm_thread_arena;
static rm_arena *rm_free_list;  /* arenas no thread uses, reused first */
static rm_arena *rm_next_reuse; /* round-robin cursor once the arena limit is reached */

/* Rounds n up to a multiple of the page size. */
static size_t rm_page_up(size_t n)
{
    size_t page = rm_os_pagesize();
    return (n + page - 1) & ~(page - 1);
}

/* Rounds an address up to RM_ALIGN. */
static uintptr_t rm_align_up(uintptr_t v) { return (v + RM_ALIGN - 1) & ~(uintptr_t)(RM_ALIGN - 1); }

/* Takes a's lock: glibc's lll_lock (sysdeps/nptl/lowlevellock.h), which ptmalloc's
 * __libc_lock_lock is. One compare-and-swap when the lock is free; else the word becomes 2
 * ("taken, with waiters") and the thread sleeps on a futex until an unlock hands it over. */
__attribute__((noinline)) static void rm_arena_lock_wait(rm_arena *a)
{
    while (__atomic_exchange_n(&a->lock, 2, __ATOMIC_ACQUIRE) != 0)
        rm_os_futex_wait(&a->lock, 2);
}

void rm_arena_lock(rm_arena *a)
{
    int c = 0;
    if (!__atomic_compare_exchange_n(&a->lock, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        rm_arena_lock_wait(a); /* out of line: the free case stays small enough to inline */
}

/* Releases a's lock (glibc's lll_unlock): wakes one sleeper if any announced itself. */
void rm_arena_unlock(rm_arena *a)
{
    if (__atomic_exchange_n(&a->lock, 0, __ATOMIC_RELEASE) == 2)
        rm_os_futex_wake(&a->lock);
}

/* Takes a's lock only if it is free (glibc's lll_trylock); returns 1 if taken. */
int rm_arena_trylock(rm_arena *a)
{
    int c = 0;
    return __atomic_compare_exchange_n(&a->lock, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Takes a's lock unless the process has only ever had one thread; returns whether it did. */
int rm_lock(rm_arena *a)
{
    if (__libc_single_threaded)
        return 0;
    rm_arena_lock(a);
    return 1;
}

/* Releases what rm_lock took. */
void rm_unlock(rm_arena *a, int locked)
{
    if (locked)
        rm_arena_unlock(a);
}

/* The arena after a in the ring, NULL after the last one (iteration: from &rm_main_arena). */
rm_arena *rm_arena_next(rm_arena *a)
{
    rm_arena *n = __atomic_load_n(&a->next, __ATOMIC_ACQUIRE);
    return n == &rm_main_arena ? NULL : n;
}

/* Sets up the main arena (no memory yet: the first malloc grows it) and attaches the caller. */
void rm_arena_init_main(void)
{
    rm_arena *a = &rm_main_arena;
    a->lock = 0;
    rm_bins_init(a);
    a->next = a;
    a->is_main = 1;
    a->attached = 1;
    rm_mp.narenas = 1;
    rm_next_reuse = a;
    rm_thread_arena = a;
}

/* Accounts for delta more bytes held by a. */
static void rm_arena_account(rm_arena *a, size_t delta)
{
    a->system_mem += delta;
    if (a->system_mem > a->max_system_mem)
        a->max_system_mem = a->system_mem;
}

/* Ends the old top of a with a fence so that its segment can be left behind: what is left of it
 * before the fence is freed into the bins. a->top must already be the new top. */
static void rm_fence_old_top(rm_arena *a, rm_chunk *t)
{
    size_t size = rm_csize(t);
    size_t abit = a->is_main ? 0 : RM_A;
    if (size < RM_MIN_CHUNK + RM_FENCE) {
        t->size = RM_FENCE | (t->size & RM_P) | abit;
        return;
    }
    rm_chunk *fence = rm_at(t, size - RM_FENCE);
    fence->size = RM_FENCE | RM_P | abit;
    t->size = (size - RM_FENCE) | (t->size & RM_P) | abit;
    rm_int_free(a, t);
}

/* Writes the header of a new segment of a at base (len bytes usable, reserved bytes mapped,
 * kind RM_SEG_*; first_extra bytes after the header are kept, e.g. for the arena struct).
 * Returns the segment; rm_seg_adopt then makes it the arena's newest. */
static rm_seg *rm_seg_start(rm_arena *a, void *base, size_t len, size_t reserved, int kind,
                            size_t first_extra)
{
    rm_seg *s = (rm_seg *)rm_align_up((uintptr_t)base);
    s->arena = a;
    s->prev = a->seg;
    s->first = rm_align_up(sizeof(rm_seg) + first_extra);
    s->kind = kind;
    s->reserved = reserved;
    size_t usable = (len - (size_t)((char *)s - (char *)base) - s->first) & ~(RM_ALIGN - 1);
    s->size = s->first + usable;
    return s;
}

/* Makes segment s (already started for a) the newest one, its space the top. */
static void rm_seg_adopt(rm_arena *a, rm_seg *s, size_t len)
{
    rm_chunk *old = a->top;
    a->seg = s;
    a->top = rm_at(s, s->first);
    a->top->size = (s->size - s->first) | RM_P | (a->is_main ? 0 : RM_A);
    rm_arena_account(a, len);
    if (old)
        rm_fence_old_top(a, old);
}

/* Grows the main arena so that its top holds nb + RM_MIN_CHUNK: extends the break when it still
 * ends at the top, else starts a new brk segment, else an mmap'd one. */
static rm_chunk *rm_main_grow(rm_arena *a, size_t nb)
{
    size_t want = nb + RM_MIN_CHUNK + rm_mp.top_pad;
    rm_chunk *t = a->top;
    int brk_refused = 0; /* the break could not grow: a new brk segment cannot either */
    if (t && a->seg->kind == RM_SEG_BRK) {
        char *end = (char *)t + rm_csize(t);
        if (rm_os_sbrk(0) == end) {
            size_t incr = rm_page_up(want - rm_csize(t));
            if (rm_os_sbrk((intptr_t)incr) == end) {
                t->size += incr;
                a->seg->size += incr;
                rm_arena_account(a, incr);
                return t;
            }
            brk_refused = 1;
        }
    }
    size_t len = rm_page_up(want + sizeof(rm_seg) + RM_FENCE + 2 * RM_ALIGN);
    char *cur = brk_refused ? NULL : rm_os_sbrk(0);
    if (cur && ((uintptr_t)cur & (RM_ALIGN - 1)))
        rm_os_sbrk((intptr_t)(RM_ALIGN - ((uintptr_t)cur & (RM_ALIGN - 1))));
    void *base = cur ? rm_os_sbrk((intptr_t)len) : NULL;
    int kind = RM_SEG_BRK;
    if (!base) {
        len = len < ((size_t)1 << 20) ? ((size_t)1 << 20) : len;
        base = rm_os_map(len);
        kind = RM_SEG_MMAP;
        if (!base)
            return NULL;
    }
    rm_seg_adopt(a, rm_seg_start(a, base, len, kind == RM_SEG_MMAP ? len : 0, kind, 0), len);
    return a->top;
}

/* Maps a fresh thread heap; NULL when the address space is exhausted. */
static void *rm_heap_map(void) { return rm_os_map_aligned(RM_HEAP_MAX, RM_HEAP_MAX); }

/* Initial bytes made available in a new heap whose first chunk is at offset first. */
static size_t rm_heap_initial(size_t first, size_t nb)
{
    size_t size = rm_page_up(first + nb + RM_MIN_CHUNK + rm_mp.top_pad);
    return size > RM_HEAP_MAX ? RM_HEAP_MAX : size;
}

/* Grows thread arena a so that its top holds nb + RM_MIN_CHUNK: within the newest heap when it
 * has room, else in a new heap (the old top fenced off). */
static rm_chunk *rm_heap_grow(rm_arena *a, size_t nb)
{
    rm_seg *s = a->seg;
    rm_chunk *t = a->top;
    size_t need = nb + RM_MIN_CHUNK - rm_csize(t);
    size_t incr = rm_page_up(need + rm_mp.top_pad);
    if (s->size + incr > RM_HEAP_MAX)
        incr = rm_page_up(need);
    if (s->size + incr <= RM_HEAP_MAX) {
        s->size += incr;
        t->size += incr;
        rm_arena_account(a, incr);
        return t;
    }
    size_t first = rm_align_up(sizeof(rm_seg));
    if (first + nb + RM_MIN_CHUNK > RM_HEAP_MAX)
        return NULL;
    void *base = rm_heap_map();
    if (!base)
        return NULL;
    size_t len = rm_heap_initial(first, nb);
    rm_seg_adopt(a, rm_seg_start(a, base, len, RM_HEAP_MAX, RM_SEG_HEAP, 0), len);
    return a->top;
}

/* Grows arena a so that its top holds at least nb + RM_MIN_CHUNK bytes; NULL when it cannot. */
rm_chunk *rm_arena_grow(rm_arena *a, size_t nb)
{
    return a->is_main ? rm_main_grow(a, nb) : rm_heap_grow(a, nb);
}

/* Creates a thread arena living at the start of its first heap; NULL when out of memory. */
static rm_arena *rm_arena_new(int number)
{
    void *base = rm_heap_map();
    if (!base)
        return NULL;
    rm_arena *a = (rm_arena *)((char *)base + rm_align_up(sizeof(rm_seg)));
    a->lock = 0;
    rm_bins_init(a);
    a->number = number;
    size_t first = rm_align_up(sizeof(rm_seg) + sizeof(rm_arena));
    size_t len = rm_heap_initial(first, 0);
    rm_seg_adopt(a, rm_seg_start(a, base, len, RM_HEAP_MAX, RM_SEG_HEAP, sizeof(rm_arena)), len);
    a->next = rm_main_arena.next;
    __atomic_store_n(&rm_main_arena.next, a, __ATOMIC_RELEASE);
    return a;
}

/* The most arenas the process may have now (glibc: arena_max, else 8 per CPU once more than
 * arena_test exist). */
static size_t rm_arena_limit(void)
{
    if (rm_mp.arena_max)
        return rm_mp.arena_max;
    if (rm_mp.narenas <= rm_mp.arena_test)
        return (size_t)-1;
    return 8 * rm_os_ncpus();
}

/* Picks an existing arena for sharing: the first uncontended one from the round-robin cursor,
 * else the cursor's. Called with rm_list_lock held. */
static rm_arena *rm_arena_reuse(void)
{
    rm_arena *start = rm_next_reuse, *a = start;
    do {
        if (rm_arena_trylock(a)) {
            rm_arena_unlock(a);
            break;
        }
        a = rm_arena_next(a) ? rm_arena_next(a) : &rm_main_arena;
    } while (a != start);
    rm_next_reuse = rm_arena_next(a) ? rm_arena_next(a) : &rm_main_arena;
    return a;
}

/* Gives the calling thread an arena: a free one, else a new one below the limit, else a shared
 * one. Never fails (the main arena is always there). */
rm_arena *rm_arena_attach(void)
{
    rm_ensure_init();
    pthread_mutex_lock(&rm_list_lock);
    rm_arena *a = rm_free_list;
    if (a) {
        rm_free_list = a->next_free;
    } else if (rm_mp.narenas < rm_arena_limit()) {
        a = rm_arena_new((int)rm_mp.narenas);
        if (a)
            rm_mp.narenas++;
    }
    if (!a)
        a = rm_arena_reuse();
    a->attached++;
    pthread_mutex_unlock(&rm_list_lock);
    rm_thread_arena = a;
    rm_tcache_thread_start();
    return a;
}

/* The calling thread is exiting: its arena loses one user, and goes on the free list at zero. */
void rm_arena_detach(void)
{
    rm_arena *a = rm_thread_arena;
    if (!a)
        return;
    rm_thread_arena = NULL;
    pthread_mutex_lock(&rm_list_lock);
    if (--a->attached == 0) {
        a->next_free = rm_free_list;
        rm_free_list = a;
    }
    pthread_mutex_unlock(&rm_list_lock);
}

/* In a fork child: every lock re-initialised (the list mutex, each arena's lock freed), every
 * arena but the caller's free for reuse. */
void rm_arena_after_fork_child(void)
{
    pthread_mutex_init(&rm_list_lock, NULL);
    rm_free_list = NULL;
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a)) {
        a->lock = 0;
        a->attached = a == rm_thread_arena ? 1 : 0;
        if (!a->attached) {
            a->next_free = rm_free_list;
            rm_free_list = a;
        }
    }
}
