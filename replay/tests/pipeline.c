/* pipeline.c - a program whose every free is made by another thread than the block's maker: a
 * pipeline of STAGES threads (2-64) joined by bounded queues of QUEUE blocks. Stage 0 makes BLOCKS
 * blocks of 64-1,024 bytes (a fixed pseudo-random sequence) and passes each on; every middle stage
 * reallocs the block it receives to a new size (so every thread allocates, from what another made)
 * and passes it on; the last stage frees it. With S stages that is BLOCKS * S events, none of them
 * a free or realloc of the thread's own block.
 * usage: replay-pipeline STAGES BLOCKS QUEUE [SECONDS]
 * With SECONDS > 0 stage 0 stops making blocks once SECONDS have passed (or at BLOCKS): a program
 * that runs a fixed time, whose amount of work depends on the machine and its load.
 * Always holds: each queue holds at most QUEUE blocks, so the program's peak of live blocks is
 * at most (STAGES - 1) * QUEUE plus one per stage, whatever BLOCKS is; prints "expect blocks=N"
 * (the blocks made) once every stage is done; the main thread makes no allocation meanwhile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct queue {
    void **slot;
    long cap, head, tail;      /* taken, put: under mu */
    int closed;                /* the stage before has put its last block */
    pthread_mutex_t mu;
    pthread_cond_t not_full, not_empty;
};

struct stage {
    int index, last;
    struct queue *in, *out;    /* NULL for the first's in and the last's out */
    pthread_t tid;
};

static long blocks, made;
static double seconds;

static void put(struct queue *q, void *p)
{
    pthread_mutex_lock(&q->mu);
    while (q->tail - q->head == q->cap)
        pthread_cond_wait(&q->not_full, &q->mu);
    q->slot[q->tail++ % q->cap] = p;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->mu);
}

static void close_queue(struct queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->not_empty);
    pthread_mutex_unlock(&q->mu);
}

/* The next block, or NULL once the queue is closed and empty. */
static void *get(struct queue *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->tail == q->head && !q->closed)
        pthread_cond_wait(&q->not_empty, &q->mu);
    void *p = q->tail == q->head ? NULL : q->slot[q->head++ % q->cap];
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->mu);
    return p;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *first(struct stage *s)
{
    unsigned x = 12345;
    double end = now() + seconds;
    for (long i = 0; i < blocks && (seconds <= 0 || (i & 255) || now() < end); i++) {
        x = x * 1103515245u + 12345u;
        char *p = malloc(64 + (x >> 16) % 961);
        if (!p)
            abort();
        p[0] = (char)i;
        put(s->out, p);
        made++;
    }
    close_queue(s->out);
    return NULL;
}

static void *stage_main(void *arg)
{
    struct stage *s = arg;
    if (s->index == 0)
        return first(s);
    unsigned x = 777u * (unsigned)s->index;
    for (char *p; (p = get(s->in)) != NULL;) {
        if (s->last) {
            free(p);
            continue;
        }
        x = x * 1103515245u + 12345u;
        char *q = realloc(p, 64 + (x >> 16) % 961);
        if (!q)
            abort();
        q[1] = 1;
        put(s->out, q);
    }
    if (!s->last)
        close_queue(s->out);
    return NULL;
}

int main(int argc, char **argv)
{
    int stages = argc >= 4 ? atoi(argv[1]) : 0;
    long cap = argc >= 4 ? atol(argv[3]) : 0;
    blocks = argc >= 4 ? atol(argv[2]) : 0;
    seconds = argc >= 5 ? atof(argv[4]) : 0;
    if (argc < 4 || argc > 5 || stages < 2 || stages > 64 || blocks < 1 || cap < 1) {
        fprintf(stderr, "usage: replay-pipeline STAGES(2-64) BLOCKS QUEUE [SECONDS]\n");
        return 2;
    }
    static struct queue qs[63];
    static struct stage st[64];
    for (int i = 0; i + 1 < stages; i++) {
        qs[i].cap = cap;
        qs[i].slot = calloc((size_t)cap, sizeof *qs[i].slot);
        if (!qs[i].slot)
            return 1;
        pthread_mutex_init(&qs[i].mu, NULL);
        pthread_cond_init(&qs[i].not_full, NULL);
        pthread_cond_init(&qs[i].not_empty, NULL);
    }
    for (int i = 0; i < stages; i++)
        st[i] = (struct stage){.index = i, .last = i == stages - 1, .in = i ? &qs[i - 1] : NULL, .out = i + 1 < stages ? &qs[i] : NULL};
    for (int i = 0; i < stages; i++)
        if (pthread_create(&st[i].tid, NULL, stage_main, &st[i]) != 0)
            return 1;
    for (int i = 0; i < stages; i++)
        pthread_join(st[i].tid, NULL);
    printf("expect blocks=%ld\n", made);
    return 0;
}
