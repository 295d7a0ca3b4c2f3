/* wl_threads.c - start N threads behind a barrier, join them (see wl_threads.h).
 * Always holds: all threads are joined before wl_threads_run returns. */
#include "wl_threads.h"
#include "wl_phase.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wl_thread_start {
    void (*fn)(int i, void *arg);
    void *arg;
    int index;
    pthread_barrier_t *barrier;
};

/* Thread body: wait until every thread exists, then run the workload function. */
static void *wl_thread_main(void *p)
{
    struct wl_thread_start *s = p;
    pthread_barrier_wait(s->barrier);
    s->fn(s->index, s->arg);
    return NULL;
}

/* Creates the threads (exit 1 if one cannot be created), releases them together, joins them. */
void wl_threads_run(int n, void (*fn)(int i, void *arg), void *args, size_t arg_size)
{
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    struct wl_thread_start *starts = calloc((size_t)n, sizeof *starts);
    pthread_barrier_t barrier;
    if (!tids || !starts || pthread_barrier_init(&barrier, NULL, (unsigned)n) != 0) {
        fprintf(stderr, "workload: out of memory starting %d threads\n", n);
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        starts[i] = (struct wl_thread_start){fn, (char *)args + (size_t)i * arg_size, i, &barrier};
        int err = pthread_create(&tids[i], NULL, wl_thread_main, &starts[i]);
        if (err) {
            fprintf(stderr, "workload: cannot create thread %d of %d: %s\n", i + 1, n, strerror(err));
            exit(1);
        }
    }
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&barrier);
    free(starts);
    free(tids);
}

/* Even split; the remainder goes to the lowest-numbered threads. */
unsigned long long wl_share(unsigned long long total, int n, int i)
{
    return total / (unsigned long long)n + ((unsigned long long)i < total % (unsigned long long)n);
}

/* Walks the tallies by stride (they sit inside the callers' per-thread structs). */
int wl_tally_verify(unsigned long long ops, const struct wl_tally *first, size_t stride, int n)
{
    unsigned long long bytes = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        const struct wl_tally *t = (const struct wl_tally *)((const char *)first + (size_t)i * stride);
        bytes += t->bytes;
        bad += t->bad;
    }
    char detail[128];
    snprintf(detail, sizeof detail, "ops=%llu bytes=%llu bad=%llu", ops, bytes, bad);
    return wl_verify(bad == 0, detail);
}
