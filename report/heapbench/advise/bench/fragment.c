/* fragment.c - advise's known-answer program for memory: freed memory stranded in per-thread arenas.
 *
 * Always holds: THREADS threads (argument 1, default 8) each, one after the other, allocate
 * MIB MiB (argument 2, default 4) of 4 KiB blocks, touch them, and free all but the last (which
 * pins the arena's top, so glibc cannot trim it, and is freed at the very end); then they end, and the main thread allocates
 * and touches THREADS x MIB MiB of new 4 KiB blocks, frees them and exits 0, printing `done`.
 * Under glibc's defaults each thread had its own arena, whose freed memory the main thread's
 * arena cannot reuse: the peak RSS is about twice the live data. arena_max=1 (one arena), or an
 * allocator that returns freed pages (jemalloc dirty_decay_ms=0) or shares them, cuts the peak
 * RSS by 30% or more (docs/measurements/advise.md has the interleaved figures).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096
static long mib = 4;
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_set;

/* One thread: its burst allocated, touched and freed but the last block (returned: the main thread
 * frees it at the end); waits for the others. */
static void *burst(void *arg)
{
    long n = mib * 1024 * 1024 / BLOCK;
    char **b = malloc(n * sizeof *b);
    (void)arg;
    if (!b)
        abort();
    pthread_mutex_lock(&one_at_a_time);
    for (long i = 0; i < n; i++) {
        b[i] = malloc(BLOCK);
        if (!b[i])
            abort();
        memset(b[i], 1, BLOCK);
    }
    for (long i = 0; i < n - 1; i++)
        free(b[i]);
    pthread_mutex_unlock(&one_at_a_time);
    pthread_barrier_wait(&all_set); /* every thread alive: no arena is handed on */
    char *last = b[n - 1];
    free(b);
    return last;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    pthread_t tid[64];
    void *last[64];
    if (argc > 2)
        mib = atol(argv[2]);
    if (threads < 1 || threads > 64 || mib < 1) {
        fprintf(stderr, "usage: fragment [THREADS 1-64] [MIB>=1]\n");
        return 2;
    }
    pthread_barrier_init(&all_set, NULL, threads);
    for (int t = 0; t < threads; t++)
        pthread_create(&tid[t], NULL, burst, NULL);
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], &last[t]);
    long n = threads * mib * 1024 * 1024 / BLOCK;
    char **b = malloc(n * sizeof *b);
    if (!b)
        abort();
    for (long i = 0; i < n; i++) {
        b[i] = malloc(BLOCK);
        if (!b[i])
            abort();
        memset(b[i], 2, BLOCK);
    }
    for (long i = 0; i < n; i++)
        free(b[i]);
    free(b);
    for (int t = 0; t < threads; t++)
        free(last[t]);
    puts("done");
    return 0;
}
