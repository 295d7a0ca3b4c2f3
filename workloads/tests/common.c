/* tests/common.c - unit tests of workloads/common: block patterns, RNG, arena, counted heap, work split,
 * the record writer.
 * Always holds: every check can fail (each asserts a property that a broken helper would violate);
 * prints PASS/FAIL lines and "N passed, N failed" (tcheck.h), exit 1 on any failure. */
#include "tcheck.h"
#include "wl_arena.h"
#include "wl_block.h"
#include "wl_heap.h"
#include "wl_record.h"
#include "wl_rng.h"
#include "wl_threads.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fill/check round trip over many sizes, and detection of damage at the first, a middle and the last byte. */
static void test_block(void)
{
    int round_trip = 1, caught = 1;
    for (size_t n = 1; n <= 9000; n += (n < 200 ? 1 : 37)) {
        unsigned char *p = malloc(n);
        wl_fill(p, n, n * 7);
        round_trip &= wl_check(p, n, n * 7);
        round_trip &= !wl_check(p, n, n * 7 + 1);
        size_t spots[3] = {0, n >= 72 ? 64 : 0, n - 1}; /* first byte, a line start, last byte */
        for (int s = 0; s < 3; s++) {
            wl_fill(p, n, 3);
            p[spots[s]] ^= 0x40;
            caught &= !wl_check(p, n, 3);
        }
        free(p);
    }
    TCHECK("block: fill then check holds, another tag does not", round_trip);
    TCHECK("block: a flipped first, line-start or last byte is caught", caught);
}

/* Same (seed, stream) gives the same sequence, another stream another one; ranges stay in bounds. */
static void test_rng(void)
{
    struct wl_rng a, b, c, d;
    wl_rng_init(&a, 42, 1);
    wl_rng_init(&b, 42, 1);
    wl_rng_init(&c, 42, 2);
    wl_rng_init(&d, 42, 3);
    int same = 1, differ = 0, in_range = 1, lo_seen = 0, hi_seen = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t x = wl_rng_next(&a);
        same &= x == wl_rng_next(&b);
        differ |= x != wl_rng_next(&c);
        uint64_t r = wl_rng_range(&d, 16, 20);
        in_range &= r >= 16 && r <= 20;
        lo_seen |= r == 16;
        hi_seen |= r == 20;
    }
    TCHECK("rng: same seed and stream, same sequence", same);
    TCHECK("rng: another stream, another sequence", differ);
    TCHECK("rng: range [16, 20] stays inside and reaches both ends", in_range && lo_seen && hi_seen);
}

/* Alignment by mask, bytes held, reuse after reset, nothing held after free. */
static void test_arena(void)
{
    struct wl_arena ar;
    wl_arena_init(&ar, 4096);
    int aligned = 1;
    char *first = wl_arena_alloc(&ar, 3);
    for (int i = 1; i < 1000; i++) {
        char *p = wl_arena_alloc(&ar, (size_t)(i % 50) + 1);
        aligned &= ((uintptr_t)p & (WL_ARENA_ALIGN - 1)) == 0;
        memset(p, 0xab, (size_t)(i % 50) + 1);
    }
    char *big = wl_arena_alloc(&ar, 100000);
    TCHECK("arena: every allocation is 16-byte aligned", aligned && ((uintptr_t)first & 15) == 0);
    TCHECK("arena: a request above the block size gets its own block", big != NULL && ar.held >= 100000);
    uint64_t held = ar.held;
    wl_arena_reset(&ar);
    TCHECK("arena: reset reuses the first block", wl_arena_alloc(&ar, 3) == first && ar.held == held);
    for (int i = 0; i < 100; i++)
        wl_arena_alloc(&ar, 1000);
    wl_arena_reset_first(&ar);
    TCHECK("arena: reset_first keeps only the first block and reuses it",
           ar.held >= 4096 && ar.held < 4096 + 64 && wl_arena_alloc(&ar, 3) == first);
    for (int i = 0; i < 100; i++)
        wl_arena_alloc(&ar, 1000);
    char *newest = wl_arena_alloc(&ar, 1000);
    wl_arena_reset_last(&ar);
    char *again = wl_arena_alloc(&ar, 1000);
    TCHECK("arena: reset_last keeps only the newest block and reuses it",
           ar.held >= 4096 && ar.held < 4096 + 64 && again != first && again <= newest &&
               newest - again < 4096);
    wl_arena_free(&ar);
    TCHECK("arena: free releases every block", ar.held == 0 && ar.first == NULL);
}

/* live goes up and down by the requested size; a damaged block is counted bad. */
static void test_heap(void)
{
    struct wl_heap h = {0};
    void *a = wl_heap_alloc(&h, 100, 1);
    void *b = wl_heap_alloc(&h, 5000, 2);
    TCHECK("heap: live is the sum of requested sizes", h.live == 5100 && h.bad == 0);
    ((unsigned char *)b)[4999] ^= 1;
    wl_heap_free(&h, b, 5000, 2);
    wl_heap_free(&h, a, 100, 1);
    TCHECK("heap: live back to 0, the damaged block counted bad", h.live == 0 && h.bad == 1);
    TCHECK("heap: malloc_trim found through dlsym under glibc", wl_trim(0) >= 0);
    struct wl_heap u = {0, 0, 1};
    unsigned char *c = wl_heap_alloc(&u, 64, 3);
    memset(c, 0xa5, 64);
    wl_heap_free(&u, c, 64, 3);
    TCHECK("heap: untouched blocks are counted but neither filled nor checked", u.live == 0 && u.bad == 0);
}

/* The shares of a total add up to it and differ by at most one. */
static void test_share(void)
{
    int ok = 1;
    for (int n = 1; n <= 33; n++) {
        unsigned long long sum = 0, lo = ~0ULL, hi = 0;
        for (int i = 0; i < n; i++) {
            unsigned long long s = wl_share(1000003, n, i);
            sum += s;
            lo = s < lo ? s : lo;
            hi = s > hi ? s : hi;
        }
        ok &= sum == 1000003 && hi - lo <= 1;
    }
    TCHECK("threads: shares add up to the total, within one of each other", ok);
}

/* Runs every group, prints the summary. */
/* wl_record_to: one record per write to the fd given, whole; an overlong one is cut at
 * WL_RECORD_MAX bytes and still ends in a newline. */
static void test_record_to(void)
{
    int p[2];
    char got[2 * WL_RECORD_MAX], long_name[WL_RECORD_MAX + 100];
    if (pipe(p) != 0) {
        TCHECK("record_to: pipe", 0);
        return;
    }
    wl_record_to(p[1], "allocstat\t%s\t%d\n", "alloc", 42);
    ssize_t n = read(p[0], got, sizeof got);
    TCHECK("record_to: the record, whole, on the fd given", n == 19 && memcmp(got, "allocstat\talloc\t42\n", 19) == 0);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    wl_record_to(p[1], "phase\t%s\n", long_name);
    n = read(p[0], got, sizeof got);
    TCHECK("record_to: an overlong record cut to WL_RECORD_MAX - 1 bytes ending in a newline",
           n == WL_RECORD_MAX - 1 && got[n - 1] == '\n' && memcmp(got, "phase\txxx", 9) == 0);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    test_block();
    test_rng();
    test_arena();
    test_heap();
    test_share();
    test_record_to();
    return tcheck_summary();
}
