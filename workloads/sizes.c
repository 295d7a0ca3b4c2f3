/* sizes.c - malloc_usable_size for requests 1..1,000,000: the internal fragmentation of the allocator.
 *
 * Claim checked: on 64-bit glibc malloc(1)..malloc(24) use a 32-byte chunk (24 usable) and
 * malloc(25) a 48-byte one (40 usable). Emits one `size` record per request: the classic list
 * (1, 8, 16, 17, 24, 25, 32, 48, 100, 128, 200, 512, 1000, 4096, 16384, 100000, 1000000), then a
 * dense sweep (every size to 1024, then steps of 16 to 16 KiB, 256 to 256 KiB, 4096 to 1,000,000:
 * ~3,100 records). Phase `sizes`: ops = records.
 * Always holds: every block's usable bytes are all written and checked before it is freed;
 * verify fails if usable < request anywhere. Under --quick the sweep stops at 64 KiB. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static struct wl_param sz_params[] = {
    WL_INT("max", "1000000", "65536", 1, 1 << 30, "largest request of the dense sweep"),
};

static struct wl_prog sz_prog =
    WL_PROG("sizes", "malloc_usable_size of requests 1..1,000,000 (size records)", sz_params);

static const size_t sz_classic[] = {1, 8, 16, 17, 24, 25, 32, 48, 100, 128, 200, 512, 1000, 4096, 16384, 100000, 1000000};

/* The sweep's step at request r: fine where size classes are fine, coarse where they are pages. */
static size_t sz_step(size_t r)
{
    return r < 1024 ? 1 : r < 16384 ? 16 : r < 262144 ? 256 : 4096;
}

struct sz_count {
    unsigned long long records, short_blocks, bad;
};

/* Samples one request: malloc, usable size, touch and check all usable bytes, free, one record. */
static void sz_sample(size_t request, struct sz_count *c)
{
    unsigned char *p;
    WL_LAT(WL_OP_MALLOC, p = malloc(request));
    if (!p) {
        c->bad++;
        return;
    }
    size_t usable = malloc_usable_size(p);
    c->short_blocks += usable < request;
    wl_fill(p, usable, request);
    c->bad += !wl_check(p, usable, request);
    WL_LAT(WL_OP_FREE, free(p));
    wl_size(request, usable);
    c->records++;
}

/* The classic list, then the sweep, then verify. */
int main(int argc, char **argv)
{
    wl_args_parse(&sz_prog, argc, argv);
    wl_served_by();
    size_t max = (size_t)wl_arg("max");
    struct sz_count c = {0, 0, 0};
    double t0 = wl_now();
    for (size_t i = 0; i < sizeof sz_classic / sizeof sz_classic[0]; i++)
        if (sz_classic[i] <= max)
            sz_sample(sz_classic[i], &c);
    for (size_t r = 1; r <= max; r += sz_step(r))
        sz_sample(r, &c);
    wl_phase("sizes", t0, c.records, 0);
    char detail[128];
    snprintf(detail, sizeof detail, "records=%llu usable_below_request=%llu bad=%llu", c.records, c.short_blocks,
             c.bad);
    return wl_verify(c.short_blocks == 0 && c.bad == 0, detail);
}
