/* wl_threads.h - runs one function on N threads and waits for all of them.
 * Always holds: wl_threads_run returns only after every thread has ended; a thread that cannot
 * be created ends the process with exit 1 and a message (a workload never runs with fewer
 * threads than asked). The threads start together behind a barrier. */
#ifndef WL_THREADS_H
#define WL_THREADS_H

#include <stddef.h>

/* Calls fn(i, (char *)args + i * arg_size) on n threads (i = 0..n-1) and joins them. */
void wl_threads_run(int n, void (*fn)(int i, void *arg), void *args, size_t arg_size);

#endif
