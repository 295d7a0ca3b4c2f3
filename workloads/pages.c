/* pages.c - where an allocator puts small blocks of two sizes: does a page hold one size class, and how big is it.
 *
 * Claim checked (article 000): mimalloc's pages are usually 64 KiB, each holding blocks of one
 * size class. --blocks blocks of --size-a and as many of --size-b bytes are malloc'd in turn and
 * all held; their addresses, sorted, are read in --window-byte aligned windows and in runs (a run:
 * blocks next to each other in address order that have the same size). Phases (all counts; live =
 * the blocks' requested bytes, then 0): `alloc` (ops = blocks), `windows` (ops = windows holding
 * a block), `mixed` (ops = those holding blocks of both sizes), `runs` (ops = runs), `run-bytes`
 * (ops = the median run's span in bytes: from its first block's address to its last's, plus one
 * block), `free` (0).
 * Always holds: every block is written with its own pattern and checked before it is freed; the
 * counts come from the addresses malloc returned and from nothing else. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static struct wl_param pg_params[] = {
    WL_INT("blocks", "20000", "2000", 1, 1 << 24, "blocks of each size"),
    WL_INT("size-a", "32", NULL, 1, 1 << 20, "bytes of the first size's blocks"),
    WL_INT("size-b", "48", NULL, 1, 1 << 20, "bytes of the second size's blocks"),
    WL_INT("window", "65536", NULL, 4096, 1 << 30, "window the addresses are grouped in (a power of two)"),
};

static struct wl_prog pg_prog =
    WL_PROG("pages", "two block sizes malloc'd in turn: one size class per page, and the pages' span", pg_params);

struct pg_block {
    uintptr_t addr;
    int kind; /* 0: size-a, 1: size-b */
};

/* Orders blocks by address. */
static int pg_by_addr(const void *x, const void *y)
{
    uintptr_t a = ((const struct pg_block *)x)->addr, b = ((const struct pg_block *)y)->addr;
    return a < b ? -1 : a > b;
}

/* Orders run spans. */
static int pg_by_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

struct pg_counts {
    unsigned long long windows, mixed, runs;
    size_t median_run;
};

/* The window and run counts of n blocks sorted by address (sizes: the two kinds' bytes); 0 runs when
 * there is no memory for the spans. */
static struct pg_counts pg_count(const struct pg_block *b, size_t n, const size_t sizes[2], uintptr_t window)
{
    struct pg_counts c = {0, 0, 0, 0};
    size_t *spans = malloc(n * sizeof *spans);
    if (!spans)
        return c;
    size_t start = 0;
    int kinds = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || b[i].addr / window != b[i - 1].addr / window) {
            c.windows++;
            c.mixed += kinds == 3;
            kinds = 0;
        }
        kinds |= 1 << b[i].kind;
        if (i + 1 == n || b[i + 1].kind != b[i].kind) {
            spans[c.runs++] = b[i].addr - b[start].addr + sizes[b[i].kind];
            start = i + 1;
        }
    }
    c.mixed += kinds == 3;
    qsort(spans, c.runs, sizeof *spans, pg_by_size);
    c.median_run = c.runs ? spans[c.runs / 2] : 0;
    free(spans);
    return c;
}

/* Allocates the two sizes in turn, counts windows and runs, checks and frees every block. */
int main(int argc, char **argv)
{
    wl_args_parse(&pg_prog, argc, argv);
    wl_served_by();
    size_t n = 2 * (size_t)wl_arg("blocks");
    const size_t sizes[2] = {(size_t)wl_arg("size-a"), (size_t)wl_arg("size-b")};
    uintptr_t window = (uintptr_t)wl_arg("window");
    if (window & (window - 1))
        return wl_verify(0, "--window must be a power of two: give e.g. 65536");
    void **ptr = calloc(n, sizeof *ptr);
    struct pg_block *b = calloc(n, sizeof *b);
    if (!ptr || !b)
        return wl_verify(0, "out of memory for the block tables");
    unsigned long long bad = 0;
    uint64_t live = 0;

    double t0 = wl_now();
    for (size_t i = 0; i < n; i++) {
        size_t size = sizes[i % 2];
        WL_LAT(WL_OP_MALLOC, ptr[i] = malloc(size));
        if (!ptr[i]) {
            bad++;
            continue;
        }
        wl_fill(ptr[i], size, i);
        live += size;
    }
    t0 = wl_phase("alloc", t0, n, live);
    size_t got = 0;
    for (size_t i = 0; i < n; i++)
        if (ptr[i])
            b[got++] = (struct pg_block){(uintptr_t)ptr[i], (int)(i % 2)};
    qsort(b, got, sizeof *b, pg_by_addr);
    struct pg_counts c = pg_count(b, got, sizes, window);
    bad += c.runs == 0 && got > 0;
    t0 = wl_phase("windows", t0, c.windows, live);
    t0 = wl_phase("mixed", t0, c.mixed, live);
    t0 = wl_phase("runs", t0, c.runs, live);
    t0 = wl_phase("run-bytes", t0, c.median_run, live);
    for (size_t i = 0; i < n; i++) {
        if (!ptr[i])
            continue;
        bad += !wl_check(ptr[i], sizes[i % 2], i);
        WL_LAT(WL_OP_FREE, free(ptr[i]));
    }
    wl_phase("free", t0, n, 0);
    free(b);
    free(ptr);
    char detail[160];
    snprintf(detail, sizeof detail, "blocks=%zu windows=%llu mixed=%llu runs=%llu run_bytes=%zu bad=%llu", n,
             c.windows, c.mixed, c.runs, c.median_run, bad);
    return wl_verify(bad == 0, detail);
}
