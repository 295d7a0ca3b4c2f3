/* integrity.c - checks and repairs the CSVs of a results directory (see integrity.h).
 *
 * Always holds: a row is kept only when it is a whole record (ends in a newline, as many fields
 * as its header, a positive run number) of a run whose runs.csv row is kept; a runs.csv row is
 * kept only when it is the first of its run number and of its (cell, rep) and its "records"
 * counts match the other files (a file that does not exist has no rows, and is never created
 * here: resume creates it with its header). The scan never writes unless asked to repair.
 */
#include "write/integrity.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/columns.h"
#include "write/csvrow.h"

/* One record of a file: its bytes [start, end) of the text. */
struct hb_irow {
    size_t start, end;
    long run;
    int keep;
};

struct hb_ifile {
    const char *name;
    char *text;
    size_t hdr_end;
    struct hb_strv header;
    struct hb_irow *rows;
    size_t n;
    int run_col;
};

/* A kept runs.csv row: its run number and whether its run is whole. */
struct hb_irun {
    long run;
    size_t row;
    int alive;
    char *key;
};

/* The run number of a field, or -1 when it is not a positive integer. */
static long hb_integrity_run_number(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return *s && !*end && !errno && v > 0 ? v : -1;
}

/* Reads and splits one file into records; defects into problems. 0 or -1 (unreadable). A file
 * other than runs.csv that does not exist (a directory of a heapbench older than that file) is
 * loaded as one with no rows: it is a defect only of the runs whose records count rows in it. */
static int hb_integrity_load(const char *dir, struct hb_ifile *f, int is_runs, struct hb_strv *problems)
{
    char *path = hb_xasprintf("%s/%s", dir, f->name);
    f->text = hb_read_file(path, NULL);
    if (!f->text && errno == ENOENT && !is_runs) {
        free(path);
        f->text = hb_xstrdup("");
        f->run_col = 0; /* no rows: every run's count of them is 0 */
        return 0;
    }
    if (!f->text) {
        hb_strv_pushf(problems, "%s: cannot read it: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    free(path);
    size_t pos = 0;
    if (hb_csv_parse(f->text, &pos, &f->header) != 0 || f->text[pos - 1] != '\n') {
        hb_strv_pushf(problems, "%s: no header line", f->name);
        return -1;
    }
    f->hdr_end = pos;
    f->run_col = hb_strv_find(&f->header, "run");
    size_t cap = 0;
    for (struct hb_strv fl = {0};; hb_strv_free(&fl)) {
        size_t start = pos;
        if (hb_csv_parse(f->text, &pos, &fl) != 0)
            break;
        if (f->n == cap)
            f->rows = hb_xrealloc(f->rows, (cap = cap ? 2 * cap : 256) * sizeof *f->rows);
        struct hb_irow *r = &f->rows[f->n++];
        int whole = f->text[pos - 1] == '\n' && fl.n == f->header.n;
        *r = (struct hb_irow){start, pos, whole && f->run_col >= 0 ? hb_integrity_run_number(fl.v[f->run_col]) : 0,
                              whole};
        if (!whole && !f->text[pos])
            hb_strv_pushf(problems, "%s: the last line is partial (a write cut short)", f->name);
        else if (!whole || r->run < 0)
            hb_strv_pushf(problems, "%s: malformed row at byte %zu", f->name, start);
        r->keep = whole && r->run >= 0;
    }
    return 0;
}

static int hb_irun_by_run(const void *a, const void *b)
{
    const struct hb_irun *x = a, *y = b;
    return x->run != y->run ? (x->run < y->run ? -1 : 1) : (x->row > y->row) - (x->row < y->row);
}

static int hb_irun_by_key(const void *a, const void *b)
{
    const struct hb_irun *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* The fields of row i of f (new vector). */
static void hb_integrity_fields(const struct hb_ifile *f, size_t i, struct hb_strv *out)
{
    size_t pos = f->rows[i].start;
    hb_csv_parse(f->text, &pos, out);
}

/* The cell key and rep of a runs.csv row, joined by '\x1f'. */
static char *hb_integrity_key(const struct hb_ifile *runs, const struct hb_strv *fl)
{
    static const char *const cols[] = {"host", "workload", "allocator", "threads", "params", "env", "rep"};
    struct hb_strv parts = {0};
    for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
        int i = hb_strv_find(&runs->header, cols[c]);
        hb_strv_push(&parts, i >= 0 ? fl->v[i] : "");
    }
    char *key = hb_strv_join(&parts, "\x1f");
    hb_strv_free(&parts);
    return key;
}

/* Drops the later rows of a run number or of a (cell, rep) of runs.csv; the kept runs sorted by
 * run number in *out. */
static size_t hb_integrity_runs(struct hb_ifile *runs, struct hb_irun **out, struct hb_strv *problems)
{
    struct hb_irun *v = hb_xcalloc(runs->n + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < runs->n; i++) {
        if (!runs->rows[i].keep)
            continue;
        struct hb_strv fl = {0};
        hb_integrity_fields(runs, i, &fl);
        v[n++] = (struct hb_irun){runs->rows[i].run, i, 1, hb_integrity_key(runs, &fl)};
        hb_strv_free(&fl);
    }
    qsort(v, n, sizeof *v, hb_irun_by_key);
    for (size_t i = 1, first = 0; i < n; i++) { /* first: the earliest row of the current key */
        if (strcmp(v[i].key, v[first].key) != 0) {
            first = i;
            continue;
        }
        runs->rows[v[i].row].keep = 0;
        hb_strv_pushf(problems, "runs.csv: run %ld repeats the cell and rep of an earlier row", v[i].run);
    }
    qsort(v, n, sizeof *v, hb_irun_by_run);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept && v[kept - 1].run == v[i].run && runs->rows[v[i].row].keep) {
            runs->rows[v[i].row].keep = 0;
            hb_strv_pushf(problems, "runs.csv: run number %ld has two rows", v[i].run);
        }
        if (runs->rows[v[i].row].keep)
            v[kept++] = v[i];
        else
            free(v[i].key);
    }
    *out = v;
    return kept;
}

/* The kept run numbered run, or NULL. */
static struct hb_irun *hb_integrity_find(struct hb_irun *v, size_t n, long run)
{
    struct hb_irun k = {run, 0, 0, NULL};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].run == run)
            return &v[mid];
        if (hb_irun_by_run(&v[mid], &k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The count runs.csv's records column gives for file name, or -1 when it names none. */
static long hb_integrity_expected(const char *records, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = records; (p = strstr(p, name)) != NULL; p += len) {
        if ((p != records && p[-1] != ' ') || p[len] != '=')
            continue;
        char *end;
        long v = strtol(p + len + 1, &end, 10);
        return end > p + len + 1 && (*end == ' ' || !*end) && v >= 0 ? v : -1;
    }
    return -1;
}

/* Compares each kept run's records column with its rows in file f; a run that differs is not
 * alive (its rows go). */
static void hb_integrity_counts(struct hb_ifile *runs, struct hb_ifile *f, struct hb_irun *v, size_t n,
                                struct hb_strv *problems)
{
    int rc = hb_strv_find(&runs->header, "records");
    if (f->run_col < 0 || rc < 0)
        return;
    size_t *count = hb_xcalloc(n + 1, sizeof *count);
    for (size_t i = 0; i < f->n; i++) {
        struct hb_irun *r = f->rows[i].keep ? hb_integrity_find(v, n, f->rows[i].run) : NULL;
        if (r)
            count[r - v]++;
    }
    for (size_t i = 0; i < n; i++) {
        struct hb_strv fl = {0};
        hb_integrity_fields(runs, v[i].row, &fl);
        long want = hb_integrity_expected(fl.v[rc], f->name);
        if (want >= 0 && (size_t)want != count[i]) {
            hb_strv_pushf(problems, "run %ld: %s has %zu of its %ld rows", v[i].run, f->name, count[i], want);
            v[i].alive = 0;
        }
        hb_strv_free(&fl);
    }
    free(count);
}

/* Drops the rows of runs that are not alive or have no runs.csv row; notes the latter. */
static void hb_integrity_prune(struct hb_ifile *f, int is_runs, struct hb_irun *v, size_t n, struct hb_strv *notes)
{
    size_t orphans = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (!f->rows[i].keep || f->run_col < 0)
            continue;
        struct hb_irun *r = hb_integrity_find(v, n, f->rows[i].run);
        if (!r && !is_runs)
            orphans++;
        if (!r || !r->alive)
            f->rows[i].keep = 0;
    }
    if (orphans)
        hb_strv_pushf(notes, "%s: %zu rows of runs that have no runs.csv row (a run stopped before its end)",
                      f->name, orphans);
}

/* Rewrites f with its kept rows when it lost any. 0 or -1. */
static int hb_integrity_rewrite(const char *dir, const struct hb_ifile *f, struct hb_strv *problems)
{
    size_t kept = 0, len = f->hdr_end;
    for (size_t i = 0; i < f->n; i++)
        if (f->rows[i].keep)
            kept++, len += f->rows[i].end - f->rows[i].start;
    if (kept == f->n)
        return 0;
    char *buf = hb_xmalloc(len + 1), *p = buf;
    memcpy(p, f->text, f->hdr_end);
    p += f->hdr_end;
    for (size_t i = 0; i < f->n; i++)
        if (f->rows[i].keep) {
            memcpy(p, f->text + f->rows[i].start, f->rows[i].end - f->rows[i].start);
            p += f->rows[i].end - f->rows[i].start;
        }
    char *path = hb_xasprintf("%s/%s", dir, f->name);
    int rc = hb_write_file_atomic(path, buf, len);
    if (rc != 0)
        hb_strv_pushf(problems, "cannot rewrite %s: %s; free some space and resume again", path, strerror(errno));
    free(path), free(buf);
    return rc;
}

/* The scan (integrity.h). */
int hb_integrity_scan(const char *dir, int repair, struct hb_strv *problems, struct hb_strv *notes)
{
    struct hb_ifile files[HB_NFILES];
    memset(files, 0, sizeof files);
    size_t before = problems->n;
    int failed = 0;
    for (int f = 0; f < HB_NFILES; f++) {
        files[f].name = hb_columns_file(f);
        failed |= hb_integrity_load(dir, &files[f], f == HB_RUNS, problems) != 0;
    }
    if (!failed && files[HB_RUNS].run_col < 0) {
        hb_strv_push(problems, "runs.csv: no 'run' column; not a heapbench runs.csv");
        failed = 1;
    }
    struct hb_irun *v = NULL;
    size_t n = failed ? 0 : hb_integrity_runs(&files[HB_RUNS], &v, problems);
    for (int f = HB_RUNS + 1; f < HB_NFILES && !failed; f++)
        hb_integrity_counts(&files[HB_RUNS], &files[f], v, n, problems);
    for (int f = 0; f < HB_NFILES && !failed; f++)
        hb_integrity_prune(&files[f], f == HB_RUNS, v, n, notes);
    for (int f = 0; f < HB_NFILES && !failed && repair; f++)
        failed |= hb_integrity_rewrite(dir, &files[f], problems) != 0;
    for (size_t i = 0; i < n; i++)
        free(v[i].key);
    free(v);
    for (int f = 0; f < HB_NFILES; f++)
        free(files[f].text), free(files[f].rows), hb_strv_free(&files[f].header);
    return failed ? -1 : (int)(problems->n - before);
}
