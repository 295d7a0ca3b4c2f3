/* results.h - the results directory: results/<run-id>/ with its CSVs, logs/, work/ and
 * results/latest (docs/DATA.md).
 *
 * Always holds: each CSV exists with its header from the moment the directory is opened
 * (created as name.tmp, then renamed); each record is appended with one write(2) as the
 * run it describes finishes; results/latest is replaced atomically (symlink + rename); a second
 * writer of a directory is refused (exit 2, naming the pid in DIR/.lock) before it writes.
 */
#ifndef HEAPBENCH_RESULTS_H
#define HEAPBENCH_RESULTS_H

#include "write/columns.h"
#include "write/csvrow.h"
#include "base/util.h"

struct hb_results {
    char *dir;       /* the results directory (as given or results/<run-id>) */
    char *run_id;
    char *host;
    int fd[HB_NFILES];
    int lock_fd;     /* DIR/.lock, flock()ed while this process writes the directory */
};

/* Creates a new results directory: outdir, or $ROOT/results/<YYYYMMDD-HHMMSS>-<host>[-N].
 * The headers come from columns.h; metric_names adds the metric_<NAME> columns to runs.csv. Exits 2 with one line when the
 * directory cannot be created or written. */
void hb_results_create(struct hb_results *r, const char *outdir, const struct hb_strv *metric_names);

/* Opens an existing results directory for appending (--resume); run_id from meta.json. Takes
 * the lock, refuses (exit 2, one line naming the columns) a CSV whose header is not the one this
 * heapbench writes with metric_names, then repairs every CSV (integrity.h: partial last lines and the rows of runs that
 * are not whole go, so resume measures those runs again). Exits 2 when dir is not a results
 * directory or is being written, 1 when it cannot be repaired. */
void hb_results_reopen(struct hb_results *r, const char *dir, const char *run_id, const struct hb_strv *metric_names);

/* Appends the built row(s) to a file with one write(2); resets row. -1 on a write error. */
int hb_results_append(struct hb_results *r, enum hb_csv_file f, struct hb_csv *row);

/* Path of a file in the results directory; new string. */
char *hb_results_path(const struct hb_results *r, const char *name);

/* Points $ROOT/results/latest at r->dir (atomically) when r->dir is under $ROOT/results/;
 * leaves it alone otherwise. */
void hb_results_link_latest(const struct hb_results *r);

void hb_results_close(struct hb_results *r);

#endif
