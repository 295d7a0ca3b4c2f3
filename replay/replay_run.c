/* replay_run.c - the replayer's threads and the one function that performs an event (see replay_run.h).
 * Always holds: each thread decodes its own stream with its own cursor; a slot is written only
 * by the event that produces or consumes its object; a cross-thread wait spins briefly, then
 * yields (the replay may have more threads than cores). */
#include "replay_run.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct worker {
    const struct hbt_trace *t;
    void *_Atomic *slots;
    const struct replay_opts *o;
    uint16_t thread;
    uint64_t ops, nulls;
    const struct timespec *start;
    pthread_t tid;
};

/* The pointer of the object e consumes; waits for it when another thread makes it. */
static void *slot_of(struct worker *w, const struct hbt_event *e)
{
    void *_Atomic *s = &w->slots[e->ref];
    if (e->ref_thread == w->thread)
        return atomic_load_explicit(s, memory_order_relaxed);
    void *p;
    for (unsigned spins = 0; (p = atomic_load_explicit(s, memory_order_acquire)) == REPLAY_UNMADE; spins++) {
        if (spins < 200)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
    return p;
}

/* Writes the block as asked: one write per page it overlaps, or every byte. */
static void touch(char *p, uint64_t n, const struct replay_opts *o)
{
    if (o->touch == TOUCH_NONE || n == 0)
        return;
    if (o->touch == TOUCH_ALL) {
        memset(p, 0x5a, n);
        return;
    }
    *(volatile char *)p = 1;
    for (uintptr_t a = ((uintptr_t)p + o->page) & ~(uintptr_t)(o->page - 1); a < (uintptr_t)p + n; a += o->page)
        *(volatile char *)a = 1;
}

/* The call a producing event makes (old: the consumed object's pointer for realloc kinds). */
static void *produce(const struct hbt_event *e, void *old)
{
    size_t n = (size_t)e->size, align = (size_t)1 << e->align_log;
    void *p = NULL;
    switch (e->kind) {
    case HBT_MALLOC: return malloc(n);
    case HBT_CALLOC: return calloc(1, n);
    case HBT_REALLOC: return realloc(old, n);
    case HBT_REALLOCARRAY: return reallocarray(old, 1, n);
    case HBT_POSIX_MEMALIGN: return posix_memalign(&p, align, n) == 0 ? p : NULL;
    case HBT_ALIGNED_ALLOC: return aligned_alloc(align, n);
    case HBT_MEMALIGN: return memalign(align, n);
    case HBT_VALLOC: return valloc(n);
    case HBT_PVALLOC: return pvalloc(n);
    default: return NULL;
    }
}

/* Performs one event. A recorded call that failed is not repeated, except glibc's
 * realloc(p, 0), which freed p and is replayed as free(p). */
static void perform(struct worker *w, const struct hbt_event *e)
{
    void *old = NULL;
    int consumes = hbt_consumes(e);
    if (consumes) {
        old = slot_of(w, e);
        atomic_store_explicit(&w->slots[e->ref], REPLAY_GONE, memory_order_relaxed);
        if (old == REPLAY_NULL)
            old = NULL;
    }
    if (e->prod == HBT_NONE) {
        if (consumes && (e->kind == HBT_FREE || (e->flags & HBT_F_FAILED)))
            free(old);
        return;
    }
    void *p = produce(e, old);
    if (!p) {
        w->nulls++;
        p = REPLAY_NULL;
    } else {
        touch(p, e->size, w->o);
    }
    atomic_store_explicit(&w->slots[e->prod], p, memory_order_release);
}

static void wait_until(const struct timespec *start, uint64_t ns)
{
    struct timespec at = *start;
    at.tv_sec += (time_t)(ns / 1000000000u);
    at.tv_nsec += (long)(ns % 1000000000u);
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0)
        ;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct hbt_cursor c;
    struct hbt_event e;
    hbt_cursor_init(&c, w->t, w->thread);
    while (hbt_next(&c, &e) == 1) {
        if (w->o->recorded_speed)
            wait_until(w->start, e.ns);
        perform(w, &e);
        w->ops++;
    }
    return NULL;
}

static double elapsed(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

int replay_run(const struct hbt_trace *t, void **slots, const struct replay_opts *o, struct replay_result *r)
{
    memset(r, 0, sizeof *r);
    size_t bytes = (t->nthreads ? t->nthreads : 1) * sizeof(struct worker);
    struct worker *ws = hbt_pages(bytes);
    if (!ws)
        return -1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint32_t started = 0;
    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (t->threads[i].ops == 0)
            continue;
        ws[i] = (struct worker){.t = t, .slots = (void *_Atomic *)slots, .o = o, .thread = (uint16_t)i, .start = &start};
        if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0)
            return -1; /* the threads started may wait for this one's objects: the caller ends the process */
        started = i + 1;
    }
    for (uint32_t i = 0; i < started; i++) {
        if (t->threads[i].ops == 0)
            continue;
        pthread_join(ws[i].tid, NULL);
        r->ops += ws[i].ops;
        r->nulls += ws[i].nulls;
    }
    r->seconds = elapsed(&start);
    hbt_unpages(ws, bytes);
    return 0;
}
