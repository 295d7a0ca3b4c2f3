/* rawstamps.c - build/tests/replay-rawstamps FILE.hbr: how a raw recording's events were numbered
 * (replay/tests/run). While one thread owns the order, or the shared order is a counter, every
 * number is below the file's event count plus the few a take-over skips; the stamped order
 * (threads running at once on a CPU with an invariant TSC: record.c's take_stamp) gives numbers
 * far above it. Prints "events N stamped M threads T" (M: events numbered at or above 2N) and
 * exits 0 when every
 * thread's numbers rise strictly, in the order of its stream (what the post-pass's merge needs);
 * else one line naming the thread and its two numbers, exit 1; exit 2 when FILE cannot be read.
 * Always holds: reads the file only through rawtrace.c's reader. */
#include "common/rawtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay-rawstamps FILE.hbr (a raw recording, before hbconvert)\n");
        return 2;
    }
    static struct raw_file f;
    char err[512];
    if (raw_open(argv[1], &f, err, sizeof err) != 0) {
        fprintf(stderr, "replay-rawstamps: %s\n", err);
        return 2;
    }
    uint64_t events = 0, stamped = 0;
    for (int pass = 0; pass < 2; pass++) { /* the count first, then the stamped ones against it */
        for (uint32_t t = 0; t < f.nthreads; t++) {
            struct raw_cursor c;
            if (raw_cursor_init(&c, &f, (uint16_t)t) != 0) {
                fprintf(stderr, "replay-rawstamps: out of memory reading thread %u\n", t);
                return 2;
            }
            struct raw_event e;
            uint64_t last = 0;
            int any = 0, rc;
            while ((rc = raw_next(&c, &e, err, sizeof err)) == 1) {
                if (any && e.order <= last) {
                    printf("thread %u: order %" PRIu64 " after %" PRIu64 ": not rising\n", t, e.order, last);
                    return 1;
                }
                last = e.order, any = 1;
                if (pass == 0)
                    events++;
                else if (e.order >= 2 * events)
                    stamped++;
            }
            raw_cursor_free(&c);
            if (rc < 0) {
                fprintf(stderr, "replay-rawstamps: thread %u: %s\n", t, err);
                return 2;
            }
        }
    }
    printf("events %" PRIu64 " stamped %" PRIu64 " threads %u\n", events, stamped, f.nthreads);
    raw_close(&f);
    return 0;
}
