/* teach.h - what the four teaching allocators (bump, freelist, trim, mmap) share: the one global
 * lock, rounding, and for freelist, trim and mmap the per-block header and the policy knobs that
 * tell them apart (they are one implementation, core.c, with three policies). bump has no
 * per-block header: its chunk headers are in bump.c.
 *
 * Invariants for every block handed out by freelist, trim or mmap:
 *   - the user pointer is 16-byte aligned (or more, for memalign) and a struct teach_chunk
 *     sits immediately before it;
 *   - chunk->size is the whole chunk in bytes (header included), a multiple of 16, with the
 *     TEACH_MAPPED bit set only for blocks that have a mapping of their own;
 *   - every change of shared allocator state (the free list, the break) happens with
 *     teach_lock held (one lock for the process: slow, and correct for multithreaded
 *     programs); bump takes it only to cut a chunk from its region, and its per-thread chunk
 *     pointers are thread-local and need no lock.
 */
#ifndef HEAPBENCH_TEACH_H
#define HEAPBENCH_TEACH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define TEACH_ALIGN 16u
#define TEACH_MAPPED ((size_t)1) /* low bit of chunk->size: the block is its own mmap */
#define TEACH_KIB ((size_t)1024)

/* The header in front of every block. 16 bytes, so user pointers stay 16-byte aligned. */
struct teach_chunk {
    size_t size;     /* whole chunk in bytes, header included; low bit TEACH_MAPPED */
    size_t map_off;  /* mapped blocks: bytes from the start of their mapping to this header */
};

/* What makes freelist, trim and mmap different (core.c reads it; each of freelist.c, trim.c
 * and mmap.c defines it). A zero field switches that behaviour off. */
struct teach_policy {
    size_t trim_at;   /* free() lowers the break once the free top chunk reaches this size ... */
    size_t trim_keep; /* ... keeping this much of it */
    size_t mmap_at;   /* requests of this many bytes and up get a mapping of their own */
};
extern const struct teach_policy teach_policy;

/* The single lock around every change of shared state (defined in sys.c, with its fork handlers). */
extern pthread_mutex_t teach_lock;

/* Rounds n up to a multiple of a (a power of two). */
static inline size_t teach_round_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/* The header of the block whose user pointer is p. */
static inline struct teach_chunk *teach_chunk_of(void *p) { return (struct teach_chunk *)p - 1; }

/* The user pointer of chunk c. */
static inline void *teach_user_of(struct teach_chunk *c) { return c + 1; }

/* The chunk size without its flag bit. */
static inline size_t teach_size(const struct teach_chunk *c) { return c->size & ~TEACH_MAPPED; }

/* Moves the break so that it is 16-byte aligned, then by `bytes` more; returns the aligned old
 * break (the start of the new space) or NULL with errno = ENOMEM. Caller holds teach_lock. */
void *teach_sbrk(size_t bytes);

#endif
