/* wl_threads.h - runs one function on N threads and waits for all of them.
 * Always holds: wl_threads_run returns only after every thread has ended; a thread that cannot
 * be created ends the process with exit 1 and a message (a workload never runs with fewer
 * threads than asked). The threads start together behind a barrier. */
#ifndef WL_THREADS_H
#define WL_THREADS_H

#include <stddef.h>

/* What one thread did: requested bytes (the determinism checksum) and failures (NULL returns,
 * damaged blocks). Embedded in each workload's per-thread struct. */
struct wl_tally {
    unsigned long long bytes;
    unsigned long long bad;
};

/* The share of total that thread i of n does: total / n, plus one for the first total % n threads. */
unsigned long long wl_share(unsigned long long total, int n, int i);

/* Sums the n tallies found every stride bytes from first, writes the verify record
 * ("ops=.. bytes=.. bad=..", ok when nothing went bad) and returns the exit status. */
int wl_tally_verify(unsigned long long ops, const struct wl_tally *first, size_t stride, int n);

/* Calls fn(i, (char *)args + i * arg_size) on n threads (i = 0..n-1) and joins them. */
void wl_threads_run(int n, void (*fn)(int i, void *arg), void *args, size_t arg_size);

#endif
