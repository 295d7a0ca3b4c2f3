/* bitmap-pool.c - a lock-free pool of 64-byte blocks behind atomic 64-bit bitmaps, against malloc(64)/free, at T threads.
 *
 * Claim checked (the seed article): a lock-free bitmap pool has "20x lower latency than jemalloc at
 * 128 threads". The pool is the article's design: an array of atomic 64-bit words, one bit per
 * block; get = find the first zero bit of a word (from a per-thread starting word), then set it
 * with compare-and-swap (retry on a lost race, next word when full); put = atomically clear the
 * bit. Each thread does --ops get/put pairs in rounds of --batch blocks held at once; with
 * --alloc=malloc the same rounds use malloc(64)/free. Both are timed by the latency sampler as
 * malloc and free, so their histograms compare directly.
 * Always holds: every block is filled with a pattern and checked before it is released; the pool
 * has at least 2 x threads x batch blocks, so a get always finds a free bit within two sweeps; a
 * block is never handed to two threads (its bit is set by exactly one successful CAS); phase
 * `churn` ends with nothing held (live_bytes 0) and, for the pool, every bit clear. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_threads.h"
#include "wl_time.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BP_BLOCK 64

static struct wl_param bp_params[] = {
    WL_INT("threads", "1", NULL, 1, 1024, "threads sharing the work"),
    WL_WORD("alloc", "bitmap", "bitmap|malloc", "the lock-free bitmap pool, or malloc(64)/free"),
    WL_INT("ops", "400000", "20000", 1, 1000000000000LL, "get/put pairs in total, split across the threads"),
    WL_INT("batch", "8", NULL, 1, 4096, "blocks a thread holds at once (a round gets them all, then puts them)"),
    WL_INT("blocks", "65536", NULL, 64, 1LL << 30, "pool size in blocks (raised to 2 x threads x batch, rounded up to 64)"),
};

static struct wl_prog bp_prog = WL_PROG(
    "bitmap-pool", "64 B blocks from a lock-free bitmap pool (find-first-zero + CAS) vs malloc(64)/free, T threads",
    bp_params);

/* The pool: words[i] bit j set = block 64 * i + j is in use. */
struct bp_pool {
    _Atomic uint64_t *words;
    size_t nwords;
    unsigned char *mem; /* nwords * 64 blocks of BP_BLOCK bytes */
};

/* Per-thread work and results, one cache line apart. */
struct bp_thread {
    _Alignas(64) unsigned long long ops; /* in: pairs to do */
    size_t start;                        /* in: the word this thread searches first */
    struct wl_tally tally;               /* out: requested bytes, NULL returns plus damaged patterns */
};

static struct bp_pool bp;
static int bp_use_pool;
static size_t bp_batch;

/* Claims a free block: first zero bit of each word from start on, set by CAS; NULL after two
 * sweeps without one (cannot happen while the pool has 2 x threads x batch blocks). */
static void *bp_get(size_t start)
{
    for (size_t k = 0; k < 2 * bp.nwords; k++) {
        size_t w = (start + k) % bp.nwords;
        uint64_t old = atomic_load_explicit(&bp.words[w], memory_order_relaxed);
        while (~old) {
            unsigned bit = (unsigned)__builtin_ctzll(~old);
            if (atomic_compare_exchange_weak_explicit(&bp.words[w], &old, old | (1ULL << bit),
                                                      memory_order_acquire, memory_order_relaxed))
                return bp.mem + (w * 64 + bit) * BP_BLOCK;
        }
    }
    return NULL;
}

/* Releases block p: clears its bit. */
static void bp_put(void *p)
{
    size_t idx = (size_t)((unsigned char *)p - bp.mem) / BP_BLOCK;
    atomic_fetch_and_explicit(&bp.words[idx / 64], ~(1ULL << (idx % 64)), memory_order_release);
}

/* Rounds of batch gets (each filled), then batch checks and puts, until ops pairs are done. */
static void bp_thread_main(int i, void *arg)
{
    struct bp_thread *t = arg;
    unsigned char *held[4096];
    (void)i;
    for (unsigned long long done = 0; done < t->ops;) {
        size_t k = t->ops - done < bp_batch ? (size_t)(t->ops - done) : bp_batch;
        for (size_t j = 0; j < k; j++) {
            WL_LAT(WL_OP_MALLOC, held[j] = bp_use_pool ? bp_get(t->start) : malloc(BP_BLOCK));
            if (held[j])
                wl_fill(held[j], BP_BLOCK, done + j);
        }
        for (size_t j = 0; j < k; j++) {
            t->tally.bad += !held[j] || !wl_check(held[j], BP_BLOCK, done + j);
            if (!held[j])
                continue;
            if (bp_use_pool)
                WL_LAT(WL_OP_FREE, bp_put(held[j]));
            else
                WL_LAT(WL_OP_FREE, free(held[j]));
            t->tally.bytes += BP_BLOCK;
        }
        done += k;
    }
}

/* Sizes the pool: its words and blocks are taken once from the allocator under test, before the timing. */
static int bp_pool_init(size_t blocks)
{
    bp.nwords = (blocks + 63) / 64;
    bp.words = aligned_alloc(64, (bp.nwords * sizeof *bp.words + 63) / 64 * 64);
    bp.mem = aligned_alloc(64, bp.nwords * 64 * BP_BLOCK);
    if (!bp.words || !bp.mem)
        return -1;
    for (size_t w = 0; w < bp.nwords; w++)
        atomic_init(&bp.words[w], 0);
    return 0;
}

/* Every bit clear at the end: no block leaked or released twice into a set state. */
static int bp_pool_empty(void)
{
    for (size_t w = 0; w < bp.nwords; w++)
        if (atomic_load(&bp.words[w]))
            return 0;
    return 1;
}

/* Splits --ops over the threads, spreads their first words over the pool, runs them, verifies. */
int main(int argc, char **argv)
{
    wl_args_parse(&bp_prog, argc, argv);
    wl_served_by();
    int nt = (int)wl_arg("threads");
    unsigned long long ops = (unsigned long long)wl_arg("ops");
    bp_use_pool = strcmp(wl_word("alloc"), "bitmap") == 0;
    bp_batch = (size_t)wl_arg("batch");
    size_t blocks = (size_t)wl_arg("blocks");
    if (blocks < 2 * (size_t)nt * bp_batch)
        blocks = 2 * (size_t)nt * bp_batch;
    struct bp_thread *th = aligned_alloc(64, (size_t)nt * sizeof *th);
    if (!th || (bp_use_pool && bp_pool_init(blocks) != 0))
        return wl_verify(0, "out of memory for the pool or the thread table");
    memset(th, 0, (size_t)nt * sizeof *th);
    for (int i = 0; i < nt; i++) {
        th[i].ops = wl_share(ops, nt, i);
        th[i].start = bp_use_pool ? (size_t)i * bp.nwords / (size_t)nt : 0;
    }

    double t0 = wl_now();
    wl_threads_run(nt, bp_thread_main, th, sizeof *th);
    wl_phase("churn", t0, ops, 0);
    int empty = !bp_use_pool || bp_pool_empty();
    if (!empty)
        th[0].tally.bad++;
    int rc = wl_tally_verify(ops, &th[0].tally, sizeof *th, nt);
    free(bp.mem);
    free((void *)bp.words);
    free(th);
    return rc;
}
