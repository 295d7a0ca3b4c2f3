/* thread-churn.c - T threads each doing malloc/free of 16..4096-byte blocks (loop) or K-block batches.
 *
 * Claim checked: with glibc, 8 threads ran 5x slower than 1 and 32 threads ~60 s vs ~5-7 s with
 * tcmalloc/jemalloc/mimalloc (16 vCPUs, older glibc). The total --ops are split across the
 * threads, so a thread sweep measures throughput of the same work; --per-thread=N gives each
 * thread N pairs instead (the article's count per thread: the work grows with the threads).
 * Always holds: every block is filled with a pattern and checked before it is freed (unless
 * --check=no: then the blocks are never written, as in the article's malloc(32)/free loop); the
 * phase `churn` ends with nothing held (live_bytes 0); verify fails (exit 1) if a malloc
 * returned NULL or a pattern was damaged. Deterministic sizes for a given --seed. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_rng.h"
#include "wl_threads.h"
#include "wl_time.h"

#include <stdlib.h>
#include <time.h>

static struct wl_param tc_params[] = {
    WL_INT("threads", "1", NULL, 1, 1024, "threads sharing the work"),
    WL_INT("ops", "5000000", "200000", 1, 1000000000000LL, "malloc/free pairs in total, split across the threads"),
    WL_WORD("mode", "loop", "loop|batch", "loop: malloc then free at once; batch: malloc K blocks then free them"),
    WL_INT("size", "0", NULL, 0, 1 << 30, "fixed block size in bytes; 0: random per op in 16..4096"),
    WL_INT("batch", "256", NULL, 1, 10000000, "K, the blocks held at once in batch mode"),
    WL_INT("per-thread", "0", NULL, 0, 1000000000000LL, "pairs per thread (--ops is then ignored); 0: split --ops"),
    WL_WORD("check", "yes", "yes|no", "fill every block and check it before its free, or never touch the blocks"),
    WL_INT("stall-every", "0", NULL, 0, 1000000000, "a latency test: sleep 1 ms inside one malloc in N (0: never)"),
};

static struct wl_prog tc_prog =
    WL_PROG("thread-churn", "T threads malloc/free 16..4096 B blocks, loop or batch (glibc thread scaling claim)", tc_params);

/* Per-thread work and results, one cache line apart so the threads share nothing. */
struct tc_thread {
    unsigned long long ops; /* in: pairs to do */
    struct wl_tally tally;  /* out: requested bytes, NULL returns plus damaged patterns */
    char pad[64 - sizeof(unsigned long long) - sizeof(struct wl_tally)];
};

static int tc_batch_mode;
static size_t tc_size;
static size_t tc_k;
static int tc_check;
static unsigned long long tc_stall;

/* malloc(n), plus a 1 ms sleep when op i is one in --stall-every (a known outlier for the latency tests). */
static inline void *tc_malloc(size_t n, unsigned long long i)
{
    if (tc_stall && i % tc_stall == 0)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return malloc(n);
}

/* The size of the next block: the fixed --size, or uniform in 16..4096 from this thread's stream. */
static inline size_t tc_next_size(struct wl_rng *r)
{
    return tc_size ? tc_size : (size_t)wl_rng_range(r, 16, 4096);
}

/* Loop mode: each op mallocs, fills, checks and frees one block. */
static void tc_loop(struct tc_thread *t, struct wl_rng *r)
{
    for (unsigned long long i = 0; i < t->ops; i++) {
        size_t n = tc_next_size(r);
        unsigned char *p;
        WL_LAT(WL_OP_MALLOC, p = tc_malloc(n, i));
        if (!p) {
            t->tally.bad++;
            continue;
        }
        if (tc_check) {
            wl_fill(p, n, i);
            t->tally.bad += !wl_check(p, n, i);
        }
        WL_LAT(WL_OP_FREE, free(p));
        t->tally.bytes += n;
    }
}

/* Batch mode: rounds of K mallocs (each filled), then K checks and frees in allocation order. */
static void tc_batch(struct tc_thread *t, struct wl_rng *r)
{
    unsigned char **ptr = malloc(tc_k * sizeof *ptr);
    size_t *len = malloc(tc_k * sizeof *len);
    if (!ptr || !len) {
        t->tally.bad++;
        return;
    }
    for (unsigned long long done = 0; done < t->ops;) {
        size_t k = t->ops - done < tc_k ? (size_t)(t->ops - done) : tc_k;
        for (size_t j = 0; j < k; j++) {
            len[j] = tc_next_size(r);
            WL_LAT(WL_OP_MALLOC, ptr[j] = tc_malloc(len[j], done + j));
            if (ptr[j] && tc_check)
                wl_fill(ptr[j], len[j], done + j);
        }
        for (size_t j = 0; j < k; j++) {
            t->tally.bad += !ptr[j] || (tc_check && !wl_check(ptr[j], len[j], done + j));
            WL_LAT(WL_OP_FREE, free(ptr[j]));
            t->tally.bytes += len[j];
        }
        done += k;
    }
    free(len);
    free(ptr);
}

/* Thread body: its own RNG stream (seed, thread index), then the chosen mode. */
static void tc_thread_main(int i, void *arg)
{
    struct wl_rng r;
    wl_rng_init(&r, wl_seed, (uint64_t)i);
    if (tc_batch_mode)
        tc_batch(arg, &r);
    else
        tc_loop(arg, &r);
}

/* Splits --ops over the threads (the first ops % T threads do one more) or gives each
 * --per-thread pairs, runs them, reports. */
int main(int argc, char **argv)
{
    wl_args_parse(&tc_prog, argc, argv);
    wl_served_by();
    int nt = (int)wl_arg("threads");
    unsigned long long ops = (unsigned long long)wl_arg("ops");
    tc_batch_mode = wl_word("mode")[0] == 'b';
    tc_size = (size_t)wl_arg("size");
    tc_k = (size_t)wl_arg("batch");
    tc_check = wl_word("check")[0] == 'y';
    unsigned long long per_thread = (unsigned long long)wl_arg("per-thread");
    if (per_thread)
        ops = per_thread * (unsigned long long)nt;
    tc_stall = (unsigned long long)wl_arg("stall-every");

    struct tc_thread *th = calloc((size_t)nt, sizeof *th);
    if (!th)
        return wl_verify(0, "out of memory for the thread table");
    for (int i = 0; i < nt; i++)
        th[i].ops = per_thread ? per_thread : wl_share(ops, nt, i);

    double t0 = wl_now();
    wl_threads_run(nt, tc_thread_main, th, sizeof *th);
    wl_phase("churn", t0, ops, 0);
    int rc = wl_tally_verify(ops, &th[0].tally, sizeof *th, nt);
    free(th);
    return rc;
}
