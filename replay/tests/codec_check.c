/* codec_check.c - unit test of the trace codec (contract/trace.c) and its statistics: events of
 * every kind and flag written through the chunk writer (small chunks, so a thread spans several)
 * read back field by field; object references across threads; the live set and ideal; a header
 * rewrite (the original run's figures); an object freed twice and a header whose count does not
 * match its chunks are refused; the program's own mappings (mmap, munmap: format version 2)
 * read back and counted apart from the heap, a mapping freed as a block or a block unmapped
 * refused, and a version 1 trace read unless it holds mapping kinds; the replayer's fast path
 * (runs of plain events) read against hbt_next; touch records (format 4) read back field by
 * field, and the replayer's touch table bounded (the records past TOUCH_TABLE_MAX counted, not
 * kept). Prints PASS/FAIL lines and "N passed, N failed".
 * Always holds: works in one temporary file (/tmp/hb-codec-check.*) that it removes. */
#include "common/objring.h"
#include "tcheck.h"
#include "trace.h"
#include "replayer/touch_table.h"
#include "common/trace_stats.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char path[4096] = "/tmp/hb-codec-check.XXXXXX";
static FILE *out;

/* Writes the chunk if it is full (force: whenever it holds an event). */
static void flush(struct hbt_chunk *c, int force)
{
    if (!force && hbt_chunk_has_room(c))
        return;
    size_t n = hbt_chunk_seal(c);
    if (n)
        fwrite(c->buf, 1, n, out);
    hbt_chunk_reset(c);
}

static uint64_t next_order; /* the global order put() gives, in the order of the calls */

static uint64_t put(struct hbt_chunk *c, struct hbt_event e)
{
    flush(c, 0);
    e.order = next_order++;
    return hbt_chunk_put(c, &e);
}

/* Thread 0's and thread 1's events; returns the number written. The expected decode is
 * checked in check_decode. */
static uint64_t write_events(struct hbt_chunk *c0, struct hbt_chunk *c1)
{
    put(c0, (struct hbt_event){.kind = HBT_MALLOC, .size = 100, .ns = 10});                    /* seq 0 */
    put(c0, (struct hbt_event){.kind = HBT_CALLOC, .size = 7, .ns = 20});                      /* seq 1 */
    put(c0, (struct hbt_event){.kind = HBT_MEMALIGN, .size = 100, .align_log = 6, .ns = 30});  /* seq 2 */
    put(c0, (struct hbt_event){.kind = HBT_REALLOC, .size = 200, .ref_thread = 0, .ref_seq = 0, .ns = 40}); /* 0 -> 3 */
    put(c0, (struct hbt_event){.kind = HBT_REALLOC, .flags = HBT_F_FAILED, .size = 0, .ref_seq = 1, .ns = 50}); /* frees 1 */
    put(c0, (struct hbt_event){.kind = HBT_REALLOC, .flags = HBT_F_FAILED, .size = 50, .ref_seq = 2, .ns = 60}); /* keeps 2 */
    put(c0, (struct hbt_event){.kind = HBT_FREE, .flags = HBT_F_NOREF, .ns = 70});                /* unknown */
    put(c0, (struct hbt_event){.kind = HBT_REALLOC, .flags = HBT_F_NOREF, .size = 9, .ns = 80});  /* seq 4 */
    put(c0, (struct hbt_event){.kind = HBT_MALLOC, .flags = HBT_F_FAILED, .size = 1ull << 60, .ns = 90});
    for (int i = 0; i < 300; i++) /* same size again and again (SAMESIZE), each freed at once */
        put(c0, (struct hbt_event){.kind = HBT_MALLOC, .size = 9, .ns = 100 + (uint64_t)i}),
            put(c0, (struct hbt_event){.kind = HBT_FREE, .ref_thread = 0, .ref_seq = 5 + (uint64_t)i, .ns = 100 + (uint64_t)i});
    put(c1, (struct hbt_event){.kind = HBT_FREE, .ref_thread = 0, .ref_seq = 3, .ns = 1000});   /* cross */
    put(c1, (struct hbt_event){.kind = HBT_POSIX_MEMALIGN, .size = 64, .align_log = 12, .ns = 1001}); /* t1 seq 0 */
    flush(c0, 1);
    flush(c1, 1);
    return 9 + 600 + 2;
}

static void write_trace(uint64_t *ops)
{
    static uint8_t b0[HBT_CHUNK_HEADER + 4 * HBT_EVENT_MAX], b1[HBT_CHUNK_HEADER + 4 * HBT_EVENT_MAX];
    struct hbt_chunk c0, c1;
    struct hbt_header h = {.page_size = 4096, .pid = 1, .complete = 1, .threads = 2};
    strcpy(h.command, "codec_check");
    uint8_t hdr[HBT_HEADER_SIZE];
    int fd = mkstemp(path);
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out)
        exit(1);
    fwrite(hdr, 1, sizeof hdr, out); /* placeholder, rewritten below */
    hbt_chunk_init(&c0, b0, sizeof b0, 0);
    hbt_chunk_init(&c1, b1, sizeof b1, 1);
    *ops = h.ops = write_events(&c0, &c1);
    hbt_header_encode(&h, hdr);
    fseek(out, 0, SEEK_SET);
    fwrite(hdr, 1, sizeof hdr, out);
    fclose(out);
}

static void check_decode(const struct hbt_trace *t)
{
    struct hbt_cursor c;
    struct hbt_event e[620];
    int n = 0;
    hbt_cursor_init(&c, t, 0);
    while (n < 620 && hbt_next(&c, &e[n]) == 1)
        n++;
    TCHECK("thread 0: every event back", n == 609);
    TCHECK("thread 0 spans several chunks", t->threads[0].nchunks > 10);
    TCHECK("malloc: size, time, product 0", e[0].kind == HBT_MALLOC && e[0].size == 100 && e[0].ns == 10 && e[0].prod == 0);
    TCHECK("memalign: alignment kept", e[2].kind == HBT_MEMALIGN && e[2].align_log == 6 && e[2].prod == 2);
    TCHECK("realloc: consumes 0, produces 3", e[3].ref == 0 && e[3].prod == 3 && e[3].size == 200);
    TCHECK("failed realloc of size 0 frees its object (glibc realloc(p, 0))", e[4].ref == 1 && e[4].prod == HBT_NONE);
    TCHECK("failed realloc of size 50 keeps its object", e[5].ref == HBT_NONE && e[5].ref_seq == 2 && e[5].prod == HBT_NONE);
    TCHECK("unknown free: no object", e[6].kind == HBT_FREE && e[6].ref == HBT_NONE && (e[6].flags & HBT_F_NOREF));
    TCHECK("realloc of NULL: produces only", e[7].ref == HBT_NONE && e[7].prod == 4 && e[7].size == 9);
    TCHECK("failed malloc: nothing, size kept", e[8].prod == HBT_NONE && e[8].size == (1ull << 60));
    int same = 0, sizes_ok = 1;
    for (int i = 9; i < 609; i += 2) {
        same += (e[i].flags & HBT_F_SAMESIZE) != 0;
        sizes_ok &= e[i].size == 9 && e[i + 1].ref == e[i].prod;
    }
    TCHECK("repeated sizes stored once (SAMESIZE, reset per chunk) and read back", sizes_ok && same > 100 && same < 300);
    int order_ok = 1;
    for (int i = 0; i < 609; i++)
        order_ok &= e[i].order == (uint64_t)i;
    TCHECK("global order read back across chunks (format 3)", order_ok && t->ordered);
    hbt_cursor_init(&c, t, 1);
    n = 0;
    while (n < 4 && hbt_next(&c, &e[n]) == 1)
        n++;
    TCHECK("thread 1: cross-thread free names thread 0's object 3", n == 2 && e[0].ref == 3 && e[0].ref_thread == 0 && (e[0].flags & HBT_F_XREF));
    TCHECK("thread 1: its events' global order follows thread 0's", e[0].order == 609 && e[1].order == 610);
    TCHECK("thread 1's objects follow thread 0's", e[1].prod == t->threads[0].objects && e[1].align_log == 12);
}

static void check_stats(const struct hbt_trace *t)
{
    struct hbt_stats s;
    char err[256] = "";
    TCHECK("stats: the walk accepts the trace", hbt_stats(t, &s, err, sizeof err) == 0);
    TCHECK("stats: 611 events, one cross-thread free", s.ops == 611 && s.cross_frees == 1 && s.unknown_refs == 1 && s.failed == 3);
    /* live at the end: memalign 100 (object 2), realloc(NULL) 9 (object 4), posix_memalign 64 */
    TCHECK("stats: live objects and bytes", s.live_objects == 3 && s.live_bytes == 173);
    /* 200 (object 3) + 100 (2) + 9 (4) + one 9-byte block of the loop, first at 100 ns */
    TCHECK("stats: ideal 318 bytes at 100 ns", s.peak_bytes == 318 && s.peak_ns == 100);
}

/* The replayer's load in one pass (hbt_open_unchecked, then hbt_stats_check) against hbt_open and
 * hbt_stats: the same statistics and the same first and last orders and exits of every thread. */
static void check_one_pass(const struct hbt_trace *t)
{
    struct hbt_trace u;
    struct hbt_stats a, b;
    char err[256] = "";
    int ok = hbt_open_unchecked(path, &u, err, sizeof err) == 0;
    int zero = ok && u.nthreads == t->nthreads;
    for (uint32_t i = 0; zero && i < u.nthreads; i++)
        zero = u.threads[i].first_order == 0 && u.threads[i].last_order == 0 && !u.threads[i].exits;
    TCHECK("one pass: hbt_open_unchecked leaves the events undecoded (threads' orders 0)", zero);
    ok = ok && hbt_stats_check(&u, &a, err, sizeof err) == 0 && hbt_stats(t, &b, err, sizeof err) == 0;
    TCHECK("one pass: hbt_stats_check's statistics are hbt_stats'", ok && !memcmp(&a, &b, sizeof a));
    int same = ok;
    for (uint32_t i = 0; same && i < u.nthreads; i++)
        same = u.threads[i].first_order == t->threads[i].first_order && u.threads[i].last_order == t->threads[i].last_order &&
               u.threads[i].exits == t->threads[i].exits;
    TCHECK("one pass: every thread's first and last orders and exit as hbt_open's", same && t->threads[1].first_order == 609);
    if (ok || u.threads)
        hbt_close(&u);
}

/* Whether the trace at path is refused, by hbt_open or by the object checks of hbt_stats that
 * every reader runs after it, with a reason holding `what`; and as well by the replayer's one pass
 * (hbt_open_unchecked, hbt_stats_check), with the same words. */
static int refused(const char *what)
{
    struct hbt_trace t;
    struct hbt_stats s;
    char err[512] = "", err1[512] = "";
    int rc = hbt_open(path, &t, err, sizeof err);
    if (rc == 0) {
        rc = hbt_stats(&t, &s, err, sizeof err);
        hbt_close(&t);
    }
    int rc1 = hbt_open_unchecked(path, &t, err1, sizeof err1);
    if (rc1 == 0) {
        rc1 = hbt_stats_check(&t, &s, err1, sizeof err1);
        hbt_close(&t);
    }
    return rc < 0 && strstr(err, what) != NULL && rc1 < 0 && strstr(err1, what) != NULL;
}

/* Rewrites the header with h changed by the caller. */
static void rewrite(struct hbt_header h)
{
    char err[256];
    if (hbt_header_rewrite(path, &h, err, sizeof err) < 0)
        printf("# %s\n", err);
}

/* Encodes h as a header of format version `version` (< 256). */
static void encode_version(const struct hbt_header *h, uint8_t *hdr, uint32_t version)
{
    hbt_header_encode(h, hdr);
    hdr[8] = (uint8_t)version; /* the version field (little-endian), then the header CRC again */
    uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), hdr, HBT_HEADER_SIZE - 4);
    for (int i = 0; i < 4; i++)
        hdr[HBT_HEADER_SIZE - 4 + i] = (uint8_t)(crc >> (8 * i));
}

/* Opens path for writing (out) and writes h as a header of format version `version`. */
static void start_file(const struct hbt_header *h, uint32_t version)
{
    uint8_t hdr[HBT_HEADER_SIZE];
    encode_version(h, hdr, version);
    out = fopen(path, "w");
    if (!out)
        exit(1);
    fwrite(hdr, 1, sizeof hdr, out);
}

/* Writes a one-thread trace of the n events ev[] into path with format version `version`. */
static void write_small(const struct hbt_event *ev, unsigned n, uint32_t version)
{
    static uint8_t b0[HBT_CHUNK_HEADER + 16 * HBT_EVENT_MAX];
    struct hbt_chunk c0;
    struct hbt_header h = {.page_size = 4096, .pid = 2, .complete = 1, .threads = 1, .ops = n};
    start_file(&h, version);
    hbt_chunk_init(&c0, b0, sizeof b0, 0);
    c0.version = version < HBT_VERSION ? version : HBT_VERSION;
    next_order = 0;
    for (unsigned i = 0; i < n; i++)
        put(&c0, ev[i]);
    flush(&c0, 1);
    fclose(out);
}

/* Opens path and reads up to max events of its thread 0 into e: how many, or -1 when it does not
 * open; *ordered gets whether the trace carries the global order. */
static int read_back(struct hbt_event *e, int max, int *ordered)
{
    struct hbt_trace t;
    struct hbt_cursor c;
    char err[512];
    int n = 0;
    if (hbt_open(path, &t, err, sizeof err) < 0)
        return -1;
    *ordered = t.ordered;
    hbt_cursor_init(&c, &t, 0);
    while (n < max && hbt_next(&c, &e[n]) == 1)
        n++;
    hbt_close(&t);
    return n;
}

static int count_touch(void *arg, const struct hbt_touch *r)
{
    uint64_t *sums = arg; /* records, objects' indexes, pages, resident */
    sums[0]++;
    sums[1] += r->obj;
    sums[2] += r->pages;
    sums[3] += r->resident;
    return 0;
}

/* A one-thread trace of n mallocs with a touch record (4 pages, object i: i % 4 resident) for
 * each of its first `records` objects; the records span several touch chunks. */
static void write_touched(uint64_t n, uint64_t records)
{
    static uint8_t b0[HBT_CHUNK_HEADER + 4096 * HBT_EVENT_MAX], tb[4096];
    struct hbt_chunk c0;
    struct hbt_touch_chunk tc;
    struct hbt_header h = {.page_size = 4096, .pid = 2, .complete = 1, .threads = 1, .ops = n};
    start_file(&h, HBT_VERSION);
    hbt_chunk_init(&c0, b0, sizeof b0, 0);
    hbt_touch_init(&tc, tb, sizeof tb, 0);
    next_order = 0;
    for (uint64_t i = 0; i < n; i++) {
        put(&c0, (struct hbt_event){.kind = HBT_MALLOC, .size = 16384});
        if (i >= records)
            continue;
        if (!hbt_touch_has_room(&tc)) {
            fwrite(tb, 1, hbt_touch_seal(&tc), out);
            hbt_touch_reset(&tc);
        }
        hbt_touch_put(&tc, &(struct hbt_touch){.thread = 0, .seq = i, .pages = 4, .resident = i % 4});
    }
    flush(&c0, 1);
    size_t len = hbt_touch_seal(&tc);
    fwrite(tb, 1, len, out);
    fclose(out);
}

/* Touch records read back; the replayer's table keeps at most TOUCH_TABLE_MAX of them. */
static void check_touch(void)
{
    struct hbt_trace t;
    struct touch_table tt;
    char err[512] = "";
    uint64_t sums[4] = {0, 0, 0, 0};
    write_touched(1000, 1000);
    int rc = hbt_open(path, &t, err, sizeof err);
    TCHECK("touch records: a trace with 1,000 (several touch chunks) opens", rc == 0 && t.touch_records == 1000 && t.ntouch_chunks > 1);
    if (rc != 0) {
        printf("# %s\n", err);
        return;
    }
    TCHECK("touch records: read back field by field (objects, pages, resident)",
           hbt_touch_each(&t, count_touch, sums) == 0 && sums[0] == 1000 && sums[1] == 999 * 1000 / 2 && sums[2] == 4000 && sums[3] == 1500);
    TCHECK("touch table: every record kept, looked up by object", touch_table_build(&tt, &t) == 0 && tt.n == 1000 && tt.dropped == 0 &&
           touch_table_get(&tt, 7) == 3 && touch_table_get(&tt, 8) == 0 && touch_table_get(&tt, 1000) == TOUCH_NO_RECORD);
    touch_table_free(&tt);
    hbt_close(&t);
    write_touched(TOUCH_TABLE_MAX + 1000, TOUCH_TABLE_MAX + 1000);
    rc = hbt_open(path, &t, err, sizeof err);
    TCHECK("touch table: past TOUCH_TABLE_MAX records the rest are counted, not kept (bounded memory)",
           rc == 0 && touch_table_build(&tt, &t) == 0 && tt.n == TOUCH_TABLE_MAX && tt.dropped == 1000 && tt.mask + 1 <= TOUCH_TABLE_SLOTS &&
           touch_table_get(&tt, 5) == 1 && touch_table_get(&tt, TOUCH_TABLE_MAX + 10) == TOUCH_NO_RECORD);
    if (rc == 0) {
        touch_table_free(&tt);
        hbt_close(&t);
    }
}

/* Mappings: read back, counted apart from the heap; consumed as the wrong class: refused. */
static void check_mappings(void)
{
    struct hbt_event ev[] = {
        {.kind = HBT_MMAP, .size = 1 << 20, .ns = 1},                   /* seq 0 */
        {.kind = HBT_MALLOC, .size = 10, .ns = 2},                      /* seq 1 */
        {.kind = HBT_MMAP, .size = 8192, .ns = 3},                      /* seq 2 */
        {.kind = HBT_MUNMAP, .ref_seq = 0, .ns = 4},
        {.kind = HBT_MMAP, .flags = HBT_F_FAILED, .size = 1ull << 50, .ns = 5},
    };
    struct hbt_trace t;
    struct hbt_event e[5];
    char err[512] = "";
    write_small(ev, 5, HBT_VERSION);
    int rc = hbt_open(path, &t, err, sizeof err), n = 0;
    TCHECK("mappings: a trace with mmap and munmap opens", rc == 0);
    if (rc != 0)
        return;
    struct hbt_cursor c;
    hbt_cursor_init(&c, &t, 0);
    while (n < 5 && hbt_next(&c, &e[n]) == 1)
        n++;
    TCHECK("mappings: mmap produces an object of its length, munmap consumes it whole",
           n == 5 && e[0].kind == HBT_MMAP && e[0].prod == 0 && e[0].size == 1 << 20 && e[3].kind == HBT_MUNMAP && e[3].ref == 0 &&
               e[3].prod == HBT_NONE && e[4].prod == HBT_NONE);
    struct hbt_stats s;
    hbt_stats(&t, &s, err, sizeof err);
    TCHECK("mappings: counted apart (heap 10 bytes live and peak; 8192 mapped at the end, 1 MiB + 8192 at the peak)",
           s.live_bytes == 10 && s.peak_bytes == 10 && s.live_objects == 1 && s.mapped_bytes == 8192 && s.mapped_objects == 1 &&
               s.peak_mapped == (1 << 20) + 8192 && s.peak_mapped_ns == 3 && s.mapped_total == (1 << 20) + 8192 &&
               s.peak_total == (1 << 20) + 8192 + 10 && s.by_kind[HBT_MMAP] == 3 && s.by_kind[HBT_MUNMAP] == 1);
    hbt_close(&t);
    write_small(ev + 1, 1, 1);
    TCHECK("a version 1 trace opens (read as before)", !refused(""));
    write_small(ev, 5, 2);
    int ordered = -1;
    n = read_back(e, 5, &ordered);
    TCHECK("a version 2 trace opens, unordered, each event's order its index in its thread",
           n == 5 && ordered == 0 && e[0].order == 0 && e[4].order == 4);
    struct hbt_event marks[] = {{.kind = HBT_THREAD_START, .ns = 1}, {.kind = HBT_MALLOC, .size = 8, .ns = 2}, {.kind = HBT_THREAD_EXIT, .ns = 3}};
    write_small(marks, 3, HBT_VERSION);
    n = read_back(e, 3, &ordered);
    TCHECK("thread start and exit events read back (no object, no size)",
           n == 3 && ordered == 1 && e[0].kind == HBT_THREAD_START && e[2].kind == HBT_THREAD_EXIT && e[2].prod == HBT_NONE &&
               e[2].ref == HBT_NONE && e[1].prod == 0 && e[2].order == 2);
    write_small(marks, 3, 2);
    TCHECK("a version 2 trace holding a thread event is refused", refused("does not decode"));
    write_small(ev, 4, 1);
    TCHECK("a version 1 trace with a mapping kind is refused", refused("does not decode"));
    struct hbt_event freed_map[] = {{.kind = HBT_MMAP, .size = 4096}, {.kind = HBT_FREE, .ref_seq = 0}};
    write_small(freed_map, 2, HBT_VERSION);
    TCHECK("a mapping freed by free is refused", refused("mapping freed as a heap block"));
    struct hbt_event unmapped_block[] = {{.kind = HBT_MALLOC, .size = 4096}, {.kind = HBT_MUNMAP, .ref_seq = 0}};
    write_small(unmapped_block, 2, HBT_VERSION);
    TCHECK("a heap block unmapped by munmap is refused", refused("heap block unmapped"));
    struct hbt_event realloc_map[] = {{.kind = HBT_MMAP, .size = 4096}, {.kind = HBT_REALLOC, .size = 9, .ref_seq = 0}};
    write_small(realloc_map, 2, HBT_VERSION);
    TCHECK("a mapping passed to realloc is refused", refused("mapping freed as a heap block"));
}

/* Two threads that each free the other's object before it exists: thread 0 frees thread 1's
 * first object at order 2, which thread 1 makes at order 5, and thread 1 frees thread 0's at
 * order 3, made at order 4. No replay can meet either wait. */
static void write_cycle(uint32_t version)
{
    static uint8_t b0[HBT_CHUNK_HEADER + 8 * HBT_EVENT_MAX], b1[HBT_CHUNK_HEADER + 8 * HBT_EVENT_MAX];
    struct hbt_chunk c0, c1;
    struct hbt_header h = {.page_size = 4096, .pid = 3, .complete = 1, .threads = 2, .ops = 6};
    strcpy(h.command, "codec_check cycle");
    h.ops = version < 3 ? 4 : 6;
    start_file(&h, version);
    hbt_chunk_init(&c0, b0, sizeof b0, 0);
    hbt_chunk_init(&c1, b1, sizeof b1, 1);
    c0.version = c1.version = version;
    struct hbt_event e0[] = {{.kind = HBT_THREAD_START, .order = 0}, {.kind = HBT_FREE, .flags = HBT_F_XREF, .ref_thread = 1, .order = 2, .ns = 2},
                             {.kind = HBT_MALLOC, .size = 64, .order = 4, .ns = 4}};
    struct hbt_event e1[] = {{.kind = HBT_THREAD_START, .order = 1, .ns = 1}, {.kind = HBT_FREE, .flags = HBT_F_XREF, .ref_thread = 0, .order = 3, .ns = 3},
                             {.kind = HBT_MALLOC, .size = 64, .order = 5, .ns = 5}};
    for (int i = version < 3 ? 1 : 0; i < 3; i++) { /* format 2: no thread events */
        hbt_chunk_put(&c0, &e0[i]);
        hbt_chunk_put(&c1, &e1[i]);
    }
    flush(&c0, 1);
    flush(&c1, 1);
    fclose(out);
}

/* objring_each callback: counts the objects and sums their first words. */
static void sum_live(void *arg, uint64_t a, uint64_t b)
{
    uint64_t *acc = arg;
    (void)b;
    acc[0]++;
    acc[1] += a;
}

/* The live-object table with rings of 4 slots: objects that outlive their slot move to the
 * overflow table (which grows) and are still found once, by their own thread or another. */
static void check_objring(const struct hbt_trace *t)
{
    struct objring r;
    int ok = objring_init(&r, t, 4, 0) == 0, order_ok = 1;
    uint64_t a, b, acc[2] = {0, 0};
    for (uint64_t seq = 0; ok && seq < 200; seq++) {
        order_ok &= objring_take(&r, 0, seq, &a, &b) == 0; /* not put yet */
        ok &= objring_put(&r, 0, seq, 1000 + seq, seq) == 0;
        if (seq % 3 != 0 && seq >= 1) /* the multiples of 3 outlive many later objects */
            order_ok &= objring_take(&r, 0, seq, &a, &b) == 1 && a == 1000 + seq && b == seq;
    }
    for (uint64_t seq = 0; ok && seq < 150; seq += 3)
        order_ok &= objring_take(&r, 0, seq, &a, &b) == 1 && a == 1000 + seq;
    order_ok &= objring_take(&r, 0, 3, &a, &b) == -1 && objring_take(&r, 0, 199, &a, &b) == -1;
    objring_each(&r, sum_live, acc);
    uint64_t want = 0, n = 0;
    for (uint64_t seq = 150; seq < 200; seq += 3)
        want += 1000 + seq, n++;
    TCHECK("live-object table: objects evicted from their ring slot are found in the overflow table once, the rest listed",
           ok && order_ok && acc[0] == n && acc[1] == want && r.ovf_cap > 64);
    objring_reset(&r);
    acc[0] = 0;
    objring_each(&r, sum_live, acc);
    TCHECK("live-object table: reset empties it", acc[0] == 0 && objring_take(&r, 0, 150, &a, &b) == 0);
    objring_free(&r);
}

/* Reads thread th with the fast path (runs of plain events, trace.h's hbt_run_*, hbt_next between
 * them, as the replayer does) beside a cursor of hbt_next alone: 1 when every event is the same
 * (kind, time, order, size, object made or consumed) and both end together; *plain gets how many
 * events the runs decoded. */
static int fast_path_agrees(const struct hbt_trace *t, uint16_t th, uint64_t *plain)
{
    static struct hbt_cursor fast, ref; /* ~1 MiB each: not on the stack */
    struct hbt_event e, want;
    uint64_t base = t->threads[th].obj_base;
    int ok = 1;
    hbt_cursor_init(&fast, t, th);
    hbt_cursor_init(&ref, t, th);
    *plain = 0;
    for (;;) {
        struct hbt_run r = hbt_run_begin(&fast);
        for (unsigned b; (b = hbt_run_peek(&r)) != 0 && (hbt_plain_malloc(b) || hbt_plain_free(b)); ++*plain) {
            uint64_t seq = 0, size = 0;
            hbt_run_head(&r);
            if (hbt_plain_malloc(b))
                size = hbt_run_malloc(&r, b, &seq);
            else
                seq = hbt_run_free(&r);
            ok &= hbt_next(&ref, &want) == 1 && want.kind == (b & 0x0f) && want.ns == r.ns && want.order == r.order &&
                  want.size == size && (hbt_plain_malloc(b) ? want.prod == base + seq : want.ref == base + seq);
        }
        hbt_run_end(&fast, &r);
        int got = hbt_next(&fast, &e), wanted = hbt_next(&ref, &want);
        if (got != 1 || wanted != 1)
            return ok && got == wanted;
        ok &= e.kind == want.kind && e.ns == want.ns && e.order == want.order && e.size == want.size && e.prod == want.prod &&
              e.ref == want.ref;
    }
}

/* The fast path on the trace of check_decode, then on one whose runs end inside their chunks (a
 * calloc among mallocs and frees) and whose sizes and references take two-byte varints. */
static void check_fast_path(const struct hbt_trace *t)
{
    uint64_t plain0 = 0, plain1 = 0;
    int ok0 = fast_path_agrees(t, 0, &plain0), ok1 = fast_path_agrees(t, 1, &plain1);
    TCHECK("fast path: runs of plain events read every event as hbt_next does, across chunks", ok0 && ok1);
    TCHECK("fast path: it takes the plain mallocs and frees (not a chunk's first event)", plain0 > 500 && plain0 < 600 && plain1 == 0);
}

static void check_fast_path_inside_chunks(void)
{
    static struct hbt_event ev[600];
    unsigned n = 0, made = 0;
    for (unsigned i = 0; i < 140; i++) /* sizes of 2 bytes, every 7th the same as before (SAMESIZE) */
        ev[n++] = (struct hbt_event){.kind = HBT_MALLOC, .size = i % 7 ? 300 + i : 299 + i, .ns = i};
    made = 140;
    for (unsigned i = 0; i < 130; i++) { /* the oldest first: references of 2 bytes */
        ev[n++] = (struct hbt_event){.kind = HBT_FREE, .ref_seq = i, .ns = 200 + i};
        if (i % 5 == 2)
            ev[n++] = (struct hbt_event){.kind = HBT_CALLOC, .size = 8, .ns = 200 + i}, made++;
    }
    struct hbt_trace t;
    char err[512];
    uint64_t plain = 0;
    write_small(ev, n, HBT_VERSION);
    int ok = hbt_open(path, &t, err, sizeof err) == 0;
    ok = ok && fast_path_agrees(&t, 0, &plain) && t.threads[0].objects == made;
    if (t.threads)
        hbt_close(&t);
    TCHECK("fast path: runs that end at a calloc inside their chunk, two-byte sizes and references: as hbt_next", ok && plain > 200);
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--write-cycle")) { /* for replay/tests/run: the cyclic trace at argv[2] */
        snprintf(path, sizeof path, "%s", argv[2]);
        write_cycle(argc == 4 ? (uint32_t)atoi(argv[3]) : HBT_VERSION);
        return 0;
    }
    uint64_t ops;
    write_trace(&ops);
    struct hbt_trace t;
    char err[512] = "";
    int rc = hbt_open(path, &t, err, sizeof err);
    TCHECK("a written trace opens", rc == 0);
    if (rc != 0) {
        printf("# %s\n", err);
        unlink(path);
        return tcheck_summary();
    }
    TCHECK("header: totals and threads", t.ops == ops && t.nthreads == 2 && t.h.complete == 1 && !strcmp(t.h.command, "codec_check"));
    check_decode(&t);
    check_stats(&t);
    check_one_pass(&t);
    check_objring(&t);
    check_fast_path(&t);
    struct hbt_header h = t.h;
    hbt_close(&t);
    h.orig_wall_ns = 1234567;
    h.orig_maxrss_kb = 4321;
    rewrite(h);
    rc = hbt_open(path, &t, err, sizeof err);
    TCHECK("header rewrite keeps the trace and adds the original run", rc == 0 && t.h.orig_wall_ns == 1234567 && t.h.orig_maxrss_kb == 4321);
    if (rc == 0)
        hbt_close(&t);
    h.ops = ops + 1;
    rewrite(h);
    TCHECK("a complete header counting more events than the chunks hold is refused as truncated", refused("truncated"));
    h.ops = ops;
    h.complete = 0;
    rewrite(h);
    TCHECK("the same trace marked incomplete (a crash) opens", !refused(""));
    check_mappings();
    check_touch();
    check_fast_path_inside_chunks();
    write_cycle(HBT_VERSION);
    TCHECK("threads that each free the other's object before it exists: refused, naming the event",
           refused("thread 0's free (its event of order 2) consumes object 1 of thread 1 before the event that makes it"));
    struct hbt_event twice[] = {{.kind = HBT_MALLOC, .size = 8}, {.kind = HBT_FREE, .ref_seq = 0}, {.kind = HBT_FREE, .ref_seq = 0}};
    write_small(twice, 3, HBT_VERSION);
    TCHECK("an object freed twice is refused", refused("a second time"));
    unlink(path);
    return tcheck_summary();
}
