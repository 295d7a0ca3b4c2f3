/* objring.c - live objects in per-thread rings and an overflow table (see objring.h).
 * Always holds: a slot's words are written only by its thread after winning the slot (free, or
 * its old object's tag swapped to MOVING); a taker reads the words, then swaps the tag to TAKEN,
 * and uses the words only if that swap won; an evicted object is in the overflow table before
 * its slot shows a newer tag; objring_take_own skips the swap, since only the calling thread
 * (the producer) can then touch the slot; memory comes from mmap (hbt_pages), never from the
 * allocator. */
#include "objring.h"
#include "oa_table.h"
#include "resident.h"

#include <string.h>
#include <unistd.h>

#define TAKEN OBJRING_TAKEN
#define MOVING (1ull << 62)
#define SEQ_OF(tag) ((tag) & ~(TAKEN | MOVING))

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static int ovf_alloc(struct objring *r, uint64_t cap)
{
    r->ovf = hbt_pages(cap * sizeof *r->ovf);
    if (!r->ovf)
        return -1;
    resident_now(r->ovf, cap * sizeof *r->ovf);
    r->ovf_cap = cap;
    r->ovf_live = 0;
    return 0;
}

int objring_init(struct objring *r, const struct hbt_trace *t, uint64_t ring_max, uint64_t ovf_hint)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    pthread_mutex_init(&r->lock, NULL);
    r->rings = hbt_pages((t->nthreads ? t->nthreads : 1) * sizeof *r->rings);
    if (!r->rings)
        return -1;
    for (uint32_t i = 0; i < t->nthreads; i++) {
        uint64_t n = pow2_at_least(t->threads[i].objects < ring_max ? t->threads[i].objects : ring_max);
        if (!t->threads[i].objects)
            continue;
        r->rings[i].s = hbt_pages(n * sizeof(struct ring_slot));
        if (!r->rings[i].s)
            return -1;
        resident_now(r->rings[i].s, n * sizeof(struct ring_slot));
        r->rings[i].mask = n - 1;
    }
    return ovf_alloc(r, pow2_at_least(2 * ovf_hint + 64));
}

void objring_free(struct objring *r)
{
    for (uint32_t i = 0; r->rings && i < r->t->nthreads; i++)
        if (r->rings[i].s)
            hbt_unpages(r->rings[i].s, (r->rings[i].mask + 1) * sizeof(struct ring_slot));
    hbt_unpages(r->rings, r->rings ? (r->t->nthreads ? r->t->nthreads : 1) * sizeof *r->rings : 0);
    hbt_unpages(r->ovf, r->ovf ? r->ovf_cap * sizeof *r->ovf : 0);
    pthread_mutex_destroy(&r->lock);
    memset(r, 0, sizeof *r);
}

void objring_reset(struct objring *r)
{
    for (uint32_t i = 0; i < r->t->nthreads; i++)
        if (r->rings[i].s)
            memset(r->rings[i].s, 0, (r->rings[i].mask + 1) * sizeof(struct ring_slot));
    memset(r->ovf, 0, r->ovf_cap * sizeof *r->ovf);
    r->ovf_live = 0;
}

/* An overflow key's home slot, before the mask (oa_table.h: the product's high bits). */
static uint64_t ovf_home(uint64_t key) { return oa_mix(key) >> 32; }

/* Inserts key (not present) under the lock; doubles the table first when it would be more than 3/4
 * full (past the load's sizing for the trace's peak of live objects: counted in ovf_grown). */
static int ovf_insert(struct objring *r, uint64_t key, uint64_t a, uint64_t b)
{
    if (4 * (r->ovf_live + 1) > 3 * r->ovf_cap) {
        struct ovf_entry *old = r->ovf;
        uint64_t cap = r->ovf_cap;
        if (ovf_alloc(r, 2 * cap) < 0) {
            r->ovf = old;
            r->ovf_cap = cap;
            return -1;
        }
        for (uint64_t i = 0; i < cap; i++)
            if (old[i].key)
                ovf_insert(r, old[i].key, old[i].a, old[i].b);
        hbt_unpages(old, cap * sizeof *old);
        r->ovf_grown++;
    }
    uint64_t i = oa_find(r->ovf, sizeof *r->ovf, r->ovf_cap - 1, ovf_home(key), key);
    r->ovf[i] = (struct ovf_entry){key, a, b, 0};
    r->ovf_live++;
    return 0;
}

/* Takes key out of the overflow table: 1 (a, b filled) or 0 when absent. The rest of its run shifts
 * back (no tombstones), so the table never needs rebuilding while the live objects fit it. */
static int ovf_take(struct objring *r, uint64_t key, uint64_t *a, uint64_t *b)
{
    int found = 0;
    pthread_mutex_lock(&r->lock);
    uint64_t i = oa_find(r->ovf, sizeof *r->ovf, r->ovf_cap - 1, ovf_home(key), key);
    if (r->ovf[i].key == key) {
        *a = r->ovf[i].a;
        *b = r->ovf[i].b;
        oa_remove(r->ovf, sizeof *r->ovf, r->ovf_cap - 1, i, ovf_home);
        r->ovf_live--;
        found = 1;
    }
    pthread_mutex_unlock(&r->lock);
    return found;
}

int objring_put_evict(struct objring *r, uint16_t th, uint64_t seq, uint64_t a, uint64_t b)
{
    struct ring_slot *s = &r->rings[th].s[seq & r->rings[th].mask];
    uint64_t tag = atomic_load_explicit(&s->tag, memory_order_acquire);
    while (tag && !(tag & TAKEN)) { /* an older object still lives here: move it to the overflow table */
        if (!atomic_compare_exchange_weak_explicit(&s->tag, &tag, tag | MOVING, memory_order_acq_rel, memory_order_acquire))
            continue; /* taken meanwhile (now TAKEN), or a spurious failure */
        pthread_mutex_lock(&r->lock);
        int rc = ovf_insert(r, r->t->threads[th].obj_base + SEQ_OF(tag) - 1 + 1,
                            atomic_load_explicit(&s->a, memory_order_relaxed), atomic_load_explicit(&s->b, memory_order_relaxed));
        pthread_mutex_unlock(&r->lock);
        if (rc < 0)
            return -1;
        break;
    }
    atomic_store_explicit(&s->a, a, memory_order_relaxed);
    atomic_store_explicit(&s->b, b, memory_order_relaxed);
    atomic_store_explicit(&s->tag, seq + 1, memory_order_release);
    return 0;
}

int objring_take(struct objring *r, uint16_t th, uint64_t seq, uint64_t *a, uint64_t *b)
{
    struct ring_slot *s = &r->rings[th].s[seq & r->rings[th].mask];
    for (;;) {
        uint64_t tag = atomic_load_explicit(&s->tag, memory_order_acquire);
        if (SEQ_OF(tag) < seq + 1)
            return 0; /* the slot still holds an older object (or none): not put yet */
        if (SEQ_OF(tag) > seq + 1) /* a newer object took the slot: it was moved out first, or taken before */
            return ovf_take(r, r->t->threads[th].obj_base + seq + 1, a, b) ? 1 : -1;
        if (tag & TAKEN)
            return -1;
        if (tag & MOVING)
            continue; /* its producer is moving it to the overflow table: look again */
        *a = atomic_load_explicit(&s->a, memory_order_relaxed);
        *b = atomic_load_explicit(&s->b, memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&s->tag, &tag, tag | TAKEN, memory_order_acq_rel, memory_order_acquire))
            return 1;
    }
}

int objring_made(struct objring *r, uint16_t th, uint64_t seq)
{
    if (!r->rings[th].s)
        return 0; /* a thread that makes no object */
    uint64_t tag = atomic_load_explicit(&r->rings[th].s[seq & r->rings[th].mask].tag, memory_order_acquire);
    return SEQ_OF(tag) >= seq + 1;
}

void objring_each_obj(struct objring *r, void (*fn)(void *arg, uint64_t obj, uint64_t a, uint64_t b), void *arg)
{
    for (uint32_t i = 0; i < r->t->nthreads; i++)
        for (uint64_t j = 0; r->rings[i].s && j <= r->rings[i].mask; j++) {
            uint64_t tag = atomic_load_explicit(&r->rings[i].s[j].tag, memory_order_acquire);
            if (tag && !(tag & (TAKEN | MOVING)))
                fn(arg, r->t->threads[i].obj_base + tag - 1, atomic_load_explicit(&r->rings[i].s[j].a, memory_order_relaxed),
                   atomic_load_explicit(&r->rings[i].s[j].b, memory_order_relaxed));
        }
    for (uint64_t i = 0; i < r->ovf_cap; i++)
        if (r->ovf[i].key)
            fn(arg, r->ovf[i].key - 1, r->ovf[i].a, r->ovf[i].b);
}

void objring_each(struct objring *r, void (*fn)(void *arg, uint64_t a, uint64_t b), void *arg)
{
    for (uint32_t i = 0; i < r->t->nthreads; i++)
        for (uint64_t j = 0; r->rings[i].s && j <= r->rings[i].mask; j++) {
            uint64_t tag = atomic_load_explicit(&r->rings[i].s[j].tag, memory_order_acquire);
            if (tag && !(tag & (TAKEN | MOVING)))
                fn(arg, atomic_load_explicit(&r->rings[i].s[j].a, memory_order_relaxed), atomic_load_explicit(&r->rings[i].s[j].b, memory_order_relaxed));
        }
    for (uint64_t i = 0; i < r->ovf_cap; i++)
        if (r->ovf[i].key)
            fn(arg, r->ovf[i].a, r->ovf[i].b);
}
