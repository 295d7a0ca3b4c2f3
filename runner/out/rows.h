/* rows.h - writes the rows of one finished process run to the results directory (runs, phases,
 * rss, sizes; docs/DATA.md), each file's fields from its table in columns.h.
 *
 * Always holds: runs.csv's row is written last, so a runs.csv row means the run's other rows are
 * complete; each file gets its rows with one write(2).
 */
#ifndef HEAPBENCH_ROWS_H
#define HEAPBENCH_ROWS_H

#include "columns.h"
#include "results.h"

/* Appends rec's rows to r's files: phases and sizes (from rec->phases, when set), the RSS
 * timeline (from rec->res, when set), then runs. Returns 0, or -1 when a write failed. */
int hb_rows_append(struct hb_results *r, const struct hb_run_record *rec);

#endif
