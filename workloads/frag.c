/* frag.c - fragmentation: N blocks of 1 KiB, free every other one, free the rest, then malloc_trim(0).
 *
 * Claim checked (article 000, macOS): RSS stays at ~199 MB after everything is freed. The article
 * froze its blocks unwritten (--check=no) and freed the even blocks first (--first=even).
 * --pin=yes allocates one small block (64 B) right after the batch and keeps it to the end, as
 * any real program has some later allocation above its freed blocks: glibc cannot then trim the
 * top of its heap until malloc_trim. Phases: `alloc` (all N held), `free-half` (every other block
 * freed), `free-all` (the batch freed), `trim` (after malloc_trim(0) where the allocator has it;
 * ops = 1 if it was called, 0 if the allocator has none); the pin is freed after `trim`.
 * Always holds: live_bytes is exactly the requested bytes still held (N*size, N/2 rounded down
 * or up times size, 0, 0; plus 64 with --pin=yes); every block is checked before it is freed
 * (--check=yes); verify fails on any damage. */
#include "wl_args.h"
#include "wl_heap.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>

static struct wl_param fr_params[] = {
    WL_INT("blocks", "200000", "20000", 2, 1000000000, "blocks allocated"),
    WL_INT("size", "1024", NULL, 1, 1 << 30, "bytes per block"),
    WL_WORD("first", "odd", "odd|even", "which blocks free-half frees: odd indexes, or even ones (the article)"),
    WL_WORD("pin", "no", "no|yes", "yes: one 64-byte block allocated after the batch, kept until after trim"),
    WL_WORD("check", "yes", "yes|no", "fill every block and check it before its free, or never touch the blocks"),
};

static struct wl_prog fr_prog =
    WL_PROG("frag", "N x 1 KiB blocks, free every other, free all, malloc_trim: RSS after free", fr_params);

/* Frees every block i (i % step == first) still held, checking it; returns how many were freed. */
static size_t fr_free_every(struct wl_heap *h, void **blk, size_t n, size_t size, size_t first, size_t step)
{
    size_t freed = 0;
    for (size_t i = first; i < n; i += step) {
        if (blk[i]) {
            wl_heap_free(h, blk[i], size, i);
            blk[i] = NULL;
            freed++;
        }
    }
    return freed;
}

/* The four phases in order, then verify. */
int main(int argc, char **argv)
{
    wl_args_parse(&fr_prog, argc, argv);
    wl_served_by();
    size_t n = (size_t)wl_arg("blocks"), size = (size_t)wl_arg("size");
    void **blk = calloc(n, sizeof *blk);
    if (!blk)
        return wl_verify(0, "out of memory for the block table");
    struct wl_heap h = {0, 0, wl_word("check")[0] == 'n'};
    int pinned = wl_word("pin")[0] == 'y';

    double t0 = wl_now();
    for (size_t i = 0; i < n; i++)
        blk[i] = wl_heap_alloc(&h, size, i);
    void *pin = pinned ? wl_heap_alloc(&h, 64, n) : NULL;
    t0 = wl_phase("alloc", t0, n, h.live);
    size_t freed = fr_free_every(&h, blk, n, size, wl_word("first")[0] == 'o', 2);
    t0 = wl_phase("free-half", t0, freed, h.live);
    freed = fr_free_every(&h, blk, n, size, 0, 1);
    t0 = wl_phase("free-all", t0, freed, h.live);
    int trimmed = wl_trim(0);
    wl_phase("trim", t0, trimmed >= 0, h.live);
    wl_heap_free(&h, pin, 64, n);

    free(blk);
    char detail[160];
    snprintf(detail, sizeof detail, "blocks=%zu size=%zu first=%s pin=%s live_after=%llu bad=%llu trim=%s", n, size,
             wl_word("first"), wl_word("pin"), (unsigned long long)h.live, (unsigned long long)h.bad,
             trimmed >= 0 ? "yes" : "none");
    return wl_verify(h.bad == 0 && h.live == 0, detail);
}
