/* rm_fast.c - fastbins: small freed chunks (chunks of up to (mxfast + 8) rounded down to 16 bytes: 128, requests up to 120, by default) kept
 * in LIFO lists without coalescing, handed back to exact-size requests, and merged into the
 * normal bins ("consolidated") before a large request, before the arena grows, and on trims.
 *
 * Always true (the caller holds the arena lock): a fastbin chunk keeps the P bit of the chunk
 * above it set, so for its neighbours it is in use; fastbin i holds only chunks of size
 * 32 + 16 i; a chunk is never on a fastbin twice in a row (the "fasttop" double-free check);
 * have_fast is set whenever some fastbin may be non-empty; a misaligned link (a use after
 * free wrote over it) aborts before it is followed, with glibc's message.
 */
#include "rm_types.h"

/* Pushes chunk c (of at most max_fast bytes) onto its fastbin; aborts when c is already its
 * first chunk (glibc's fasttop check). */
void rm_fast_put(rm_arena *a, rm_chunk *c)
{
    rm_chunk **head = &a->fastbins[rm_fast_index(rm_csize(c))];
    if (*head == c)
        rm_fatal("double free or corruption (fasttop)");
    c->fd = *head;
    *head = c;
    a->have_fast = 1;
}

/* Pops a chunk of exactly nb bytes from its fastbin, or NULL. */
rm_chunk *rm_fast_take(rm_arena *a, size_t nb)
{
    if (nb > rm_mp.max_fast)
        return NULL;
    rm_chunk **head = &a->fastbins[rm_fast_index(nb)];
    rm_chunk *c = *head;
    if (!c)
        return NULL;
    if ((uintptr_t)c & (RM_ALIGN - 1))
        rm_fatal("malloc(): unaligned fastbin chunk detected 2");
    if (rm_csize(c) != nb)
        rm_fatal("malloc(): memory corruption (fast)");
    *head = c->fd;
    return c;
}

/* Empties every fastbin, merging each chunk with its free neighbours into the normal bins. */
void rm_fast_consolidate(rm_arena *a)
{
    a->have_fast = 0;
    for (size_t i = 0; i < RM_NFASTBINS; i++) {
        rm_chunk *c = a->fastbins[i];
        a->fastbins[i] = NULL;
        while (c) {
            if ((uintptr_t)c & (RM_ALIGN - 1))
                rm_fatal("malloc_consolidate(): unaligned fastbin chunk detected");
            rm_chunk *next = c->fd;
            rm_chunk_coalesce(a, c);
            c = next;
        }
    }
}

/* Counts the chunks and bytes held in each of a's fastbins. */
void rm_fast_stats(rm_arena *a, size_t chunks[RM_NFASTBINS], size_t bytes[RM_NFASTBINS])
{
    for (size_t i = 0; i < RM_NFASTBINS; i++) {
        chunks[i] = bytes[i] = 0;
        for (rm_chunk *c = a->fastbins[i]; c; c = c->fd) {
            chunks[i]++;
            bytes[i] += rm_csize(c);
        }
    }
}

/* Checks every fastbin chunk: alignment, the size of its bin, still "in use" for its
 * neighbours; a list longer than the arena could hold is reported as a cycle. */
int rm_fast_check(rm_arena *a)
{
    int errors = 0;
    size_t limit = a->system_mem / RM_MIN_CHUNK + 1;
    for (size_t i = 0; i < RM_NFASTBINS; i++) {
        size_t n = 0;
        for (rm_chunk *c = a->fastbins[i]; c; c = c->fd) {
            if (++n > limit || ((uintptr_t)c & (RM_ALIGN - 1)) || rm_csize(c) != RM_MIN_CHUNK + RM_ALIGN * i ||
                !rm_inuse(c) || !a->have_fast) {
                rm_os_write("refmalloc: check: bad fastbin chunk\n");
                errors++;
                break;
            }
        }
    }
    return errors;
}
