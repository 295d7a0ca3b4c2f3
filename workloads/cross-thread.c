/* cross-thread.c - remote frees: each thread allocates blocks that the next thread in a ring frees (larson/xmalloc pattern).
 *
 * Thread i mallocs 8..2048-byte blocks, fills them and hands them through a single-producer
 * single-consumer ring to thread (i+1) % T, which checks and frees them; so with T >= 2 every
 * free is a remote free (with T = 1 the thread frees its own blocks: the baseline).
 * Always holds: every block allocated is freed exactly once after its pattern was checked;
 * the phase `exchange` ends with nothing held (live_bytes 0); threads never block (a full ring
 * or an empty one makes the thread do its other half, then yield). */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_rng.h"
#include "wl_threads.h"
#include "wl_time.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define CT_RING 1024 /* entries per ring (a power of two) */

static struct wl_param ct_params[] = {
    WL_INT("threads", "2", NULL, 1, 1024, "threads in the ring (each allocates and frees the previous one's blocks)"),
    WL_INT("ops", "3000000", "150000", 1, 1000000000000LL, "blocks allocated in total, split across the threads"),
    WL_INT("min", "8", NULL, 1, 1 << 30, "smallest block size in bytes"),
    WL_INT("max", "2048", NULL, 1, 1 << 30, "largest block size in bytes"),
};

static struct wl_prog ct_prog =
    WL_PROG("cross-thread", "producers allocate, the next thread frees: remote frees of 8..2048 B blocks", ct_params);

struct ct_entry {
    unsigned char *p;
    size_t n;
    uint64_t tag;
};

/* The ring a thread consumes from (its predecessor produces into it), cache-line separated. */
struct ct_ring {
    _Alignas(64) _Atomic size_t head; /* next entry to consume */
    _Alignas(64) _Atomic size_t tail; /* next entry to produce */
    struct ct_entry e[CT_RING];
};

struct ct_thread {
    struct ct_ring *in, *out;
    unsigned long long produce, consume; /* in: blocks to allocate / to free */
    struct wl_tally tally;                /* out: requested bytes (checksum), NULL + damaged */
};

static size_t ct_min, ct_max;

/* Pushes as many new blocks into out as fit (at most want); returns how many. */
static unsigned long long ct_produce(struct ct_thread *t, struct wl_rng *r, unsigned long long want, uint64_t tag0)
{
    size_t tail = atomic_load_explicit(&t->out->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&t->out->head, memory_order_acquire);
    unsigned long long k = 0;
    for (; k < want && tail - head < CT_RING; k++, tail++) {
        size_t n = (size_t)wl_rng_range(r, ct_min, ct_max);
        unsigned char *p;
        WL_LAT(WL_OP_MALLOC, p = malloc(n));
        if (p)
            wl_fill(p, n, tag0 + k);
        else
            t->tally.bad++;
        t->out->e[tail % CT_RING] = (struct ct_entry){p, n, tag0 + k};
        t->tally.bytes += n;
    }
    atomic_store_explicit(&t->out->tail, tail, memory_order_release);
    return k;
}

/* Checks and frees every block waiting in in; returns how many. */
static unsigned long long ct_consume(struct ct_thread *t)
{
    size_t head = atomic_load_explicit(&t->in->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&t->in->tail, memory_order_acquire);
    unsigned long long k = tail - head;
    for (; head != tail; head++) {
        struct ct_entry *e = &t->in->e[head % CT_RING];
        if (e->p) {
            t->tally.bad += !wl_check(e->p, e->n, e->tag);
            WL_LAT(WL_OP_FREE, free(e->p));
        }
    }
    atomic_store_explicit(&t->in->head, head, memory_order_release);
    return k;
}

/* Alternates producing (in bursts of up to a quarter ring) and consuming until both counts are met. */
static void ct_thread_main(int i, void *arg)
{
    struct ct_thread *t = arg;
    struct wl_rng r;
    wl_rng_init(&r, wl_seed, (uint64_t)i);
    unsigned long long made = 0, freed = 0;
    while (made < t->produce || freed < t->consume) {
        unsigned long long left = t->produce - made;
        unsigned long long got = ct_produce(t, &r, left < CT_RING / 4 ? left : CT_RING / 4, made);
        unsigned long long got_back = ct_consume(t);
        made += got;
        freed += got_back;
        if (got + got_back == 0)
            sched_yield();
    }
}

/* Builds the ring of threads, runs them, sums their counts and reports. */
int main(int argc, char **argv)
{
    wl_args_parse(&ct_prog, argc, argv);
    wl_served_by();
    int nt = (int)wl_arg("threads");
    unsigned long long ops = (unsigned long long)wl_arg("ops");
    ct_min = (size_t)wl_arg("min");
    ct_max = (size_t)wl_arg("max");
    if (ct_min > ct_max) {
        fprintf(stderr, "cross-thread: --min is larger than --max; give --min <= --max\n");
        return 2;
    }
    struct ct_ring *rings = aligned_alloc(64, (size_t)nt * sizeof *rings);
    struct ct_thread *th = calloc((size_t)nt, sizeof *th);
    if (!rings || !th)
        return wl_verify(0, "out of memory for the rings");
    for (int i = 0; i < nt; i++) {
        atomic_init(&rings[i].head, 0);
        atomic_init(&rings[i].tail, 0);
        th[i].produce = wl_share(ops, nt, i);
    }
    for (int i = 0; i < nt; i++) {
        th[i].in = &rings[i];
        th[i].out = &rings[(i + 1) % nt];
        th[(i + 1) % nt].consume = th[i].produce;
    }

    double t0 = wl_now();
    wl_threads_run(nt, ct_thread_main, th, sizeof *th);
    wl_phase("exchange", t0, ops, 0);
    int rc = wl_tally_verify(ops, &th[0].tally, sizeof *th, nt);
    free(th);
    free(rings);
    return rc;
}
