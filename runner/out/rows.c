/* rows.c - the CSV rows of one run (see rows.h).
 *
 * Always holds: every row starts with schema 1 and the run_id, as every results CSV does.
 */
#include "rows.h"

/* schema, run_id. */
static void hb_rows_start(struct hb_csv *row, const struct hb_results *r)
{
    hb_csv_long(row, 1);
    hb_csv_str(row, r->run_id);
}

/* workload, allocator, threads, params, env, rep (the cell key minus host, plus rep). */
static void hb_rows_cell(struct hb_csv *row, const struct hb_run_record *rec)
{
    hb_csv_str(row, rec->g->wl->name);
    hb_csv_str(row, rec->a->name);
    hb_csv_long(row, rec->g->threads);
    hb_csv_str(row, rec->g->params);
    hb_csv_str(row, rec->g->env);
    hb_csv_long(row, rec->rep);
}

/* The measured columns from wait4 and perf, or all empty without a result. */
static void hb_rows_measured(struct hb_csv *row, const struct hb_result *res)
{
    if (!res) {
        for (int i = 0; i < 2 + 8 + 1 + HB_CTR_COUNT; i++)
            hb_csv_empty(row);
        return;
    }
    if (res->signal)
        hb_csv_empty(row), hb_csv_long(row, res->signal);
    else
        hb_csv_long(row, res->exit_code), hb_csv_empty(row);
    hb_csv_num(row, res->wall_s);
    hb_csv_num(row, res->user_s);
    hb_csv_num(row, res->sys_s);
    long counts[] = {res->maxrss_kb, res->minflt, res->majflt, res->nvcsw, res->nivcsw};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        hb_csv_long(row, counts[i]);
}

/* The runs.csv row. */
void hb_rows_run(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec)
{
    hb_rows_start(row, r);
    hb_csv_str(row, r->host);
    hb_csv_long(row, (long)rec->run);
    hb_rows_cell(row, rec);
    hb_csv_str(row, hb_status_names[rec->status]);
    hb_csv_str(row, rec->status == HB_OK ? "" : rec->reason);
    hb_rows_measured(row, rec->res);
    if (rec->res) {
        hb_csv_str(row, rec->served_by);
        for (int c = 0; c < HB_CTR_COUNT; c++) {
            if (rec->res->counter_ok[c])
                hb_csv_num(row, rec->res->counter[c]);
            else
                hb_csv_empty(row);
        }
    }
    for (size_t i = 0; i < rec->nmetric; i++) {
        if (rec->metric_ok && rec->metric_ok[i])
            hb_csv_num(row, rec->metric[i]);
        else
            hb_csv_empty(row);
    }
    hb_csv_end(row);
}

/* The phases.csv rows. */
void hb_rows_phases(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec,
                    const struct hb_report *rep)
{
    for (size_t i = 0; i < rep->nph; i++) {
        const struct hb_phase *p = &rep->ph[i];
        hb_rows_start(row, r);
        hb_csv_long(row, (long)rec->run);
        hb_rows_cell(row, rec);
        const char *f[] = {p->name, p->seconds, p->ops, p->live_bytes, p->rss_kb};
        for (size_t k = 0; k < 5; k++)
            hb_csv_str(row, f[k]);
        hb_csv_end(row);
    }
}

/* The rss.csv rows. */
void hb_rows_rss(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec)
{
    for (size_t i = 0; rec->res && i < rec->res->rss_len; i++) {
        hb_rows_start(row, r);
        hb_csv_long(row, (long)rec->run);
        hb_csv_num(row, rec->res->rss[i].t);
        hb_csv_long(row, (long)rec->res->rss[i].rss_kb);
        hb_csv_end(row);
    }
}

/* The sizes.csv rows. */
void hb_rows_sizes(struct hb_csv *row, const struct hb_results *r, const struct hb_run_record *rec,
                   const struct hb_report *rep)
{
    for (size_t i = 0; i + 1 < rep->sizes.n; i += 2) {
        hb_rows_start(row, r);
        hb_csv_long(row, (long)rec->run);
        hb_csv_str(row, rec->a->name);
        hb_csv_str(row, rep->sizes.v[i]);
        hb_csv_str(row, rep->sizes.v[i + 1]);
        hb_csv_end(row);
    }
}
