/* realloc-grow.c - dynamic arrays grown by realloc: by a factor (x1.5, x2) or by a constant step.
 *
 * Claim checked: growth by a factor amortises realloc's cost (O(1) per append), growth by a
 * constant does not. --arrays arrays are appended to in turn (so they get in each other's way
 * in the heap, as in real programs). Phases: `grow` (ops = appends; live_bytes = the arrays'
 * capacities), `reallocs` and `moves` (ops = the reallocs of a block already held, and those of
 * them that returned a new address; live unchanged), `moved` (ops = the bytes those moves carried:
 * the old capacity of each block that moved, which a heap chunk's realloc copies and an mmap'd
 * one's remaps; live unchanged), `free` (nothing held). The verify detail repeats the three counts.
 * Always holds: element i of array a holds a value derived from (a, i, seed), checked for every
 * element at the end; live_bytes is exactly the capacity requested from realloc. */
#include "wl_args.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct wl_param rg_params[] = {
    WL_WORD("growth", "x2", "x1.5|x2|plus", "new capacity: x1.5, x2, or + --step bytes"),
    WL_INT("elems", "8000000", "400000", 1, 1LL << 34, "8-byte elements appended in total"),
    WL_INT("arrays", "4", NULL, 1, 4096, "arrays appended to in turn"),
    WL_INT("step", "4096", NULL, 8, 1 << 30, "bytes added per growth with --growth=plus"),
};

static struct wl_prog rg_prog =
    WL_PROG("realloc-grow", "arrays grown by realloc x1.5, x2 or +step: amortised cost", rg_params);

struct rg_array {
    uint64_t *v;
    size_t len, cap; /* elements */
};

static int rg_mode; /* 0: x1.5, 1: x2, 2: plus */
static size_t rg_step;

/* The capacity after cap (in elements) under the chosen growth; always > cap. */
static size_t rg_next_cap(size_t cap)
{
    size_t next = rg_mode == 0 ? cap + cap / 2 : rg_mode == 1 ? cap * 2 : cap + rg_step / 8;
    return next > cap ? next : cap + 1;
}

/* The value stored at element i of array a. */
static inline uint64_t rg_value(size_t a, size_t i)
{
    return (i * 0x9e3779b97f4a7c15ULL) ^ (a << 56) ^ wl_seed;
}

/* Appends round-robin, growing by realloc; verifies every element; frees. */
int main(int argc, char **argv)
{
    wl_args_parse(&rg_prog, argc, argv);
    wl_served_by();
    const char *g = wl_word("growth");
    rg_mode = strcmp(g, "x1.5") == 0 ? 0 : strcmp(g, "x2") == 0 ? 1 : 2;
    rg_step = (size_t)wl_arg("step");
    size_t elems = (size_t)wl_arg("elems"), na = (size_t)wl_arg("arrays");
    struct rg_array *arr = calloc(na, sizeof *arr);
    if (!arr)
        return wl_verify(0, "out of memory for the array table");
    unsigned long long reallocs = 0, moves = 0, moved = 0, bad = 0;
    uint64_t live = 0;

    double t0 = wl_now();
    for (size_t i = 0; i < elems; i++) {
        struct rg_array *a = &arr[i % na];
        if (a->len == a->cap) {
            size_t cap = rg_next_cap(a->cap < 2 ? 2 : a->cap);
            uint64_t *v;
            WL_LAT(WL_OP_REALLOC, v = realloc(a->v, cap * sizeof *v));
            if (!v) {
                bad++;
                break;
            }
            reallocs += a->v != NULL;
            if (a->v && v != a->v) {
                moves++;
                moved += a->cap * sizeof *v;
            }
            live += (cap - a->cap) * sizeof *v;
            a->v = v;
            a->cap = cap;
        }
        a->v[a->len] = rg_value(i % na, a->len);
        a->len++;
    }
    t0 = wl_phase("grow", t0, elems, live);
    t0 = wl_phase("reallocs", t0, reallocs, live);
    t0 = wl_phase("moves", t0, moves, live);
    t0 = wl_phase("moved", t0, moved, live);
    for (size_t a = 0; a < na; a++) {
        for (size_t i = 0; i < arr[a].len; i++)
            bad += arr[a].v[i] != rg_value(a, i);
        WL_LAT(WL_OP_FREE, free(arr[a].v));
    }
    wl_phase("free", t0, na, 0);
    free(arr);
    char detail[160];
    snprintf(detail, sizeof detail, "elems=%zu reallocs=%llu moves=%llu moved=%llu bad=%llu", elems, reallocs, moves,
             moved, bad);
    return wl_verify(bad == 0, detail);
}
