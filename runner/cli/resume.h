/* resume.h - --resume DIR: the options and run id of an interrupted run, and its finished cells.
 *
 * Always holds: a resumed run rebuilds the same matrix (from meta.json "argv"), so run
 * numbers and cells match; a (rep, cell) with a runs.csv row is never run again.
 */
#ifndef HEAPBENCH_RESUME_H
#define HEAPBENCH_RESUME_H

#include "plan/matrix.h"
#include "run/summary.h"
#include "base/util.h"

/* Reads DIR/meta.json: the original subcommand argv (argv[0] = "run" or "exec"), run id and
 * start time (new strings). Exits 2 when DIR is not a heapbench results directory. */
void hb_resume_read_meta(const char *dir, struct hb_strv *argv, char **run_id, char **start);

/* Marks every (rep, cell) of DIR/runs.csv done in m and adds ok wall times to s.
 * Exits 2 when a row belongs to no cell of m (the directory holds another matrix). */
void hb_resume_mark(const char *dir, struct hb_matrix *m, struct hb_summary *s);

#endif
