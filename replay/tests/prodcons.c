/* prodcons.c - a program for the replayer's order tests: a producer and a consumer
 * thread through a bounded queue; every block is made by the producer and freed by the consumer.
 * usage: replay-prodcons BLOCKS QUEUE. The producer makes BLOCKS blocks of 64-1,024 bytes
 * (a fixed pseudo-random sequence) and puts each in a queue that holds at most QUEUE; the
 * consumer takes and frees them. The program's peak of live bytes is therefore about QUEUE
 * blocks, whatever BLOCKS is; a replay that lets the producer run ahead holds far more.
 * Always holds: prints "expect blocks=N" once both threads are done; the main thread makes no
 * allocation while they run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long blocks, cap;
static void **ring;
static long head, tail; /* taken, put: under mu */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg)
{
    unsigned x = 12345;
    (void)arg;
    for (long i = 0; i < blocks; i++) {
        x = x * 1103515245u + 12345u;
        char *p = malloc(64 + (x >> 16) % 961);
        p[0] = (char)i;
        pthread_mutex_lock(&mu);
        while (tail - head == cap)
            pthread_cond_wait(&not_full, &mu);
        ring[tail++ % cap] = p;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (long i = 0; i < blocks; i++) {
        pthread_mutex_lock(&mu);
        while (tail == head)
            pthread_cond_wait(&not_empty, &mu);
        void *p = ring[head++ % cap];
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&mu);
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    blocks = argc > 1 ? atol(argv[1]) : 400000;
    cap = argc > 2 ? atol(argv[2]) : 1000;
    if (blocks < 1 || cap < 1) {
        fprintf(stderr, "usage: replay-prodcons BLOCKS QUEUE (both at least 1)\n");
        return 2;
    }
    ring = malloc((size_t)cap * sizeof *ring);
    pthread_t a, b;
    if (pthread_create(&a, NULL, producer, NULL) || pthread_create(&b, NULL, consumer, NULL))
        return 1;
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    free(ring);
    printf("expect blocks=%ld\n", blocks);
    return 0;
}
