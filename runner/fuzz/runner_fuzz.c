/* runner_fuzz.c - libFuzzer target for the runner's parsers of text it did not write itself:
 * the first input byte picks the parser, the rest is its text.
 *   0 allocators/registry.txt (hb_registry_parse)   1 workloads/LIST (hb_worklist_parse)
 *   2 exec/programs/NAME.prog (hb_program_parse, then the argv of its command and driver)
 *   3 --params/--env/--wrap splitting (hb_strv_split on blanks, commas, ';')
 *   4 CSV rows (hb_csv_parse to the end)   5 meta.json read back by --resume (cJSON: argv, run_id)
 *     and judged by check (hb_content_scan, with target 8's last CSVs beside it)
 *   6 the phase protocol (hb_phase_parse + hb_phase_judge)   7 --metric NAME=REGEX and its extraction
 *   8 a results directory (hb_integrity_scan, check and repair): NUL bytes split the input into
 *     runs.csv, phases.csv, rss.csv, sizes.csv, allocstats.csv, latency.csv, written to a private
 *     temporary directory (a part that is the byte 0x01 alone: that file is absent, as in a
 *     directory of an older heapbench), then judged by check's value rules (hb_content_scan)
 *   9 a workload's --describe (hb_describe_parse, then every parameter's range and accepts)
 *  10 a trace file (contract/trace.c: hbt_open, then every thread's events through hbt_next, twice:
 *     no object consumed as the other class, heap block or mapping), written to the same directory;
 *     an opened trace counts no more events than half its bytes and no more objects than events
 * Always holds: every parser gets a NUL-terminated copy; anything it allocates is freed, so
 * AddressSanitizer's leak check and any crash, hang or exit() is a finding. Built with clang
 * -fsanitize=fuzzer,address,undefined from the runner's sources (runner/rules.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/columns.h"
#include "cli/content.h"
#include "write/csvrow.h"
#include "plan/describe.h"
#include "write/integrity.h"
#include "write/json.h"
#include "measure/metric.h"
#include "measure/phases.h"
#include "plan/program.h"
#include "plan/registry.h"
#include "trace.h"
#include "plan/worklist.h"

static char fz_dir[64];

/* The private directory of target 8, removed at exit. */
static void fz_cleanup(void)
{
    for (int f = 0; f < HB_NFILES; f++) {
        char *path = hb_xasprintf("%s/%s", fz_dir, hb_columns_file(f));
        unlink(path);
        free(path);
    }
    char *trace = hb_xasprintf("%s/fz.hbt", fz_dir), *meta = hb_xasprintf("%s/meta.json", fz_dir);
    unlink(trace), unlink(meta);
    free(trace), free(meta);
    rmdir(fz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(fz_dir, sizeof fz_dir, "%s/hb-fuzz.XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(fz_dir))
        abort();
    atexit(fz_cleanup);
    return 0;
}

static void fz_registry(const char *text)
{
    struct hb_registry reg = {0};
    char err[256];
    hb_registry_parse(&reg, text, err, sizeof err);
    hb_registry_free(&reg);
}

static void fz_worklist(const char *text)
{
    struct hb_worklist wl = {0};
    char err[256];
    hb_worklist_parse(&wl, text, err, sizeof err);
    hb_worklist_free(&wl);
}

static void fz_program(const char *text)
{
    struct hb_program p;
    char err[256];
    memset(&p, 0, sizeof p);
    if (hb_program_parse(&p, "fz", text, err, sizeof err) == 0) {
        struct hb_strv argv = {0};
        hb_program_argv(&p, p.command, &argv);
        if (p.driver)
            hb_program_argv(&p, p.driver, &argv);
        hb_strv_free(&argv);
    }
    hb_program_free(&p);
}

static void fz_split(const char *text)
{
    static const char *const seps[] = {" \t", ",", ";", ":"};
    for (int i = 0; i < 4; i++) {
        struct hb_strv sv = {0};
        hb_strv_split(&sv, text, seps[i], i & 1);
        char *joined = hb_strv_join(&sv, seps[i]);
        free(joined);
        hb_strv_free(&sv);
    }
}

static void fz_csv(const char *text)
{
    size_t pos = 0, len = strlen(text);
    for (struct hb_strv f = {0}; hb_csv_parse(text, &pos, &f) == 0; hb_strv_free(&f))
        if (pos > len) /* the parser must never step past the end */
            abort();
}

static void fz_json(const char *text)
{
    struct hb_strv argv = {0};
    hb_json_get_strv(text, "argv", &argv);
    hb_strv_free(&argv);
    free(hb_json_get_str(text, "run_id"));
    free(hb_json_get_str(text, "start"));
    hb_json_get_bool(text, "complete");
    char *path = hb_xasprintf("%s/meta.json", fz_dir);
    if (hb_write_file_atomic(path, text, strlen(text)) != 0)
        abort();
    struct hb_strv problems = {0};
    hb_content_scan(fz_dir, &problems);
    hb_strv_free(&problems);
    free(path);
}

static void fz_phases(const char *text)
{
    struct hb_phase_report rep;
    struct hb_result res;
    memset(&res, 0, sizeof res);
    hb_phase_parse(text, &rep);
    hb_phase_judge(&rep, "/lib/x86_64-linux-gnu/libc.so.6", &res);
    hb_phase_report_free(&rep);
}

static void fz_metric(const char *text)
{
    const char *nl = strchr(text, '\n');
    char *spec = nl ? hb_xasprintf("%.*s", (int)(nl - text), text) : hb_xstrdup(text);
    struct hb_metric m;
    char err[256];
    double v;
    char got[64], why[256];
    if (strlen(spec) < 200 && hb_metric_parse(&m, spec, err, sizeof err) == 0) {
        enum hb_metric_found found = hb_metric_extract(&m, nl ? nl + 1 : "", &v, got, sizeof got);
        if (found != HB_METRIC_VALUE)
            hb_metric_reason(&m, found, got, "last line", why, sizeof why);
        hb_metric_free(&m);
    }
    free(spec);
}

/* Target 8: the input's NUL-separated parts as the directory's CSVs, then check and repair. */
static void fz_results(const uint8_t *data, size_t size)
{
    size_t at = 0;
    for (int f = 0; f < HB_NFILES; f++) {
        size_t end = at;
        while (end < size && data[end])
            end++;
        char *path = hb_xasprintf("%s/%s", fz_dir, hb_columns_file(f));
        if (f != HB_RUNS && end - at == 1 && data[at] == 0x01) /* the byte 0x01 alone: the file is absent */
            unlink(path);
        else if (hb_write_file_atomic(path, (const char *)data + at, end - at) != 0)
            abort();
        free(path);
        at = end < size ? end + 1 : end;
    }
    struct hb_strv defects = {0};
    hb_content_scan(fz_dir, &defects);
    for (size_t i = 0; i < defects.n; i++) /* each defect is one line */
        if (strchr(defects.v[i], '\n'))
            abort();
    hb_strv_free(&defects);
    for (int repair = 0; repair <= 1; repair++) {
        struct hb_strv problems = {0}, notes = {0};
        int found = hb_integrity_scan(fz_dir, repair, &problems, &notes);
        hb_strv_free(&problems), hb_strv_free(&notes);
        if (repair && found >= 0) { /* a repaired directory must then be whole */
            struct hb_strv p2 = {0}, n2 = {0};
            int again = hb_integrity_scan(fz_dir, 0, &p2, &n2);
            if (again != 0 || n2.n) { /* say what the repair left, then report the finding */
                for (size_t i = 0; i < p2.n; i++)
                    fprintf(stderr, "after repair: %s\n", p2.v[i]);
                for (size_t i = 0; i < n2.n; i++)
                    fprintf(stderr, "after repair: note: %s\n", n2.v[i]);
                abort();
            }
            hb_strv_free(&p2), hb_strv_free(&n2);
        }
    }
}

/* One pass over every thread of an opened trace: pass 0 notes each object's class (1 heap
 * block, 2 mapping) in cls; pass 1 aborts when an event consumes an object as the other class
 * (the replayer would free a mapping or unmap a block). Any cursor error aborts. */
static void fz_trace_pass(const struct hbt_trace *t, uint8_t *cls, int pass)
{
    for (uint32_t th = 0; th < t->nthreads; th++) {
        struct hbt_cursor c;
        struct hbt_event e;
        int r;
        hbt_cursor_init(&c, t, (uint16_t)th);
        while ((r = hbt_next(&c, &e)) == 1) {
            if (pass == 0 && hbt_produces(&e))
                cls[e.prod] = e.kind == HBT_MMAP ? 2 : 1;
            if (pass == 1 && hbt_consumes(&e) && cls[e.ref] != (e.kind == HBT_MUNMAP ? 2 : 1))
                abort();
        }
        if (r < 0) /* hbt_open decoded every event: a cursor may not fail after it */
            abort();
    }
}

/* Target 10: the input as a trace file; an opened trace must decode to its end without error,
 * each object consumed as what it is. */
static void fz_trace(const uint8_t *data, size_t size)
{
    char *path = hb_xasprintf("%s/fz.hbt", fz_dir);
    if (hb_write_file_atomic(path, (const char *)data, size) != 0)
        abort();
    struct hbt_trace t;
    char err[256];
    if (hbt_open(path, &t, err, sizeof err) == 0) {
        if (t.objects > t.ops || t.ops > size / 2) /* every count (and what is mapped for it) is bounded by the file */
            abort();
        uint8_t *cls = calloc(t.objects ? t.objects : 1, 1);
        if (!cls)
            abort();
        fz_trace_pass(&t, cls, 0);
        fz_trace_pass(&t, cls, 1);
        free(cls);
        hbt_close(&t);
    } else if (!err[0] || strchr(err, '\n')) { /* a refusal is one line that says why */
        abort();
    }
    free(path);
}

static void fz_describe(const char *text)
{
    struct hb_describe d;
    long long lo, hi;
    hb_describe_parse(&d, text);
    for (size_t i = 0; i < d.n; i++) {
        hb_describe_range(&d.p[i], &lo, &hi);
        hb_describe_accepts(&d.p[i], d.p[i].def);
        hb_describe_accepts(&d.p[i], d.p[(i + 1) % d.n].name);
    }
    hb_describe_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    unsigned which = data[0] % 11;
    if (which == 8 || which == 10) {
        (which == 8 ? fz_results : fz_trace)(data + 1, size - 1);
        return 0;
    }
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    void (*const parse[])(const char *) = {fz_registry, fz_worklist, fz_program, fz_split,
                                           fz_csv,      fz_json,     fz_phases,  fz_metric,
                                           NULL,        fz_describe};
    parse[which](text);
    free(text);
    return 0;
}
