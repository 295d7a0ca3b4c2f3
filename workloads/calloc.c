/* calloc.c - a large calloc against malloc + memset: zeroing fresh mmap'd memory for nothing.
 *
 * Claim checked: calloc of fresh mmap'd memory skips the memset (the kernel's pages are already
 * zero), so it costs almost nothing until the memory is used; malloc + memset pays to fault and
 * zero every page at once. Each of --rounds rounds allocates --size bytes zeroed (calloc, or
 * malloc + memset), then uses it (reads every word, which must be zero, and writes one word per
 * page), then frees it. Phases: `alloc`, `use`, `free` (each summed over the rounds; live_bytes
 * = --size while held, 0 after free).
 * Always holds: every word read in `use` is zero, or verify fails. */
#include "wl_args.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct wl_param ca_params[] = {
    WL_WORD("mode", "calloc", "calloc|malloc-memset", "how the zeroed block is obtained"),
    WL_INT("size", "134217728", "16777216", 8, 1LL << 36, "bytes per block (128 MiB)"),
    WL_INT("rounds", "3", NULL, 1, 1000000, "blocks allocated, used and freed one after the other"),
};

static struct wl_prog ca_prog =
    WL_PROG("calloc", "large calloc vs malloc+memset: zeroing cost of fresh memory", ca_params);

/* memset through a volatile pointer: the compiler may not fuse malloc + memset(0) into calloc. */
static void *(*volatile ca_memset)(void *, int, size_t) = memset;

/* Reads every word (counting the non-zero ones) and writes one word per page; returns the non-zero count. */
static unsigned long long ca_use(uint64_t *p, size_t words, uint64_t tag)
{
    unsigned long long nonzero = 0;
    for (size_t i = 0; i < words; i++)
        nonzero += p[i] != 0;
    for (size_t i = 0; i < words; i += 4096 / sizeof *p)
        p[i] = tag;
    return nonzero;
}

/* Rounds of alloc/use/free with per-phase time sums, three phase records, verify. */
int main(int argc, char **argv)
{
    wl_args_parse(&ca_prog, argc, argv);
    wl_served_by();
    int use_calloc = strcmp(wl_word("mode"), "calloc") == 0;
    size_t size = (size_t)wl_arg("size");
    long long rounds = wl_arg("rounds");
    double spent[3] = {0, 0, 0};
    unsigned long long nonzero = 0, bad = 0;

    for (long long r = 0; r < rounds; r++) {
        double t0 = wl_now();
        uint64_t *p;
        if (use_calloc)
            WL_LAT(WL_OP_CALLOC, p = calloc(1, size));
        else
            WL_LAT(WL_OP_MALLOC, p = malloc(size));
        if (!p) {
            bad++;
            break;
        }
        if (!use_calloc)
            ca_memset(p, 0, size);
        double t1 = wl_now();
        nonzero += ca_use(p, size / sizeof *p, (uint64_t)r + 1);
        double t2 = wl_now();
        WL_LAT(WL_OP_FREE, free(p));
        double t3 = wl_now();
        spent[0] += t1 - t0;
        spent[1] += t2 - t1;
        spent[2] += t3 - t2;
    }
    double now = wl_now();
    wl_phase("alloc", now - spent[0], (uint64_t)rounds, 0);
    wl_phase("use", now - spent[1], (uint64_t)rounds, 0);
    wl_phase("free", now - spent[2], (uint64_t)rounds, 0);
    char detail[96];
    snprintf(detail, sizeof detail, "rounds=%lld size=%zu nonzero_words=%llu bad=%llu", rounds, size, nonzero, bad);
    return wl_verify(nonzero == 0 && bad == 0, detail);
}
