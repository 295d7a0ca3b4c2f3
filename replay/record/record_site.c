/* record_site.c - the recorder's call sites (raw mode; trace format 5's site chunks, which the
 * post-pass makes): the whole stack of a sampled allocating call, taken with glibc's backtrace(3)
 * (the DWARF unwinder of libgcc, which needs no frame pointers), and the process's mappings at its
 * exit, copied beside the raw file so that the frames can be symbolized after the run.
 * Always holds: nothing here allocates through the recorded malloc (backtrace's unwinder is loaded
 * once by rec_site_init, inside the recorder's hold, where its own malloc calls pass straight
 * through); a stack's frames start at the allocating call's caller (the recorder's own frames are
 * left out), at most HBT_SITE_FRAMES of them; in sample mode every caller's first allocation gets its
 * whole stack (the post-pass gives a caller's later allocations the last stack taken there); the maps copy is a plain read/write of
 * /proc/self/maps, whose failure leaves the frames unsymbolized, never the trace unusable. */
#include "common/rawtrace.h"
#include "record.h"
#include "trace.h"

#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SKIP_MAX 6 /* the recorder's own frames above the caller: backtrace, this function, the wrapper */

static int mode = REC_SITES_SAMPLE;

#define SEEN_SLOTS 4096u /* callers whose whole stack was taken, by hash (32 KiB) */
static uintptr_t seen[SEEN_SLOTS];

int rec_site_init(void)
{
    const char *v = getenv("HEAPBENCH_RECORD_SITES");
    if (!v || !*v || !strcmp(v, "sample"))
        mode = REC_SITES_SAMPLE;
    else if (!strcmp(v, "none"))
        mode = REC_SITES_NONE;
    else if (!strcmp(v, "one"))
        mode = REC_SITES_ONE;
    else if (!strcmp(v, "all"))
        mode = REC_SITES_ALL;
    else {
        dprintf(2, "hbrecord: HEAPBENCH_RECORD_SITES=%s is not none, one, sample or all; recording with sample\n", v);
        mode = REC_SITES_SAMPLE;
        return -1;
    }
    if (mode >= REC_SITES_SAMPLE) {
        void *f[2];
        backtrace(f, 2); /* loads libgcc's unwinder now, not inside the program's first sampled malloc */
    }
    return mode;
}

uint32_t rec_site_every(void)
{
    return mode == REC_SITES_ALL ? 1u : mode == REC_SITES_SAMPLE ? REC_SITE_EVERY : UINT32_MAX;
}

int rec_site_seen(uintptr_t pc)
{
    uintptr_t *slot = &seen[((pc >> 4) ^ (pc >> 16)) & (SEEN_SLOTS - 1)];
    if (__atomic_load_n(slot, __ATOMIC_RELAXED) == pc)
        return 1;
    __atomic_store_n(slot, pc, __ATOMIC_RELAXED);
    return 0;
}

void rec_site_stack(uintptr_t pc)
{
    if (mode < REC_SITES_SAMPLE) {
        if (mode == REC_SITES_ONE)
            rec_raw_frame(pc, 0, 1);
        return;
    }
    void *f[HBT_SITE_FRAMES + SKIP_MAX];
    int n = backtrace(f, (int)(sizeof f / sizeof f[0])), k = 0;
    while (k < n && k < SKIP_MAX && (uintptr_t)f[k] != pc)
        k++;
    if (k >= n || (uintptr_t)f[k] != pc) { /* the unwinder did not reach the caller: its one frame */
        rec_raw_frame(pc, 0, 1);
        return;
    }
    unsigned frames = (unsigned)(n - k) < HBT_SITE_FRAMES ? (unsigned)(n - k) : HBT_SITE_FRAMES;
    for (unsigned i = 0; i < frames; i++)
        rec_raw_frame((uintptr_t)f[k + (int)i], i, frames);
}

void rec_site_maps(const char *dir, const char *name)
{
    if (mode == REC_SITES_NONE)
        return;
    char path[PATH_MAX];
    static char buf[64 << 10];
    snprintf(path, sizeof path, "%s/%s.maps", dir, name);
    int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), out = in >= 0 ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    for (ssize_t got; out >= 0 && (got = read(in, buf, sizeof buf)) > 0;)
        if (hbt_write_all(out, (const uint8_t *)buf, (size_t)got) < 0)
            break;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}
