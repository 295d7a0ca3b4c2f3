/* rows.h - writes the rows of one finished process run to the results directory (runs, phases,
 * rss, sizes, latency; docs/DATA.md), each file's fields from its table in columns.h.
 *
 * Always holds: runs.csv's row is written last, so a runs.csv row means the run's other rows are
 * complete, and its "records" column says how many there are in each file; each file gets its
 * rows with one write(2); after a failed write (a full disk) no file holds any row of the run.
 */
#ifndef HEAPBENCH_ROWS_H
#define HEAPBENCH_ROWS_H

#include "write/columns.h"
#include "write/results.h"

/* Appends rec's rows to every file of columns.h, runs.csv last. Returns 0, or -1 when a write
 * failed (every file is then cut back to its length before the call). */
int hb_rows_append(struct hb_results *r, const struct hb_run_record *rec);

#endif
