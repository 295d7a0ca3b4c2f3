/* phases.h - what a workload reported on the phase pipe (docs/DATA.md phase protocol), and the
 * verdict on a finished run: served_by verification and the workload's own verify record.
 *
 * Always holds: a run is "ok" only when it exited 0, reported served_by, that path is the
 * allocator's library (realpath compared; glibc: libc.so.6), and no verify fail was reported.
 * The parsed records are a struct hb_phase_report (runresult.h), which write/ writes; the records'
 * tags and field count are the floor's (contract/wl_phase.h), which the workloads write with.
 */
#ifndef HEAPBENCH_PHASES_H
#define HEAPBENCH_PHASES_H

#include <stddef.h>

#include "record/runresult.h"
#include "base/util.h"

/* Parses the raw phase text (TAB-separated records, one per line); unknown or short records
 * are ignored. */
void hb_phase_parse(const char *text, struct hb_phase_report *rep);

/* Turns an exited-0 result into failed when served_by is missing or is not expected (the
 * realpath of the allocator's library, hb_registry_expected()), or the workload's verify
 * failed, with the reason (DATA.md wording). Other statuses are kept. */
void hb_phase_judge(const struct hb_phase_report *rep, const char *expected, struct hb_result *res);

void hb_phase_report_free(struct hb_phase_report *rep);

/* The name of the phase record in line (len bytes, no '\n'), newly allocated, when the line is a
 * `phase` record hb_phase_parse() keeps (tag and 5 fields); NULL for any other line. */
char *hb_phase_name_of(const char *line, size_t len);

/* The detail of the last `verify` record of text that is not ok ("out of memory for the block
 * table"), copied into out (size n, cut at a character boundary); out is "" when there is none. */
void hb_phase_verify_detail(const char *text, char *out, size_t n);

#endif
