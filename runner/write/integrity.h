/* integrity.h - checks (and for --resume, repairs) the CSVs of a results directory: every file
 * of columns.h, whatever its columns, through its header and its "run" column.
 *
 * Always holds: after hb_integrity_scan(dir, 1, ...) returned 0 problems that it could not fix,
 * no CSV of dir ends in a partial line, no (cell, rep) and no run number has two runs.csv rows,
 * and every runs.csv row's "records" counts equal the rows its run has in each other file (a file
 * other than runs.csv that does not exist, as in a directory of a heapbench older than that file,
 * has no rows: a defect only when a run's records count rows in it); the
 * rows removed are those of runs that resume will measure again. Files are rewritten atomically.
 */
#ifndef HEAPBENCH_INTEGRITY_H
#define HEAPBENCH_INTEGRITY_H

#include "base/util.h"

/* Scans dir's CSVs; each defect found is one line appended to problems (partial last line,
 * malformed row, duplicate run or (cell, rep), a run whose rows are missing in a file). With
 * repair, rewrites the files without the defective rows, without every row of a run that is not
 * whole, and without rows of runs that have no runs.csv row (a run killed before its runs.csv
 * row); the latter are also listed in notes (not defects: an interrupted run). Returns the
 * number of defects; -1 when a file cannot be read or (repair) rewritten, with the reason in
 * problems. */
int hb_integrity_scan(const char *dir, int repair, struct hb_strv *problems, struct hb_strv *notes);

#endif
