/* objring.h - where the replayer and the statistics' pass keep each live object of a trace (two
 * words: the replayer's pointer and size; the statistics' state | size and birth time), in
 * memory that is reused in place rather than given back and faulted in again: a ring per
 * producing thread, indexed by the object's seq, and an overflow table for the objects that
 * outlive their ring slot (the seq of the slot's next object comes while they are still live).
 * Always holds: each object is put once by its producing thread and taken at most once, by any
 * thread; a take races a producer's eviction of the same object through the slot's tag word
 * (compare-and-swap), so exactly one of them wins and the object is found in the ring or in the
 * overflow table, never lost or seen twice; the rings cost ring entries x 32 bytes per thread
 * (made resident at init, so in the replayer's baseline); the overflow table holds the objects
 * that outlived their slot (32 bytes each, sized at init for twice the hint, and doubling under its
 * lock only when more than 3/4 full: a take shifts its run back, oa_table.h, so takes leave no
 * tombstones and never force a rebuild); nothing is given back to the kernel while the table is in
 * use, so no event pays a page fault or a TLB shootdown unless the table grows (ovf_grown). */
#ifndef HEAPBENCH_OBJRING_H
#define HEAPBENCH_OBJRING_H

#include "trace.h"

#include <pthread.h>
#include <stdatomic.h>

#define OBJRING_TAKEN (1ull << 63) /* a slot's tag once its object is consumed */

struct ring_slot {
    _Atomic uint64_t tag;      /* seq + 1 of the object here (0: none yet), | TAKEN once consumed, | MOVING during its eviction */
    _Atomic uint64_t a, b;     /* the object's two words */
    uint64_t pad;
};

struct ring {
    struct ring_slot *s;
    uint64_t mask;             /* entries - 1 (a power of 2) */
};

struct ovf_entry {
    uint64_t key, a, b, pad;   /* key: the object's global index + 1; 0 free (oa_table.h: first word, no tombstones) */
};

struct objring {
    const struct hbt_trace *t;
    struct ring *rings;        /* one per recorded thread */
    pthread_mutex_t lock;      /* the overflow table */
    struct ovf_entry *ovf;
    uint64_t ovf_cap, ovf_live;
    uint64_t ovf_grown;        /* times the table doubled (more live objects than it was sized for): pages faulted in then */
};

/* Rings for t's threads (up to ring_max entries each, a power of 2) and an overflow table for
 * at least ovf_hint objects. 0, or -1 when memory is refused. */
int objring_init(struct objring *r, const struct hbt_trace *t, uint64_t ring_max, uint64_t ovf_hint);
void objring_free(struct objring *r);
/* Empties every ring and the overflow table (their memory stays resident). */
void objring_reset(struct objring *r);
/* objring_put when the slot still holds a live older object (moves it to the overflow table). */
int objring_put_evict(struct objring *r, uint16_t th, uint64_t seq, uint64_t a, uint64_t b);

/* Puts object seq with words a and b in its producing thread's ring `ring` (a copy of
 * r->rings[th] that the caller keeps in registers across its loop): 0, or 1 when the slot still
 * holds a live older object (nothing done: call objring_put_evict). Inline: the replayer's loop
 * calls it for every object, and the slot is almost always free (its old object taken). */
static inline int objring_put_in(struct ring ring, uint64_t seq, uint64_t a, uint64_t b)
{
    struct ring_slot *s = &ring.s[seq & ring.mask];
    uint64_t tag = atomic_load_explicit(&s->tag, memory_order_acquire);
    if (__builtin_expect(tag && !(tag & OBJRING_TAKEN), 0))
        return 1;
    atomic_store_explicit(&s->a, a, memory_order_relaxed);
    atomic_store_explicit(&s->b, b, memory_order_relaxed);
    atomic_store_explicit(&s->tag, seq + 1, memory_order_release);
    return 0;
}
/* The producing thread th puts its object seq with words a and b. -1 when the overflow table
 * cannot grow (out of memory). */
static inline int objring_put(struct objring *r, uint16_t th, uint64_t seq, uint64_t a, uint64_t b)
{
    return objring_put_in(r->rings[th], seq, a, b) ? objring_put_evict(r, th, seq, a, b) : 0;
}
/* Takes thread th's object seq: 1 (a and b filled), 0 when it has not been put yet, -1 when it
 * was put and has already been taken. */
int objring_take(struct objring *r, uint16_t th, uint64_t seq, uint64_t *a, uint64_t *b);
/* Takes object seq, put by the calling thread itself, from its ring `ring` (a copy of the
 * caller's r->rings[th]): 1 (a and b filled), or 0 when it is not there as a live object
 * (objring_take says where it is). No other thread can take or move it, so no compare-and-swap
 * is needed (inline, like objring_put_in). */
static inline int objring_take_own_in(struct ring ring, uint64_t seq, uint64_t *a, uint64_t *b)
{
    struct ring_slot *s = &ring.s[seq & ring.mask];
    uint64_t tag = atomic_load_explicit(&s->tag, memory_order_relaxed);
    if (__builtin_expect(tag != seq + 1, 0))
        return 0;
    *a = atomic_load_explicit(&s->a, memory_order_relaxed);
    *b = atomic_load_explicit(&s->b, memory_order_relaxed);
    atomic_store_explicit(&s->tag, tag | OBJRING_TAKEN, memory_order_release);
    return 1;
}
/* objring_take for an object that the calling thread th itself put. */
static inline int objring_take_own(struct objring *r, uint16_t th, uint64_t seq, uint64_t *a, uint64_t *b)
{
    return objring_take_own_in(r->rings[th], seq, a, b) ? 1 : objring_take(r, th, seq, a, b);
}
/* 1 when thread th's object seq has been put (taken since or not), 0 when not yet: the slot's seq
 * only grows, so a 0 is certain for every moment before the call. Any thread may ask. */
int objring_made(struct objring *r, uint16_t th, uint64_t seq);
/* Calls fn for every object put and not taken (no other thread may use r meanwhile). */
void objring_each(struct objring *r, void (*fn)(void *arg, uint64_t a, uint64_t b), void *arg);
/* The same, with each object's global index (its thread's obj_base + its seq). */
void objring_each_obj(struct objring *r, void (*fn)(void *arg, uint64_t obj, uint64_t a, uint64_t b), void *arg);

#endif
