/* trace_stats.c - statistics of a trace over its events in time order (see trace_stats.h).
 * Always holds: threads are merged through a binary min-heap on (ns, thread), one cursor per
 * thread, so the walk costs O(events x log threads) and no memory per event. */
#include "trace_stats.h"

#include <string.h>

struct head {
    struct hbt_cursor c;
    struct hbt_event e;
};

static int earlier(const struct head *a, const struct head *b)
{
    return a->e.ns < b->e.ns || (a->e.ns == b->e.ns && a->e.thread < b->e.thread);
}

static void sift_down(struct head **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && earlier(h[l], h[m]))
            m = l;
        if (r < n && earlier(h[r], h[m]))
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

/* Accounts an event of the program's own mappings (mmap, munmap). */
static void account_map(const struct hbt_event *e, uint64_t *sizes, struct hbt_stats *s)
{
    if (hbt_consumes(e)) {
        s->mapped_bytes -= sizes[e->ref];
        s->mapped_objects--;
    }
    if (hbt_produces(e)) {
        sizes[e->prod] = e->size;
        s->mapped_objects++;
        s->mapped_bytes += e->size;
        s->mapped_total += e->size;
        note_peak(s->mapped_bytes, e->ns, &s->peak_mapped, &s->peak_mapped_ns);
    }
}

/* Accounts one event. */
static void account(const struct hbt_event *e, uint64_t *sizes, uint64_t *born, struct hbt_stats *s)
{
    s->ops++;
    s->by_kind[e->kind]++;
    s->end_ns = e->ns > s->end_ns ? e->ns : s->end_ns;
    if (e->flags & HBT_F_FAILED)
        s->failed++;
    if (hbt_kind_maps(e->kind)) {
        account_map(e, sizes, s);
        note_peak(s->live_bytes + s->mapped_bytes, e->ns, &s->peak_total, &s->peak_total_ns);
        return;
    }
    if ((e->flags & HBT_F_NOREF) && e->kind == HBT_FREE)
        s->unknown_refs++;
    if (e->kind == HBT_FREE)
        s->frees++;
    if (hbt_consumes(e)) {
        int cross = e->ref_thread != e->thread;
        s->cross_consumes += cross;
        s->cross_frees += cross && e->kind == HBT_FREE;
        s->live_bytes -= sizes[e->ref];
        s->live_objects--;
        if (born)
            s->life_hist[life_bucket(e->ns - born[e->ref])]++;
    }
    if (hbt_produces(e)) {
        sizes[e->prod] = e->size;
        if (born)
            born[e->prod] = e->ns;
        s->produced++;
        s->live_objects++;
        s->live_bytes += e->size;
        s->size_hist[size_bucket(e->size)]++;
        note_peak(s->live_bytes, e->ns, &s->peak_bytes, &s->peak_ns);
    }
    note_peak(s->live_bytes + s->mapped_bytes, e->ns, &s->peak_total, &s->peak_total_ns);
}

void hbt_stats(const struct hbt_trace *t, uint64_t *sizes, uint64_t *born, struct hbt_stats *s)
{
    memset(s, 0, sizeof *s);
    size_t bytes = t->nthreads * (sizeof(struct head) + sizeof(struct head *));
    struct head *heads = hbt_pages(bytes), **heap = (struct head **)(heads + t->nthreads);
    size_t n = 0;
    for (uint32_t th = 0; heads && th < t->nthreads; th++) {
        hbt_cursor_init(&heads[th].c, t, (uint16_t)th);
        if (hbt_next(&heads[th].c, &heads[th].e) == 1)
            heap[n++] = &heads[th];
    }
    s->threads_used = n;
    for (size_t i = n; i-- > 0;)
        sift_down(heap, n, i);
    while (n > 0) {
        account(&heap[0]->e, sizes, born, s);
        if (hbt_next(&heap[0]->c, &heap[0]->e) != 1)
            heap[0] = heap[--n];
        sift_down(heap, n, 0);
    }
    if (born)
        s->life_hist[HBT_LIFE_BUCKETS - 1] = s->live_objects;
    hbt_unpages(heads, bytes);
}
