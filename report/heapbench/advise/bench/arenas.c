/* arenas.c - advise's known-answer program: four threads allocate and free their own small blocks for a fixed time.
 *
 * Always holds: runs for SECONDS (argument 1, default 0.5) whatever the allocator does; each of
 * THREADS threads (argument 2, default 4) keeps a ring of 64 live blocks of 1100-4000 bytes
 * (above glibc's largest tcache size, 1032 bytes: every call takes its arena) and replaces one per step; nothing is
 * shared between threads. It prints one line `throughput: N ops/s` (blocks freed per second of
 * all threads) and exits 0. With glibc's default each thread gets its own arena; arena_max=1
 * puts every thread on one arena and its lock, which cuts the throughput (the setting a memory
 * advice might suggest, wrong for time); docs/measurements/advise.md has the interleaved figures.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LIVE 64
static double seconds = 0.5;
static volatile int stop;
static long counts[64];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One thread: replace a block of its ring per step until told to stop; counts its frees. */
static void *worker(void *arg)
{
    long id = (long)arg, n = 0;
    unsigned x = 777u + (unsigned)id;
    char *ring[LIVE] = {0};
    for (int i = 0; !stop; i = (i + 1) % LIVE) {
        x = x * 1103515245u + 12345u;
        free(ring[i]);
        ring[i] = malloc(1100 + (x >> 16) % 2901);
        if (!ring[i])
            abort();
        ring[i][0] = (char)x;
        n++;
    }
    for (int i = 0; i < LIVE; i++)
        free(ring[i]);
    counts[id] = n;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4;
    pthread_t tid[64];
    double start, took;
    long total = 0;
    if (argc > 1)
        seconds = atof(argv[1]);
    if (argc > 2)
        threads = atoi(argv[2]);
    if (seconds <= 0 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: arenas [SECONDS>0] [THREADS 1-64]\n");
        return 2;
    }
    start = now();
    for (long t = 0; t < threads; t++)
        pthread_create(&tid[t], NULL, worker, (void *)t);
    while (now() - start < seconds) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    stop = 1;
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    took = now() - start;
    for (int t = 0; t < threads; t++)
        total += counts[t];
    printf("throughput: %.0f ops/s\n", total / took);
    return 0;
}
