/* exitrace.c - a program for the recorder's tests: its threads are still calling malloc and free
 * when the main thread calls exit(), so the recorder's exit takes the buffers of threads that are
 * recording at that moment (the closer's side of its fast path: record.c, enter()).
 * usage: replay-exitrace THREADS MS [slow]. THREADS threads loop malloc/free of 16..1039 bytes until
 * the process ends; the main thread exits after MS milliseconds. slow: once warm, the first thread
 * calls malloc(777777) once, which tests/lib/slowmalloc.c makes sleep inside the allocator (a thread
 * descheduled in an allocator call at the exit), and the main thread exits MS ms after it began.
 * Always holds: it prints nothing; every thread has made at least 1000 calls before the exit. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

static _Atomic int warm, slow, slow_began;

static void *churn(void *arg)
{
    unsigned x = (unsigned)(size_t)arg * 2654435761u + 1;
    for (long i = 0;; i++) {
        x = x * 1103515245u + 12345u;
        char *volatile p = malloc(16 + (x >> 8) % 1024); /* volatile: the pair is not optimised away */
        if (p)
            p[0] = (char)i;
        free(p);
        if (i == 1000)
            atomic_fetch_add(&warm, 1);
        if (i == 2000 && arg == NULL && atomic_load(&slow)) {
            atomic_store(&slow_began, 1);
            char *volatile q = malloc(777777); /* tests/lib/slowmalloc.c: sleeps inside the allocator */
            free(q);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2, ms = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || n > 64 || ms < 0)
        return 2;
    atomic_store(&slow, argc > 3 && argv[3][0] == 's');
    pthread_t t;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t, NULL, churn, (void *)(size_t)i) != 0)
            return 1;
    while (atomic_load(&warm) < n || (atomic_load(&slow) && !atomic_load(&slow_began)))
        sched_yield();
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    exit(0);
}
