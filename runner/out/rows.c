/* rows.c - the rows of one run, appended file by file (see rows.h).
 *
 * Always holds: every row starts with schema 1 and the run_id, as every results CSV does
 * (columns.c's tables).
 */
#include "rows.h"

/* Writes n rows of file f (item i = 0..n-1) with one append; 0 or -1. */
static int hb_rows_file(struct hb_results *r, enum hb_csv_file f, const struct hb_run_record *rec, size_t n)
{
    struct hb_csv row = {0};
    for (size_t i = 0; i < n; i++) {
        struct hb_row_ctx x = {r->run_id, r->host, rec, i};
        hb_columns_row(&row, f, &x);
    }
    int rc = hb_results_append(r, f, &row);
    hb_csv_free(&row);
    return rc;
}

/* Every file's rows, runs.csv last (rows.h). */
int hb_rows_append(struct hb_results *r, const struct hb_run_record *rec)
{
    int bad = 0;
    if (rec->phases) {
        bad |= hb_rows_file(r, HB_PHASES, rec, rec->phases->nph);
        bad |= hb_rows_file(r, HB_SIZES, rec, rec->phases->sizes.n / 2);
    }
    bad |= hb_rows_file(r, HB_RSS, rec, rec->res ? rec->res->rss_len : 0);
    bad |= hb_rows_file(r, HB_RUNS, rec, 1);
    return bad ? -1 : 0;
}
