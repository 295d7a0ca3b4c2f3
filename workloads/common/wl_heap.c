/* wl_heap.c - counted, checked malloc/free for workloads, and malloc_trim when it exists (see wl_heap.h).
 * Always holds: live goes up by n on each successful alloc and down by n on each free of p != NULL. */
#include "wl_heap.h"
#include "wl_block.h"
#include "wl_latency.h"

#include <dlfcn.h>
#include <stdlib.h>

/* Allocates, fills (unless untouched) and counts one block. */
void *wl_heap_alloc(struct wl_heap *h, size_t n, uint64_t tag)
{
    void *p;
    WL_LAT(WL_OP_MALLOC, p = malloc(n));
    if (!p) {
        h->bad++;
        return NULL;
    }
    if (!h->untouched)
        wl_fill(p, n, tag);
    h->live += n;
    return p;
}

/* Checks (unless untouched), frees and uncounts one block. */
void wl_heap_free(struct wl_heap *h, void *p, size_t n, uint64_t tag)
{
    if (!p)
        return;
    if (!h->untouched)
        h->bad += !wl_check(p, n, tag);
    WL_LAT(WL_OP_FREE, free(p));
    h->live -= n;
}

/* dlsym(RTLD_DEFAULT) finds the preloaded allocator's malloc_trim first, else glibc's, else none. */
int wl_trim(size_t pad)
{
    int (*trim)(size_t) = (int (*)(size_t))dlsym(RTLD_DEFAULT, "malloc_trim");
    return trim ? trim(pad) : -1;
}
