/* hbtrace.c - build/replay/hbtrace FILE: the statistics of an allocation trace (what `heapbench
 * trace FILE` prints): operations by kind, size and lifetime histograms, peak live bytes and
 * when, the program's own mappings (mmap'd bytes, their peak), threads, the share of frees made
 * by a thread other than the allocating one, the most threads alive at once, the blocks the program
 * did not wholly make resident (touch records, format 4), and (format 5) the top call sites by their
 * live requested bytes at the peak, symbolized from the recorded mappings (symbolize.h).
 * `hbtrace --sites FILE` prints the call-site table instead: one line per site, "site<TAB>ID<TAB>
 * FRAME;FRAME;..." (innermost first, symbolized; a ';' inside a frame's name, from a file name, is
 * printed as ','), for the explain report's stacks.
 * Always holds: a missing, truncated or corrupt trace prints one line on stderr and exits 2;
 * output lines are "name: value" (histogram rows indented), stable for scripts. */
#include "common/site_map.h"
#include "symbolize.h"
#include "trace.h"
#include "common/trace_stats.h"

#include <stdlib.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

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

#define TOP_SITES 10

/* Names for every frame of every site: names[(id - 1) * HBT_SITE_FRAMES + i]. NULL when out of memory. */
static char **site_names(const struct site_map *m)
{
    size_t n = (size_t)m->nsites * HBT_SITE_FRAMES, k = 0;
    uint64_t *pcs = calloc(n ? n : 1, sizeof *pcs);
    char **flat = calloc(n ? n : 1, sizeof *flat), **names = calloc(n ? n : 1, sizeof *names);
    size_t *where = calloc(n ? n : 1, sizeof *where);
    if (!pcs || !flat || !names || !where) {
        free(pcs), free(flat), free(names), free(where);
        return NULL;
    }
    for (uint32_t s = 0; s < m->nsites; s++)
        for (uint32_t i = 0; i < m->stacks[s].n; i++) {
            pcs[k] = m->stacks[s].f[i];
            where[k++] = (size_t)s * HBT_SITE_FRAMES + i;
        }
    if (symbolize(m->maps, pcs, k, flat) < 0) {
        free(pcs), free(flat), free(names), free(where);
        return NULL;
    }
    for (size_t i = 0; i < k; i++)
        names[where[i]] = flat[i];
    free(pcs), free(flat), free(where);
    return names;
}

/* The site's frames, innermost first, joined by sep into out. */
static void site_text(char **names, const struct site_map *m, uint32_t id, const char *sep, uint32_t most, char *out, size_t cap)
{
    size_t at = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < m->stacks[id - 1].n && i < most && at < cap; i++) {
        const char *nm = names[(size_t)(id - 1) * HBT_SITE_FRAMES + i];
        at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? sep : "", nm ? nm : "?");
    }
}

static int print_site_table(const struct hbt_trace *t, const struct site_map *m)
{
    const char *why = site_map_missing(m, t);
    if (why) {
        fprintf(stderr, "hbtrace: %s\n", why);
        return 2;
    }
    char **names = site_names(m);
    if (!names) {
        fprintf(stderr, "hbtrace: out of memory naming %u call sites\n", m->nsites);
        return 1;
    }
    static char line[HBT_SITE_FRAMES * 1100];
    for (size_t i = 0; i < (size_t)m->nsites * HBT_SITE_FRAMES; i++) /* ';' separates frames: none inside one */
        for (char *p = names[i]; p && *p; p++)
            *p = *p == ';' ? ',' : *p;
    for (uint32_t id = 1; id <= m->nsites; id++) {
        site_text(names, m, id, ";", HBT_SITE_FRAMES, line, sizeof line);
        for (char *p = line; *p; p++)
            *p = *p == '\t' || *p == '\n' ? ' ' : *p;
        printf("site\t%u\t%s\n", id, line);
    }
    for (size_t i = 0; i < (size_t)m->nsites * HBT_SITE_FRAMES; i++)
        free(names[i]);
    free(names);
    return 0;
}

/* The top call sites by their live requested bytes at the peak of live blocks. */
static void print_top_sites(const struct hbt_trace *t, const struct hbt_stats *s, const struct site_map *m)
{
    const char *why = site_map_missing(m, t);
    if (why) {
        printf("call sites: none: %s\n", why);
        return;
    }
    printf("call sites: %u (objects with one: %" PRIu64 " of %" PRIu64 ")\n", m->nsites, m->objs_with_site, t->objects);
    uint64_t *bytes = calloc(m->nsites + 1, sizeof *bytes), *objs = calloc(m->nsites + 1, sizeof *objs);
    struct hbt_site_live sl = {.site_of = m->of_obj, .nsites = m->nsites, .stop_ops = s->peak_ops, .bytes = bytes, .objects = objs};
    struct hbt_stats again;
    char err[512];
    char **names = bytes && objs ? site_names(m) : NULL;
    if (!names || hbt_stats_sites(t, &again, &sl, err, sizeof err) < 0) {
        printf("top call sites: cannot be computed (out of memory)\n");
        free(bytes), free(objs);
        return;
    }
    printf("top call sites by live bytes at the peak (%" PRIu64 " bytes; innermost frames):\n", s->peak_bytes);
    for (int k = 0; k < TOP_SITES; k++) {
        uint32_t best = 0;
        for (uint32_t id = 1; id <= m->nsites; id++)
            if (bytes[id] > bytes[best] || (best == 0 && bytes[id]))
                best = bytes[id] >= bytes[best] || best == 0 ? id : best;
        if (!best || !bytes[best])
            break;
        char text[2400];
        site_text(names, m, best, " < ", 3, text, sizeof text);
        printf("  %" PRIu64 " bytes (%.1f%%) in %" PRIu64 " objects: site %u: %s\n", bytes[best], pct(bytes[best], s->peak_bytes), objs[best],
               best, text);
        bytes[best] = 0;
    }
    if (bytes[0])
        printf("  %" PRIu64 " bytes in %" PRIu64 " objects without a site\n", bytes[0], objs[0]);
    for (size_t i = 0; i < (size_t)m->nsites * HBT_SITE_FRAMES; i++)
        free(names[i]);
    free(names), free(bytes), free(objs);
}

static int hbtrace(int argc, char **argv)
{
    int sites_only = argc == 3 && !strcmp(argv[1], "--sites");
    if (sites_only)
        argv++, argc--;
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: hbtrace [--sites] FILE\nPrints the statistics of an allocation trace written by heapbench record\n"
               "(--sites: its call-site table, one line per site: site<TAB>ID<TAB>FRAME;FRAME;... innermost first).\n");
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
    struct site_map m;
    if (site_map_build(&m, &t, err, sizeof err) < 0) {
        fprintf(stderr, "hbtrace: %s: %s\n", argv[1], err);
        return 2;
    }
    if (sites_only)
        return print_site_table(&t, &m);
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
    print_top_sites(&t, &s, &m);
    site_map_free(&m);
    hbt_close(&t);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = hbtrace(argc, argv);
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (errno == EPIPE) /* a reader that stopped early (| head) */
        return rc;
    fprintf(stderr, "hbtrace: cannot write its output: %s (a full disk?); give it a writable place\n", strerror(errno));
    return 2;
}
