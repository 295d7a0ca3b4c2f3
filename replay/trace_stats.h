/* trace_stats.h - one pass over a trace in time order: what hbtrace prints and what the replayer
 * checks its replay against (operation counts, live bytes at the end, the ideal).
 * Always holds: events of different threads are taken in timestamp order (ties: thread
 * order), events of one thread in their recorded order; the ideal (peak live requested bytes)
 * is the largest sum of live objects' requested sizes over that order; the program's own mappings
 * (HBT_MMAP objects) are counted apart (mapped_*, and with the blocks in peak_total), never in
 * live_bytes, peak_bytes or the histograms. */
#ifndef HEAPBENCH_TRACE_STATS_H
#define HEAPBENCH_TRACE_STATS_H

#include "trace.h"

#define HBT_SIZE_BUCKETS 66 /* bucket 0: size 0; bucket i >= 1: 2^(i-2) < size <= 2^(i-1) */
#define HBT_LIFE_BUCKETS 11 /* < 1 us, < 10 us, ... < 100 s (0..8), >= 100 s (9), still live at the end (10) */

struct hbt_stats {
    uint64_t ops, by_kind[HBT_KIND_COUNT], failed, unknown_refs;
    uint64_t frees, cross_frees, cross_consumes; /* frees / consumes of another thread's object */
    uint64_t produced, live_objects, live_bytes;  /* at the end */
    uint64_t peak_bytes, peak_ns, end_ns;
    uint64_t size_hist[HBT_SIZE_BUCKETS], life_hist[HBT_LIFE_BUCKETS];
    uint64_t threads_used;                        /* threads with at least one event */
    uint64_t mapped_objects, mapped_bytes;        /* the program's own mappings live at the end */
    uint64_t mapped_total;                        /* bytes mapped over the whole trace */
    uint64_t peak_mapped, peak_mapped_ns;         /* most bytes mapped at once, and when */
    uint64_t peak_total, peak_total_ns;           /* most live requested + mapped bytes at once, and when */
};

/* Walks t. sizes: one uint64_t per object (t->objects), scratch the caller owns (left holding
 * each object's size). born: the same for production times, or NULL to skip lifetimes. */
void hbt_stats(const struct hbt_trace *t, uint64_t *sizes, uint64_t *born, struct hbt_stats *s);

#endif
