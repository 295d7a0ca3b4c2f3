/* wl_arena.c - bump allocation over a list of malloc'd blocks (see wl_arena.h).
 * Always holds: ptr <= end inside cur's data; blocks are chained in allocation order, so a reset
 * walks them again in the same order. */
#include "wl_arena.h"

#include <stdlib.h>

struct wl_arena_block {
    struct wl_arena_block *next;
    size_t size; /* usable bytes after the header */
    _Alignas(WL_ARENA_ALIGN) char data[];
};

/* Empty arena; blocks come on the first allocation. */
void wl_arena_init(struct wl_arena *a, size_t block_size)
{
    *a = (struct wl_arena){NULL, NULL, NULL, NULL, block_size, 0};
}

/* Makes b the block being bumped. */
static void wl_arena_use(struct wl_arena *a, struct wl_arena_block *b)
{
    a->cur = b;
    a->ptr = b->data;
    a->end = b->data + b->size;
}

/* Moves to the next kept block that fits n, else mallocs a new one (at least n bytes) after cur. */
int wl_arena_grow(struct wl_arena *a, size_t n)
{
    struct wl_arena_block *b = a->cur ? a->cur->next : a->first;
    for (; b; b = b->next)
        if (b->size >= n) {
            wl_arena_use(a, b);
            return 1;
        }
    size_t size = n > a->block_size ? n : a->block_size;
    b = malloc(sizeof *b + size);
    if (!b)
        return 0;
    b->size = size;
    if (a->cur) {
        b->next = a->cur->next;
        a->cur->next = b;
    } else {
        b->next = a->first;
        a->first = b;
    }
    a->held += sizeof *b + size;
    wl_arena_use(a, b);
    return 1;
}

/* Rewinds to before the first block: the next allocation reuses it. */
void wl_arena_reset(struct wl_arena *a)
{
    a->cur = NULL;
    a->ptr = a->end = NULL;
}

/* Frees the blocks of the chain from b on; returns the bytes they held. */
static uint64_t wl_arena_free_chain(struct wl_arena_block *b)
{
    uint64_t bytes = 0;
    for (struct wl_arena_block *next; b; b = next) {
        next = b->next;
        bytes += sizeof *b + b->size;
        free(b);
    }
    return bytes;
}

/* Keeps the first block, frees the rest, rewinds. */
void wl_arena_reset_first(struct wl_arena *a)
{
    if (a->first) {
        a->held -= wl_arena_free_chain(a->first->next);
        a->first->next = NULL;
    }
    wl_arena_reset(a);
}

/* Keeps the newest block (the chain's last: blocks are chained in allocation order), frees the rest, rewinds. */
void wl_arena_reset_last(struct wl_arena *a)
{
    struct wl_arena_block *last = a->first, *before = NULL;
    for (; last && last->next; last = last->next)
        before = last;
    if (before) {
        before->next = NULL;
        a->held -= wl_arena_free_chain(a->first);
        a->first = last;
    }
    wl_arena_reset(a);
}

/* Frees the chain and returns to the empty state. */
void wl_arena_free(struct wl_arena *a)
{
    wl_arena_free_chain(a->first);
    wl_arena_init(a, a->block_size);
}
