/* hbtrace.c - build/replay/hbtrace FILE: the statistics of an allocation trace (what `heapbench
 * trace FILE` prints): operations by kind, size and lifetime histograms, peak live bytes and
 * when, the program's own mappings (mmap'd bytes, their peak), threads, the share of frees made
 * by a thread other than the allocating one, the most threads alive at once, the blocks the program
 * did not wholly make resident (touch records, format 4).
 * Always holds: a missing, truncated or corrupt trace prints one line on stderr and exits 2;
 * output lines are "name: value" (histogram rows indented), stable for scripts. */
#include "trace.h"
#include "trace_stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_header(const char *path, const struct hbt_trace *t)
{
    const struct hbt_header *h = &t->h;
    printf("trace: %s\nformat version: %u\ncommand: %s\nrecorded under: %s\n", path, h->version, h->command,
           h->allocator[0] ? h->allocator : "unknown");
    printf("pid: %" PRIu64 " (parent %" PRIu64 ")\npage size: %" PRIu64 "\n", h->pid, h->ppid, h->page_size);
    if (h->complete)
        printf("complete: yes\nduration: %.6f s\n", (double)h->duration_ns / 1e9);
    else
        printf("complete: no (the program did not exit normally: events up to its last written chunk)\n");
    if (h->orig_wall_ns)
        printf("original run: %.6f s wall, %" PRIu64 " KiB peak RSS (without the recorder)\n", (double)h->orig_wall_ns / 1e9, h->orig_maxrss_kb);
    if (hbt_recorder_slowdown(h) > 0)
        printf("recorder slowdown: %.2fx CPU (%.3f s recorded against %.3f s plain, user + sys of every process; "
               "a program that runs for a fixed time does less work recorded instead)\n",
               hbt_recorder_slowdown(h), (double)h->rec_cpu_ns / 1e9, (double)h->orig_cpu_ns / 1e9);
    printf("trace bytes per op: %.2f\n", t->ops ? (double)(t->size - HBT_HEADER_SIZE) / (double)t->ops : 0.0);
}

static void print_kinds(const struct hbt_stats *s)
{
    printf("operations: %" PRIu64 "\n", s->ops);
    for (unsigned k = 1; k < HBT_KIND_COUNT; k++)
        if (s->by_kind[k])
            printf("  %s: %" PRIu64 " (%.1f%%)\n", hbt_kind_name(k), s->by_kind[k], pct(s->by_kind[k], s->ops));
    printf("failed calls: %" PRIu64 "\nunknown frees: %" PRIu64 "\n", s->failed, s->unknown_refs);
}

static void print_hists(const struct hbt_stats *s)
{
    printf("size histogram (requested bytes):\n");
    for (unsigned i = 0; i < HBT_SIZE_BUCKETS; i++) {
        if (!s->size_hist[i])
            continue;
        uint64_t hi = i == 0 ? 0 : i == 1 ? 1 : (uint64_t)1 << (i - 1 > 63 ? 63 : i - 1);
        uint64_t lo = i <= 1 ? hi : hi / 2 + 1;
        printf("  %" PRIu64 "..%" PRIu64 ": %" PRIu64 " (%.1f%%)\n", lo, hi, s->size_hist[i], pct(s->size_hist[i], s->produced));
    }
    static const char *const life[HBT_LIFE_BUCKETS] = {"< 1 us", "< 10 us", "< 100 us", "< 1 ms", "< 10 ms", "< 100 ms",
                                                       "< 1 s", "< 10 s", "< 100 s", ">= 100 s", "live at end"};
    printf("lifetime histogram (objects):\n");
    for (unsigned i = 0; i < HBT_LIFE_BUCKETS; i++)
        if (s->life_hist[i])
            printf("  %s: %" PRIu64 " (%.1f%%)\n", life[i], s->life_hist[i], pct(s->life_hist[i], s->produced));
}

/* The sums of the touch records. */
struct touch_sums {
    uint64_t blocks, pages, resident;
};

static int add_touch(void *arg, const struct hbt_touch *r)
{
    struct touch_sums *s = arg;
    s->blocks++;
    s->pages += r->pages;
    s->resident += r->resident;
    return 0;
}

static void print_touch(const struct hbt_trace *t)
{
    struct touch_sums s = {0, 0, 0};
    if (t->h.version < 4) {
        printf("blocks not wholly resident: not recorded (format before 4: replayed with every page written)\n");
        return;
    }
    if (hbt_touch_each(t, add_touch, &s) != 0)
        printf("blocks not wholly resident: cannot be read again\n");
    else
        printf("blocks not wholly resident: %" PRIu64 "; %" PRIu64 " of their %" PRIu64 " whole pages resident\n", s.blocks, s.resident,
               s.pages);
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: hbtrace FILE\nPrints the statistics of an allocation trace written by heapbench record.\n");
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "hbtrace: give exactly one trace file: hbtrace FILE\n");
        return 2;
    }
    struct hbt_trace t;
    char err[512];
    if (hbt_open(argv[1], &t, err, sizeof err) < 0) {
        fprintf(stderr, "hbtrace: %s: %s\n", argv[1], err);
        return 2;
    }
    struct hbt_stats s;
    if (hbt_stats(&t, &s, err, sizeof err) < 0) {
        fprintf(stderr, "hbtrace: %s: %s\n", argv[1], err);
        return 2;
    }
    print_header(argv[1], &t);
    printf("threads: %u (with events: %" PRIu64 ")\n", t.nthreads, s.threads_used);
    printf("threads alive at once: %" PRIu64 "%s\n", s.threads_alive_peak, t.ordered ? "" : " (format before 3: threads with events)");
    print_kinds(&s);
    printf("objects: %" PRIu64 " produced, %" PRIu64 " live at end (%" PRIu64 " bytes)\n", s.produced, s.live_objects, s.live_bytes);
    printf("peak live bytes: %" PRIu64 " at %.6f s\n", s.peak_bytes, (double)s.peak_ns / 1e9);
    printf("mapped by the program: %" PRIu64 " bytes in %" PRIu64 " mmaps, %" PRIu64 " munmaps; peak %" PRIu64 " bytes at %.6f s; %" PRIu64
           " bytes in %" PRIu64 " mappings at end; partial unmaps not recorded: %" PRIu64 "\n",
           s.mapped_total, s.by_kind[HBT_MMAP], s.by_kind[HBT_MUNMAP], s.peak_mapped, (double)s.peak_mapped_ns / 1e9, s.mapped_bytes,
           s.mapped_objects, t.h.partial_unmaps);
    printf("peak live + mapped bytes: %" PRIu64 " at %.6f s\n", s.peak_total, (double)s.peak_total_ns / 1e9);
    printf("cross-thread frees: %" PRIu64 " of %" PRIu64 " (%.1f%%)\n", s.cross_frees, s.frees, pct(s.cross_frees, s.frees));
    print_touch(&t);
    print_hists(&s);
    hbt_close(&t);
    return 0;
}
