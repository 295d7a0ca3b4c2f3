/* trace_stats.c - statistics and object checks of a trace over its events in order (see trace_stats.h).
 * Always holds: threads are merged through a binary min-heap on (order, thread) for format 3,
 * (ns, thread) before, one cursor per thread, so the walk costs O(events x log threads); each
 * live object's size, state and birth time sit in an object table (objring.h) that holds only
 * the live objects. */
#include "trace_stats.h"
#include "objring.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An object's first word in this walk: state bits over the size (sizes saturate below them). */
#define ST_MADE (1ull << 63)
#define ST_MAP (1ull << 62)   /* a mapping (mmap's object) */
#define ST_SIZE (ST_MAP - 1)

struct head {
    struct hbt_cursor c;
    struct hbt_event e;
};

struct walk {
    const struct hbt_trace *t;
    struct objring tab;
    struct hbt_stats *s;
    uint64_t alive;            /* threads alive now */
    struct hbt_site_live *sl;  /* NULL, or the per-site live bytes to fill at sl->stop_ops */
    struct hbt_trace *fill;    /* NULL, or the trace opened unchecked: decode checked, fill its threads' orders */
    uint64_t *site_bytes, *site_objects; /* the walk's running per-site sums (sl only) */
    char *err;
    size_t errlen;
};

static int earlier(const struct head *a, const struct head *b, int ordered)
{
    uint64_t ka = ordered ? a->e.order : a->e.ns, kb = ordered ? b->e.order : b->e.ns;
    return ka < kb || (ka == kb && a->e.thread < b->e.thread);
}

static void sift_down(struct head **h, size_t n, size_t i, int ordered)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && earlier(h[l], h[m], ordered))
            m = l;
        if (r < n && earlier(h[r], h[m], ordered))
            m = r;
        if (m == i)
            return;
        struct head *tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

static unsigned size_bucket(uint64_t n)
{
    if (n <= 1)
        return (unsigned)n;
    unsigned b = 65 - (unsigned)__builtin_clzll(n - 1);
    return b < HBT_SIZE_BUCKETS ? b : HBT_SIZE_BUCKETS - 1;
}

static unsigned life_bucket(uint64_t ns)
{
    unsigned b = 0;
    for (uint64_t lim = 1000; b < HBT_LIFE_BUCKETS - 2 && ns >= lim; lim *= 10)
        b++;
    return b;
}

/* Raises *peak to v (noting when) if v is above it. */
static int note_peak(uint64_t v, uint64_t ns, uint64_t *peak, uint64_t *peak_ns)
{
    if (v > *peak) {
        *peak = v;
        *peak_ns = ns;
        return 1;
    }
    return 0;
}

/* The running per-site sums: object obj (of size bytes, a block, not a mapping) made (dir 1) or consumed (-1). */
static inline __attribute__((always_inline)) void site_add(struct walk *w, uint64_t obj, uint64_t size, int dir)
{
    if (!w->sl)
        return;
    uint32_t site = obj < w->t->objects ? w->sl->site_of[obj] : 0;
    site = site <= w->sl->nsites ? site : 0;
    w->site_bytes[site] += dir > 0 ? size : -size;
    w->site_objects[site] += dir > 0 ? 1 : (uint64_t)-1;
}

static int refuse(struct walk *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The object e consumes: checked (made, once, as its class) and taken; its first word (state |
 * size) in *was (0 for an unordered trace's object consumed before it was made in time order:
 * the clocks of two threads differ by a little). */
static int take(struct walk *w, const struct hbt_event *e, uint64_t *was)
{
    uint64_t a, born;
    int got = objring_take_own(&w->tab, e->ref_thread, e->ref_seq, &a, &born); /* one thread here: every object its own */
    *was = 0;
    if (got < 0)
        return refuse(w, "corrupt trace: thread %u frees object %" PRIu64 " a second time; record it again", e->thread, e->ref);
    if (got == 0) {
        if (w->t->ordered)
            return refuse(w, "a dependency no replay can meet: thread %u's %s (its event of order %" PRIu64 ") consumes object %" PRIu64
                             " of thread %u before the event that makes it (threads that each free the other's object before it exists); "
                             "the trace is corrupt or was not written by heapbench record: record it again",
                          e->thread, hbt_kind_name(e->kind), e->order, e->ref, e->ref_thread);
        return 0;
    }
    if (!(a & ST_MAP) != (e->kind != HBT_MUNMAP))
        return refuse(w, "corrupt trace: object %" PRIu64 " is a mapping freed as a heap block or a heap block unmapped; record it again", e->ref);
    *was = a;
    w->s->life_hist[life_bucket(e->ns - born)]++;
    return 0;
}

/* Records the object e produces. */
static int make(struct walk *w, const struct hbt_event *e)
{
    uint64_t a = ST_MADE | (hbt_kind_maps(e->kind) ? ST_MAP : 0) | (e->size < ST_SIZE ? e->size : ST_SIZE);
    if (objring_put(&w->tab, e->thread, e->prod - w->t->threads[e->thread].obj_base, a, e->ns) < 0)
        return refuse(w, "out of memory for the statistics' table of live objects");
    return 1;
}

/* Accounts one event; -1 (err set) when it uses an object as no program can. */
static int account(struct walk *w, const struct hbt_event *e)
{
    struct hbt_stats *s = w->s;
    uint64_t was = 0;
    s->ops++;
    s->by_kind[e->kind]++;
    s->end_ns = e->ns > s->end_ns ? e->ns : s->end_ns;
    if (e->flags & HBT_F_FAILED)
        s->failed++;
    if (e->kind == HBT_THREAD_EXIT && w->alive > 0)
        w->alive--;
    if (hbt_consumes(e) && take(w, e, &was) < 0)
        return -1;
    int maps = hbt_kind_maps(e->kind), made = hbt_produces(e) ? make(w, e) : 0;
    if (made < 0)
        return -1;
    if (maps) {
        if (was) {
            s->mapped_bytes -= was & ST_SIZE;
            s->mapped_objects--;
        }
        if (made) {
            s->mapped_objects++;
            s->mapped_bytes += e->size;
            s->mapped_total += e->size;
            note_peak(s->mapped_bytes, e->ns, &s->peak_mapped, &s->peak_mapped_ns);
        }
    } else {
        if ((e->flags & HBT_F_NOREF) && e->kind == HBT_FREE)
            s->unknown_refs++;
        s->frees += e->kind == HBT_FREE;
        if (hbt_consumes(e)) {
            int cross = e->ref_thread != e->thread;
            s->cross_consumes += cross;
            s->cross_frees += cross && e->kind == HBT_FREE;
        }
        if (was) {
            s->live_bytes -= was & ST_SIZE;
            s->live_objects--;
            site_add(w, e->ref, was & ST_SIZE, -1);
        }
        if (hbt_produces(e)) {
            s->produced++;
            s->size_hist[size_bucket(e->size)]++;
        }
        if (made) {
            s->live_objects++;
            s->live_bytes += e->size;
            site_add(w, e->prod, e->size, 1);
            if (note_peak(s->live_bytes, e->ns, &s->peak_bytes, &s->peak_ns))
                s->peak_ops = s->ops;
        }
    }
    if (s->live_objects + s->mapped_objects > s->peak_objects)
        s->peak_objects = s->live_objects + s->mapped_objects;
    if (note_peak(s->live_bytes + s->mapped_bytes, e->ns, &s->peak_total, &s->peak_total_ns))
        s->peak_total_ops = s->ops;
    if (w->sl && s->ops == w->sl->stop_ops) {
        memcpy(w->sl->bytes, w->site_bytes, (w->sl->nsites + 1) * sizeof(uint64_t));
        memcpy(w->sl->objects, w->site_objects, (w->sl->nsites + 1) * sizeof(uint64_t));
    }
    return 0;
}

/* The next event of h's thread into h->e: 1, 0 at its end; with w->fill, decoded checked (-1, err set,
 * on a malformed one) and the thread's first and last orders and exit noted as hbt_open notes them. */
static inline __attribute__((always_inline)) int step(struct walk *w, struct head *h)
{
    if (!w->fill)
        return hbt_next(&h->c, &h->e) == 1;
    int got = hbt_next_checked(&h->c, &h->e);
    struct hbt_thread_index *ti = &w->fill->threads[h->c.thread];
    if (got < 0)
        return refuse(w, "corrupt trace: thread %u's event %" PRIu64 " does not decode; record it again", h->c.thread, h->c.op);
    if (got == 1) {
        if (h->c.op == 1)
            ti->first_order = h->e.order;
        ti->last_order = h->e.order;
        ti->exits = h->e.kind == HBT_THREAD_EXIT;
    }
    return got;
}

static int walk_trace(const struct hbt_trace *t, struct hbt_trace *fill, struct hbt_stats *s, struct hbt_site_live *sl, char *err,
                      size_t errlen);

int hbt_stats(const struct hbt_trace *t, struct hbt_stats *s, char *err, size_t errlen) { return walk_trace(t, NULL, s, NULL, err, errlen); }

int hbt_stats_sites(const struct hbt_trace *t, struct hbt_stats *s, struct hbt_site_live *sl, char *err, size_t errlen)
{
    return walk_trace(t, NULL, s, sl, err, errlen);
}

int hbt_stats_check(struct hbt_trace *t, struct hbt_stats *s, char *err, size_t errlen) { return walk_trace(t, t, s, NULL, err, errlen); }

static int walk_trace(const struct hbt_trace *t, struct hbt_trace *fill, struct hbt_stats *s, struct hbt_site_live *sl, char *err,
                      size_t errlen)
{
    memset(s, 0, sizeof *s);
    struct walk w = {.t = t, .s = s, .err = err, .errlen = errlen, .sl = sl, .fill = fill};
    size_t site_bytes = sl ? 2 * (sl->nsites + 1) * sizeof(uint64_t) : 0;
    if (sl) {
        w.site_bytes = hbt_pages(site_bytes);
        if (!w.site_bytes) {
            snprintf(err, errlen, "out of memory for the live bytes of %u call sites", sl->nsites);
            return -1;
        }
        w.site_objects = w.site_bytes + sl->nsites + 1;
        memset(sl->bytes, 0, (sl->nsites + 1) * sizeof(uint64_t));
        memset(sl->objects, 0, (sl->nsites + 1) * sizeof(uint64_t));
    }
    size_t bytes = (t->nthreads ? t->nthreads : 1) * (sizeof(struct head) + sizeof(struct head *));
    struct head *heads = hbt_pages(bytes), **heap = heads ? (struct head **)(heads + t->nthreads) : NULL;
    if (!heads || objring_init(&w.tab, t, 4096, 0) < 0) {
        if (w.tab.rings)
            objring_free(&w.tab);
        hbt_unpages(heads, bytes);
        snprintf(err, errlen, "out of memory for the statistics of %" PRIu64 " objects", t->objects);
        return -1;
    }
    size_t n = 0;
    int rc = 0;
    for (uint32_t th = 0; th < t->nthreads && rc == 0; th++) {
        hbt_cursor_init(&heads[th].c, t, (uint16_t)th);
        int got = step(&w, &heads[th]);
        if (got == 1)
            heap[n++] = &heads[th];
        rc = got < 0 ? -1 : 0;
    }
    s->threads_used = n;
    for (size_t i = n; i-- > 0;)
        sift_down(heap, n, i, t->ordered);
    while (n > 0 && rc == 0) {
        struct head *h = heap[0];
        if (h->c.op == 1) { /* the thread's first event: it starts */
            w.alive++;
            s->threads_alive_peak = w.alive > s->threads_alive_peak ? w.alive : s->threads_alive_peak;
        }
        rc = account(&w, &h->e);
        int got = rc == 0 ? step(&w, h) : 0;
        if (got != 1)
            heap[0] = heap[--n];
        if (got < 0)
            rc = -1;
        else if (n > 1)
            sift_down(heap, n, 0, t->ordered);
    }
    s->life_hist[HBT_LIFE_BUCKETS - 1] = s->live_objects;
    objring_free(&w.tab);
    hbt_unpages(heads, bytes);
    hbt_unpages(w.site_bytes, site_bytes);
    return rc;
}
