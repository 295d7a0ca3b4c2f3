/* churn.c - a program for the replayer's order tests: threads that come and go, one
 * at a time beside the main thread, so at most 2 are alive at once.
 * usage: replay-churn THREADS BLOCKS. The main thread starts THREADS threads one after the other,
 * joining each before starting the next; each makes BLOCKS blocks of 32-4,095 bytes, frees
 * half of them itself and hands the others to the main thread, which frees them after the join.
 * Always holds: prints "expect threads=N alive=2" at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long nblocks;

static void *worker(void *arg)
{
    void **keep = arg;
    unsigned x = (unsigned)(size_t)keep;
    for (long i = 0; i < nblocks; i++) {
        x = x * 1103515245u + 12345u;
        char *p = malloc(32 + (x >> 16) % 4064);
        p[0] = 1;
        if (i % 2)
            free(p);
        else
            keep[i / 2] = p;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long threads = argc > 1 ? atol(argv[1]) : 25;
    nblocks = argc > 2 ? atol(argv[2]) : 2000;
    if (threads < 1 || nblocks < 2) {
        fprintf(stderr, "usage: replay-churn THREADS BLOCKS (at least 1 and 2)\n");
        return 2;
    }
    void **keep = malloc((size_t)(nblocks / 2 + 1) * sizeof *keep);
    for (long t = 0; t < threads; t++) {
        pthread_t th;
        if (pthread_create(&th, NULL, worker, keep))
            return 1;
        pthread_join(th, NULL);
        for (long i = 0; i < nblocks / 2; i++)
            free(keep[i]);
    }
    free(keep);
    printf("expect threads=%ld alive=2\n", threads);
    return 0;
}
