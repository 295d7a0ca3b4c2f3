/* wl_latency.h - the latency sampler: times one malloc-API call in N per operation kind, per thread, per phase.
 * Always holds: a workload wraps each timed call in WL_LAT(op, statement); with mode off the call
 * costs one thread-local decrement and a branch more than the bare call (none under WL_LAT_IF with a
 * constant 0); with mode sampled each
 * thread times about one call in `every` of each kind, at random gaps (uniform in 1..2*every-1,
 * so periodic workloads are not aliased); with mode all it times every call (that distorts: the
 * clock reads and the histogram update are added to every operation, so throughput drops).
 * Samples go to histograms of the calling thread only (its own mmap'd pages, no cache line
 * shared with another thread while recording); wl_lat_flush(phase), called by wl_phase() when no
 * other thread is recording, merges every thread's histograms, writes the `latency` and
 * `latency_hist` records of that phase and empties them (docs/DATA.md). */
#ifndef WL_LATENCY_H
#define WL_LATENCY_H

#include "wl_clock.h"
#include "wl_latmode.h"

#include <stdint.h>

enum wl_op { WL_OP_MALLOC, WL_OP_FREE, WL_OP_REALLOC, WL_OP_CALLOC, WL_OP_COUNT };

/* The calling thread's sampler state (thread-local): calls of each kind left before the next
 * timed one; the thread's histograms; its random gap generator. */
struct wl_lat_local {
    int64_t countdown[WL_OP_COUNT];
    struct wl_lat_thread *rec;
    uint64_t rng;
};
extern __thread struct wl_lat_local wl_lat_me;

/* The slow path of WL_LAT, taken when a countdown runs out: 1 when this call is to be timed.
 * Re-arms the countdown (never again in mode off); registers the thread on its first call. */
int wl_lat_due(enum wl_op op);

/* Adds a timed call of ticks (wl_clock_read difference) to the thread's histogram of op. */
void wl_lat_record(enum wl_op op, uint64_t ticks);

/* Runs stmt (a malloc-API call, e.g. `p = malloc(n)` or `free(p)`), timing it when it is due. */
#define WL_LAT(op, stmt)                                                                        \
    do {                                                                                        \
        if (__builtin_expect(--wl_lat_me.countdown[op] > 0, 1) || !wl_lat_due(op)) {            \
            stmt;                                                                               \
        } else {                                                                                \
            uint64_t wl_lat_t0_ = wl_clock_read();                                              \
            stmt;                                                                               \
            wl_lat_record(op, wl_clock_read() - wl_lat_t0_);                                    \
        }                                                                                       \
    } while (0)

/* WL_LAT(op, stmt) when timed is non-zero, else stmt alone. A loop written once in an always-inline
 * function that takes timed and is called with the constants 0 and 1 (timed = wl_lat_mode() != WL_LAT_OFF)
 * has a copy without any sampler code: the form a cell measured in instructions runs (mode off),
 * which then counts the allocator's calls and nothing of the sampler's countdown. */
#define WL_LAT_IF(timed, op, stmt)                                                              \
    do {                                                                                        \
        if (timed)                                                                              \
            WL_LAT(op, stmt);                                                                   \
        else {                                                                                  \
            stmt;                                                                               \
        }                                                                                       \
    } while (0)

/* Sets the mode from its name (wl_latmode.h) and the sampling period; 0, or -1 for an
 * unknown name or every < 1. Call before any WL_LAT (wl_args_parse does). */
int wl_lat_configure(const char *mode, long long every);

/* The mode in use. */
enum wl_lat_mode wl_lat_mode(void);

/* The name of op as written in records: malloc, free, realloc, calloc. */
const char *wl_lat_op_name(enum wl_op op);

/* When the mode is not off: initialises the clock and writes the `latency_clock` record (mode,
 * period, clock source, its cost, its rate, its step); with mode all also one line on stderr saying that
 * it distorts. wl_served_by() calls it, right after the served_by record. */
void wl_lat_start(void);

/* Writes the latency records of phase (every thread's samples since the last flush, merged) and
 * empties the histograms. No other thread may be recording. Nothing in mode off. */
void wl_lat_flush(const char *phase);

#endif
