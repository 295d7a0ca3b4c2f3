/* trace_stats.c - statistics and object checks of a trace over its events in order (see trace_stats.h).
 * Always holds: threads are merged through a binary min-heap on (order, thread) for format 3,
 * (ns, thread) before, one cursor per thread, so the walk costs O(events x log threads); each
 * object's size, state and birth time sit in an object table (objtab.h) whose pages go back to
 * the kernel once their objects are consumed. */
#include "trace_stats.h"
#include "objtab.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An entry's `a` in this walk: state bits over the size (sizes saturate below them). */
#define ST_MADE (1ull << 63)
#define ST_MAP (1ull << 62)   /* a mapping (mmap's object) */
#define ST_GONE (1ull << 61)  /* consumed */
#define ST_SIZE (ST_GONE - 1)

struct head {
    struct hbt_cursor c;
    struct hbt_event e;
};

struct walk {
    const struct hbt_trace *t;
    struct objtab tab;
    struct hbt_stats *s;
    uint64_t alive;            /* threads alive now */
    uint64_t *first_made, *last_taken; /* per page of the table: the order of its first object's making and of its last
                                        * taking so far, or NULL */
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
static void note_peak(uint64_t v, uint64_t ns, uint64_t *peak, uint64_t *peak_ns)
{
    if (v > *peak) {
        *peak = v;
        *peak_ns = ns;
    }
}

static int refuse(struct walk *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The object e consumes: checked (made, once, as its class) and marked consumed; its entry's
 * state | size before, in *was (0 for an unordered trace's object consumed before it was made
 * in time order: the clocks of two threads differ by a little). */
static int take(struct walk *w, const struct hbt_event *e, uint64_t *was)
{
    struct obj_entry *x = &w->tab.e[e->ref];
    uint64_t a = atomic_load_explicit(&x->a, memory_order_relaxed);
    *was = 0;
    if (a & ST_GONE)
        return refuse(w, "corrupt trace: thread %u frees object %" PRIu64 " a second time; record it again", e->thread, e->ref);
    if (!(a & ST_MADE)) {
        if (w->t->ordered)
            return refuse(w, "a dependency no replay can meet: thread %u's %s (its event of order %" PRIu64 ") consumes object %" PRIu64
                             " of thread %u before the event that makes it (threads that each free the other's object before it exists); "
                             "the trace is corrupt or was not written by heapbench record: record it again",
                          e->thread, hbt_kind_name(e->kind), e->order, e->ref, e->ref_thread);
        atomic_store_explicit(&x->a, ST_GONE, memory_order_relaxed);
        return 0;
    }
    if (!(a & ST_MAP) != (e->kind != HBT_MUNMAP))
        return refuse(w, "corrupt trace: object %" PRIu64 " is a mapping freed as a heap block or a heap block unmapped; record it again", e->ref);
    *was = a;
    w->s->life_hist[life_bucket(e->ns - x->b)]++;
    atomic_store_explicit(&x->a, ST_GONE, memory_order_relaxed);
    objtab_consumed(&w->tab, e->ref);
    if (w->last_taken)
        w->last_taken[e->ref / w->tab.per_page] = e->order;
    return 0;
}

/* Records the object e produces; 0 when it was already consumed (unordered trace, see take). */
static int make(struct walk *w, const struct hbt_event *e)
{
    struct obj_entry *x = &w->tab.e[e->prod];
    if (atomic_load_explicit(&x->a, memory_order_relaxed) & ST_GONE) {
        objtab_consumed(&w->tab, e->prod);
        return 0;
    }
    atomic_store_explicit(&x->a, ST_MADE | (hbt_kind_maps(e->kind) ? ST_MAP : 0) | (e->size < ST_SIZE ? e->size : ST_SIZE),
                          memory_order_relaxed);
    x->b = e->ns;
    if (w->first_made) {
        uint64_t p = e->prod / w->tab.per_page;
        w->first_made[p] = e->order < w->first_made[p] ? e->order : w->first_made[p];
    }
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
    int maps = hbt_kind_maps(e->kind), made = hbt_produces(e) && make(w, e);
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
        }
        if (hbt_produces(e)) {
            s->produced++;
            s->size_hist[size_bucket(e->size)]++;
        }
        if (made) {
            s->live_objects++;
            s->live_bytes += e->size;
            note_peak(s->live_bytes, e->ns, &s->peak_bytes, &s->peak_ns);
        }
    }
    if (s->live_bytes + s->mapped_bytes > s->peak_total)
        s->peak_total_order = e->order;
    note_peak(s->live_bytes + s->mapped_bytes, e->ns, &s->peak_total, &s->peak_total_ns);
    return 0;
}

/* The pages live at the peak: an object made at or before its order, and one taken after it or
 * never (the page is not gone at the end). Only where the order is one: format 3, or one thread. */
static void mark_peak(const struct walk *w, uint8_t *map)
{
    if (!w->t->ordered && w->s->threads_used > 1)
        return;
    for (uint64_t p = 0; p < w->tab.npages; p++)
        if (w->first_made[p] <= w->s->peak_total_order && (w->last_taken[p] > w->s->peak_total_order || !objtab_page_gone(&w->tab, p)))
            map[p / 8] |= (uint8_t)(1u << (p % 8));
}

int hbt_stats(const struct hbt_trace *t, struct hbt_stats *s, char *err, size_t errlen)
{
    return hbt_stats_pages(t, s, NULL, err, errlen);
}

int hbt_stats_pages(const struct hbt_trace *t, struct hbt_stats *s, uint8_t *peak_pages, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    struct walk w = {.t = t, .s = s, .err = err, .errlen = errlen};
    size_t bytes = (t->nthreads ? t->nthreads : 1) * (sizeof(struct head) + sizeof(struct head *));
    size_t pbytes = (objtab_npages(t->objects) + 1) * sizeof(uint64_t);
    struct head *heads = hbt_pages(bytes), **heap = heads ? (struct head **)(heads + t->nthreads) : NULL;
    if (peak_pages) {
        w.first_made = hbt_pages(pbytes);
        w.last_taken = hbt_pages(pbytes);
    }
    if (!heads || objtab_init(&w.tab, t->objects) < 0 || (peak_pages && (!w.first_made || !w.last_taken))) {
        hbt_unpages(w.first_made, pbytes);
        hbt_unpages(w.last_taken, pbytes);
        hbt_unpages(heads, bytes);
        snprintf(err, errlen, "out of memory for the statistics of %" PRIu64 " objects", t->objects);
        return -1;
    }
    for (uint64_t p = 0; w.first_made && p < w.tab.npages; p++)
        w.first_made[p] = UINT64_MAX;
    size_t n = 0;
    for (uint32_t th = 0; th < t->nthreads; th++) {
        hbt_cursor_init(&heads[th].c, t, (uint16_t)th);
        if (hbt_next(&heads[th].c, &heads[th].e) == 1)
            heap[n++] = &heads[th];
    }
    s->threads_used = n;
    for (size_t i = n; i-- > 0;)
        sift_down(heap, n, i, t->ordered);
    int rc = 0;
    while (n > 0 && rc == 0) {
        struct head *h = heap[0];
        if (h->c.op == 1) { /* the thread's first event: it starts */
            w.alive++;
            s->threads_alive_peak = w.alive > s->threads_alive_peak ? w.alive : s->threads_alive_peak;
        }
        rc = account(&w, &h->e);
        if (hbt_next(&h->c, &h->e) != 1)
            heap[0] = heap[--n];
        sift_down(heap, n, 0, t->ordered);
    }
    s->life_hist[HBT_LIFE_BUCKETS - 1] = s->live_objects;
    if (rc == 0 && peak_pages)
        mark_peak(&w, peak_pages);
    objtab_free(&w.tab);
    hbt_unpages(w.first_made, pbytes);
    hbt_unpages(w.last_taken, pbytes);
    hbt_unpages(heads, bytes);
    return rc;
}
