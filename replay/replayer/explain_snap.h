/* explain_snap.h - where a replay's resident memory goes at one moment (heapbench explain): the
 * process's resident pages split into parts, each measured, and the free heap memory that stays
 * resident attributed to the call sites of the live objects that keep it from being returned.
 *
 * The parts (bytes; docs/DATA.md, "Explanations"): files (resident pages of file mappings: the
 * replayer's binary and libraries), runtime (the replayer's own anonymous memory: its tables, the
 * threads' stacks, libraries' static data), mapped (resident pages of the program's own mappings,
 * replayed as such), and in the heap (every other anonymous mapping and the brk heap): live
 * (resident bytes of live objects' requested bytes), rounding (resident bytes between a live object's
 * requested size and its malloc_usable_size), gaps (the rest of the resident pages that hold live
 * bytes: block headers, free chunks between objects), free (resident heap pages holding no live
 * byte, less lazyfree), lazyfree (the heap mappings' LazyFree: freed with MADV_FREE, still counted);
 * and rss (smaps_rollup's Rss at the same moment), anonhuge (smaps_rollup's AnonHugePages, a share
 * of the others). Residency is mincore(2)'s, per page.
 * Pinning: the free bytes of a resident page that holds live bytes (its gaps) are pinned by the
 * objects on that page, in proportion to their bytes there; under an allocator that returns a heap's
 * free memory only from its top (glibc: its brk heap and its arenas' heaps are trimmed, never
 * madvised in the middle but by malloc_trim: top_trim) a resident free page is pinned by the live
 * object nearest above it in that mapping (the one whose end would let trimming reach it); under the
 * others (which give back free pages anywhere, tcmalloc's brk heap included)
 * free pages are the allocator's to return (free_kept), and free pages above every live object of a
 * top-trimmed heap are not pinned (free_top).
 * Always holds: live + rounding + gaps + free + lazyfree + mapped + runtime + files is measured
 * page by page from one reading of the mappings, so what it misses of rss is printed as
 * unexplained, never spread over the parts; nothing here calls the allocator except the given
 * usable-size function; its own memory comes from hbt_pages. */
#ifndef HEAPBENCH_EXPLAIN_SNAP_H
#define HEAPBENCH_EXPLAIN_SNAP_H

#include "common/site_map.h"
#include "trace.h"

#include <stdio.h>

struct explain_in {
    const struct hbt_trace *t;
    const struct site_map *sites;
    const uint8_t *is_map;     /* per object, a bit: a mapping (HBT_MMAP's object) */
    size_t (*usable)(void *);  /* the allocator's malloc_usable_size, NULL when it has none of its own */
    int top_trim;              /* every heap mapping is returned only from its top (glibc) */
    uint64_t page;
};

/* Measures the moment with the live objects fn_each gives (replay_each_live) and writes the parts
 * and the per-site figures to out as tab-separated lines (docs/DATA.md). 0, or -1 with a one-line
 * reason in err. */
int explain_snapshot(const struct explain_in *in, void (*each)(void *ctx, void (*fn)(void *, uint64_t, uint64_t, uint64_t), void *arg),
                     void *ctx, FILE *out, char *err, size_t errlen);

#endif
