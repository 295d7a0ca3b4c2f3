/* rm_tcache.c - the per-thread cache: small freed chunks kept in LIFO lists per size class and
 * handed back to the same thread without taking any lock.
 *
 * Always true: rm_tc is this thread's cache (initial-exec TLS) or NULL; a cached chunk is in
 * use for its arena and carries rm_tcache_key in its second word, so a free of a pointer whose
 * key matches is checked against the list (double free -> abort); no bin holds more than
 * rm_mp.tcache_count entries; nothing here allocates except rm_tcache_create (from the arena,
 * under its lock). When a thread exits (pthread key destructor) its cache goes back to the
 * arenas, then the thread leaves its arena; later frees in that thread bypass the cache.
 */
#include "rm_types.h"
#include "interpose.h"

#include <string.h>

uintptr_t rm_tcache_key;
static __thread rm_tcache *rm_tc;
static __thread int rm_tc_state; /* 0: none yet, 1: live or being created, 2: thread exiting */
static pthread_key_t rm_tc_exit_key;
static int rm_tc_key_ok;

/* Gives every cached chunk back to its arena and empties the cache. */
static void rm_tcache_flush(rm_tcache *tc)
{
    for (size_t i = 0; i < RM_TCACHE_BINS; i++) {
        while (tc->entries[i]) {
            rm_tentry *e = tc->entries[i];
            tc->entries[i] = e->next;
            e->key = 0;
            rm_chunk *c = rm_chunk_of(e);
            rm_arena *a = rm_chunk_arena(c);
            int locked = rm_lock(a);
            rm_int_free(a, c);
            rm_unlock(a, locked);
        }
        tc->counts[i] = 0;
    }
}

/* The pthread key destructor: returns the cache, then the cache's own chunk (through the whole
 * free path: it may be a mapped chunk), then the arena. */
static void rm_tcache_thread_exit(void *unused)
{
    (void)unused;
    rm_tcache *tc = rm_tc;
    rm_tc_state = 2;
    rm_tc = NULL;
    if (tc) {
        rm_tcache_flush(tc);
        ip_backend_free(tc);
    }
    rm_arena_detach();
}

/* Creates the random key and the thread-exit hook; called once from rm_init. */
void rm_tcache_init_once(void)
{
    rm_tcache_key = rm_os_random();
    rm_tc_key_ok = pthread_key_create(&rm_tc_exit_key, rm_tcache_thread_exit) == 0;
}

/* Registers the exit hook for the calling thread (it has just attached to an arena). */
void rm_tcache_thread_start(void)
{
    if (rm_tc_key_ok)
        pthread_setspecific(rm_tc_exit_key, (void *)1);
}

/* Allocates this thread's cache from its arena; NULL when tcache is off or memory is short. */
static rm_tcache *rm_tcache_create(void)
{
    if (rm_tc_state != 0 || rm_mp.tcache_count == 0 || rm_mp.tcache_bins == 0 || !rm_tc_key_ok)
        return NULL;
    rm_tc_state = 1;
    rm_arena *a = rm_thread_arena ? rm_thread_arena : rm_arena_attach();
    int locked = rm_lock(a);
    void *p = rm_int_malloc(a, rm_request2size(sizeof(rm_tcache)));
    rm_unlock(a, locked);
    if (!p) {
        rm_tc_state = 0;
        return NULL;
    }
    memset(p, 0, sizeof(rm_tcache));
    rm_tc = p;
    return p;
}

/* A chunk of size nb from this thread's cache, NULL when there is none to give. */
void *rm_tcache_take(size_t nb)
{
    rm_tcache *tc = rm_tc;
    size_t i = rm_tcache_index(nb);
    if (!tc || i >= rm_mp.tcache_bins)
        return NULL;
    rm_tentry *e = tc->entries[i];
    if (!e)
        return NULL;
    if ((uintptr_t)e & (RM_ALIGN - 1))
        rm_fatal("malloc(): unaligned tcache chunk detected");
    tc->entries[i] = e->next;
    tc->counts[i]--;
    e->key = 0;
    return e;
}

/* How many more chunks of size nb this thread's cache would take now (0 without a cache). */
size_t rm_tcache_room(size_t nb)
{
    rm_tcache *tc = rm_tc;
    size_t i = rm_tcache_index(nb);
    if (!tc || i >= rm_mp.tcache_bins || tc->counts[i] >= rm_mp.tcache_count)
        return 0;
    return rm_mp.tcache_count - tc->counts[i];
}

/* e carries the key: aborts if it is really in bin i already (a double free). */
static void rm_tcache_double_free_scan(rm_tcache *tc, size_t i, rm_tentry *e)
{
    size_t n = 0;
    for (rm_tentry *t = tc->entries[i]; t; t = t->next, n++) {
        if (n > rm_mp.tcache_count)
            rm_fatal("free(): too many chunks detected in tcache");
        if (t == e)
            rm_fatal("free(): double free detected in tcache 2"); /* glibc's words */
    }
}

/* Puts e into bin i of tc unless the bin is full; returns 1 when it did. */
static inline int rm_tcache_put(rm_tcache *tc, size_t i, rm_tentry *e)
{
    if (tc->counts[i] >= rm_mp.tcache_count)
        return 0;
    e->key = rm_tcache_key;
    e->next = tc->entries[i];
    tc->entries[i] = e;
    tc->counts[i]++;
    return 1;
}

/* rm_tcache_keep's rare cases: the thread has no cache yet, or e carries the key (it may be
 * cached already: a double free). Out of line, so that the common case needs no saved
 * registers and inlines into free. */
static __attribute__((noinline, cold)) int rm_tcache_keep_rare(rm_tcache *tc, size_t i, rm_tentry *e)
{
    if (!tc && (tc = rm_tcache_create()) == NULL)
        return 0;
    if (e->key == rm_tcache_key)
        rm_tcache_double_free_scan(tc, i, e);
    return rm_tcache_put(tc, i, e);
}

/* Caches in-use chunk c (already sanity-checked) for this thread; returns 1 if it was taken.
 * The tcache part of glibc's _int_free: size class, double-free key, room in the bin. Always
 * inlined (-flto does it across files) into free and rm_stash, as glibc's tcache_put sits
 * inside _int_free. */
__attribute__((always_inline)) inline int rm_tcache_keep(rm_chunk *c)
{
    size_t i = rm_tcache_index(rm_csize(c));
    if (i >= rm_mp.tcache_bins)
        return 0;
    rm_tcache *tc = rm_tc;
    rm_tentry *e = rm_mem(c);
    if (__builtin_expect(!tc || e->key == rm_tcache_key, 0))
        return rm_tcache_keep_rare(tc, i, e);
    return rm_tcache_put(tc, i, e);
}

/* Checks this thread's cache: counts, sizes, keys, alignment, and that each chunk is in use.
 * Returns the number of problems found (each reported on stderr). */
int rm_tcache_check(void)
{
    rm_tcache *tc = rm_tc;
    int errors = 0;
    if (!tc)
        return 0;
    for (size_t i = 0; i < RM_TCACHE_BINS; i++) {
        size_t n = 0;
        for (rm_tentry *e = tc->entries[i]; e && n <= RM_TCACHE_COUNT_MAX; e = e->next, n++) {
            rm_chunk *c = rm_chunk_of(e);
            if (((uintptr_t)e & (RM_ALIGN - 1)) || rm_csize(c) != RM_MIN_CHUNK + RM_ALIGN * i ||
                e->key != rm_tcache_key || rm_is_mmapped(c) || !rm_inuse(c)) {
                rm_os_write("refmalloc: check: bad tcache entry\n");
                errors++;
                break;
            }
        }
        if (n != tc->counts[i] || n > rm_mp.tcache_count) {
            rm_os_write("refmalloc: check: tcache count mismatch\n");
            errors++;
        }
    }
    return errors;
}
