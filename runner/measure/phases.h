/* phases.h - what a workload reported on the phase pipe (docs/DATA.md phase protocol), and the
 * verdict on a finished run: served_by verification and the workload's own verify record.
 *
 * Always holds: a run is "ok" only when it exited 0, reported served_by, that path is the
 * allocator's library (realpath compared; glibc: libc.so.6), and no verify fail was reported.
 */
#ifndef HEAPBENCH_PHASES_H
#define HEAPBENCH_PHASES_H

#include <stddef.h>

#include "launch.h"
#include "registry.h"
#include "util.h"

struct hb_phase {
    char *name, *seconds, *ops, *live_bytes, *rss_kb; /* as written by the workload */
};

struct hb_report {
    char *served_by;        /* NULL when not reported */
    struct hb_phase *ph;
    size_t nph;
    struct hb_strv sizes;   /* request, usable, request, usable ... */
    int verify_failed;
    char *verify_detail;
};

/* Parses the raw phase text (TAB-separated records, one per line); unknown or short records
 * are ignored. */
void hb_report_parse(const char *text, struct hb_report *rep);

/* Turns an exited-0 result into failed when served_by is missing or wrong for alloc, or the
 * workload's verify failed, with the reason (DATA.md wording). Other statuses are kept. */
void hb_report_judge(const struct hb_report *rep, const struct hb_alloc *alloc, struct hb_result *res);

void hb_report_free(struct hb_report *rep);

#endif
