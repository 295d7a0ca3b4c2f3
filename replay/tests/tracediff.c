/* tracediff.c - build/tests/replay-tracediff A.hbt B.hbt: whether two traces hold the same events
 * (the recorder's test of its post-pass: a program recorded by the in-process writer and in raw
 * mode then converted by hbconvert). Compares the header's totals (complete, threads, ops,
 * unknown_refs) and, thread by thread, every event's kind, flags (failed, unknown), size, alignment, global order and
 * the objects it consumes and produces; not the times (two runs never share them).
 * Always holds: prints "same N events" and exits 0, or names the first difference and exits 1
 * (2: a trace cannot be read). */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
    printf("same %" PRIu64 " events\n", n);
    return 0;
}
