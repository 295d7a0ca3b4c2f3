/* fixedtime.c - a test program that runs for a fixed time and prints its own throughput.
 *
 * Always holds: the program runs for SECONDS (argument 1, default 0.4) whatever the allocator
 * does, with THREADS threads (argument 2, default 8). Each thread first sets up its state, one
 * thread at a time (a global lock): BURST KiB (argument 4, default 2048) of 4 KiB blocks,
 * touched, then all freed but the last, which it keeps to the end (so the freed blocks stay in
 * its arena, resident); when every thread is set up, each allocates and frees blocks in a ring
 * of LIVE blocks (argument 3, default 256) until the deadline, SECONDS after the start: blocks of
 * 1-8 KiB (above glibc's thread-cache limit) and, when LARGE (argument 5, default 1) is 1, every
 * 8th one of 128-512 KiB (around glibc's dynamic mmap threshold). It prints one line `throughput: N ops/s` (frees per
 * second of all threads) and exits 0.
 * Its wall time is therefore flat across allocator settings while its throughput is not:
 * glibc's mmap_threshold=131072 (a fixed threshold) maps and unmaps every large block (peak RSS
 * falls, throughput falls several times over); without large blocks, arena_max=1 or 2 lets one
 * or two arenas reuse the set-up blocks that eight arenas keep eight times (peak RSS falls).
 * report/heapbench/tune/tests/run and report/heapbench/advise/tests/run use it: speed must be ranked by the program's figure,
 * not by wall time; advise must find the arena setting.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds = 0.4;
static int live = 256;
static long burst_kb = 2048;
static int large = 1; /* 1: every 8th block of the ring is 128-512 KiB */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t setup_done; /* every thread set up (and alive, so no arena is handed on) */
static double end_time; /* the deadline of every thread: SECONDS after the start */
static long long total_ops;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

/* Monotonic time in seconds. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The thread's set-up, one thread at a time: BURST KiB of 4 KiB blocks, all freed but the last (returned). */
static void *setup(void)
{
    long n = burst_kb / 4;
    void **blocks = calloc((size_t)n + 1, sizeof *blocks);
    void *keep = NULL;
    if (!blocks)
        return NULL;
    pthread_mutex_lock(&setup_lock);
    for (long i = 0; i < n; i++)
        if ((blocks[i] = malloc(4000)) != NULL)
            memset(blocks[i], 2, 4000);
    keep = n ? blocks[n - 1] : NULL;
    for (long i = 0; i + 1 < n; i++)
        free(blocks[i]);
    pthread_mutex_unlock(&setup_lock);
    free(blocks);
    return keep;
}

/* One thread: its set-up, then replace the oldest block of its ring until the deadline; adds its frees to the total. */
static void *worker(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg * 2654435761u + 1;
    void *kept = setup();
    void **ring = calloc((size_t)live, sizeof *ring);
    long long ops = 0;
    pthread_barrier_wait(&setup_done);
    if (!ring) {
        free(kept);
        return NULL;
    }
    for (;;) {
        for (int i = 0; i < 4; i++) {
            size_t slot = (size_t)(ops % live);
            seed = seed * 1103515245u + 12345u;
            size_t size = !large || (seed >> 8) % 8 ? 1024 + (seed >> 11) % (7 * 1024) : (128 << 10) + (seed >> 11) % (384 << 10);
            free(ring[slot]);
            ring[slot] = malloc(size);
            if (ring[slot])
                memset(ring[slot], 1, size < 16384 ? size : 16384);
            ops++;
        }
        if (now() >= end_time)
            break;
    }
    for (int i = 0; i < live; i++)
        free(ring[i]);
    free(ring);
    free(kept);
    pthread_mutex_lock(&total_lock);
    total_ops += ops;
    pthread_mutex_unlock(&total_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 8;
    if (argc > 1)
        seconds = atof(argv[1]);
    if (argc > 2)
        threads = atoi(argv[2]);
    if (argc > 3)
        live = atoi(argv[3]);
    if (argc > 4)
        burst_kb = atol(argv[4]);
    if (argc > 5)
        large = atoi(argv[5]);
    if (seconds <= 0 || threads < 1 || threads > 256 || live < 1 || burst_kb < 0) {
        fprintf(stderr, "usage: fixedtime [SECONDS>0] [THREADS 1..256] [LIVE>=1] [BURST_KB>=0] [LARGE 0|1]\n");
        return 2;
    }
    pthread_t tid[256];
    double start = now();
    end_time = start + seconds;
    pthread_barrier_init(&setup_done, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, worker, (void *)(size_t)(t + 1)) != 0) {
            fprintf(stderr, "fixedtime: pthread_create failed\n");
            return 1;
        }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    printf("throughput: %.0f ops/s\n", (double)total_ops / (now() - start));
    return 0;
}
