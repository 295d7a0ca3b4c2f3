/* trace_stats.h - one pass over a trace in its order: what hbtrace prints, what the replayer
 * checks its replay against (operation counts, live bytes at the end, the ideal), and the checks
 * of the objects' uses that every reader runs before trusting a trace.
 * Always holds: a trace of format 3 is walked in its global order (hbt_event.order), an older
 * one in timestamp order (ties: thread order); events of one thread in their recorded order;
 * the ideal (peak live requested bytes) is the largest sum of live objects' requested sizes
 * over that order; the program's own mappings (HBT_MMAP objects) are counted apart (mapped_*,
 * and with the blocks in peak_total), never in live_bytes, peak_bytes or the histograms; the
 * walk's memory is the objects live at each point (objring.h), not the trace's length. */
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
    uint64_t peak_ops, peak_total_ops;            /* events walked when peak_bytes and peak_total were reached */
    uint64_t size_hist[HBT_SIZE_BUCKETS], life_hist[HBT_LIFE_BUCKETS];
    uint64_t threads_used;                        /* threads with at least one event */
    uint64_t mapped_objects, mapped_bytes;        /* the program's own mappings live at the end */
    uint64_t mapped_total;                        /* bytes mapped over the whole trace */
    uint64_t peak_mapped, peak_mapped_ns;         /* most bytes mapped at once, and when */
    uint64_t peak_total, peak_total_ns;           /* most live requested + mapped bytes at once, and when */
    uint64_t peak_objects;                        /* most live objects (blocks and mappings) at once */
    uint64_t threads_alive_peak;                  /* most threads alive at once (format 3: from a thread's start
                                                   * to its exit; older: with events so far) */
};

/* Walks t. 0, or -1 with a one-line reason in err when the trace's objects are used in a way no
 * program can: an object consumed twice, a mapping freed as a heap block or a heap block
 * unmapped, or (format 3) an object consumed before the event that makes it in the global
 * order, a dependency that no replay can meet (threads that each free the other's object
 * before it exists), naming that event; or when memory is refused. */
int hbt_stats(const struct hbt_trace *t, struct hbt_stats *s, char *err, size_t errlen);

/* Live requested bytes and objects per call site at one moment of the walk. */
struct hbt_site_live {
    const uint32_t *site_of;   /* per object (global index): its site id (site_map.h), 0 none */
    uint32_t nsites;
    uint64_t stop_ops;         /* the moment: after this many events of the walk (hbt_stats' peak_ops for the peak) */
    uint64_t *bytes, *objects; /* [nsites + 1], filled (index 0: objects without a site) */
};
/* hbt_stats, and the live blocks (not the program's mappings) per site after sl->stop_ops events. */
int hbt_stats_sites(const struct hbt_trace *t, struct hbt_stats *s, struct hbt_site_live *sl, char *err, size_t errlen);
/* hbt_stats on a trace opened with hbt_open_unchecked: the same walk decodes every event with
 * hbt_next_checked (so it also refuses what hbt_open's own pass would, naming the thread and event)
 * and fills each thread's first_order, last_order and exits, as hbt_open does: the trace is decoded
 * once where hbt_open and hbt_stats decode it twice. */
int hbt_stats_check(struct hbt_trace *t, struct hbt_stats *s, char *err, size_t errlen);
#endif
