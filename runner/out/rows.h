/* rows.h - formats the CSV rows of one process run (runs, phases, rss, sizes; docs/DATA.md).
 *
 * Always holds: a run that was not measured (skipped, or failed before it started) has empty
 * measurement columns; a perf counter the machine lacks is an empty field, never 0; the
 * runs.csv row has exactly the columns of its header (fixed, counters, then metrics).
 */
#ifndef HEAPBENCH_ROWS_H
#define HEAPBENCH_ROWS_H

#include "csvrow.h"
#include "launch.h"
#include "matrix.h"
#include "phases.h"
#include "results.h"

/* Everything one row set describes. */
struct hb_run_record {
    size_t run;
    int rep;
    const struct hb_group *g;
    const struct hb_alloc *a;
    const struct hb_result *res;   /* NULL: not measured; status and reason below */
    enum hb_status status;
    const char *reason;
    const char *served_by;         /* NULL: empty */
    const double *metric;          /* nmetric values; metric_ok[i] == 0: empty */
    const int *metric_ok;
    size_t nmetric;
};

/* Appends the runs.csv row of rec to row. */
void hb_rows_run(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec);

/* Appends the phases.csv rows of the report. */
void hb_rows_phases(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec,
                    const struct hb_report *rep);

/* Appends the rss.csv rows of the result's timeline. */
void hb_rows_rss(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec);

/* Appends the sizes.csv rows of the report's size records. */
void hb_rows_sizes(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec,
                   const struct hb_report *rep);

#endif
