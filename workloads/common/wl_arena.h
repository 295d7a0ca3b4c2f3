/* wl_arena.h - a bump-pointer arena over a list of malloc'd blocks (the parser and list workloads' arena variants).
 * Always holds: allocations are aligned to WL_ARENA_ALIGN (by mask) and never freed one by one;
 * a->held is the sum of the sizes of the blocks requested from malloc and still held (the
 * arena's live bytes); wl_arena_reset rewinds to the first block and keeps every block for
 * reuse; wl_arena_reset_first rewinds and frees every block but the first (the oldest);
 * wl_arena_reset_last frees every block but the newest (the head of a list that pushes new
 * blocks in front, as article 003's arena does); wl_arena_free
 * returns every block to malloc. */
#ifndef WL_ARENA_H
#define WL_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define WL_ARENA_ALIGN 16

struct wl_arena_block;

struct wl_arena {
    struct wl_arena_block *first; /* all blocks, in allocation order */
    struct wl_arena_block *cur;   /* the block being bumped */
    char *ptr, *end;              /* free space of cur */
    size_t block_size;            /* size of a normal block (bigger requests get their own) */
    uint64_t held;                /* bytes requested from malloc and held */
};

/* An empty arena whose blocks are block_size bytes (nothing allocated yet). */
void wl_arena_init(struct wl_arena *a, size_t block_size);

/* Makes the arena's next kept block that fits n, else a new malloc'd one, the block being bumped;
 * 0 when malloc fails. The slow path of wl_arena_alloc. */
int wl_arena_grow(struct wl_arena *a, size_t n);

/* n bytes aligned to WL_ARENA_ALIGN; NULL only when malloc fails. Inline, as an arena's bump is in
 * the programs it is measured against: the round-up (a constant n folds it), one compare, one add. */
static inline void *wl_arena_alloc(struct wl_arena *a, size_t n)
{
    n = (n + WL_ARENA_ALIGN - 1) & ~(size_t)(WL_ARENA_ALIGN - 1);
    if (__builtin_expect((size_t)(a->end - a->ptr) < n, 0) && !wl_arena_grow(a, n))
        return NULL;
    void *p = a->ptr;
    a->ptr += n;
    return p;
}

/* Forgets every allocation, keeps the blocks: the next allocations reuse them. */
void wl_arena_reset(struct wl_arena *a);

/* Forgets every allocation, frees every block but the first, which the next allocations reuse. */
void wl_arena_reset_first(struct wl_arena *a);

/* Forgets every allocation, frees every block but the newest (the last malloc'd), which the next
 * allocations reuse. */
void wl_arena_reset_last(struct wl_arena *a);

/* Frees every block; the arena is empty and usable again. */
void wl_arena_free(struct wl_arena *a);

#endif
