/* mallinfo.c - mallinfo()'s int fields against mallinfo2()'s size_t ones with gigabytes held in mmap'd blocks.
 *
 * Claim checked: before mallinfo2 (glibc 2.33) there was only mallinfo(), whose int fields overflow
 * past 4 GB. --gib blocks of 1 GiB are malloc'd (above the mmap threshold, so each is its own
 * mapping; never written, so they cost address space, not memory), then both calls read the bytes
 * held in mmap'd blocks (hblkhd). Phases: `hold` (ops = the blocks held), `mallinfo2` (ops =
 * mallinfo2().hblkhd in KiB), `mallinfo` (ops = mallinfo().hblkhd, read as the 32-bit pattern it
 * holds, in KiB), `free` (nothing held).
 * Always holds: nothing is written into the blocks; every block is freed; an allocator that keeps
 * no glibc statistics reports 0 in both calls. */
#include "wl_args.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MI_MAX_GIB 64
#define MI_GIB (1ULL << 30)

static struct wl_param mi_params[] = {
    WL_INT("gib", "5", "1", 1, MI_MAX_GIB, "1 GiB blocks held (unwritten) when the statistics are read"),
};

static struct wl_prog mi_prog =
    WL_PROG("mallinfo", "mallinfo() vs mallinfo2() with GiB held in mmap'd blocks: int overflow", mi_params);

/* mallinfo().hblkhd as the unsigned 32-bit pattern the int holds (the call is deprecated: it is
 * the object of the experiment). */
static uint32_t mi_old_hblkhd(void)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    struct mallinfo m = mallinfo();
#pragma GCC diagnostic pop
    return (uint32_t)m.hblkhd;
}

int main(int argc, char **argv)
{
    wl_args_parse(&mi_prog, argc, argv);
    wl_served_by();
    size_t n = (size_t)wl_arg("gib"), got = 0;
    static void *blk[MI_MAX_GIB];
    double t0 = wl_now();
    for (size_t i = 0; i < n; i++)
        got += (blk[i] = malloc(MI_GIB)) != NULL;
    t0 = wl_phase("hold", t0, got, got * MI_GIB);
    t0 = wl_phase("mallinfo2", t0, mallinfo2().hblkhd / 1024, got * MI_GIB);
    t0 = wl_phase("mallinfo", t0, mi_old_hblkhd() / 1024, got * MI_GIB);
    for (size_t i = 0; i < n; i++)
        free(blk[i]);
    wl_phase("free", t0, n, 0);
    char detail[64];
    snprintf(detail, sizeof detail, "blocks=%zu held=%zu", n, got);
    return wl_verify(got == n, detail);
}
