/* rm_api.c - refmalloc's front door: the ip_backend_* contract of allocators/interpose/interpose.h
 * built from the thread cache, the arenas and the mapped chunks.
 *
 * Always true: the fast paths (tcache hit on malloc, tcache room on free) take no lock; calloc
 * never takes from the tcache (as glibc 2.36); every
 * arena operation runs under that arena's lock (rm_lock); a NULL result sets errno to ENOMEM;
 * a pointer given back is checked (alignment, size) before anything is written through it.
 */
#include "rm_types.h"
#include "interpose.h"

#include <errno.h>
#include <string.h>
#include <sys/single_threaded.h>

/* free() needs no errno saving around it (interpose.h): refmalloc's only system calls are
 * rm_os.c's, and each of them restores errno. glibc's __libc_free saves and restores errno
 * around all of its work, which inside libc is one thread-pointer load and store; out here each
 * errno access is a call to __errno_location, so the saving stays on the paths that need it. */
const char ip_backend_free_keeps_errno;

/* Allocates nb bytes (aligned to align when align != 0) from the thread's arena, retrying in
 * the main arena when a thread arena is exhausted. NULL (errno ENOMEM) on failure. */
static void *rm_from_arena(size_t align, size_t nb)
{
    rm_arena *a = rm_thread_arena ? rm_thread_arena : rm_arena_attach();
    for (;;) {
        int locked = rm_lock(a);
        void *p = align ? rm_int_memalign(a, align, nb) : rm_int_malloc(a, nb);
        rm_unlock(a, locked);
        if (p)
            return p;
        if (a == &rm_main_arena) {
            errno = ENOMEM;
            return NULL;
        }
        a = &rm_main_arena;
    }
}

/* glibc's SINGLE_THREAD_P path of __libc_malloc: while the process has only ever had one
 * thread and that thread uses the main arena, malloc goes straight to the main arena's
 * _int_malloc, without a lock or the arena choice and retry of rm_from_arena. */
static void *rm_from_main_single(size_t nb)
{
    void *p = rm_int_malloc(&rm_main_arena, nb);
    if (!p)
        errno = ENOMEM;
    return p;
}

/* malloc: tcache, else the arena (the main one directly while single-threaded); fills with the
 * perturb byte when asked. */
void *ip_backend_malloc(size_t n)
{
    rm_ensure_init();
    size_t nb = rm_request2size(n);
    void *p = rm_tcache_take(nb);
    if (p)
        return p;
    if (__libc_single_threaded && rm_thread_arena == &rm_main_arena)
        p = rm_from_main_single(nb);
    else
        p = rm_from_arena(0, nb);
    if (p && rm_mp.perturb)
        memset(p, (int)(rm_mp.perturb ^ 0xff), n);
    return p;
}

/* calloc: from the arena (glibc 2.36's calloc does not take from the tcache either); a fresh
 * mapping is already zero and is not cleared again. */
void *ip_backend_calloc(size_t total)
{
    rm_ensure_init();
    void *p = rm_from_arena(0, rm_request2size(total));
    if (!p)
        return NULL;
    if (!rm_is_mmapped(rm_chunk_of(p)))
        memset(p, 0, total);
    return p;
}

/* Gives in-use chunk c back to its own arena, under the arena's lock. Out of line: free's
 * tcache path stays free of saved registers. */
static __attribute__((noinline)) void rm_free_to_arena(rm_chunk *c)
{
    rm_arena *a = rm_chunk_arena(c);
    int locked = rm_lock(a);
    rm_int_free(a, c);
    rm_unlock(a, locked);
}

/* free, in glibc's __libc_free order: mapped chunks are unmapped; others are checked, then go
 * to the tcache or back to their own arena. */
void ip_backend_free(void *p)
{
    rm_chunk *c = rm_chunk_of(p);
    if (rm_is_mmapped(c)) {
        rm_mmap_free(c);
        return;
    }
    rm_check_free_ptr(c, 0);
    if (!rm_tcache_keep(c))
        rm_free_to_arena(c);
}

/* realloc: mremap for mapped chunks; in place when the chunk or its neighbour allows; else
 * allocate, copy, free. On failure p is untouched. */
void *ip_backend_realloc(void *p, size_t n)
{
    rm_chunk *c = rm_chunk_of(p);
    size_t nb = rm_request2size(n);
    if (rm_is_mmapped(c)) {
        void *q = rm_mmap_realloc(c, nb);
        if (q)
            return q;
    } else {
        rm_check_free_ptr(c, 1);
        rm_arena *a = rm_chunk_arena(c);
        int locked = rm_lock(a);
        int ok = rm_int_grow_inplace(a, c, nb);
        rm_unlock(a, locked);
        if (ok)
            return p;
    }
    void *q = ip_backend_malloc(n);
    if (!q)
        return NULL;
    size_t old = rm_usable(c);
    memcpy(q, p, old < n ? old : n);
    ip_backend_free(p);
    return q;
}

/* memalign: align is a power of two > 16 (the layer guarantees it). */
void *ip_backend_memalign(size_t align, size_t n)
{
    rm_ensure_init();
    return rm_from_arena(align, rm_request2size(n));
}

/* malloc_usable_size. */
size_t ip_backend_usable_size(void *p) { return rm_usable(rm_chunk_of(p)); }
