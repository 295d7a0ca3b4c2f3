/* content.h - checks the values of a results directory that integrity.h does not: meta.json and
 * every field of every results CSV (docs/DATA.md "What check accepts").
 *
 * Always holds: these are the rules the Python readers (report/heapbench/results.py) apply, so that
 * `heapbench check` and report, compare and merge accept the same directories (runner/tests/judge.sh
 * runs one corpus of damaged directories through both); nothing is written. A row that
 * integrity.h finds malformed (cut short, another field count) is left to it.
 */
#ifndef HEAPBENCH_CONTENT_H
#define HEAPBENCH_CONTENT_H

#include <stddef.h>

#include "base/util.h"

/* Columns whose fields are text; every other column of a results CSV is a number or empty. */
extern const char *const hb_content_text_columns[];
/* The physical range of a numeric column (docs/DATA.md "Physical ranges"), both ends included. */
struct hb_content_range {
    const char *column; /* "metric_*": every metric column; "*": every other numeric column */
    double low, high;
};
extern const struct hb_content_range hb_content_ranges[];

/* The range of numeric column name: its own, metric_*'s, or the counts' ("*"). */
const struct hb_content_range *hb_content_range_of(const char *name);

/* 1 when s is a number field: [-]digits[.digits][e[+-]digits] (or [-].digits...), finite as a
 * double (its range is hb_content_range_of's). */
int hb_content_number(const char *s);

/* 1 when s is a latency.csv buckets field: "i:c,i:c..." (or empty), every i < WL_HIST_BUCKETS,
 * every c a whole number, the counts adding up to samples without overflow. */
int hb_content_buckets(const char *s, unsigned long long samples);

/* Checks meta.json and every CSV of dir; each defect is one line appended to problems (which
 * file, which line, what to do). Returns the number of defects. */
int hb_content_scan(const char *dir, struct hb_strv *problems);

#endif
