/* replay_run.c - the replayer's threads and the one function that performs an event (see replay_run.h).
 * Always holds: every event is decoded before the replay starts (the loop only reads flat
 * arrays); each thread performs its own events in order; the recorded main thread replays on
 * the calling thread, every other recorded thread and the live sampler on threads of their own; a slot is written only
 * by the event that produces or consumes its object; a cross-thread wait spins briefly, then
 * yields (the replay may have more threads than cores); every allocator call goes through the
 * workloads' latency sampler (WL_LAT), like a workload's; the program's own mappings (HBT_MMAP,
 * HBT_MUNMAP) are made with mmap and munmap themselves, touched like blocks, and counted in
 * the live bytes the sampler reports (as the program held them). */
#include "replay_run.h"
#include "wl_latency.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* One event as the replay loop reads it (16 bytes; decoded once, before the replay starts):
 * code = the kind | RC_* bits, bits 8-13 log2 of the alignment, bits 14-63 the object consumed. */
struct rop {
    uint64_t size;
    uint64_t code;
};
#define RC_CONSUMES 0x10u
#define RC_PRODUCES 0x20u
#define RC_CROSS 0x40u  /* the object consumed was made by another thread: wait for it */
#define RC_FREES 0x80u  /* consumed without a product: free it (free, or glibc's realloc(p, 0)) */
#define REPLAY_SELF ((void *)4096) /* every block of the self pass (never dereferenced) */

struct worker {
    const struct replay_opts *o;
    void *_Atomic *slots;
    const struct rop *ops;
    const uint64_t *ns;          /* the events' recorded times, with --speed=recorded */
    uint64_t nops, todo;         /* the thread's events (arrays' size), those decoded */
    uint64_t next_obj;           /* the index of the thread's next object */
    uint64_t first_obj;          /* the index of its first */
    int self;                    /* 1: the self pass, no allocator call (replay_run's self) */
    int64_t *cum;                /* live bytes this thread added before each block of LIVE_BLOCK events */
    _Atomic uint64_t progress;   /* events done, published every LIVE_BLOCK events (for the sampler) */
    uint64_t done, nulls;
    int64_t mapped;              /* bytes this thread mapped less those it unmapped */
    const struct timespec *start;
    pthread_t tid;
};

/* sizes: every object's requested size (an munmap carries its mapping's length). */
static struct rop encode(const struct hbt_event *e, const uint64_t *sizes)
{
    uint64_t code = e->kind | ((uint64_t)e->align_log << 8);
    if (e->kind == HBT_MUNMAP)
        return (struct rop){sizes[e->ref], code | RC_CONSUMES | RC_FREES | (e->ref << 14) | (e->ref_thread != e->thread ? RC_CROSS : 0)};
    if (hbt_consumes(e)) {
        code |= RC_CONSUMES | (e->ref << 14);
        if (e->ref_thread != e->thread)
            code |= RC_CROSS;
        if (!hbt_produces(e))
            code |= RC_FREES;
    }
    if (hbt_produces(e))
        code |= RC_PRODUCES;
    return (struct rop){e->size, code};
}

#define LIVE_BLOCK 1024u

static uint64_t cum_entries(const struct worker *w) { return w->nops / LIVE_BLOCK + 2; }

/* Decodes thread th's events into w (mmap'd arrays), with the live bytes each block of events
 * adds (sizes: every object's requested size). -1 when memory is refused. */
static int prepare(const struct hbt_trace *t, uint16_t th, const uint64_t *sizes, struct worker *w)
{
    w->nops = t->threads[th].ops;
    w->first_obj = t->threads[th].obj_base;
    struct rop *ops = hbt_pages(w->nops * sizeof *ops);
    uint64_t *ns = w->o->recorded_speed ? hbt_pages(w->nops * sizeof *ns) : NULL;
    w->cum = hbt_pages(cum_entries(w) * sizeof *w->cum);
    if (!ops || !w->cum || (w->o->recorded_speed && !ns))
        return -1;
    struct hbt_cursor c;
    struct hbt_event e;
    hbt_cursor_init(&c, t, th);
    uint64_t n = 0;
    int64_t live = 0;
    for (; n < w->nops && hbt_next(&c, &e) == 1; n++) {
        if (n % LIVE_BLOCK == 0)
            w->cum[n / LIVE_BLOCK] = live;
        ops[n] = encode(&e, sizes);
        live += (hbt_produces(&e) ? (int64_t)e.size : 0) - (hbt_consumes(&e) ? (int64_t)sizes[e.ref] : 0);
        if (ns)
            ns[n] = e.ns;
    }
    w->cum[n / LIVE_BLOCK + (n % LIVE_BLOCK != 0)] = live;
    w->todo = n;
    w->ops = ops;
    w->ns = ns;
    return 0;
}

/* The pointer of the object an event consumes; waits for it when another thread makes it. */
static void *slot_of(struct worker *w, uint64_t ref, int cross)
{
    void *_Atomic *s = &w->slots[ref];
    if (!cross)
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

/* Writes the block that an event of this kind produced as asked: not at all, one write per page
 * it overlaps, the same except for calloc's blocks, or every byte. */
static void touch(char *p, uint64_t n, unsigned kind, const struct replay_opts *o)
{
    if (o->touch == TOUCH_NONE || n == 0 || (o->touch == TOUCH_NOCALLOC && kind == HBT_CALLOC))
        return;
    if (o->touch == TOUCH_ALL) {
        memset(p, 0x5a, n);
        return;
    }
    *(volatile char *)p = 1;
    for (uintptr_t a = ((uintptr_t)p + o->page) & ~(uintptr_t)(o->page - 1); a < (uintptr_t)p + n; a += o->page)
        *(volatile char *)a = 1;
}

/* A mapping like the program's (HBT_MMAP); NULL when refused. */
static void *map_anon(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The call a producing event makes (old: the consumed object's pointer for realloc kinds). */
static void *produce(unsigned kind, size_t n, size_t align, void *old)
{
    void *p = NULL;
    switch (kind) {
    case HBT_MALLOC: return malloc(n);
    case HBT_CALLOC: return calloc(1, n);
    case HBT_REALLOC: return realloc(old, n);
    case HBT_REALLOCARRAY: return reallocarray(old, 1, n);
    case HBT_POSIX_MEMALIGN: return posix_memalign(&p, align, n) == 0 ? p : NULL;
    case HBT_ALIGNED_ALLOC: return aligned_alloc(align, n);
    case HBT_MEMALIGN: return memalign(align, n);
    case HBT_VALLOC: return valloc(n);
    case HBT_PVALLOC: return pvalloc(n);
    case HBT_MMAP: return map_anon(n);
    default: return NULL;
    }
}

/* The latency sampler's kind of a producing event: realloc kinds, calloc, else malloc. */
static inline enum wl_op op_of(unsigned kind)
{
    return kind == HBT_REALLOC || kind == HBT_REALLOCARRAY ? WL_OP_REALLOC
           : kind == HBT_CALLOC                           ? WL_OP_CALLOC
                                                          : WL_OP_MALLOC;
}

/* Performs one event. A recorded call that failed is not repeated, except glibc's
 * realloc(p, 0), which freed p and is replayed as free(p). */
static inline void perform(struct worker *w, const struct rop *op)
{
    uint64_t code = op->code;
    void *old = NULL;
    if (code & RC_CONSUMES) {
        uint64_t ref = code >> 14;
        old = slot_of(w, ref, (code & RC_CROSS) != 0);
        atomic_store_explicit(&w->slots[ref], REPLAY_GONE, memory_order_relaxed);
        if (old == REPLAY_NULL)
            old = NULL;
        if (code & RC_FREES) {
            if (!w->self && (code & 0x0f) == HBT_MUNMAP)
                w->mapped -= old && munmap(old, (size_t)op->size) == 0 ? (int64_t)op->size : 0;
            else if (!w->self)
                WL_LAT(WL_OP_FREE, free(old));
            return;
        }
    }
    if (!(code & RC_PRODUCES))
        return;
    void *p = REPLAY_SELF;
    unsigned kind = code & 0x0f;
    if (!w->self && kind == HBT_MMAP)
        p = produce(kind, (size_t)op->size, 0, NULL);
    else if (!w->self)
        WL_LAT(op_of(kind), p = produce(kind, (size_t)op->size, (size_t)1 << ((code >> 8) & 63), old));
    if (p == REPLAY_SELF) {
    } else if (!p) {
        w->nulls++;
        p = REPLAY_NULL;
    } else {
        touch(p, op->size, kind, w->o);
        w->mapped += kind == HBT_MMAP ? (int64_t)op->size : 0;
    }
    atomic_store_explicit(&w->slots[w->next_obj++], p, memory_order_release);
}

/* The time ns nanoseconds after t. */
static struct timespec ts_after(struct timespec t, uint64_t ns)
{
    t.tv_sec += (time_t)(ns / 1000000000u);
    t.tv_nsec += (long)(ns % 1000000000u);
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Sleeps until ns after start; returns at once (no system call) when that time has passed,
 * which it has for most events of a busy program. */
static void wait_until(const struct timespec *start, uint64_t ns)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((uint64_t)(now.tv_sec - start->tv_sec) * 1000000000u + (uint64_t)now.tv_nsec >= ns + (uint64_t)start->tv_nsec)
        return;
    struct timespec at = ts_after(*start, ns);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0)
        ;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint64_t i = 0;
    for (; i < w->todo; i++) {
        if (w->ns && !w->self)
            wait_until(w->start, w->ns[i]);
        perform(w, &w->ops[i]);
        if ((i + 1) % LIVE_BLOCK == 0)
            atomic_store_explicit(&w->progress, i + 1, memory_order_relaxed);
    }
    w->done = i;
    atomic_store_explicit(&w->progress, i, memory_order_relaxed);
    return NULL;
}

static double elapsed(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

static void release(const struct hbt_trace *t, struct worker *ws)
{
    for (uint32_t i = 0; i < t->nthreads; i++) {
        hbt_unpages((void *)ws[i].ops, ws[i].nops * sizeof(struct rop));
        hbt_unpages((void *)ws[i].ns, ws[i].ns ? ws[i].nops * sizeof(uint64_t) : 0);
        hbt_unpages(ws[i].cum, ws[i].cum ? cum_entries(&ws[i]) * sizeof *ws[i].cum : 0);
    }
    hbt_unpages(ws, t->nthreads * sizeof *ws);
}

int replay_prepare(const struct hbt_trace *t, void **slots, const struct replay_opts *o, struct replay **out)
{
    struct worker *ws = hbt_pages((t->nthreads ? t->nthreads : 1) * sizeof *ws);
    if (!ws)
        return -1;
    for (uint32_t i = 0; i < t->nthreads; i++) {
        ws[i] = (struct worker){.o = o, .slots = (void *_Atomic *)slots};
        if (prepare(t, (uint16_t)i, (const uint64_t *)slots, &ws[i]) < 0) {
            release(t, ws);
            return -1;
        }
    }
    *out = (struct replay *)ws;
    return 0;
}

/* While the workers run: every 10 ms (20 ms after 100 samples, 40 after 200...) the live bytes
 * of the replay (each thread's blocks done; exact to a block of events per thread) to sample.
 * Returns as soon as `done` is posted (the workers have ended), not at its next sample. */
static void sample_live(const struct hbt_trace *t, struct worker *ws, const struct timespec *start, sem_t *done,
                        replay_sample_fn sample, void *arg)
{
    long interval_ns = 10000000L;
    for (unsigned n = 1;; n++) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec at = ts_after(now, (uint64_t)interval_ns);
        int r;
        while ((r = sem_clockwait(done, CLOCK_MONOTONIC, &at)) != 0 && errno == EINTR)
            ;
        if (r == 0)
            return;
        int64_t live = 0;
        for (uint32_t i = 0; i < t->nthreads; i++) {
            if (!ws[i].nops)
                continue;
            uint64_t p = atomic_load_explicit(&ws[i].progress, memory_order_relaxed);
            live += ws[i].cum[p / LIVE_BLOCK + (p == ws[i].todo && p % LIVE_BLOCK != 0)];
        }
        sample(arg, elapsed(start), live > 0 ? (uint64_t)live : 0);
        if (n % 100 == 0 && interval_ns < 1000000000L)
            interval_ns *= 2;
    }
}

/* What the sampler thread needs (replay_run's arguments). */
struct sampler {
    const struct hbt_trace *t;
    struct worker *ws;
    const struct timespec *start;
    sem_t done;                /* posted once every worker has ended */
    replay_sample_fn sample;
    void *arg;
};

static void *sampler_main(void *arg)
{
    struct sampler *s = arg;
    sample_live(s->t, s->ws, s->start, &s->done, s->sample, s->arg);
    return NULL;
}

/* The recorded thread that replays on the calling thread: the first with events (thread 0, the
 * program's main thread, in practice), so that its calls reach the allocator from the process's
 * main thread, as the program's did (glibc's main arena, jemalloc's arena 0...). */
static uint32_t main_worker(const struct hbt_trace *t, const struct worker *ws)
{
    uint32_t i = 0;
    while (i < t->nthreads && !ws[i].nops)
        i++;
    return i;
}

int replay_run(const struct hbt_trace *t, struct replay *rp, void **slots, int self, replay_sample_fn sample, void *arg,
               struct replay_result *r)
{
    struct worker *ws = (struct worker *)rp;
    memset(r, 0, sizeof *r);
    memset(slots, 0, t->objects * sizeof *slots);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint32_t m = main_worker(t, ws);
    for (uint32_t i = 0; i < t->nthreads; i++) {
        ws[i].start = &start;
        ws[i].self = self;
        ws[i].next_obj = ws[i].first_obj;
        ws[i].done = ws[i].nulls = 0;
        ws[i].mapped = 0;
        atomic_store(&ws[i].progress, 0);
    }
    for (uint32_t i = 0; i < t->nthreads; i++)
        if (i != m && ws[i].nops && pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0)
            return -1; /* the threads started may wait for this one's objects: the caller ends the process */
    struct sampler sm = {.t = t, .ws = ws, .start = &start, .sample = sample, .arg = arg};
    pthread_t sampler_tid;
    int sampling = !self && sample && m < t->nthreads;
    if (sampling && (sem_init(&sm.done, 0, 0) != 0 || pthread_create(&sampler_tid, NULL, sampler_main, &sm) != 0))
        return -1;
    if (m < t->nthreads)
        worker_main(&ws[m]);
    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (!ws[i].nops)
            continue;
        if (i != m)
            pthread_join(ws[i].tid, NULL);
        r->ops += ws[i].done;
        r->nulls += ws[i].nulls;
        r->mapped += ws[i].mapped;
    }
    r->seconds = elapsed(&start); /* the last worker's end, not the sampler's next wake-up */
    if (sampling) {
        sem_post(&sm.done);
        pthread_join(sampler_tid, NULL);
        sem_destroy(&sm.done);
    }
    return 0;
}

void replay_free(const struct hbt_trace *t, struct replay *rp) { release(t, (struct worker *)rp); }
