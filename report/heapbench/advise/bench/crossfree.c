/* crossfree.c - advise's known-answer program: two threads, every block freed on the other thread, for a fixed time.
 *
 * Always holds: runs for SECONDS (argument 1, default 0.5) whatever the allocator does; thread A
 * allocates blocks of 16-256 bytes and hands them to thread B in batches of BATCH (argument 2,
 * default 256) through a queue of 8 batches; B frees them. Every free is therefore cross-thread. It prints
 * one line `throughput: N ops/s` (blocks freed per second) and exits 0. glibc returns each
 * freed block to its arena under the arena's lock (A's arena, taken by B), which the
 * allocators with per-thread free lists (mimalloc, tcmalloc) avoid: they run several times
 * faster (docs/measurements/advise.md has the interleaved `heapbench exec` figures).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds = 0.5;
static int batch = 256;            /* blocks per hand-over */
#define QUEUE 8                     /* batches in flight at most */
static void **queue[QUEUE];
static int head, count;
static int stop;
static long freed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Thread A: allocates a batch of blocks and queues it, until told to stop. */
static void *producer(void *arg)
{
    unsigned x = 12345;
    (void)arg;
    for (;;) {
        void **b = malloc(batch * sizeof *b);
        if (!b)
            abort();
        for (int i = 0; i < batch; i++) {
            x = x * 1103515245u + 12345u;
            char *p = malloc(16 + (x >> 16) % 241);
            if (!p)
                abort();
            p[0] = (char)x;
            b[i] = p;
        }
        pthread_mutex_lock(&lock);
        while (count == QUEUE && !stop)
            pthread_cond_wait(&changed, &lock);
        if (stop) {
            pthread_mutex_unlock(&lock);
            for (int i = 0; i < batch; i++)
                free(b[i]);
            free(b);
            return NULL;
        }
        queue[(head + count++) % QUEUE] = b;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
}

/* Thread B: frees every queued batch, until told to stop and the queue is empty. */
static void *consumer(void *arg)
{
    long n = 0;
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (count == 0 && !stop)
            pthread_cond_wait(&changed, &lock);
        if (count == 0) {
            pthread_mutex_unlock(&lock);
            break;
        }
        void **b = queue[head];
        head = (head + 1) % QUEUE;
        count--;
        int counting = !stop;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        for (int i = 0; i < batch; i++)
            free(b[i]);
        free(b);
        n += counting ? batch : 0;
    }
    freed = n;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t a, b;
    double start;
    if (argc > 1)
        seconds = atof(argv[1]);
    if (argc > 2)
        batch = atoi(argv[2]);
    if (seconds <= 0 || batch < 1) {
        fprintf(stderr, "usage: crossfree [SECONDS>0] [BATCH>=1]\n");
        return 2;
    }
    start = now();
    pthread_create(&a, NULL, producer, NULL);
    pthread_create(&b, NULL, consumer, NULL);
    while (now() - start < seconds) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&lock);
    stop = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("throughput: %.0f ops/s\n", freed / (now() - start));
    return 0;
}
