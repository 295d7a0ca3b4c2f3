/* wl_heap.h - malloc/free with live-byte accounting and block checking, for single-threaded workloads.
 * Always holds: h->live is the sum of the requested sizes of the blocks allocated through h and
 * not yet freed; every block is filled (wl_fill) when allocated and checked (wl_check) when
 * freed (both calls through the latency sampler, wl_latency.h), unless h->untouched is set (then
 * the block's bytes are never written nor read, as in articles whose code never touched its
 * blocks); a NULL from malloc or a damaged block adds one to h->bad (the workload's verify fails). */
#ifndef WL_HEAP_H
#define WL_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct wl_heap {
    uint64_t live; /* requested bytes held */
    uint64_t bad;  /* NULL returns + damaged blocks seen */
    int untouched; /* 1: neither fill nor check the blocks (only the allocator writes them) */
};

/* malloc(n), filled with the pattern of tag, counted in h->live; NULL on failure (counted bad). */
void *wl_heap_alloc(struct wl_heap *h, size_t n, uint64_t tag);

/* Checks the pattern of tag in the n-byte block p (counted bad if damaged), frees it, uncounts n.
 * p may be NULL (nothing happens). */
void wl_heap_free(struct wl_heap *h, void *p, size_t n, uint64_t tag);

/* Calls malloc_trim(pad) when the allocator in this process has it (looked up with dlsym, so
 * allocators without it still run); returns its result, or -1 when there is none. */
int wl_trim(size_t pad);

#endif
