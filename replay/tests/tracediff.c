/* tracediff.c - build/tests/replay-tracediff A.hbt B.hbt: whether two traces hold the same events
 * (the recorder's test of its post-pass: a program recorded by the in-process writer and in raw
 * mode then converted by hbconvert). Compares the header's totals (complete, threads, ops,
 * unknown_refs) and, thread by thread, every event's kind, flags (failed, unknown), size, alignment, global order and
 * the objects it consumes and produces; not the times (two runs never share them). Then the touch
 * records (format 4) as a set: (object, whole pages, resident pages), whatever chunk holds them.
 * Always holds: prints "same N events, M touch records" and exits 0, or names the first difference
 * and exits 1 (2: a trace cannot be read). */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace's touch records, sorted. */
struct touches {
    struct hbt_touch *r;
    size_t n, cap;
};

static int add_touch(void *arg, const struct hbt_touch *r)
{
    struct touches *t = arg;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct hbt_touch *m = realloc(t->r, cap * sizeof *m);
        if (!m)
            return -1;
        t->r = m, t->cap = cap;
    }
    t->r[t->n++] = *r;
    return 0;
}

static int cmp_touch(const void *pa, const void *pb)
{
    const struct hbt_touch *a = pa, *b = pb;
    return a->obj != b->obj ? (a->obj < b->obj ? -1 : 1) : a->pages != b->pages ? (a->pages < b->pages ? -1 : 1)
                                                                             : (a->resident > b->resident) - (a->resident < b->resident);
}

/* The touch records of a and b compared as sets: 0 when the same, else 1 after naming the first difference. */
static int diff_touch(const struct hbt_trace *a, const struct hbt_trace *b, const char *na, const char *nb, size_t *n)
{
    struct touches ta = {0}, tb = {0};
    if (hbt_touch_each(a, add_touch, &ta) != 0 || hbt_touch_each(b, add_touch, &tb) != 0) {
        printf("cannot read the touch records (out of memory?)\n");
        return 1;
    }
    qsort(ta.r, ta.n, sizeof *ta.r, cmp_touch);
    qsort(tb.r, tb.n, sizeof *tb.r, cmp_touch);
    int rc = 0;
    for (size_t i = 0; i < ta.n || i < tb.n; i++)
        if (i >= ta.n || i >= tb.n || cmp_touch(&ta.r[i], &tb.r[i]) != 0) {
            printf("touch record %zu differs (%zu against %zu records):\n", i, ta.n, tb.n);
            if (i < ta.n)
                printf("  %s: object %u:%" PRIu64 " %" PRIu64 " of %" PRIu64 " pages resident\n", na, ta.r[i].thread, ta.r[i].seq, ta.r[i].resident, ta.r[i].pages);
            if (i < tb.n)
                printf("  %s: object %u:%" PRIu64 " %" PRIu64 " of %" PRIu64 " pages resident\n", nb, tb.r[i].thread, tb.r[i].seq, tb.r[i].resident, tb.r[i].pages);
            rc = 1;
            break;
        }
    *n = ta.n;
    free(ta.r), free(tb.r);
    return rc;
}

static int same_event(const struct hbt_event *a, const struct hbt_event *b)
{
    unsigned meant = HBT_F_NOREF | HBT_F_FAILED; /* the others are the coding of the chunk it lands in */
    return a->kind == b->kind && (a->flags & meant) == (b->flags & meant) && a->size == b->size && a->align_log == b->align_log &&
           a->order == b->order && a->ref == b->ref && a->prod == b->prod;
}

static void show(const char *what, const struct hbt_event *e)
{
    printf("  %s: %s flags %#x size %" PRIu64 " align %u order %" PRIu64 " ref %" PRId64 " prod %" PRId64 "\n", what,
           hbt_kind_name(e->kind), e->flags, e->size, e->align_log, e->order, (int64_t)e->ref, (int64_t)e->prod);
}

int main(int argc, char **argv)
{
    static struct hbt_trace a, b;
    static struct hbt_cursor ca, cb;
    char err[512];
    if (argc != 3) {
        fprintf(stderr, "usage: replay-tracediff A.hbt B.hbt\n");
        return 2;
    }
    if (hbt_open(argv[1], &a, err, sizeof err) < 0 || hbt_open(argv[2], &b, err, sizeof err) < 0) {
        fprintf(stderr, "replay-tracediff: %s\n", err);
        return 2;
    }
    if (a.h.complete != b.h.complete || a.h.threads != b.h.threads || a.ops != b.ops || a.h.unknown_refs != b.h.unknown_refs ||
        a.nthreads != b.nthreads) {
        printf("headers differ: complete %d/%d threads %" PRIu64 "/%" PRIu64 " ops %" PRIu64 "/%" PRIu64
               " unknown_refs %" PRIu64 "/%" PRIu64 " thread streams %u/%u\n", a.h.complete, b.h.complete, a.h.threads,
               b.h.threads, a.ops, b.ops, a.h.unknown_refs, b.h.unknown_refs, a.nthreads, b.nthreads);
        return 1;
    }
    uint64_t n = 0;
    for (uint32_t t = 0; t < a.nthreads; t++) {
        hbt_cursor_init(&ca, &a, (uint16_t)t);
        hbt_cursor_init(&cb, &b, (uint16_t)t);
        for (uint64_t i = 0;; i++, n++) {
            struct hbt_event ea, eb;
            int ra = hbt_next(&ca, &ea), rb = hbt_next(&cb, &eb);
            if (ra != rb || (ra > 0 && !same_event(&ea, &eb))) {
                printf("thread %u event %" PRIu64 " differs:\n", t, i);
                if (ra > 0)
                    show(argv[1], &ea);
                if (rb > 0)
                    show(argv[2], &eb);
                return 1;
            }
            if (ra <= 0)
                break;
        }
    }
    size_t nt = 0;
    if (diff_touch(&a, &b, argv[1], argv[2], &nt) != 0)
        return 1;
    printf("same %" PRIu64 " events, %zu touch records\n", n, nt);
    return 0;
}
