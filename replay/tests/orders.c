/* orders.c - the recorder's global order checked on a recorded trace (replay/tests/run): every
 * event of a complete format 3 trace took one number of the process's order, so the orders of
 * all its threads' events must be exactly 0 .. ops-1, each once.
 * usage: replay-orders FILE. Prints "orders ok N" and exits 0, or one line naming the first
 * order out of range or taken twice (or missing) and exits 1; exit 2 when FILE cannot be read.
 * Always holds: reads the trace through trace.c's reader only. */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay-orders FILE (a complete format 3 trace)\n");
        return 2;
    }
    struct hbt_trace t;
    char err[512];
    if (hbt_open(argv[1], &t, err, sizeof err) != 0) {
        fprintf(stderr, "replay-orders: %s\n", err);
        return 2;
    }
    if (!t.ordered || !t.h.complete) {
        fprintf(stderr, "replay-orders: %s is not a complete format 3 trace; record it again\n", argv[1]);
        return 2;
    }
    uint8_t *seen = calloc(t.ops ? t.ops : 1, 1);
    static struct hbt_cursor c;
    struct hbt_event e;
    int bad = 0;
    for (uint32_t th = 0; th < t.nthreads && !bad && seen; th++) {
        hbt_cursor_init(&c, &t, (uint16_t)th);
        while (!bad && hbt_next(&c, &e) == 1) {
            if (e.order >= t.ops || seen[e.order]++) {
                printf("order %" PRIu64 " of thread %u %s (%" PRIu64 " events)\n", e.order, th,
                       e.order >= t.ops ? "is out of range" : "is taken twice", t.ops);
                bad = 1;
            }
        }
    }
    for (uint64_t i = 0; i < t.ops && !bad && seen; i++)
        if (!seen[i]) {
            printf("order %" PRIu64 " is missing (%" PRIu64 " events)\n", i, t.ops);
            bad = 1;
        }
    if (!bad && seen)
        printf("orders ok %" PRIu64 "\n", t.ops);
    hbt_close(&t);
    free(seen);
    return bad || !seen;
}
