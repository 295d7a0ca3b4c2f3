/* bump.c - the simplest allocator there is: every request moves the program break up, and
 * nothing is ever given back or reused.
 *
 * Lesson: allocation is one system call and a header, and free() does nothing, so the
 * process's memory is everything it ever allocated (RSS only grows).
 * Invariants: each block is [struct teach_chunk][user bytes], carved from the break by
 * teach_sbrk (16-byte aligned); chunk->size never changes after the block is made.
 */
#include "interpose.h"
#include "teach.h"

#include <string.h>

/* Takes a fresh block of at least n user bytes whose user pointer is a multiple of align
 * (a power of two >= 16) straight from the break; NULL with ENOMEM when the break cannot grow. */
static void *bump_take(size_t align, size_t n)
{
    size_t user = teach_round_up(n ? n : 1, TEACH_ALIGN);
    size_t slack = align > TEACH_ALIGN ? align : 0; /* room to slide the block up to align */
    pthread_mutex_lock(&teach_lock);
    char *raw = teach_sbrk(sizeof(struct teach_chunk) + slack + user);
    pthread_mutex_unlock(&teach_lock);
    if (!raw)
        return NULL;
    char *p = (char *)teach_round_up((uintptr_t)raw + sizeof(struct teach_chunk), align);
    struct teach_chunk *c = teach_chunk_of(p);
    c->size = sizeof *c + user;
    c->map_off = 0;
    return p;
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
