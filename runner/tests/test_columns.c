/* test_columns.c - unit tests of the results CSVs' column tables (runner/write/columns.c): each
 * file's header is the line docs/DATA.md gives for it, every row has as many fields as its
 * header, and unmeasured or unavailable figures are empty fields.
 * Always holds: the expected headers are read from docs/DATA.md (run from the project root, as
 * runner/tests/run does); the expected fields follow from the records built here.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "write/columns.h"
#include "write/csvrow.h"
#include "tcheck.h"

/* The header DATA.md shows for file: the indented lines after "### <file>", joined, without
 * the optional "[,metric_<NAME>...]" part; new string or NULL. */
static char *data_md_header(const char *text, const char *file)
{
    char *title = hb_xasprintf("\n### %s", file);
    const char *p = strstr(text, title);
    free(title);
    if (!p || !(p = strstr(p, "\n\n    ")))
        return NULL;
    struct hb_strv parts = {0};
    for (p += 2; strncmp(p, "    ", 4) == 0;) {
        size_t len = strcspn(p, "\n");
        hb_strv_pushf(&parts, "%.*s", (int)(len - 4), p + 4);
        p += len + (p[len] == '\n');
    }
    char *joined = hb_strv_join(&parts, "");
    hb_strv_free(&parts);
    char *opt = strstr(joined, "[,metric_<NAME>...]");
    if (opt)
        *opt = '\0';
    return joined;
}

/* Each table's header equals DATA.md's line. */
static void test_data_md(void)
{
    char *text = hb_read_file("docs/DATA.md", NULL);
    TCHECK("docs/DATA.md readable", text != NULL);
    for (int f = 0; text && f < HB_NFILES; f++) {
        char *want = data_md_header(text, hb_columns_file(f));
        char *got = hb_columns_header(f, NULL);
        got[strcspn(got, "\n")] = '\0';
        char name[96];
        snprintf(name, sizeof name, "%s header is DATA.md's", hb_columns_file(f));
        TCHECK(name, want && strcmp(want, got) == 0);
        if (!want || strcmp(want, got) != 0)
            printf("  DATA.md: %s\n  table:   %s\n", want ? want : "(not found)", got);
        free(want), free(got);
    }
    free(text);
}

/* The perf counter columns carry runresult.h's counter names, in enum order. */
static void test_counter_names(void)
{
    size_t n;
    const struct hb_column *c = hb_columns(HB_RUNS, &n);
    size_t first = 0;
    while (first < n && strcmp(c[first].name, hb_counter_names[0]) != 0)
        first++;
    int same = first + HB_CTR_COUNT <= n;
    for (int i = 0; same && i < HB_CTR_COUNT; i++)
        same = strcmp(c[first + i].name, hb_counter_names[i]) == 0 && c[first + i].arg == (size_t)i;
    TCHECK("runs.csv counter columns follow hb_counter_names", same);
}

/* Fields of the first line of row. */
static size_t fields_of(const struct hb_csv *row, struct hb_strv *f)
{
    size_t pos = 0;
    hb_strv_free(f);
    hb_csv_parse(row->buf, &pos, f);
    return f->n;
}

/* A skipped run and a measured run: field counts and empty figures. */
static void test_rows(void)
{
    struct hb_strv metrics = {0}, f = {0}, head = {0};
    hb_strv_push(&metrics, "rps");
    char *header = hb_columns_header(HB_RUNS, &metrics);
    size_t pos = 0;
    hb_csv_parse(header, &pos, &head);
    double mval[1] = {12.5};
    int mok[1] = {1};
    struct hb_run_record rec = {.run = 7, .rep = 2, .workload = "w", .allocator = "a", .params = "--x=1,2",
                                .env = "", .threads = 4, .status = HB_SKIPPED, .reason = "not installed",
                                .metric = mval, .metric_ok = mok, .nmetric = 1};
    struct hb_row_ctx x = {"id", "host", &rec, 0, "phases.csv=0"};
    struct hb_csv row = {0};
    hb_columns_row(&row, HB_RUNS, &x);
    TCHECK("skipped row has the header's field count", fields_of(&row, &f) == head.n);
    int wall = hb_strv_find(&head, "wall_s"), status = hb_strv_find(&head, "status");
    int rps = hb_strv_find(&head, "metric_rps"), params = hb_strv_find(&head, "params");
    TCHECK("skipped row: status, reason, params kept whole", f.n == head.n && !strcmp(f.v[status], "skipped") &&
                                                                  !strcmp(f.v[params], "--x=1,2"));
    TCHECK("skipped row: wall_s empty", f.n == head.n && wall >= 0 && f.v[wall][0] == '\0');
    TCHECK("metric column last with its value", rps == (int)head.n - 1 && f.n == head.n && !strcmp(f.v[rps], "12.5"));

    struct hb_result res;
    memset(&res, 0, sizeof res);
    res.wall_s = 0.25;
    res.signal = 9;
    res.exit_code = -1;
    res.counter_ok[HB_CTR_CYCLES] = 0;
    res.counter_ok[HB_CTR_TASK_CLOCK] = 1;
    res.counter[HB_CTR_TASK_CLOCK] = 3;
    rec.res = &res;
    rec.status = HB_CRASHED;
    hb_csv_reset(&row);
    hb_columns_row(&row, HB_RUNS, &x);
    fields_of(&row, &f);
    int sig = hb_strv_find(&head, "signal"), code = hb_strv_find(&head, "exit_code");
    int cyc = hb_strv_find(&head, "cycles"), tc = hb_strv_find(&head, "task_clock_ms");
    TCHECK("measured row has the header's field count", f.n == head.n);
    TCHECK("killed run: signal set, exit_code empty", f.n == head.n && !strcmp(f.v[sig], "9") && !f.v[code][0]);
    TCHECK("unavailable counter empty, available one written",
           f.n == head.n && !f.v[cyc][0] && !strcmp(f.v[tc], "3") && !strcmp(f.v[wall], "0.25"));
    hb_csv_free(&row);
    hb_strv_free(&f), hb_strv_free(&head), hb_strv_free(&metrics);
    free(header);
}

/* A latency row: the header's field count, no empty field, the buckets kept whole (quoted). */
static void test_latency_row(void)
{
    struct hb_strv f = {0}, head = {0};
    char *header = hb_columns_header(HB_LATENCY, NULL);
    size_t pos = 0;
    hb_csv_parse(header, &pos, &head);
    struct hb_latency lat = {.phase = "churn", .op = "malloc", .buckets = "20:500,30:400,506:100", .samples = 1000,
                             .sum_ns = 122000, .max_ns = 1002, .mean_ns = 122, .q = {20, 30, 1001.5, 1001.5, 1001.5}};
    struct hb_phase_report phases = {.lat = &lat, .nlat = 1, .lat_clock = "rdtsc", .lat_clock_ns = 20,
                                     .lat_clock_step_ns = 10.019};
    struct hb_run_record rec = {.run = 3, .rep = 1, .workload = "w", .allocator = "a", .params = "", .env = "",
                                .threads = 2, .status = HB_OK, .phases = &phases};
    struct hb_row_ctx x = {"id", "host", &rec, 0, ""};
    struct hb_csv row = {0};
    hb_columns_row(&row, HB_LATENCY, &x);
    int empty = 0, params = hb_strv_find(&head, "params"), env = hb_strv_find(&head, "env");
    TCHECK("latency row has the header's field count", fields_of(&row, &f) == head.n);
    for (size_t i = 0; i < f.n; i++)
        empty |= f.v[i][0] == '\0' && (int)i != params && (int)i != env;
    TCHECK("latency row: no empty field (but the empty params and env)", f.n == head.n && !empty);
    int b = hb_strv_find(&head, "buckets"), p99 = hb_strv_find(&head, "p99");
    TCHECK("latency row: buckets whole, p99 written", f.n == head.n && !strcmp(f.v[b], lat.buckets) &&
                                                          !strcmp(f.v[p99], "1001.5"));
    int step = hb_strv_find(&head, "clock_step_ns");
    TCHECK("latency row: the clock's step written", step >= 0 && f.n == head.n && !strcmp(f.v[step], "10.019"));
    hb_csv_free(&row);
    hb_strv_free(&f), hb_strv_free(&head);
    free(header);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_data_md();
    test_counter_names();
    test_rows();
    test_latency_row();
    return tcheck_summary();
}
