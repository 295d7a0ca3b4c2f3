/* bump.c - the simplest allocator there is: every request is carved from the top of what was
 * taken from the program break, and nothing is ever given back or reused.
 *
 * Lesson: allocation is a pointer increment and a header, and free() does nothing, so the
 * process's memory is everything it ever allocated (RSS only grows).
 *
 * Speed: the break is moved (under teach_lock) only to take a chunk for the calling thread,
 * 1 MiB first, doubling per refill up to 64 MiB; each thread carves its blocks from its own
 * chunk through two thread-local pointers, with no lock and no system call. Requests of 256 KiB
 * and more (header and alignment included) move the break for themselves, as every request
 * used to. Untouched chunk pages cost address space, not RSS: the kernel backs a page of the
 * break only when it is first written.
 *
 * Invariants: each block is [struct teach_chunk][user bytes], 16-byte aligned (or to the
 * memalign alignment); chunk->size never changes after the block is made; a thread's
 * [bump_cur, bump_end) is memory of the break that no block holds and only that thread carves;
 * the break moves only with teach_lock held (teach_sbrk).
 */
#include "interpose.h"
#include "teach.h"

#include <string.h>

#define BUMP_FIRST_CHUNK (TEACH_KIB * 1024)      /* a thread's first chunk */
#define BUMP_MAX_CHUNK (64 * TEACH_KIB * 1024)   /* chunks double up to this */
#define BUMP_OWN_AT (256 * TEACH_KIB)            /* requests this big move the break themselves */

#define BUMP_TLS __thread __attribute__((tls_model("initial-exec")))

static BUMP_TLS uintptr_t bump_cur;   /* next free byte of this thread's chunk */
static BUMP_TLS uintptr_t bump_end;   /* end of this thread's chunk (0: none yet) */
static BUMP_TLS size_t bump_next;     /* size of this thread's next chunk (0: the first) */

/* Moves the break by `bytes` (16-byte aligned start) under the lock; NULL with ENOMEM. */
static char *bump_sbrk(size_t bytes)
{
    pthread_mutex_lock(&teach_lock);
    char *raw = teach_sbrk(bytes);
    pthread_mutex_unlock(&teach_lock);
    return raw;
}

/* Writes the header of a block of `user` bytes whose user pointer is p, and returns p. */
static void *bump_block(uintptr_t p, size_t user)
{
    struct teach_chunk *c = teach_chunk_of((void *)p);
    c->size = sizeof *c + user;
    c->map_off = 0;
    return (void *)p;
}

/* Carves a block of `user` bytes aligned to align from [*cur, end); NULL if it does not fit. */
static inline void *bump_carve(uintptr_t *cur, uintptr_t end, size_t align, size_t user)
{
    uintptr_t p = teach_round_up(*cur + sizeof(struct teach_chunk), align);
    if (p > end || user > end - p)
        return NULL;
    *cur = p + user;
    return bump_block(p, user);
}

/* Gives the calling thread a new chunk of at least `need` bytes; 0 with ENOMEM when the break
 * cannot grow. A chunk that starts where the old one ended (no other thread moved the break in
 * between) continues it, so a single thread's blocks stay contiguous. */
static int bump_refill(size_t need)
{
    size_t size = bump_next ? bump_next : BUMP_FIRST_CHUNK;
    char *raw = bump_sbrk(size);
    if (!raw) /* the break cannot take a whole chunk: take just this request */
        raw = bump_sbrk(size = need);
    if (!raw)
        return 0;
    if ((uintptr_t)raw != bump_end)
        bump_cur = (uintptr_t)raw;
    bump_end = (uintptr_t)raw + size;
    bump_next = size * 2 > BUMP_MAX_CHUNK ? BUMP_MAX_CHUNK : size * 2;
    return 1;
}

/* The slow path of bump_take: a request too big for a chunk, or a chunk that is used up. Kept
 * out of line so the fast path saves no registers. */
static __attribute__((noinline)) void *bump_take_slow(size_t align, size_t user)
{
    size_t need = sizeof(struct teach_chunk) + (align > TEACH_ALIGN ? align : 0) + user;
    if (need >= BUMP_OWN_AT) {
        uintptr_t raw = (uintptr_t)bump_sbrk(need);
        return raw ? bump_carve(&raw, raw + need, align, user) : NULL;
    }
    if (!bump_refill(need))
        return NULL;
    return bump_carve(&bump_cur, bump_end, align, user);
}

/* A fresh block of at least n user bytes whose user pointer is a multiple of align (a power of
 * two >= 16); NULL with ENOMEM when the break cannot grow. */
static void *bump_take(size_t align, size_t n)
{
    size_t user = teach_round_up(n ? n : 1, TEACH_ALIGN);
    void *p = bump_carve(&bump_cur, bump_end, align, user);
    return p ? p : bump_take_slow(align, user);
}

/* Contract of ip_backend_malloc (interpose.h). */
void *ip_backend_malloc(size_t n) { return bump_take(TEACH_ALIGN, n); }

/* Contract of ip_backend_memalign (interpose.h). */
void *ip_backend_memalign(size_t align, size_t n) { return bump_take(align, n); }

/* Contract of ip_backend_free: bump never frees. */
void ip_backend_free(void *p) { (void)p; }

/* Contract of ip_backend_usable_size (interpose.h). */
size_t ip_backend_usable_size(void *p) { return teach_size(teach_chunk_of(p)) - sizeof(struct teach_chunk); }

/* Contract of ip_backend_realloc: a shrink keeps the block; a growth takes a new one and copies. */
void *ip_backend_realloc(void *p, size_t n)
{
    size_t have = ip_backend_usable_size(p);
    if (n <= have)
        return p;
    void *q = bump_take(TEACH_ALIGN, n);
    if (q)
        memcpy(q, p, have);
    return q;
}
