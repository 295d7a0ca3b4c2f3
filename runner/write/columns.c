/* columns.c - the tables of the results CSVs' columns and their writers (see columns.h).
 *
 * Always holds: each writer appends exactly one field; a writer of a measured figure writes an
 * empty field when the run was not measured.
 */
#include "write/columns.h"

#include <stdlib.h>

/* The schema version every results CSV starts with. */
static void hb_col_schema(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)x, (void)arg;
    hb_csv_long(row, 1);
}

static void hb_col_run_id(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_str(row, x->run_id);
}

static void hb_col_host(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_str(row, x->host);
}

/* The run number, rep and thread count of the record. */
static void hb_col_run(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_long(row, (long)x->rec->run);
}

static void hb_col_rep(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_long(row, x->rec->rep);
}

static void hb_col_threads(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_long(row, x->rec->threads);
}

/* A string member of the record (arg: its offset). */
static void hb_col_rec_str(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_str(row, *(const char *const *)((const char *)x->rec + arg));
}

static void hb_col_status(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_str(row, hb_status_names[x->rec->status]);
}

/* reason: why, for any status but ok; then the processes the run left behind (any status). */
static void hb_col_reason(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    const char *why = x->rec->status == HB_OK || !x->rec->reason ? "" : x->rec->reason;
    const char *left = x->rec->res ? x->rec->res->leaked : "";
    char *both = hb_xasprintf("%s%s%s", why, *why && *left ? "; " : "", left);
    hb_csv_str(row, both);
    free(both);
}

/* exit_code: empty when not measured or killed by a signal. */
static void hb_col_exit_code(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    if (x->rec->res && !x->rec->res->signal)
        hb_csv_long(row, x->rec->res->exit_code);
    else
        hb_csv_empty(row);
}

/* signal: empty when not measured or it exited. */
static void hb_col_signal(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    if (x->rec->res && x->rec->res->signal)
        hb_csv_long(row, x->rec->res->signal);
    else
        hb_csv_empty(row);
}

/* A double member of the result (arg: its offset). */
static void hb_col_res_num(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    if (x->rec->res)
        hb_csv_num(row, *(const double *)((const char *)x->rec->res + arg));
    else
        hb_csv_empty(row);
}

/* A long member of the result (arg: its offset). */
static void hb_col_res_long(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    if (x->rec->res)
        hb_csv_long(row, *(const long *)((const char *)x->rec->res + arg));
    else
        hb_csv_empty(row);
}

static void hb_col_served_by(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_str(row, x->rec->res ? x->rec->served_by : NULL);
}

/* Perf counter arg: empty when not measured or unavailable. */
static void hb_col_counter(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    if (x->rec->res && x->rec->res->counter_ok[arg])
        hb_csv_num(row, x->rec->res->counter[arg]);
    else
        hb_csv_empty(row);
}

/* The machine's state over the run (machstate.h), field arg of the runs.csv names below: empty
 * when not measured or unavailable. */
static void hb_col_machine(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    const struct hb_mach_state *m = x->rec->res ? &x->rec->res->machine : NULL;
    const double val[] = {m ? m->load1 : 0, m ? m->steal_pct : 0, m ? m->iowait_pct : 0, m ? m->cpu_mhz : 0,
                          m ? m->others_runnable : 0};
    const int ok[] = {m && m->load1_ok, m && m->steal_ok, m && m->iowait_ok, m && m->mhz_ok, m && m->runnable_ok};
    if (ok[arg])
        hb_csv_num(row, val[arg]);
    else
        hb_csv_empty(row);
}

/* A field of phase record i (arg: its offset in struct hb_phase). */
static void hb_col_phase(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_str(row, *(char *const *)((const char *)&x->rec->phases->ph[x->i] + arg));
}

static void hb_col_rss_t(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_num(row, x->rec->res->rss[x->i].t);
}

static void hb_col_rss_kb(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_long(row, (long)x->rec->res->rss[x->i].rss_kb);
}

/* Size record i's request (arg 0) or usable size (arg 1). */
static void hb_col_size(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_str(row, x->rec->phases->sizes.v[2 * x->i + arg]);
}

/* AnonHugePages of RSS sample i: empty where it was not read. */
static void hb_col_rss_huge(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    if (x->rec->res->rss[x->i].anon_huge_kb >= 0)
        hb_csv_long(row, (long)x->rec->res->rss[x->i].anon_huge_kb);
    else
        hb_csv_empty(row);
}

/* The phase RSS sample i was taken for: empty for a periodic sample. */
static void hb_col_rss_phase(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_str(row, x->rec->res->rss[x->i].phase);
}

/* Field arg (0 phase .. 5 reason) of allocstat record i. */
static void hb_col_allocstat(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_str(row, x->rec->phases->allocstats.v[WL_ALLOCSTAT_FIELDS * x->i + arg]);
}

/* The latency entry of row x->i. */
static const struct hb_latency *hb_col_lat(const struct hb_row_ctx *x)
{
    return &x->rec->phases->lat[x->i];
}

/* A string member of the latency entry (arg: its offset). */
static void hb_col_lat_str(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_str(row, *(const char *const *)((const char *)hb_col_lat(x) + arg));
}

/* The number of timed calls. */
static void hb_col_lat_samples(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_long(row, (long)hb_col_lat(x)->samples);
}

/* A quantile (arg: its index in hb_lat_q), ns. */
static void hb_col_lat_q(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_num(row, hb_col_lat(x)->q[arg]);
}

/* A double member of the latency entry (arg: its offset): max or mean, ns. */
static void hb_col_lat_num(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    hb_csv_num(row, *(const double *)((const char *)hb_col_lat(x) + arg));
}

/* The clock's cost reported by this run's latency_clock record. */
static void hb_col_lat_clock(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_num(row, x->rec->phases->lat_clock_ns);
}

/* The clock's step (resolution) reported by this run's latency_clock record. */
static void hb_col_lat_step(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_num(row, x->rec->phases->lat_clock_step_ns);
}

/* records: "phases.csv=N rss.csv=N ..." (the rows this run has in every other file). */
static void hb_col_records(struct hb_csv *row, const struct hb_row_ctx *x, size_t arg)
{
    (void)arg;
    hb_csv_str(row, x->records);
}

/* Row counts of one run in each file but runs.csv. */
static size_t hb_count_none(const struct hb_run_record *rec)
{
    (void)rec;
    return 1;
}

static size_t hb_count_phases(const struct hb_run_record *rec)
{
    return rec->phases ? rec->phases->nph : 0;
}

static size_t hb_count_rss(const struct hb_run_record *rec)
{
    return rec->res ? rec->res->rss_len : 0;
}

static size_t hb_count_sizes(const struct hb_run_record *rec)
{
    return rec->phases ? rec->phases->sizes.n / 2 : 0;
}

static size_t hb_count_allocstats(const struct hb_run_record *rec)
{
    return rec->phases ? rec->phases->allocstats.n / WL_ALLOCSTAT_FIELDS : 0;
}

static size_t hb_count_latency(const struct hb_run_record *rec)
{
    return rec->phases ? rec->phases->nlat : 0;
}

#define REC(m) offsetof(struct hb_run_record, m)
#define RES(m) offsetof(struct hb_result, m)
#define PH(m) offsetof(struct hb_phase, m)

/* The cell key minus host, plus rep: every per-run file but rss.csv repeats it. */
#define HB_CELL_COLUMNS                                                                                   \
    {"workload", hb_col_rec_str, REC(workload)}, {"allocator", hb_col_rec_str, REC(allocator)},          \
        {"threads", hb_col_threads, 0}, {"params", hb_col_rec_str, REC(params)},                         \
        {"env", hb_col_rec_str, REC(env)}, {"rep", hb_col_rep, 0}

static const struct hb_column hb_runs_cols[] = {
    {"schema", hb_col_schema, 0},
    {"run_id", hb_col_run_id, 0},
    {"host", hb_col_host, 0},
    {"run", hb_col_run, 0},
    HB_CELL_COLUMNS,
    {"status", hb_col_status, 0},
    {"reason", hb_col_reason, 0},
    {"exit_code", hb_col_exit_code, 0},
    {"signal", hb_col_signal, 0},
    {"wall_s", hb_col_res_num, RES(wall_s)},
    {"user_s", hb_col_res_num, RES(user_s)},
    {"sys_s", hb_col_res_num, RES(sys_s)},
    {"maxrss_kb", hb_col_res_long, RES(maxrss_kb)},
    {"minflt", hb_col_res_long, RES(minflt)},
    {"majflt", hb_col_res_long, RES(majflt)},
    {"nvcsw", hb_col_res_long, RES(nvcsw)},
    {"nivcsw", hb_col_res_long, RES(nivcsw)},
    {"served_by", hb_col_served_by, 0},
    {"thp", hb_col_rec_str, REC(thp)},
    {"own_allocator", hb_col_rec_str, REC(own_allocator)},
    {"preloaded_share", hb_col_rec_str, REC(preloaded_share)},
    {"task_clock_ms", hb_col_counter, HB_CTR_TASK_CLOCK},
    {"page_faults", hb_col_counter, HB_CTR_PAGE_FAULTS},
    {"context_switches", hb_col_counter, HB_CTR_CONTEXT_SWITCHES},
    {"cpu_migrations", hb_col_counter, HB_CTR_CPU_MIGRATIONS},
    {"cycles", hb_col_counter, HB_CTR_CYCLES},
    {"instructions", hb_col_counter, HB_CTR_INSTRUCTIONS},
    {"cache_misses", hb_col_counter, HB_CTR_CACHE_MISSES},
    {"branch_misses", hb_col_counter, HB_CTR_BRANCH_MISSES},
    {"dtlb_load_misses", hb_col_counter, HB_CTR_DTLB_LOAD_MISSES},
    {"sys_mmap", hb_col_counter, HB_CTR_SYS_MMAP},
    {"sys_munmap", hb_col_counter, HB_CTR_SYS_MUNMAP},
    {"sys_mremap", hb_col_counter, HB_CTR_SYS_MREMAP},
    {"sys_madvise", hb_col_counter, HB_CTR_SYS_MADVISE},
    {"sys_brk", hb_col_counter, HB_CTR_SYS_BRK},
    {"sys_mprotect", hb_col_counter, HB_CTR_SYS_MPROTECT},
    {"load1", hb_col_machine, 0}, /* the order of hb_col_machine's fields */
    {"steal_pct", hb_col_machine, 1},
    {"iowait_pct", hb_col_machine, 2},
    {"cpu_mhz", hb_col_machine, 3},
    {"others_runnable", hb_col_machine, 4},
    {"records", hb_col_records, 0},
};

static const struct hb_column hb_phases_cols[] = {
    {"schema", hb_col_schema, 0},
    {"run_id", hb_col_run_id, 0},
    {"run", hb_col_run, 0},
    HB_CELL_COLUMNS,
    {"phase", hb_col_phase, PH(name)},
    {"seconds", hb_col_phase, PH(seconds)},
    {"ops", hb_col_phase, PH(ops)},
    {"live_bytes", hb_col_phase, PH(live_bytes)},
    {"rss_kb", hb_col_phase, PH(rss_kb)},
};

static const struct hb_column hb_rss_cols[] = {
    {"schema", hb_col_schema, 0}, {"run_id", hb_col_run_id, 0}, {"run", hb_col_run, 0},
    {"t", hb_col_rss_t, 0},       {"rss_kb", hb_col_rss_kb, 0}, {"anon_huge_kb", hb_col_rss_huge, 0},
    {"phase", hb_col_rss_phase, 0},
};

static const struct hb_column hb_sizes_cols[] = {
    {"schema", hb_col_schema, 0},  {"run_id", hb_col_run_id, 0}, {"run", hb_col_run, 0},
    {"allocator", hb_col_rec_str, REC(allocator)}, {"request", hb_col_size, 0}, {"usable", hb_col_size, 1},
};

static const struct hb_column hb_allocstats_cols[] = {
    {"schema", hb_col_schema, 0},
    {"run_id", hb_col_run_id, 0},
    {"run", hb_col_run, 0},
    HB_CELL_COLUMNS,
    {"phase", hb_col_allocstat, 0},
    {"api", hb_col_allocstat, 1},
    {"stat", hb_col_allocstat, 2},
    {"layer", hb_col_allocstat, 3},
    {"value", hb_col_allocstat, 4},
    {"reason", hb_col_allocstat, 5},
};

#define LAT(field) offsetof(struct hb_latency, field)
static const struct hb_column hb_latency_cols[] = {
    {"schema", hb_col_schema, 0},
    {"run_id", hb_col_run_id, 0},
    {"run", hb_col_run, 0},
    HB_CELL_COLUMNS,
    {"phase", hb_col_lat_str, LAT(phase)},
    {"op", hb_col_lat_str, LAT(op)},
    {"samples", hb_col_lat_samples, 0},
    {"p50", hb_col_lat_q, 0}, /* the names and order of hb_lat_q_names */
    {"p90", hb_col_lat_q, 1},
    {"p99", hb_col_lat_q, 2},
    {"p99.9", hb_col_lat_q, 3},
    {"p99.99", hb_col_lat_q, 4},
    {"max", hb_col_lat_num, LAT(max_ns)},
    {"mean", hb_col_lat_num, LAT(mean_ns)},
    {"clock_ns", hb_col_lat_clock, 0},
    {"clock_step_ns", hb_col_lat_step, 0},
    {"buckets", hb_col_lat_str, LAT(buckets)},
};

static const struct {
    const char *file;
    const struct hb_column *cols;
    size_t n;
    size_t (*count)(const struct hb_run_record *rec);
} hb_files[HB_NFILES] = {
    {"runs.csv", hb_runs_cols, sizeof hb_runs_cols / sizeof *hb_runs_cols, hb_count_none},
    {"phases.csv", hb_phases_cols, sizeof hb_phases_cols / sizeof *hb_phases_cols, hb_count_phases},
    {"rss.csv", hb_rss_cols, sizeof hb_rss_cols / sizeof *hb_rss_cols, hb_count_rss},
    {"sizes.csv", hb_sizes_cols, sizeof hb_sizes_cols / sizeof *hb_sizes_cols, hb_count_sizes},
    {"allocstats.csv", hb_allocstats_cols, sizeof hb_allocstats_cols / sizeof *hb_allocstats_cols, hb_count_allocstats},
    {"latency.csv", hb_latency_cols, sizeof hb_latency_cols / sizeof *hb_latency_cols, hb_count_latency},
};

/* How many rows of f the run has (columns.h). */
size_t hb_columns_count(enum hb_csv_file f, const struct hb_run_record *rec)
{
    return hb_files[f].count(rec);
}

/* The file's name (columns.h). */
const char *hb_columns_file(enum hb_csv_file f)
{
    return hb_files[f].file;
}

/* The file's table (columns.h). */
const struct hb_column *hb_columns(enum hb_csv_file f, size_t *n)
{
    *n = hb_files[f].n;
    return hb_files[f].cols;
}

/* The header line (columns.h). */
char *hb_columns_header(enum hb_csv_file f, const struct hb_strv *metric_names)
{
    struct hb_csv row = {0};
    for (size_t i = 0; i < hb_files[f].n; i++)
        hb_csv_str(&row, hb_files[f].cols[i].name);
    for (size_t i = 0; f == HB_RUNS && metric_names && i < metric_names->n; i++) {
        char *col = hb_xasprintf("metric_%s", metric_names->v[i]);
        hb_csv_str(&row, col);
        free(col);
    }
    hb_csv_end(&row);
    return row.buf;
}

/* One row (columns.h). */
void hb_columns_row(struct hb_csv *row, enum hb_csv_file f, const struct hb_row_ctx *x)
{
    for (size_t i = 0; i < hb_files[f].n; i++)
        hb_files[f].cols[i].write(row, x, hb_files[f].cols[i].arg);
    for (size_t i = 0; f == HB_RUNS && i < x->rec->nmetric; i++) {
        if (x->rec->metric_ok && x->rec->metric_ok[i])
            hb_csv_num(row, x->rec->metric[i]);
        else
            hb_csv_empty(row);
    }
    hb_csv_end(row);
}
