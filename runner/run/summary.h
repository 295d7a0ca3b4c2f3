/* summary.h - the table printed at the end of a run: per cell the median wall time of its ok
 * runs and the ratio to glibc's median in the same group (workload, params, threads, env).
 *
 * Always holds: a ratio is shown only when both medians exist (glibc's of the same workload,
 * params, threads and env); cells without an ok run show their count of ok runs as 0 and "-"
 * for the figures; the env column is as wide as the longest env (never cut), with control
 * characters shown as '?', so every line is one cell.
 */
#ifndef HEAPBENCH_SUMMARY_H
#define HEAPBENCH_SUMMARY_H

#include <stdio.h>

#include "plan/matrix.h"

struct hb_summary {
    const struct hb_matrix *m;
    struct hb_samples { double *v; size_t n, bad; } *cell; /* [g * nalloc + a]; bad: runs not ok */
};

void hb_summary_init(struct hb_summary *s, const struct hb_matrix *m);
/* Records the wall time of one ok run of cell (g, a). */
void hb_summary_add(struct hb_summary *s, size_t g, size_t a, double wall_s);
/* Counts one failed, crashed or timed-out run of cell (g, a) (skipped runs are not counted). */
void hb_summary_fail(struct hb_summary *s, size_t g, size_t a);
/* Prints one line per cell with runs not ok to out ("failed: CELL: N of its runs ...");
 * returns the number of such runs. */
size_t hb_summary_failures(const struct hb_summary *s, FILE *out);
/* Median of a cell's samples, or -1 when it has none. */
double hb_summary_median(const struct hb_summary *s, size_t g, size_t a);
/* Prints the table (cells of this shard) to out. */
void hb_summary_print(const struct hb_summary *s, FILE *out);
void hb_summary_free(struct hb_summary *s);

#endif
