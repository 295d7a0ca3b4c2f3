/* hbreplay.c - build/replay/hbreplay: replays an allocation trace on the allocator of this process
 * (preload one to measure it), as a workload of the phase protocol (docs/DATA.md).
 *
 * usage: hbreplay [--touch=none|first|nocalloc|whole|all] [--speed=max|recorded] [--check=cached|full] [--explain=OUT --at=MOMENT] --trace=FILE   (or FILE last)
 *
 * With --explain=OUT (heapbench explain), the replay stops at --at (end, peak: the most live requested
 * + mapped bytes, N: before the event of order N, -N: before the trace's last N events) and writes
 * where the process's resident memory goes at that moment to OUT (explain_snap.h), then a phase
 * `explain` (so that a preloaded statistics library adds the allocator's own figures) and verify;
 * there is no self pass and no live sampling.
 *
 * Records: served_by; phase `load` (opening and checking the trace, the check from FILE.check when
 * it was made by this executable for the same bytes (check_cache.h); rss_kb = the
 * replayer's own baseline before any replayed allocation), phase `self` (the same events without
 * allocator calls or touching: the replayer's own cost), phase `live` records every 10 ms or more
 * during the replay (seconds into it, live requested bytes, RSS), phase `replay` (the events: ops done, live
 * requested bytes at the end), phase `ideal` (live_bytes = the trace's peak live requested
 * bytes, seconds = when the recorded program reached it, ops 0); when the trace carries them
 * (heapbench record), phase `original`: the program's own run without the recorder (its wall
 * time and peak RSS, the trace's events); then verify. Here "live requested bytes" include the
 * program's own mapped bytes (mmap events), which the replay holds as the program did, so heap
 * / ideal stays the allocator's overhead.
 * Always holds: verify is ok only when the replay performed exactly the trace's number of
 * events, every object of the trace was made, the objects left live are the trace's (count
 * and requested bytes, mappings included) and so are the bytes left mapped by its mmap and
 * munmap events, with no call returning NULL where the recorded one did not; a trace
 * that is missing, truncated or corrupt prints one line on stderr and exits 2 before any
 * record but served_by. */
#include "check_cache.h"
#include "explain_snap.h"
#include "peak_rss.h"
#include "replay_run.h"
#include "common/site_map.h"
#include "trace.h"
#include "common/trace_stats.h"
#include "wl_args.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct wl_param rp_params[] = {
    WL_WORD("touch", "first", "none|first|nocalloc|whole|all",
            "how replayed blocks are written: not, one write per page the program made resident (the trace's touch records; "
            "every page of a block without one), the same but calloc's blocks, one write per page of every block, every byte"),
    WL_WORD("speed", "max", "max|recorded", "as fast as possible, or keeping the recorded gaps between events"),
    WL_WORD("order", "recorded", "recorded|free",
            "the program's order between threads and its thread lifetimes (format 3), or each thread's own order only, all threads at once"),
    WL_WORD("check", "cached", "cached|full",
            "the load's check of the trace (every object's use, the counts the replay is verified against): kept in FILE.check "
            "beside the trace, keyed by the SHA-256 of the trace and of this executable, and reused while both are unchanged; "
            "or walked every time (the cache still written)"),
    WL_INT("window", "64", NULL, 0, 1000000000,
           "with --order=recorded: at most this many events of the program's order a thread may run ahead of another "
           "(fewer on a trace of few live objects: window_for)"),
};

static struct wl_prog rp_prog = WL_PROG("hbreplay", "replays an allocation trace (--trace=FILE) on the preloaded allocator", rp_params);

/* --explain=OUT and --at=MOMENT (free text, which the parameter parser does not take), NULL when not given. */
static const char *explain_out, *explain_at;

/* Takes --trace=FILE or a last argument that is not an option out of argv (and --explain=, --at=); returns the path. */
static const char *take_trace(int *argc, char **argv)
{
    const char *path = NULL;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strncmp(argv[i], "--trace=", 8) == 0)
            path = argv[i] + 8;
        else if (strncmp(argv[i], "--explain=", 10) == 0)
            explain_out = argv[i] + 10;
        else if (strncmp(argv[i], "--at=", 5) == 0)
            explain_at = argv[i] + 5;
        else if (argv[i][0] != '-' && i == *argc - 1)
            path = argv[i];
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return path;
}

/* A `live` phase record: the replay's live requested bytes and RSS, seconds into the replay. */
static void sample_live(void *arg, double seconds, uint64_t live_bytes)
{
    (void)arg;
    wl_phase_record("live", seconds, 0, live_bytes, wl_rss_kb());
}

/* The window the replay uses: at most `asked`, and at most 1/16 of the trace's peak of live
 * objects. Events of a window run out of the program's order, so a thread running a window ahead
 * can hold the blocks of that many events more (or fewer) than the program did; on a trace of a
 * few large blocks (a compressor's 1-4 MiB buffers: pbzip2's peak is ~30 objects) 64 events
 * is the whole heap, and the replay's peak of live bytes was 0.6-0.8 of the ideal. With the cap,
 * those events run a few apart at most (whatever drift is left is ~1/16 of the peak's objects),
 * and a trace of many small blocks keeps the window asked. A smaller window only orders more:
 * the thread whose next event comes first can always run, as with any window. */
static uint64_t window_for(uint64_t asked, const struct hbt_stats *st)
{
    uint64_t cap = st->peak_objects / 16;
    return asked < cap ? asked : cap;
}

/* The end state against the trace: every object made, the live ones the trace's (blocks and the
 * program's mappings together), and the bytes the replay itself left mapped the trace's. */
static int check_end(const struct hbt_trace *t, const struct hbt_stats *want, const struct replay_result *r, char *detail, size_t cap)
{
    uint64_t want_live = want->live_objects + want->mapped_objects, want_bytes = want->live_bytes + want->mapped_bytes;
    snprintf(detail, cap, "ops=%" PRIu64 "/%" PRIu64 " live_objects=%" PRIu64 "/%" PRIu64 " live_bytes=%" PRIu64 "/%" PRIu64
             " mapped_bytes=%" PRId64 "/%" PRIu64 " unmade=%" PRIu64 " nulls=%" PRIu64 " threads_alive=%" PRIu64 "/%" PRIu64,
             r->ops, t->ops, r->live_objects, want_live, r->live_bytes, want_bytes, r->mapped, want->mapped_bytes, r->unmade, r->nulls,
             r->threads_peak, want->threads_alive_peak);
    return r->ops == t->ops && r->live_objects == want_live && r->live_bytes == want_bytes && r->mapped == (int64_t)want->mapped_bytes &&
           r->unmade == 0 && r->nulls == 0;
}

/* The order to stop before for --at (0: the end), or -1 after saying why. */
static int64_t stop_for(const char *path, const char *at, const struct hbt_trace *t, const struct hbt_stats *st)
{
    char *end = NULL;
    if (!at)
        at = explain_at = "end";
    if (!strcmp(at, "end"))
        return 0;
    if (!t->ordered && st->threads_used > 1) {
        fprintf(stderr, "hbreplay: %s: trace format version %u records no order between its threads: it can be explained only at its "
                        "end (--at=end); record it again for another moment\n", path, t->h.version);
        return -1;
    }
    if (!strcmp(at, "peak"))
        return st->peak_total_ops ? (int64_t)st->peak_total_ops : 0;
    long long v = strtoll(at, &end, 10);
    if (!*at || *end || (v < 0 ? (uint64_t)-v : (uint64_t)v) >= t->ops || v == 0) {
        fprintf(stderr, "hbreplay: --at=%s is not end, peak, N or -N with 0 < N < %" PRIu64 " (the trace's events)\n", at, t->ops);
        return -1;
    }
    return v > 0 ? v : (int64_t)(t->ops - (uint64_t)-v);
}

/* Per object, a bit: the program's own mapping (an mmap event's object). NULL when out of memory.
 * A trace whose program mapped nothing (st: its statistics) gets the bits all clear without a pass
 * over its events (a pass is ~15% of an explanation's instructions on sqlite3's trace). */
static uint8_t *mapping_bits(const struct hbt_trace *t, const struct hbt_stats *st)
{
    uint8_t *bits = hbt_pages(t->objects / 8 + 1); /* zeroed */
    static struct hbt_cursor c; /* ~1 MiB: not on the stack */
    struct hbt_event e;
    for (uint32_t th = 0; bits && st->mapped_total && th < t->nthreads; th++) {
        hbt_cursor_init(&c, t, (uint16_t)th);
        while (hbt_next(&c, &e) == 1)
            if (e.kind == HBT_MMAP && hbt_produces(&e))
                bits[e.prod >> 3] |= (uint8_t)(1u << (e.prod & 7));
    }
    return bits;
}

/* The allocator's malloc_usable_size when the object that defines malloc defines it too (NULL: it has
 * none of its own, and glibc's must never see another allocator's blocks); *glibc: malloc is glibc's. */
static size_t (*usable_of_allocator(int *glibc))(void *)
{
    void *m = dlsym(RTLD_DEFAULT, "malloc"), *u = dlsym(RTLD_DEFAULT, "malloc_usable_size");
    Dl_info a, b;
    *glibc = m && dladdr(m, &a) && a.dli_fname && strstr(a.dli_fname, "/libc.so") != NULL;
    if (!m || !u || !dladdr(m, &a) || !dladdr(u, &b) || a.dli_fbase != b.dli_fbase)
        return NULL;
    return (size_t(*)(void *))u;
}

/* The allocator's metadata bytes from its own statistics: jemalloc's mallctl stats.metadata (the one
 * API of the statistics library, allocators/stats, that names metadata), when malloc's object defines
 * mallctl; else a line saying it is unmeasured and why. Read here, not by preloading that library,
 * whose own start-up allocations would change the heap's layout being explained. */
static void metadata_line(FILE *out)
{
    void *m = dlsym(RTLD_DEFAULT, "malloc"), *ctl = dlsym(RTLD_DEFAULT, "mallctl");
    Dl_info a, b;
    if (m && ctl && dladdr(m, &a) && dladdr(ctl, &b) && a.dli_fbase == b.dli_fbase) {
        int (*mallctl)(const char *, void *, size_t *, void *, size_t) = (int (*)(const char *, void *, size_t *, void *, size_t))ctl;
        uint64_t epoch = 1;
        size_t meta = 0, sz = sizeof epoch;
        if (mallctl("epoch", &epoch, &sz, &epoch, sz) == 0 && (sz = sizeof meta, mallctl("stats.metadata", &meta, &sz, NULL, 0) == 0)) {
            fprintf(out, "metadata\tmallctl stats.metadata\t%zu\n", meta);
            return;
        }
        fprintf(out, "unmeasured\tmetadata\tmallctl refused stats.metadata (jemalloc built without statistics?)\n");
        return;
    }
    fprintf(out, "unmeasured\tmetadata\tthe allocator's statistics name no metadata figure (only jemalloc's mallctl does); it lies "
                 "within gaps, free and runtime\n");
}

/* The calling thread's stack is the replayer's own memory (hbt_pages_note), which an explanation does
 * not count as the allocator's (the replay threads' stacks are the replayer's mappings already). Asked
 * before the replay: glibc reads /proc/self/maps for it, through the allocator. */
static void note_stack(void)
{
    pthread_attr_t a;
    void *lo;
    size_t n;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    if (pthread_attr_getstack(&a, &lo, &n) == 0)
        hbt_pages_note(lo, n);
    pthread_attr_destroy(&a);
}

static void each_live(void *ctx, void (*fn)(void *, uint64_t, uint64_t, uint64_t), void *arg) { replay_each_live(ctx, fn, arg); }

/* --explain: the replay up to the moment, then its explanation into OUT. */
static int explain(const char *path, struct hbt_trace *t, const struct hbt_stats *want, struct replay_opts *o, const char *outpath)
{
    char err[512];
    int64_t stop = stop_for(path, explain_at, t, want);
    if (stop < 0)
        return 2;
    o->stop = (uint64_t)stop;
    o->explaining = 1;
    struct site_map sites;
    if (site_map_build(&sites, t, err, sizeof err) < 0) {
        fprintf(stderr, "hbreplay: %s: %s\n", path, err);
        return 2;
    }
    note_stack();
    uint8_t *bits = mapping_bits(t, want);
    FILE *out = fopen(outpath, "w");
    if (!bits || !out) {
        fprintf(stderr, "hbreplay: cannot write %s: %s\n", outpath, bits ? strerror(errno) : "out of memory");
        return 1;
    }
    struct replay *rp;
    if (replay_prepare(t, o, want->peak_objects, want->threads_alive_peak, &rp) < 0) {
        fprintf(stderr, "hbreplay: %s: out of memory for %" PRIu64 " events\n", path, t->ops);
        return 1;
    }
    double t0 = wl_now();
    struct replay_result r;
    if (replay_run(rp, 0, NULL, NULL, &r) < 0)
        return wl_verify(0, "a replay thread could not be started");
    int glibc;
    struct explain_in in = {.t = t, .sites = &sites, .is_map = bits, .page = o->page};
    in.usable = usable_of_allocator(&glibc);
    in.top_trim = glibc;
    fprintf(out, "moment\t%s\t%" PRIu64 "\t%" PRIu64 "\n", explain_at, stop ? (uint64_t)stop : t->ops, r.ops);
    fprintf(out, "sites\t%s\n", site_map_missing(&sites, t) ? site_map_missing(&sites, t) : "recorded");
    if (explain_snapshot(&in, each_live, rp, out, err, sizeof err) < 0) {
        fprintf(stderr, "hbreplay: %s\n", err);
        return 1;
    }
    metadata_line(out);
    if (fclose(out) != 0) {
        fprintf(stderr, "hbreplay: cannot write %s: %s\n", outpath, strerror(errno));
        return 1;
    }
    wl_phase("explain", t0, r.ops, r.live_bytes);
    char detail[160];
    snprintf(detail, sizeof detail, "explained at %s: %" PRIu64 " events performed of %" PRIu64 ", nulls=%" PRIu64, explain_at, r.ops, t->ops, r.nulls);
    return wl_verify(r.nulls == 0, detail);
}

int main(int argc, char **argv)
{
    const char *path = take_trace(&argc, argv);
    wl_args_parse(&rp_prog, argc, argv);
    if (!path) {
        fprintf(stderr, "hbreplay: no trace given; run hbreplay --trace=FILE (a file written by heapbench record)\n");
        return 2;
    }
    wl_served_by();
    double t0 = wl_now();
    struct hbt_trace t;
    char err[512];
    if (hbt_open_unchecked(path, &t, err, sizeof err) < 0) { /* its events are decoded once, by the check */
        fprintf(stderr, "hbreplay: %s: %s\n", path, err);
        return 2;
    }
    struct hbt_stats want;
    if (check_trace(path, &t, !strcmp(wl_word("check"), "full") ? CHECK_FULL : CHECK_CACHED, &want, err, sizeof err) < 0) {
        fprintf(stderr, "hbreplay: %s: %s\n", path, err);
        return 2;
    }
    const char *touch = wl_word("touch");
    struct touch_table touches = {0}; /* read only for the modes that use it (its memory is in `load`) */
    int by_records = !strcmp(touch, "first") || !strcmp(touch, "nocalloc");
    if (by_records && touch_table_build(&touches, &t) < 0) {
        fprintf(stderr, "hbreplay: %s: out of memory for the table of %" PRIu64 " touch records\n", path, t.touch_records);
        return 1;
    }
    if (touches.dropped)
        fprintf(stderr, "hbreplay: %s: warning: %" PRIu64 " of the trace's %" PRIu64 " touch records (blocks the program did not wholly "
                        "write) are past the replayer's table of %u: those blocks are written whole\n",
                path, touches.dropped, t.touch_records, TOUCH_TABLE_MAX);
    struct replay_opts o = {.touch = !strcmp(touch, "none")       ? TOUCH_NONE
                                     : !strcmp(touch, "all")      ? TOUCH_ALL
                                     : !strcmp(touch, "whole")    ? TOUCH_WHOLE
                                     : !strcmp(touch, "nocalloc") ? TOUCH_NOCALLOC
                                                                  : TOUCH_FIRST,
                            .recorded_speed = !strcmp(wl_word("speed"), "recorded"),
                            .free_order = !strcmp(wl_word("order"), "free"),
                            .window = window_for((uint64_t)wl_arg("window"), &want),
                            .page = (uint64_t)sysconf(_SC_PAGESIZE),
                            .touches = &touches};
    if (!o.free_order && !t.ordered && want.threads_used > 1) {
        fprintf(stderr, "hbreplay: %s: trace format version %u records no order between its %" PRIu64
                        " threads; record it again with this heapbench (format %u), or replay it with --order=free\n",
                path, t.h.version, want.threads_used, HBT_VERSION);
        return 2;
    }
    if (explain_out && *explain_out)
        return explain(path, &t, &want, &o, explain_out);
    if (explain_at) {
        fprintf(stderr, "hbreplay: --at=%s needs --explain=OUT (the file the explanation goes to)\n", explain_at);
        return 2;
    }
    struct replay *rp;
    if (replay_prepare(&t, &o, want.peak_objects, want.threads_alive_peak, &rp) < 0) {
        fprintf(stderr, "hbreplay: %s: out of memory for %" PRIu64 " events\n", path, t.ops);
        return 1;
    }
    if (peak_rss_reset() < 0)
        fprintf(stderr, "hbreplay: warning: the kernel refused to reset the peak RSS (/proc/self/clear_refs): the `self` and "
                        "`peak` records hold the process's peak since it started, the `load` phase's included\n");
    wl_phase("load", t0, 0, 0);
    struct replay_result r;
    if (replay_run(rp, 1, NULL, NULL, &r) < 0)
        return wl_verify(0, "a replay thread could not be started");
    wl_phase_record("self", r.seconds, 0, 0, peak_rss_kb()); /* ops only on `replay`: throughput sums phase ops */
    peak_rss_reset();
    if (replay_run(rp, 0, sample_live, NULL, &r) < 0)
        return wl_verify(0, "a replay thread could not be started");
    uint64_t peak_kb = peak_rss_kb(); /* before the replayer's own memory is given back */
    sample_live(NULL, r.seconds, r.live_bytes); /* the end, which the 10 ms samples miss: a peak that lasts to it is seen */
    uint64_t end_bytes = want.live_bytes + want.mapped_bytes; /* the program's own mappings count as held */
    wl_phase("replay", wl_now() - r.seconds, r.ops, end_bytes);
    wl_phase_record("peak", r.seconds, 0, 0, peak_kb);
    if (r.grown)
        fprintf(stderr, "hbreplay: %s: warning: the replayer's own memory grew %" PRIu64 " time(s) while replaying (more live "
                        "objects or threads at once than the trace's peaks it was sized for at load): the heap figure holds "
                        "that growth too\n", path, r.grown);
    replay_free(rp);
    wl_phase("ideal", wl_now() - (double)want.peak_total_ns / 1e9, 0, want.peak_total);
    if (t.h.orig_wall_ns)
        wl_phase_record("original", (double)t.h.orig_wall_ns / 1e9, 0, end_bytes, t.h.orig_maxrss_kb);
    char detail[256];
    return wl_verify(check_end(&t, &want, &r, detail, sizeof detail), detail);
}
