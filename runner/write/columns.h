/* columns.h - the columns of every results CSV (runs, phases, rss, sizes, latency; docs/DATA.md) as
 * tables of {name, writer}: the one place that says which columns a file has, in which order,
 * and how each field is written. Headers and rows are both produced from these tables.
 *
 * Always holds: a header has exactly one name per table entry (runs.csv: then one
 * metric_<NAME> per metric) and a row exactly one field per entry, in the same order; a run that
 * was not measured (rec->res == NULL) has empty measurement fields; an unavailable counter or
 * metric is an empty field, never 0.
 */
#ifndef HEAPBENCH_COLUMNS_H
#define HEAPBENCH_COLUMNS_H

#include <stddef.h>

#include "write/csvrow.h"
#include "record/runresult.h"
#include "base/util.h"

enum hb_csv_file { HB_RUNS, HB_PHASES, HB_RSS, HB_SIZES, HB_ALLOCSTATS, HB_LATENCY, HB_NFILES };

/* Everything one run's rows describe. */
struct hb_run_record {
    size_t run;
    int rep;
    const char *workload, *allocator, *params, *env;
    int threads;
    const struct hb_result *res;   /* NULL: not measured; status and reason below */
    enum hb_status status;
    const char *reason;
    const char *served_by;         /* NULL: empty */
    const char *own_allocator;     /* allocators of the program's own, '+'-separated; NULL or "": none */
    const char *preloaded_share;   /* share of its anonymous memory the own ones do not hold; NULL: empty */
    const char *thp;               /* the huge-page mode in effect (thp.h's hb_thp_in_effect) */
    const struct hb_phase_report *phases; /* NULL: none */
    const double *metric;          /* nmetric values; metric_ok[i] == 0: empty */
    const int *metric_ok;
    size_t nmetric;
};

/* What a writer sees: the results directory's run id and host, the run, and for files with
 * several rows per run the index of the row's item (phase, RSS sample, size or allocstat record). */
struct hb_row_ctx {
    const char *run_id, *host;
    const struct hb_run_record *rec;
    size_t i;
    const char *records; /* runs.csv's records column: "phases.csv=N rss.csv=N ..." */
};

struct hb_column {
    const char *name;
    void (*write)(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg);
    size_t arg; /* the writer's parameter: a field offset, a counter number */
};

/* The file's name ("runs.csv"...). */
const char *hb_columns_file(enum hb_csv_file f);

/* The table of file f; *n gets its length. */
const struct hb_column *hb_columns(enum hb_csv_file f, size_t *n);

/* How many rows of f the run rec has (runs.csv: 1). Every file after runs.csv has a "run"
 * column, and runs.csv's "records" column gives these counts, so a reader can tell whether a
 * run's rows are all there (docs/DATA.md). */
size_t hb_columns_count(enum hb_csv_file f, const struct hb_run_record *rec);

/* The header line of f (with metric_<NAME> columns for runs.csv), new string ending in '\n'. */
char *hb_columns_header(enum hb_csv_file f, const struct hb_strv *metric_names);

/* Appends one row of f for x (runs.csv: with x->rec's metrics), ended by '\n'. */
void hb_columns_row(struct hb_csv *row, enum hb_csv_file f, const struct hb_row_ctx *x);

#endif
