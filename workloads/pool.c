/* pool.c - N allocations of 256 B then N frees, by malloc and by a fixed-size pool.
 *
 * Claim checked (article 002): 1 M x 256 B, pool 41.5 ms vs malloc 90.2 ms (printed as "0.41 /
 * 0.90 us" per operation, a units slip for ns), about 2x. The pool carves 256-byte slots from
 * 1 MiB slabs obtained with malloc and keeps freed slots on a free list. With --setup=eager the
 * pool does what the article's code does: before the timed part it gets every slab N blocks need,
 * touches them and links every slot into the free list (the article's static array), so `alloc`
 * only pops slots; the malloc variant has no setup and pays brk and page faults inside `alloc`.
 * Two heap states for the malloc variant, prepared in the untimed setup: --prefault=yes mallocs
 * the N blocks and one pin block after them, then frees the N (the pin keeps the freed space below
 * it from being trimmed), so the timed mallocs reuse memory already faulted in and call no brk
 * (the article's "without sbrk" case); --fragment=F leaves F holes of 16..1024 bytes between F
 * live blocks (2F blocks of random sizes, every other one freed), so the timed mallocs meet a
 * fragmented heap. The holes' live neighbours and the pin are freed in `destroy`.
 * Phases: `setup` (untimed preparation; ops = slots linked, blocks prefaulted and holes left),
 * `alloc` (N blocks held),
 * `free` (all N given back), `destroy` (the pool returns its slabs; nothing held).
 * Always holds: with --check=yes every block is filled on allocation and checked before it is
 * freed (--check=no writes nothing into the blocks, as the article's loop); live_bytes = N*size
 * after alloc for malloc, the slabs' bytes for the pool (also after setup and free), 0 after
 * destroy. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_rng.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_SLAB (1 << 20)

static struct wl_param pl_params[] = {
    WL_WORD("alloc", "malloc", "malloc|pool", "malloc/free, or a fixed-size pool with a free list"),
    WL_INT("blocks", "1000000", "100000", 1, 1000000000, "allocations (then as many frees)"),
    WL_INT("size", "256", NULL, 16, 1 << 20, "bytes per block"),
    WL_WORD("setup", "lazy", "lazy|eager", "pool: slabs got while allocating, or all got, touched and linked before timing"),
    WL_WORD("check", "yes", "yes|no", "fill every block and check it before its free, or never touch the blocks"),
    WL_WORD("prefault", "no", "yes|no", "malloc: allocate and free the N blocks (a pin kept above them) before timing"),
    WL_INT("fragment", "0", NULL, 0, 10000000, "holes of 16..1024 B left between live blocks before timing"),
};

/* Heap states made in the untimed setup, undone in destroy. */
struct pl_heap {
    void *pin;     /* --prefault's block above the freed ones */
    void **kept;   /* --fragment's live blocks between the holes */
    size_t nkept;
    uint64_t held; /* bytes of the pin and the kept blocks */
};

/* --prefault: n blocks of size malloc'd and written, one pin after them, the n freed. Their
 * addresses go in a table of their own (a mapping given back at once), so the timed part's block
 * table is touched first in the timed part under every variant, as the article's array is. 0 when
 * malloc fails. */
static int pl_prefault(struct pl_heap *h, size_t n, size_t size)
{
    void **tmp = malloc(n * sizeof *tmp);
    size_t got = 0;
    while (tmp && got < n && (tmp[got] = malloc(size)) != NULL)
        memset(tmp[got++], 0, size);
    int ok = tmp && got == n && (h->pin = malloc(size)) != NULL;
    h->held += ok ? size : 0;
    for (size_t i = 0; i < got; i++)
        free(tmp[i]);
    free(tmp);
    return ok;
}

/* --fragment: 2f blocks of random sizes 16..1024 (multiples of 16), every other one freed. 0 when
 * malloc fails. */
static int pl_fragment(struct pl_heap *h, size_t f)
{
    struct wl_rng r;
    wl_rng_init(&r, wl_seed, 2);
    void **all = calloc(2 * f + 1, sizeof *all);
    h->kept = calloc(f + 1, sizeof *h->kept);
    if (!all || !h->kept) {
        free(all);
        return 0;
    }
    int ok = 1;
    for (size_t i = 0; i < 2 * f && ok; i++) {
        size_t s = 16 * (size_t)wl_rng_range(&r, 1, 64);
        ok = (all[i] = malloc(s)) != NULL;
        if (ok && i % 2) {
            h->kept[h->nkept++] = all[i];
            h->held += s;
        }
    }
    for (size_t i = 0; i < 2 * f; i += 2)
        free(all[i]);
    free(all);
    return ok;
}

/* Frees what the setup's heap states hold. */
static void pl_unheap(struct pl_heap *h)
{
    for (size_t i = 0; i < h->nkept; i++)
        free(h->kept[i]);
    free(h->kept);
    free(h->pin);
    memset(h, 0, sizeof *h);
}

static struct wl_prog pl_prog =
    WL_PROG("pool", "1 M x 256 B allocations then frees: malloc vs a fixed-size pool", pl_params);

/* A fixed-size pool: slabs chained through their first word, free slots through theirs. */
struct pl_pool {
    size_t slot;      /* slot size, >= sizeof(void *) */
    void *slabs;      /* chain of slabs */
    void *free_slots; /* chain of freed slots */
    char *bump, *end; /* unused part of the newest slab */
    uint64_t held;    /* bytes of slabs held */
};

/* One slot: from the free list, else bumped from the newest slab (a new slab when it is full). */
static void *pl_get(struct pl_pool *p)
{
    if (p->free_slots) {
        void *s = p->free_slots;
        p->free_slots = *(void **)s;
        return s;
    }
    if ((size_t)(p->end - p->bump) < p->slot) {
        char *slab = malloc(PL_SLAB);
        if (!slab)
            return NULL;
        *(void **)slab = p->slabs;
        p->slabs = slab;
        p->held += PL_SLAB;
        p->bump = slab + 16;
        p->end = slab + PL_SLAB;
    }
    void *s = p->bump;
    p->bump += p->slot;
    return s;
}

/* Puts a slot back on the free list. */
static void pl_put(struct pl_pool *p, void *s)
{
    *(void **)s = p->free_slots;
    p->free_slots = s;
}

/* Eager setup: gets every slab n slots need and links all their slots into the free list in
 * address order (so the first pops come from the first slab, as from the article's array);
 * linking writes every slot, which faults every page in before timing starts. 0 if malloc fails. */
static int pl_prepare(struct pl_pool *p, size_t n)
{
    void *head = NULL, **tail = &head;
    for (size_t got = 0; got < n; got++) {
        void *s = pl_get(p); /* the free list is still empty: bumps, adding slabs as needed */
        if (!s)
            return 0;
        *tail = s;
        tail = (void **)s;
    }
    *tail = NULL;
    p->free_slots = head;
    return 1;
}

/* Returns every slab to malloc. */
static void pl_destroy(struct pl_pool *p)
{
    while (p->slabs) {
        void *next = *(void **)p->slabs;
        free(p->slabs);
        p->slabs = next;
    }
    memset(p, 0, sizeof *p);
}

/* The timed part's allocations: blk[i] for every i from the pool or from malloc, filled when check;
 * returns the failures. pool_mode and timed are constants at each call (always inline), so each
 * copy is the bare loop of the article's program: no branch between pool and malloc, and with
 * timed 0 no sampler code. */
static inline __attribute__((always_inline)) unsigned long long pl_alloc_all(void **blk, size_t n, size_t size,
                                                                             struct pl_pool *pool, int pool_mode,
                                                                             int timed, int check)
{
    unsigned long long bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (pool_mode)
            WL_LAT_IF(timed, WL_OP_MALLOC, blk[i] = pl_get(pool));
        else
            WL_LAT_IF(timed, WL_OP_MALLOC, blk[i] = malloc(size));
        if (!blk[i])
            bad++;
        else if (check)
            wl_fill(blk[i], size, i);
    }
    return bad;
}

/* The timed part's frees, in allocation order, each block checked first when check; returns the
 * blocks whose pattern was wrong (constants as in pl_alloc_all). */
static inline __attribute__((always_inline)) unsigned long long pl_free_all(void **blk, size_t n, size_t size,
                                                                            struct pl_pool *pool, int pool_mode,
                                                                            int timed, int check)
{
    unsigned long long bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!blk[i])
            continue;
        if (check)
            bad += !wl_check(blk[i], size, i);
        if (pool_mode)
            WL_LAT_IF(timed, WL_OP_FREE, pl_put(pool, blk[i]));
        else
            WL_LAT_IF(timed, WL_OP_FREE, free(blk[i]));
    }
    return bad;
}

/* alloc phase, free phase, verify. */
int main(int argc, char **argv)
{
    wl_args_parse(&pl_prog, argc, argv);
    wl_served_by();
    int pool_mode = strcmp(wl_word("alloc"), "pool") == 0;
    size_t n = (size_t)wl_arg("blocks"), size = (size_t)wl_arg("size");
    if (size > PL_SLAB - 16) {
        fprintf(stderr, "pool: --size must be at most %d; give a smaller --size\n", PL_SLAB - 16);
        return 2;
    }
    void **blk = calloc(n, sizeof *blk);
    if (!blk)
        return wl_verify(0, "out of memory for the block table");
    struct pl_pool pool = {size, NULL, NULL, NULL, NULL, 0};
    int eager = pool_mode && strcmp(wl_word("setup"), "eager") == 0;
    int check = strcmp(wl_word("check"), "yes") == 0;
    int prefault = strcmp(wl_word("prefault"), "yes") == 0;
    int timed = wl_lat_mode() != WL_LAT_OFF;
    size_t holes = (size_t)wl_arg("fragment");
    if (prefault && pool_mode) {
        fprintf(stderr, "pool: --prefault=yes prepares malloc's heap; give it with --alloc=malloc\n");
        return 2;
    }
    unsigned long long bad = 0;
    struct pl_heap heap = {NULL, NULL, 0, 0};

    double t0 = wl_now();
    if (eager && !pl_prepare(&pool, n))
        bad++;
    if (holes && !pl_fragment(&heap, holes))
        bad++;
    if (prefault && !pl_prefault(&heap, n, size))
        bad++;
    t0 = wl_phase("setup", t0, (eager || prefault ? n : 0) + holes, pool.held + heap.held);
    bad += pool_mode ? (timed ? pl_alloc_all(blk, n, size, &pool, 1, 1, check) : pl_alloc_all(blk, n, size, &pool, 1, 0, check))
                     : (timed ? pl_alloc_all(blk, n, size, &pool, 0, 1, check) : pl_alloc_all(blk, n, size, &pool, 0, 0, check));
    t0 = wl_phase("alloc", t0, n, (pool_mode ? pool.held : (uint64_t)n * size) + heap.held);
    bad += pool_mode ? (timed ? pl_free_all(blk, n, size, &pool, 1, 1, check) : pl_free_all(blk, n, size, &pool, 1, 0, check))
                     : (timed ? pl_free_all(blk, n, size, &pool, 0, 1, check) : pl_free_all(blk, n, size, &pool, 0, 0, check));
    t0 = wl_phase("free", t0, n, pool.held + heap.held);
    pl_destroy(&pool);
    pl_unheap(&heap);
    wl_phase("destroy", t0, pool_mode, 0);

    free(blk);
    char detail[128];
    snprintf(detail, sizeof detail, "blocks=%zu size=%zu setup=%s check=%s prefault=%s fragment=%zu bad=%llu", n,
             size, eager ? "eager" : "none", check ? "yes" : "no", prefault ? "yes" : "no", holes, bad);
    return wl_verify(bad == 0, detail);
}
