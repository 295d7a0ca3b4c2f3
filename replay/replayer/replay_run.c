/* replay_run.c - the replayer's threads, their order, and the one function that performs an event
 * (see replay_run.h).
 * Always holds: each thread decodes its own events from the trace as it performs them, in order,
 * and keeps nothing per event; the recorded main thread replays on the calling thread, every
 * other recorded thread and the live sampler on threads of their own; an object's entry is
 * written only by the event that produces or consumes it; with the recorded order each thread
 * publishes the order of its next event (exact, so that no two threads can wait for each other:
 * the one whose next event is earliest in the trace's order always may run, and every object it
 * consumes was made before it); a wait spins briefly, then yields (the replay may have more
 * threads than cores); every allocator call goes through the workloads' latency sampler
 * (WL_LAT), like a workload's; the program's own mappings (HBT_MMAP, HBT_MUNMAP) are made with
 * mmap and munmap themselves, touched like blocks, and counted in the live bytes the sampler
 * reports (as the program held them). */
#include "replay_run.h"
#include "common/objring.h"
#include "common/resident.h"
#include "wl_latency.h"
#include "wl_phase.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* An object's pointer besides real pointers (a product the allocator refused is kept as NULL: the
 * ring's tag, not the pointer, says that an object exists). */
#define E_SELF 4096u     /* every block of the self pass (never dereferenced) */
#define DONE UINT64_MAX  /* a thread's next order once it has no event left */
#define REPLAY_RING 4096u /* ring slots per thread: an object outliving 4,096 of its thread's later ones moves to the overflow table */
#define KIT_STACK (1u << 20)      /* a replay thread's stack (one guard page below it) */
#define KIT_STACK_HOT (256u << 10) /* of which this much, at its top, is made resident at load */
#define SAMPLER_STACK (256u << 10) /* the live sampler's stack, all resident at load */

/* What a running replay thread needs of its own: its stack and its trace cursor (~1 MiB: a chunk's
 * buffer), mapped and made resident at load, so that no thread's start or first chunk faults pages in
 * while replaying; kept in a pool of as many kits as the program had threads alive at once, and
 * handed from a thread that was joined to the next one started. */
struct kit {
    struct hbt_cursor *cursor;
    char *stack;               /* KIT_STACK bytes above a guard page */
    int busy;                  /* held by a started thread not yet joined (under launch) */
};

enum { W_IDLE, W_RUN, W_JOINED };

struct worker {
    _Alignas(64) _Atomic uint64_t next; /* the order of its next event not yet performed (DONE: none) */
    _Atomic int64_t live;       /* live requested bytes this thread added (for the sampler) */
    _Atomic int waiting;        /* 1 while it waits (past its first spins) for another thread's object */
    _Atomic uint64_t want;      /* the object it waits for: producer << 48 | seq (set before waiting; seqs stay below 2^48) */
    struct replay *rp;
    uint16_t th;
    int state;                  /* W_*: under rp->launch */
    int touching;               /* rp->o->touch is not TOUCH_NONE (read once, not per event) */
    uint64_t base;              /* its objects' global index less their seq (obj_base) */
    uint64_t floor;             /* a lower bound of every other started thread's next (the gate's cache) */
    uint64_t done, nulls, made;
    int stopped;                /* it reached the replay's stop (o->stop) */
    struct kit *kit;            /* its stack and cursor while started (under launch) */
    int64_t mapped;             /* bytes this thread mapped less those it unmapped */
    pthread_t tid;
};

struct replay {
    const struct hbt_trace *t;
    const struct replay_opts *o;
    struct objring tab;         /* the live objects: pointer and requested size */
    struct worker *ws;
    uint32_t *by_start;         /* the threads with events, by their first event's order */
    uint32_t nstart;
    int gating, self;
    struct timespec start;
    pthread_mutex_t launch;     /* who starts threads (and joins the ended ones first) */
    uint32_t launched;          /* by_start[0..launched) have started (under launch) */
    _Atomic uint64_t next_start; /* the first order of by_start[launched], DONE when all started */
    uint64_t alive, alive_peak; /* recorded threads started and not joined (under launch) */
    struct kit *kits;           /* the pool: nkits made at load, up to nstart when a start found none free */
    uint32_t nkits, kits_grown; /* kits_grown: made while replaying (the pool was too small: pages faulted in then) */
    char *sampler_stack;
};

/* ---- performing one event ---- */

/* The order of v's next event when v waits for another thread's object that is not made yet
 * (certain: the object was not made at the check, so v has been in this wait since it was seen
 * in it), else DONE when v has no event left, else 0 (it may move: running, not started, or its
 * object made though it has not taken it yet, e.g. descheduled). next is read before and after
 * the wait, so both belong to the same event. */
static uint64_t stuck_at(struct replay *rp, struct worker *v)
{
    uint64_t n = atomic_load_explicit(&v->next, memory_order_acquire);
    if (n == DONE)
        return DONE;
    if (v->state != W_RUN || !atomic_load_explicit(&v->waiting, memory_order_acquire))
        return 0;
    uint64_t want = atomic_load_explicit(&v->want, memory_order_acquire);
    if (atomic_load_explicit(&v->next, memory_order_acquire) != n ||
        objring_made(&rp->tab, (uint16_t)(want >> 48), want & ((1ull << 48) - 1)))
        return 0;
    return n + 1;
}

/* True only when no wait can ever be met (a trace without the global order, format 1 or 2, whose
 * threads each free the other's object before it exists): two passes each see every thread with
 * events left waiting for an object not made yet, at the same event (the sums of their next
 * events, each of which only grows, are equal). Every such thread was then in its wait at the
 * end of the first pass, and stays in it: an object is made only by its producer outside a wait,
 * and none of those objects was made by the time of the second pass. Decided from what each
 * thread waits for, not from time: a thread descheduled for long is never taken for a stuck one. */
static int all_stuck(struct replay *rp)
{
    uint64_t sum[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < rp->nstart; i++) {
            uint64_t n = stuck_at(rp, &rp->ws[rp->by_start[i]]);
            if (n == 0)
                return 0;
            sum[pass] += n == DONE ? 0 : n;
        }
    return sum[0] == sum[1];
}

/* Takes the object e consumes, made by another thread (e->ref_thread), waiting for it until
 * that thread makes it; *size gets its requested size. A wait that no thread can ever meet ends the replay at
 * once, its event named. */
static void *take_other(struct worker *w, const struct hbt_event *e, uint64_t *size)
{
    uint64_t a;
    for (unsigned spins = 0; objring_take(&w->rp->tab, e->ref_thread, e->ref_seq, &a, size) != 1; spins++) {
        if (spins < 200) {
            __builtin_ia32_pause();
            continue;
        }
        if (spins == 200) {
            atomic_store_explicit(&w->want, (uint64_t)e->ref_thread << 48 | e->ref_seq, memory_order_relaxed);
            atomic_store_explicit(&w->waiting, 1, memory_order_release);
        }
        if (spins % 2048 == 0 && all_stuck(w->rp)) {
            char why[300];
            snprintf(why, sizeof why, "thread %u's event %" PRIu64 " (%s) waits for object %" PRIu64 " of thread %u, which no thread can make: "
                     "every thread waits for another's object (a cycle between threads); the trace is corrupt: record it again",
                     e->thread, w->done, hbt_kind_name(e->kind), e->ref, e->ref_thread);
            fprintf(stderr, "hbreplay: %s\n", why);
            _exit(wl_verify(0, why));
        }
        sched_yield();
    }
    atomic_store_explicit(&w->waiting, 0, memory_order_relaxed);
    return (void *)(uintptr_t)a;
}

/* An object taken: its pointer and requested size. */
struct taken {
    void *p;
    uint64_t size;
};

/* take_own's slow path: the object is no longer in its slot (it outlived it: the overflow table). */
static __attribute__((noinline, cold)) struct taken take_moved(struct worker *w, uint64_t seq)
{
    uint64_t a = 0, size = 0;
    if (objring_take(&w->rp->tab, w->th, seq, &a, &size) != 1)
        a = size = 0;
    return (struct taken){(void *)(uintptr_t)a, size};
}

/* Takes the thread's own object seq (made before, by this thread: the trace is checked) from its
 * ring `own`. */
static inline struct taken take_own(struct worker *w, struct ring own, uint64_t seq)
{
    uint64_t a, size;
    if (!objring_take_own_in(own, seq, &a, &size))
        return take_moved(w, seq);
    return (struct taken){(void *)(uintptr_t)a, size};
}

/* take: an object of the thread's own inline, another thread's (which may mean a wait) out of line. */
static inline void *take(struct worker *w, const struct hbt_event *e, uint64_t *size)
{
    if (e->ref_thread != e->thread)
        return take_other(w, e, size);
    struct taken k = take_own(w, w->rp->tab.rings[w->th], e->ref_seq);
    *size = k.size;
    return k.p;
}

/* put_own's slow path: the slot's older object is still live (moved to the overflow table first). */
static __attribute__((noinline, cold)) void put_evicting(struct worker *w, uint64_t seq, uint64_t a, uint64_t size)
{
    if (objring_put_evict(&w->rp->tab, w->th, seq, a, size) < 0)
        _exit(wl_verify(0, "out of memory for the replay's table of long-lived objects"));
}

/* Puts the thread's new object seq (first word a: its pointer, NULL or E_SELF) in its ring `own`. */
static inline void put_own(struct worker *w, struct ring own, uint64_t seq, uint64_t a, uint64_t size)
{
    if (objring_put_in(own, seq, a, size))
        put_evicting(w, seq, a, size);
}

/* The end of what touch() writes of the block p of n bytes, object obj: its end, or, when the
 * trace's touch record says the program made only r of its whole pages resident, the end of its
 * first r whole pages (NULL: none, a page-aligned block of which the program wrote nothing). */
static uintptr_t touch_end(char *p, uint64_t n, uint64_t obj, const struct replay_opts *o)
{
    uintptr_t a = (uintptr_t)p, end = a + n;
    if (n < o->page || o->touch == TOUCH_WHOLE)
        return end;
    uint64_t r = touch_table_get(o->touches, obj);
    if (r == TOUCH_NO_RECORD)
        return end;
    uintptr_t first = (a + o->page - 1) & ~(uintptr_t)(o->page - 1), lim = first + r * o->page;
    if (r == 0 && first == a)
        return 0;
    return lim < end ? lim : end;
}

/* Writes the block that an event of this kind produced (object obj) as asked: not at all, one
 * write per page the program made resident, the same except for calloc's blocks, one write per
 * page it overlaps, or every byte. */
static void touch(char *p, uint64_t n, unsigned kind, uint64_t obj, const struct replay_opts *o)
{
    if (o->touch == TOUCH_NONE || n == 0 || (o->touch == TOUCH_NOCALLOC && kind == HBT_CALLOC))
        return;
    if (o->touch == TOUCH_ALL) {
        memset(p, 0x5a, n);
        return;
    }
    uintptr_t end = touch_end(p, n, obj, o);
    if (end == 0)
        return;
    *(volatile char *)p = 1;
    for (uintptr_t a = ((uintptr_t)p + o->page) & ~(uintptr_t)(o->page - 1); a < end; a += o->page)
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

/* What the replay keeps of a call's product p of size bytes (object obj): p, counted when NULL
 * (the call failed), else touched as asked. */
static inline uint64_t kept(struct worker *w, void *p, uint64_t size, unsigned kind, uint64_t obj)
{
    if (!p) {
        w->nulls++;
        return 0;
    }
    if (w->touching)
        touch(p, size, kind, obj, w->rp->o);
    return (uint64_t)(uintptr_t)p;
}

/* Performs one event (SELF: the self pass, no call); returns the live requested bytes it added. A
 * recorded call that failed is not repeated, except glibc's realloc(p, 0), which freed p and is
 * replayed as free(p). */
static inline __attribute__((always_inline)) int64_t perform(struct worker *w, const struct hbt_event *e, int self)
{
    int64_t delta = 0;
    void *old = NULL;
    if (hbt_consumes(e)) {
        uint64_t size;
        old = take(w, e, &size);
        delta -= (int64_t)size;
        if (!hbt_produces(e)) {
            if (!self && e->kind == HBT_MUNMAP)
                w->mapped -= old && munmap(old, (size_t)size) == 0 ? (int64_t)size : 0;
            else if (!self)
                WL_LAT(WL_OP_FREE, free(old));
            return delta;
        }
    }
    if (!hbt_produces(e))
        return delta;
    uint64_t a = E_SELF;
    unsigned kind = e->kind;
    void *p = NULL;
    if (!self && kind == HBT_MMAP)
        p = produce(kind, (size_t)e->size, 0, NULL);
    else if (!self)
        WL_LAT(op_of(kind), p = produce(kind, (size_t)e->size, (size_t)1 << (e->align_log & 63), old));
    if (!self)
        a = kept(w, p, e->size, kind, e->prod);
    if (!self && p && kind == HBT_MMAP)
        w->mapped += (int64_t)e->size;
    put_own(w, w->rp->tab.rings[w->th], e->prod - w->rp->t->threads[e->thread].obj_base, a, e->size);
    return delta + (int64_t)e->size;
}

/* A plain malloc (trace.h's hbt_plain_malloc) of size bytes, its object seq; perform() less its
 * tests of the kind, of a consumed object and of a mapping, and produce()'s switch. Returns size. */
static inline __attribute__((always_inline)) int64_t perform_malloc(struct worker *w, struct ring own, uint64_t seq, uint64_t size, int self)
{
    uint64_t a = E_SELF;
    if (!self) {
        void *p;
        WL_LAT(WL_OP_MALLOC, p = malloc(size));
        a = kept(w, p, size, HBT_MALLOC, w->base + seq);
    }
    put_own(w, own, seq, a, size);
    return (int64_t)size;
}

/* A plain free (trace.h's hbt_plain_free) of the thread's own object seq; perform() less its tests
 * of the kind, of another thread's object (and its wait) and of a mapping. Returns the live bytes
 * it added (minus the object's size). */
static inline __attribute__((always_inline)) int64_t perform_free(struct worker *w, struct ring own, uint64_t seq, int self)
{
    struct taken k = take_own(w, own, seq);
    if (!self)
        WL_LAT(WL_OP_FREE, free(k.p));
    return -(int64_t)k.size;
}

/* ---- the order between threads ---- */

/* The earliest next order of the started threads other than w. */
static uint64_t others_next(struct replay *rp, const struct worker *w)
{
    uint64_t m = DONE;
    for (uint32_t i = 0; i < rp->nstart; i++) {
        const struct worker *v = &rp->ws[rp->by_start[i]];
        uint64_t n = v == w ? DONE : atomic_load_explicit(&v->next, memory_order_acquire);
        m = n < m ? n : m;
    }
    return m;
}

static void *worker_main(void *arg);

/* Makes kit k: its stack's top KIT_STACK_HOT and its cursor resident now. 0, or -1 when refused. */
static int kit_make(struct kit *k)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *m = hbt_pages(page + KIT_STACK);
    k->cursor = hbt_pages(sizeof *k->cursor);
    if (!m || !k->cursor || mprotect(m, page, PROT_NONE) != 0)
        return -1;
    k->stack = m + page;
    resident_now(k->stack + KIT_STACK - KIT_STACK_HOT, KIT_STACK_HOT);
    resident_now(k->cursor, sizeof *k->cursor);
    k->busy = 0;
    return 0;
}

/* Joins w (started, its events done or about to be), giving its kit back (the caller holds rp->launch). */
static void join_worker(struct replay *rp, struct worker *w)
{
    pthread_join(w->tid, NULL);
    w->state = W_JOINED;
    rp->alive--;
    w->kit->busy = 0;
    w->kit = NULL;
}

/* A free kit for a thread about to start (the caller holds rp->launch): from the pool; else after
 * joining the started threads whose events are all done; else a new one (counted in kits_grown: its
 * pages are faulted in while replaying). Ends the replay when memory is refused. */
static struct kit *kit_take(struct replay *rp)
{
    for (;;) {
        for (uint32_t i = 0; i < rp->nkits; i++)
            if (!rp->kits[i].busy) {
                rp->kits[i].busy = 1;
                return &rp->kits[i];
            }
        int joined = 0;
        for (uint32_t i = 1; i < rp->launched; i++) {
            struct worker *x = &rp->ws[rp->by_start[i]];
            if (x->state == W_RUN && atomic_load_explicit(&x->next, memory_order_acquire) == DONE) {
                join_worker(rp, x);
                joined = 1;
            }
        }
        if (joined)
            continue;
        if (rp->nkits >= rp->nstart || kit_make(&rp->kits[rp->nkits]) < 0)
            _exit(wl_verify(0, "out of memory for a replay thread's stack and trace cursor"));
        rp->nkits++;
        rp->kits_grown++;
    }
}

/* Starts fn(arg) on a thread whose stack is the n bytes at stack (the replayer's own, resident). */
static int start_on(pthread_t *tid, char *stack, size_t n, void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0)
        return -1;
    int rc = pthread_attr_setstack(&a, stack, n) == 0 ? pthread_create(tid, &a, fn, arg) : -1;
    pthread_attr_destroy(&a);
    return rc == 0 ? 0 : -1;
}

/* Starts by_start[launched] (the caller holds rp->launch): first joins every thread that ended
 * before it started in the program (its exit is earlier in the order than the new one's start),
 * so that no more threads are alive at once than the program had. */
static void launch_next_locked(struct replay *rp)
{
    const struct hbt_trace *t = rp->t;
    uint32_t k = rp->launched;
    struct worker *u = &rp->ws[rp->by_start[k]];
    uint64_t first = t->threads[u->th].first_order;
    for (uint32_t i = 1; i < k && !rp->o->free_order; i++) { /* by_start[0] is the calling thread's */
        struct worker *x = &rp->ws[rp->by_start[i]];
        if (x->state == W_RUN && t->threads[x->th].exits && t->threads[x->th].last_order < first)
            join_worker(rp, x);
    }
    u->kit = kit_take(rp);
    u->state = W_RUN;
    rp->alive++;
    rp->alive_peak = rp->alive > rp->alive_peak ? rp->alive : rp->alive_peak;
    if (k > 0 && start_on(&u->tid, u->kit->stack, KIT_STACK, worker_main, u) != 0)
        _exit(wl_verify(0, "a replay thread could not be started (out of memory or of threads)")); /* others wait for its objects */
    rp->launched = k + 1;
    atomic_store_explicit(&rp->next_start, k + 1 < rp->nstart ? t->threads[rp->ws[rp->by_start[k + 1]].th].first_order : DONE,
                          memory_order_release);
}

/* Starts the next thread if no one else is doing it and it starts at or before order g. */
static void try_launch(struct replay *rp, uint64_t g)
{
    if (pthread_mutex_trylock(&rp->launch) != 0)
        return;
    if (atomic_load_explicit(&rp->next_start, memory_order_acquire) <= g)
        launch_next_locked(rp);
    pthread_mutex_unlock(&rp->launch);
}

static void backoff(unsigned spins)
{
    if (spins < 200)
        __builtin_ia32_pause();
    else
        sched_yield();
}

/* Waits until the event of order g may run: every thread that starts before it has started, and
 * no started thread's next event is more than the window before it. */
static void gate_slow(struct worker *w, uint64_t g, uint64_t lim)
{
    struct replay *rp = w->rp;
    for (unsigned spins = 0;; spins++) {
        if (atomic_load_explicit(&rp->next_start, memory_order_acquire) <= g) {
            try_launch(rp, g);
        } else {
            w->floor = others_next(rp, w);
            if (w->floor >= lim)
                return;
        }
        backoff(spins);
    }
}

static inline void gate(struct worker *w, uint64_t g)
{
    uint64_t lim = g > w->rp->o->window ? g - w->rp->o->window : 0;
    if (w->floor >= lim && atomic_load_explicit(&w->rp->next_start, memory_order_relaxed) > g)
        return;
    gate_slow(w, g, lim);
}

/* ---- threads ---- */

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

/* Before the event of order g and time ns: publishes g as the thread's next (every event before it
 * is performed), then waits for its turn (GATING) and its time (SLEEPING). The others' gates read
 * next, and so does all_stuck, but only of a thread that waits for another's object, which only
 * an event that is not plain can (PLAIN: a plain event, which publishes it only with the gate). */
static inline __attribute__((always_inline)) void event_begins(struct worker *w, uint64_t g, uint64_t ns, int plain, int gating, int sleeping)
{
    if (!plain || gating)
        atomic_store_explicit(&w->next, g, memory_order_release);
    if (gating)
        gate(w, g);
    if (sleeping)
        wait_until(&w->rp->start, ns);
}

/* The run of plain events at the cursor (trace.h: malloc, and free of the thread's own object),
 * decoded and performed with the cursor's state and the thread's ring in locals, no struct
 * hbt_event; stops at an event that is not plain, left for hbt_next, or at its chunk's end.
 * Returns the thread's live bytes. */
static inline __attribute__((always_inline)) int64_t run_plain(struct worker *w, struct hbt_cursor *c, int64_t live, int gating, int sleeping, int self,
                                                                int stopping)
{
    struct hbt_run r = hbt_run_begin(c);
    struct ring own = w->rp->tab.rings[w->th];
    uint64_t left = r.left, stop = w->rp->o->stop;
    for (;;) {
        unsigned b = hbt_run_peek(&r);
        if (stopping && (hbt_plain_malloc(b) || hbt_plain_free(b))) { /* the moment: this event's order is the run's next */
            struct hbt_run peek = r;
            hbt_run_head(&peek);
            if (peek.order >= stop) {
                w->stopped = 1;
                break;
            }
        }
        if (hbt_plain_malloc(b)) {
            uint64_t seq;
            hbt_run_head(&r);
            uint64_t size = hbt_run_malloc(&r, b, &seq);
            event_begins(w, r.order, r.ns, 1, gating, sleeping);
            live += perform_malloc(w, own, seq, size, self);
        } else if (hbt_plain_free(b)) {
            hbt_run_head(&r);
            uint64_t seq = hbt_run_free(&r);
            event_begins(w, r.order, r.ns, 1, gating, sleeping);
            live += perform_free(w, own, seq, self);
        } else {
            break;
        }
        if (!self) /* the sampler's (none in the self pass) */
            atomic_store_explicit(&w->live, live, memory_order_relaxed);
    }
    w->done += left - r.left;
    hbt_run_end(c, &r);
    return live;
}

/* run_plain's copies, one per case of run_events, each out of line so that the run's loop has the
 * registers to itself (inlined into run_events's loop, it cost about one instruction per event
 * more): the self pass, without and with the gate; the replay pass at full speed without the gate,
 * and with the gate or the recorded speed. */
static __attribute__((noinline)) int64_t plain_self(struct worker *w, struct hbt_cursor *c, int64_t live) { return run_plain(w, c, live, 0, 0, 1, 0); }
static __attribute__((noinline)) int64_t plain_self_gated(struct worker *w, struct hbt_cursor *c, int64_t live) { return run_plain(w, c, live, 1, 0, 1, 0); }
static __attribute__((noinline)) int64_t plain_replay(struct worker *w, struct hbt_cursor *c, int64_t live) { return run_plain(w, c, live, 0, 0, 0, 0); }
static __attribute__((noinline)) int64_t plain_replay_waiting(struct worker *w, struct hbt_cursor *c, int64_t live, int gating, int sleeping)
{
    return run_plain(w, c, live, gating, sleeping, 0, 0);
}
/* The replay pass that stops at the moment o->stop (an explanation's): gated like the others. */
static __attribute__((noinline)) int64_t plain_replay_stopping(struct worker *w, struct hbt_cursor *c, int64_t live, int gating)
{
    return run_plain(w, c, live, gating, 0, 0, 1);
}

/* The thread's events, performed in order: runs of plain events on the fast path, every other
 * event (and a chunk's first) through hbt_next and perform. GATING, SLEEPING and SELF are
 * constant in each inlined copy, so that a thread that does neither (one recorded thread, or
 * --order=free, at full speed) tests nothing per event for them. */
static inline __attribute__((always_inline)) void run_events(struct worker *w, struct hbt_cursor *c, int gating, int sleeping, int self,
                                                              int stopping)
{
    struct hbt_event e;
    int64_t live = 0;
    for (;;) {
        live = stopping ? plain_replay_stopping(w, c, live, gating)
               : self   ? (gating ? plain_self_gated(w, c, live) : plain_self(w, c, live))
                        : (!gating && !sleeping ? plain_replay(w, c, live) : plain_replay_waiting(w, c, live, gating, sleeping));
        if ((stopping && w->stopped) || hbt_next(c, &e) != 1)
            break;
        if (stopping && e.order >= w->rp->o->stop)
            break;
        event_begins(w, e.order, e.ns, 0, gating, sleeping);
        live += perform(w, &e, self);
        atomic_store_explicit(&w->live, live, memory_order_relaxed);
        w->done++;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct replay *rp = w->rp;
    struct hbt_cursor *c = w->kit->cursor;
    int gating = rp->gating, sleeping = rp->o->recorded_speed && !rp->self;
    hbt_cursor_init(c, rp->t, w->th);
    w->stopped = 0;
    if (rp->o->stop && !rp->self)
        run_events(w, c, gating, 0, 0, 1);
    else if (rp->self && !gating)
        run_events(w, c, 0, 0, 1, 0);
    else if (rp->self)
        run_events(w, c, 1, 0, 1, 0);
    else if (!gating && !sleeping)
        run_events(w, c, 0, 0, 0, 0);
    else
        run_events(w, c, gating, sleeping, 0, 0);
    w->made = c->seq; /* every object the thread decoded was put (or the replay ended) */
    atomic_store_explicit(&w->next, DONE, memory_order_release);
    return NULL;
}

static double elapsed(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

/* The threads with events in the order their first events come (for an unordered trace: thread
 * order), so the first is the recorded main thread. */
static void sort_by_start(struct replay *rp)
{
    const struct hbt_trace *t = rp->t;
    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (!t->threads[i].ops)
            continue;
        uint32_t j = rp->nstart++;
        while (j > 0 && t->ordered && t->threads[rp->by_start[j - 1]].first_order > t->threads[i].first_order) {
            rp->by_start[j] = rp->by_start[j - 1];
            j--;
        }
        rp->by_start[j] = i;
    }
}

void replay_each_live(struct replay *rp, void (*fn)(void *arg, uint64_t obj, uint64_t ptr, uint64_t size), void *arg)
{
    objring_each_obj(&rp->tab, fn, arg);
}

void replay_free(struct replay *rp)
{
    if (!rp)
        return;
    size_t nw = rp->t->nthreads ? rp->t->nthreads : 1;
    if (rp->tab.rings)
        objring_free(&rp->tab);
    hbt_unpages(rp->ws, nw * sizeof *rp->ws);
    hbt_unpages(rp->by_start, nw * sizeof *rp->by_start);
    for (uint32_t i = 0; rp->kits && i < rp->nkits; i++) {
        hbt_unpages(rp->kits[i].stack ? rp->kits[i].stack - sysconf(_SC_PAGESIZE) : NULL, (size_t)sysconf(_SC_PAGESIZE) + KIT_STACK);
        hbt_unpages(rp->kits[i].cursor, sizeof *rp->kits[i].cursor);
    }
    hbt_unpages(rp->kits, nw * sizeof *rp->kits);
    hbt_unpages(rp->sampler_stack, SAMPLER_STACK);
    pthread_mutex_destroy(&rp->launch);
    hbt_unpages(rp, sizeof *rp);
}

int replay_prepare(const struct hbt_trace *t, const struct replay_opts *o, uint64_t peak_objects, uint64_t threads_alive,
                   struct replay **out)
{
    size_t nw = t->nthreads ? t->nthreads : 1;
    struct replay *rp = hbt_pages(sizeof *rp);
    if (!rp)
        return -1;
    rp->t = t;
    rp->o = o;
    pthread_mutex_init(&rp->launch, NULL);
    rp->ws = hbt_pages(nw * sizeof *rp->ws);
    rp->by_start = hbt_pages(nw * sizeof *rp->by_start);
    if (!rp->ws || !rp->by_start || objring_init(&rp->tab, t, REPLAY_RING, peak_objects + (uint64_t)t->nthreads * o->window) < 0) {
        replay_free(rp);
        return -1;
    }
    for (uint32_t i = 0; i < t->nthreads; i++) {
        rp->ws[i].rp = rp;
        rp->ws[i].th = (uint16_t)i;
        rp->ws[i].touching = o->touch != TOUCH_NONE;
        rp->ws[i].base = t->threads[i].obj_base;
    }
    sort_by_start(rp);
    rp->gating = !o->free_order && t->ordered && rp->nstart > 1;
    /* as many kits as threads run at once: every thread with --order=free, else the program's most
     * (no more are alive at once in the replay: launch_next_locked), and the sampler's stack */
    uint64_t want = o->free_order || threads_alive == 0 || threads_alive > rp->nstart ? rp->nstart : threads_alive;
    rp->kits = hbt_pages(nw * sizeof *rp->kits);
    rp->sampler_stack = hbt_pages(SAMPLER_STACK);
    if (!rp->kits || !rp->sampler_stack) {
        replay_free(rp);
        return -1;
    }
    resident_now(rp->sampler_stack, SAMPLER_STACK);
    for (rp->nkits = 0; rp->nkits < (want ? want : 1); rp->nkits++)
        if (kit_make(&rp->kits[rp->nkits]) < 0) {
            replay_free(rp);
            return -1;
        }
    *out = rp;
    return 0;
}

/* What the sampler thread needs (replay_run's arguments). */
struct sampler {
    struct replay *rp;
    sem_t done;                /* posted once every worker has ended */
    _Atomic int ended;         /* set before the end's time is read: no sample is taken after it */
    replay_sample_fn sample;
    void *arg;
};

/* While the workers run: every 10 ms (20 ms after 100 samples, 40 after 200...) the live bytes
 * of the replay (each thread's, exact to its last event) to sample. Returns as soon as `done`
 * is posted (the workers have ended), not at its next sample. A sample whose time is read after
 * `ended` is set is dropped: its time could pass the end's (the replay's seconds, read after
 * `ended` is set and before `done` is posted), and samples stay in time order. */
static void sample_live(struct sampler *s)
{
    struct replay *rp = s->rp;
    long interval_ns = 10000000L;
    for (unsigned n = 1;; n++) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec at = ts_after(now, (uint64_t)interval_ns);
        int r;
        while ((r = sem_clockwait(&s->done, CLOCK_MONOTONIC, &at)) != 0 && errno == EINTR)
            ;
        if (r == 0)
            return;
        int64_t live = 0;
        for (uint32_t i = 0; i < rp->t->nthreads; i++)
            live += atomic_load_explicit(&rp->ws[i].live, memory_order_relaxed);
        double seconds = elapsed(&rp->start);
        if (atomic_load(&s->ended))
            return;
        s->sample(s->arg, seconds, live > 0 ? (uint64_t)live : 0);
        if (n % 100 == 0 && interval_ns < 1000000000L)
            interval_ns *= 2;
    }
}

static void *sampler_main(void *arg)
{
    sample_live(arg);
    return NULL;
}

/* One object left at the end (objring_each). */
static void count_live(void *arg, uint64_t a, uint64_t size)
{
    struct replay_result *r = arg;
    (void)a;
    r->live_objects++;
    r->live_bytes += size;
}

/* Starts every thread but the calling one's: all at once (free order), else only those that start
 * before the calling thread's first event (none: it is the first). */
static void start_threads(struct replay *rp)
{
    pthread_mutex_lock(&rp->launch);
    launch_next_locked(rp); /* the calling thread's: by_start[0] */
    while (rp->o->free_order && rp->launched < rp->nstart)
        launch_next_locked(rp);
    pthread_mutex_unlock(&rp->launch);
}

/* After the calling thread's own events: starts the threads not started yet, in their order, and
 * joins every thread. */
static void finish_threads(struct replay *rp)
{
    pthread_mutex_lock(&rp->launch);
    while (rp->launched < rp->nstart)
        launch_next_locked(rp);
    for (uint32_t i = 1; i < rp->nstart; i++) {
        struct worker *w = &rp->ws[rp->by_start[i]];
        if (w->state == W_RUN)
            join_worker(rp, w);
        w->state = W_JOINED;
    }
    pthread_mutex_unlock(&rp->launch);
    struct worker *first = &rp->ws[rp->by_start[0]]; /* the calling thread's kit */
    first->kit->busy = 0;
    first->kit = NULL;
}

int replay_run(struct replay *rp, int self, replay_sample_fn sample, void *arg, struct replay_result *r)
{
    const struct hbt_trace *t = rp->t;
    memset(r, 0, sizeof *r);
    objring_reset(&rp->tab);
    rp->self = self;
    rp->launched = 0;
    rp->alive = rp->alive_peak = 0;
    atomic_store(&rp->next_start, rp->nstart ? t->threads[rp->ws[rp->by_start[0]].th].first_order : DONE);
    for (uint32_t i = 0; i < t->nthreads; i++) {
        struct worker *w = &rp->ws[i];
        w->done = w->nulls = w->made = 0;
        w->mapped = 0;
        w->floor = 0;
        w->state = W_IDLE;
        atomic_store(&w->live, 0);
        atomic_store(&w->waiting, 0);
        atomic_store(&w->next, t->threads[i].ops ? t->threads[i].first_order : DONE);
    }
    clock_gettime(CLOCK_MONOTONIC, &rp->start);
    if (rp->nstart == 0)
        return 0;
    start_threads(rp);
    struct sampler sm = {.rp = rp, .sample = sample, .arg = arg};
    pthread_t sampler_tid;
    int sampling = !self && sample;
    if (sampling && (sem_init(&sm.done, 0, 0) != 0 || start_on(&sampler_tid, rp->sampler_stack, SAMPLER_STACK, sampler_main, &sm) != 0))
        return -1;
    worker_main(&rp->ws[rp->by_start[0]]);
    finish_threads(rp);
    atomic_store(&sm.ended, 1); /* before the end's time: every sample kept was timed before it */
    r->seconds = elapsed(&rp->start); /* the last worker's end, not the sampler's next wake-up */
    if (sampling) {
        sem_post(&sm.done);
        pthread_join(sampler_tid, NULL);
        sem_destroy(&sm.done);
    }
    for (uint32_t i = 0; i < t->nthreads; i++) {
        r->ops += rp->ws[i].done;
        r->nulls += rp->ws[i].nulls;
        r->mapped += rp->ws[i].mapped;
    }
    r->threads_peak = rp->alive_peak;
    r->grown = rp->tab.ovf_grown + rp->kits_grown;
    objring_each(&rp->tab, count_live, r);
    uint64_t made = 0;
    for (uint32_t i = 0; i < t->nthreads; i++)
        made += rp->ws[i].made;
    r->unmade = t->objects - made;
    return 0;
}
