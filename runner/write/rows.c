/* rows.c - the rows of one run, appended file by file (see rows.h).
 *
 * Always holds: every row starts with schema 1 and the run_id, as every results CSV does
 * (columns.c's tables); when any file's rows cannot be written whole, every file is cut back to
 * its length before the run, so a run is in the directory entirely or not at all.
 */
#include "write/rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes n rows of file f (item i = 0..n-1) with one append; 0 or -1. */
static int hb_rows_file(struct hb_results *r, enum hb_csv_file f, const struct hb_run_record *rec, size_t n,
                        const char *records)
{
    struct hb_csv row = {0};
    for (size_t i = 0; i < n; i++) {
        struct hb_row_ctx x = {r->run_id, r->host, rec, i, records};
        hb_columns_row(&row, f, &x);
    }
    int rc = hb_results_append(r, f, &row);
    hb_csv_free(&row);
    return rc;
}

/* "phases.csv=N rss.csv=N ...": the run's row count in every file after runs.csv. */
static char *hb_rows_records(const struct hb_run_record *rec)
{
    struct hb_strv words = {0};
    for (int f = HB_RUNS + 1; f < HB_NFILES; f++)
        hb_strv_pushf(&words, "%s=%zu", hb_columns_file(f), hb_columns_count(f, rec));
    char *s = hb_strv_join(&words, " ");
    hb_strv_free(&words);
    return s;
}

/* Every file's rows, runs.csv last; all cut back when one fails (rows.h). */
int hb_rows_append(struct hb_results *r, const struct hb_run_record *rec)
{
    off_t before[HB_NFILES];
    for (int f = 0; f < HB_NFILES; f++)
        before[f] = lseek(r->fd[f], 0, SEEK_END);
    char *records = hb_rows_records(rec);
    int bad = 0;
    for (int f = HB_RUNS + 1; f < HB_NFILES && !bad; f++)
        bad = hb_rows_file(r, f, rec, hb_columns_count(f, rec), records) != 0;
    if (!bad)
        bad = hb_rows_file(r, HB_RUNS, rec, 1, records) != 0;
    free(records);
    if (!bad)
        return 0;
    for (int f = 0; f < HB_NFILES; f++)
        if (before[f] >= 0 && ftruncate(r->fd[f], before[f]) != 0)
            fprintf(stderr, "heapbench: cannot cut %s/%s back after a failed write; heapbench check %s will "
                    "find it and --resume repairs it\n", r->dir, hb_columns_file(f), r->dir);
    return -1;
}
