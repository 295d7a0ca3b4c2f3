/* ordershare.c - a program for the recorder's order test: the moment a process gets its second
 * thread, while its first is in the middle of a malloc/free loop. The recorder numbers a lone
 * thread's events with a plain load and store and every event with a fetch-add from a second
 * thread's start on (record.c, order_share); a number taken twice or skipped at that switch would
 * show as a trace whose orders are not exactly 0..N-1.
 * usage: replay-ordershare N. The main thread frees and mallocs blocks in a loop of N rounds; a
 * second thread, started once the loop runs, makes and frees N blocks of 8 bytes of its own; then
 * both end.
 * Always holds: prints "expect min_events=E", the malloc-API calls of its two loops (the process
 * makes a few more: stdio's buffer, the thread's start); nothing else depends on N. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n;

/* 8-byte blocks, 64 alive at once: an allocator with an 8-byte class (jemalloc) puts neighbours 8
 * bytes apart, which the recorder's address map must tell apart (obj_map.c). */
static void *second(void *arg)
{
    (void)arg;
    void *win[64] = {0};
    for (long i = 0; i < n; i++) {
        free(win[i % 64]);
        win[i % 64] = malloc(8);
    }
    for (int k = 0; k < 64; k++)
        free(win[k]);
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: replay-ordershare N (N >= 1 rounds)\n");
        return 2;
    }
    pthread_t t;
    void *p = malloc(32);
    for (long i = 0; i < 2 * n; i++) {
        free(p);
        p = malloc(32);
        if (i == n / 8 && pthread_create(&t, NULL, second, NULL) != 0) {
            fprintf(stderr, "replay-ordershare: cannot start a thread\n");
            return 1;
        }
    }
    free(p);
    pthread_join(t, NULL);
    printf("expect min_events=%ld\n", 2 + 4 * n + 2 * n);
    return 0;
}
