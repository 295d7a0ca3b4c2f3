/* mmap-threshold.c - glibc's dynamic mmap threshold: rounds of alloc/touch/free of 200 KiB blocks, then a 64 KiB..64 MiB sweep.
 *
 * Claim checked: after one 200 KiB block is freed, glibc raises its mmap threshold, and later
 * rounds stop calling mmap and faulting. A round allocates --blocks blocks of --size bytes,
 * touches every page, checks and frees them. Phases: `first` (round 1), `second` (round 2),
 * `later` (rounds 3..R), then for each sweep size S (64 KiB doubling to --sweep-max)
 * `sweep-S-first` (its first round) and `sweep-S-later` (--sweep-reps more rounds); ops = blocks
 * allocated. Minor page faults per round (getrusage) are in the verify detail: first, second,
 * and the mean of the later rounds.
 * Always holds: nothing is held at the end of any phase (live_bytes 0); every block is checked
 * before it is freed; verify fails on a NULL or a damaged block. */
#include "wl_args.h"
#include "wl_heap.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>

#define MT_MAX_BLOCKS 4096

static struct wl_param mt_params[] = {
    WL_INT("rounds", "50000", "3000", 3, 1000000000, "rounds of --blocks blocks of --size bytes"),
    WL_INT("blocks", "1", NULL, 1, MT_MAX_BLOCKS, "blocks held at once in a round"),
    WL_INT("size", "204800", NULL, 1, 1 << 30, "block size of the rounds (200 KiB)"),
    WL_INT("sweep-max", "67108864", "4194304", 65536, 1LL << 34, "largest size of the sweep (from 64 KiB, doubling)"),
    WL_INT("sweep-reps", "3", NULL, 1, 1000000, "rounds after the first at each sweep size"),
};

static struct wl_prog mt_prog =
    WL_PROG("mmap-threshold", "200 KiB alloc/free rounds and a 64 KiB..64 MiB sweep: first vs later rounds", mt_params);

/* Runs `rounds` rounds of k blocks of n bytes (alloc and touch all, then check and free all);
 * returns the minor faults they took. */
static long mt_rounds(struct wl_heap *h, long long rounds, size_t k, size_t n)
{
    void *blk[MT_MAX_BLOCKS];
    long before = wl_minflt();
    for (long long r = 0; r < rounds; r++) {
        for (size_t i = 0; i < k; i++)
            blk[i] = wl_heap_alloc(h, n, i + 1);
        for (size_t i = 0; i < k; i++)
            wl_heap_free(h, blk[i], n, i + 1);
    }
    return wl_minflt() - before;
}

/* Rounds 1, 2, 3..R, then the sweep, then verify (with the fault counts as detail). */
int main(int argc, char **argv)
{
    wl_args_parse(&mt_prog, argc, argv);
    wl_served_by();
    long long rounds = wl_arg("rounds"), reps = wl_arg("sweep-reps");
    size_t k = (size_t)wl_arg("blocks"), n = (size_t)wl_arg("size");
    size_t sweep_max = (size_t)wl_arg("sweep-max");
    struct wl_heap h = {0};

    double t0 = wl_now();
    long f1 = mt_rounds(&h, 1, k, n);
    t0 = wl_phase("first", t0, k, h.live);
    long f2 = mt_rounds(&h, 1, k, n);
    t0 = wl_phase("second", t0, k, h.live);
    long flater = mt_rounds(&h, rounds - 2, k, n);
    t0 = wl_phase("later", t0, (uint64_t)(rounds - 2) * k, h.live);
    for (size_t s = 65536; s <= sweep_max; s *= 2) {
        char name[64];
        mt_rounds(&h, 1, 1, s);
        snprintf(name, sizeof name, "sweep-%zu-first", s);
        t0 = wl_phase(name, t0, 1, h.live);
        mt_rounds(&h, reps, 1, s);
        snprintf(name, sizeof name, "sweep-%zu-later", s);
        t0 = wl_phase(name, t0, (uint64_t)reps, h.live);
    }
    char detail[160];
    snprintf(detail, sizeof detail, "faults first=%ld second=%ld later_mean=%.2f bad=%llu", f1, f2,
             (double)flater / (double)(rounds - 2), (unsigned long long)h.bad);
    return wl_verify(h.bad == 0 && h.live == 0, detail);
}
