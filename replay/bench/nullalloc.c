/* nullalloc.c - build/lib/libhbnull.so: an allocator that does nothing, for measuring what the
 * replayer itself costs per event (replay/bench/replayer.sh, and the report's replayer cost).
 * Every allocation returns the start of one 64 GiB MAP_NORESERVE region (aligned as asked);
 * free does nothing. So a replay through it pays no allocator work and no page faults beyond
 * the few pages it touches again and again: what is left is the replayer.
 * Always holds: it never reads or writes the memory it hands out; blocks overlap (all are the
 * same), so it is only for the replayer, which writes blocks but never reads them back; calloc
 * memory is not zero once a block was written. Implements allocators/interpose's ip_backend_*. */
#include "interpose.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#define REGION (64ull << 30)

static char *base;

__attribute__((constructor)) static void null_init(void)
{
    void *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base = p == MAP_FAILED ? NULL : p;
}

/* The one block, aligned to align; NULL with ENOMEM when it would not fit the region. */
static void *take(size_t align, size_t n)
{
    if (!base || n > REGION - align) {
        errno = ENOMEM;
        return NULL;
    }
    return (void *)(((uintptr_t)base + align - 1) & ~(uintptr_t)(align - 1));
}

void *ip_backend_malloc(size_t n) { return take(16, n); }
void *ip_backend_calloc(size_t total) { return take(16, total); }
void *ip_backend_memalign(size_t align, size_t n) { return take(align, n); }
void ip_backend_free(void *p) { (void)p; }
const char ip_backend_free_keeps_errno; /* free does nothing, so errno needs no saving */
size_t ip_backend_usable_size(void *p) { return REGION - (size_t)((char *)p - base); }
void *ip_backend_realloc(void *p, size_t n) { return n <= ip_backend_usable_size(p) ? p : take(16, n); }
