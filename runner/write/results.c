/* results.c - creates and appends to a results directory (see results.h).
 *
 * Always holds: a CSV is never visible without its header line; rows are written whole; one
 * process at a time writes a directory (flock on DIR/.lock, which holds the writer's pid).
 */
#include "write/results.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/layout.h"
#include <sys/file.h>

#include "write/csvrow.h"
#include "write/integrity.h"
#include "base/sysinfo.h"

/* Path inside the directory. */
char *hb_results_path(const struct hb_results *r, const char *name)
{
    return hb_xasprintf("%s/%s", r->dir, name);
}

/* Opens every CSV for appending; exits 2 when one cannot be opened. A file other than runs.csv
 * that a directory of an older heapbench lacks (latency.csv) is created with its header first. */
static void hb_results_open_files(struct hb_results *r)
{
    for (int f = 0; f < HB_NFILES; f++) {
        char *path = hb_results_path(r, hb_columns_file(f));
        if (f != HB_RUNS && access(path, F_OK) != 0) {
            char *h = hb_columns_header(f, NULL);
            hb_write_file_atomic(path, h, strlen(h));
            free(h);
        }
        r->fd[f] = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (r->fd[f] < 0)
            hb_usage("cannot open %s: %s; give a writable results directory", path, strerror(errno));
        free(path);
    }
}

/* Takes DIR/.lock (exits 2 naming the pid that holds it); kept until the process ends. */
static void hb_results_lock(struct hb_results *r)
{
    char *path = hb_results_path(r, ".lock");
    r->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (r->lock_fd < 0)
        hb_usage("cannot create %s: %s; give a writable results directory", path, strerror(errno));
    if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(r->lock_fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? strcspn(pid, "\n") : 0] = '\0';
        if (!pid[0])
            hb_usage("%s is being written by another heapbench (it holds %s, which names no pid yet: it has just "
                     "started); wait for it to end (or stop that run) before writing there", r->dir, path);
        hb_usage("%s is being written by heapbench pid %s; wait for it to end (or stop it) before writing there",
                 r->dir, pid);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(r->lock_fd, 0) != 0 || pwrite(r->lock_fd, pid, (size_t)len, 0) != len)
        fprintf(stderr, "heapbench: cannot write the pid into %s: %s\n", path, strerror(errno));
    free(path);
}

/* 1 when the directory holds no meta.json and runs.csv no row: a run cut while creating it (a full
 * disk before meta.json), which nothing was measured into, so a new run may start over in it. */
static int hb_results_unstarted(const struct hb_results *r)
{
    char *meta = hb_results_path(r, "meta.json"), *runs = hb_results_path(r, "runs.csv");
    size_t len = 0;
    char *text = access(meta, F_OK) != 0 ? hb_read_file(runs, &len) : NULL;
    const char *nl = text ? memchr(text, '\n', len) : NULL;
    int unstarted = text && (!nl || (size_t)(nl - text) + 1 == len);
    free(meta), free(runs), free(text);
    return unstarted;
}

/* mkdir that accepts an existing directory. */
static int hb_mkdir_ok(const char *path)
{
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* Creates the directory, the CSVs with headers, logs/ and work/. */
void hb_results_create(struct hb_results *r, const char *outdir, const struct hb_strv *metric_names)
{
    memset(r, 0, sizeof *r);
    r->host = hb_sys_host();
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (outdir) {
        r->dir = hb_xstrdup(outdir);
        /* its missing parents too, as the docs' `run -o results/r42` on a tree with no results/ yet */
        if (hb_mkdir_p(r->dir) != 0 || access(r->dir, W_OK) != 0)
            hb_usage("cannot write output directory %s: %s; choose another with -o DIR", r->dir, strerror(errno));
        hb_results_lock(r);
        char *old = hb_results_path(r, "runs.csv");
        if (access(old, F_OK) == 0 && !hb_results_unstarted(r))
            hb_usage("%s already holds results; finish it with --resume %s or choose another -o DIR", r->dir, r->dir);
        if (access(old, F_OK) == 0)
            fprintf(stderr, "heapbench: %s has no meta.json and no measured run (a run cut while creating it); "
                    "starting it again\n", r->dir);
        free(old);
        const char *base = strrchr(r->dir, '/');
        r->run_id = hb_xstrdup(base && base[1] ? base + 1 : r->dir);
    } else {
        char *results = hb_results_dir();
        if (hb_mkdir_ok(results) != 0)
            hb_usage("cannot create %s: %s; choose an output directory with -o DIR", results, strerror(errno));
        for (int n = 1; !r->dir; n++) {
            char *id = n == 1 ? hb_xasprintf("%s-%s", stamp, r->host) : hb_xasprintf("%s-%s-%d", stamp, r->host, n);
            char *dir = hb_xasprintf("%s/%s", results, id);
            if (mkdir(dir, 0755) == 0) {
                r->dir = dir;
                r->run_id = id;
                hb_results_lock(r);
            } else if (errno != EEXIST) {
                hb_usage("cannot create %s: %s; choose an output directory with -o DIR", dir, strerror(errno));
            } else {
                free(dir), free(id);
            }
        }
        free(results);
    }
    for (int f = 0; f < HB_NFILES; f++) {
        char *path = hb_results_path(r, hb_columns_file(f));
        char *h = hb_columns_header(f, metric_names);
        if (hb_write_file_atomic(path, h, strlen(h)) != 0)
            hb_usage("cannot write %s: %s; choose a writable output directory with -o DIR", path, strerror(errno));
        free(path), free(h);
    }
    char *logs = hb_results_path(r, "logs"), *work = hb_results_path(r, "work");
    if (hb_mkdir_ok(logs) != 0 || hb_mkdir_ok(work) != 0)
        hb_usage("cannot create %s: %s; choose a writable output directory with -o DIR", logs, strerror(errno));
    free(logs), free(work);
    hb_results_open_files(r);
}

/* The columns of the header line of path (empty when it cannot be read). */
static void hb_results_file_header(const char *path, struct hb_strv *cols)
{
    FILE *in = fopen(path, "re");
    char *line = NULL;
    size_t cap = 0, pos = 0;
    if (in && getline(&line, &cap, in) > 0)
        hb_csv_parse(line, &pos, cols);
    if (in)
        fclose(in);
    free(line);
}

/* 1 when a and b hold the same columns in the same order. */
static int hb_results_same(const struct hb_strv *a, const struct hb_strv *b)
{
    size_t i = 0;
    while (a->n == b->n && i < a->n && strcmp(a->v[i], b->v[i]) == 0)
        i++;
    return a->n == b->n && i == a->n;
}

/* The columns of a that b lacks, comma-separated ("" when none); new string. */
static char *hb_results_missing(const struct hb_strv *a, const struct hb_strv *b)
{
    char *out = hb_xstrdup("");
    for (size_t i = 0; i < a->n; i++)
        if (hb_strv_find(b, a->v[i]) < 0) {
            char *more = hb_xasprintf("%s%s%s", out, *out ? "," : "", a->v[i]);
            free(out);
            out = more;
        }
    return out;
}

/* Exits 2 when a CSV of dir has another header than this heapbench writes (a directory of an
 * older or newer version): its rows would have more or fewer fields than its header. A file
 * that is not there yet is created with the right header later (hb_results_open_files). */
static void hb_results_check_headers(const struct hb_results *r, const struct hb_strv *metric_names)
{
    for (int f = 0; f < HB_NFILES; f++) {
        char *path = hb_results_path(r, hb_columns_file(f)), *h = hb_columns_header(f, f == HB_RUNS ? metric_names : NULL);
        struct hb_strv have = {0}, want = {0};
        size_t pos = 0;
        hb_csv_parse(h, &pos, &want);
        if (access(path, F_OK) == 0)
            hb_results_file_header(path, &have);
        if (have.n && !hb_results_same(&have, &want)) {
            char *added = hb_results_missing(&want, &have), *gone = hb_results_missing(&have, &want);
            hb_usage("--resume %s: %s was written by another heapbench version (%s%s%s%s%s): rows written now would "
                     "not match its header; run the same command into a new directory (-o DIR)", r->dir,
                     hb_columns_file(f), *added ? "this version adds " : "", added, *added && *gone ? "; " : "",
                     *gone ? "it has columns this version does not write: " : "", *added || *gone ? gone : "its columns in another order");
        }
        hb_strv_free(&have), hb_strv_free(&want);
        free(path), free(h);
    }
}

/* Reopens an existing directory. */
void hb_results_reopen(struct hb_results *r, const char *dir, const char *run_id, const struct hb_strv *metric_names)
{
    memset(r, 0, sizeof *r);
    r->host = hb_sys_host();
    r->dir = hb_xstrdup(dir);
    r->run_id = hb_xstrdup(run_id);
    hb_results_lock(r);
    hb_results_check_headers(r, metric_names);
    struct hb_strv problems = {0}, notes = {0};
    int found = hb_integrity_scan(dir, 1, &problems, &notes);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "heapbench: --resume %s: %s%s\n", dir, problems.v[i], found < 0 ? "" : "; measured again");
    for (size_t i = 0; i < notes.n; i++)
        fprintf(stderr, "heapbench: --resume %s: %s; dropped, measured again\n", dir, notes.v[i]);
    hb_strv_free(&problems), hb_strv_free(&notes);
    if (found < 0)
        hb_fatal("--resume %s: the directory could not be repaired (above); nothing was run", dir);
    hb_results_open_files(r);
}

/* One write(2) of the whole buffer. */
int hb_results_append(struct hb_results *r, enum hb_csv_file f, struct hb_csv *row)
{
    int rc = 0;
    if (row->len) {
        ssize_t w = write(r->fd[f], row->buf, row->len);
        rc = w == (ssize_t)row->len ? 0 : -1;
    }
    hb_csv_reset(row);
    return rc;
}

/* results/latest -> the directory, via a temporary link renamed over it; only for a directory
 * under results/ (latest means "the latest run under results/"). */
void hb_results_link_latest(const struct hb_results *r)
{
    char *results = hb_results_dir();
    char real[PATH_MAX], realres[PATH_MAX];
    int have_results = realpath(results, realres) != NULL;
    if (!have_results && errno == ENOENT) { /* no results/: -o is outside it, nothing to link */
        free(results);
        return;
    }
    if (!have_results || !realpath(r->dir, real)) {
        fprintf(stderr, "heapbench: could not update %s/latest: %s\n", results, strerror(errno));
        free(results);
        return;
    }
    size_t n = strlen(realres);
    if (strncmp(real, realres, n) != 0 || real[n] != '/') { /* -o outside results/: latest stays */
        free(results);
        return;
    }
    const char *target = real + n + 1;
    char *tmp = hb_xasprintf("%s/.latest.%d", results, (int)getpid());
    char *latest = hb_xasprintf("%s/latest", results);
    unlink(tmp);
    if (symlink(target, tmp) != 0 || rename(tmp, latest) != 0) {
        fprintf(stderr, "heapbench: could not update %s: %s\n", latest, strerror(errno));
        unlink(tmp);
    }
    free(tmp), free(latest), free(results);
}

/* Closes the files and frees the names. */
void hb_results_close(struct hb_results *r)
{
    for (int f = 0; f < HB_NFILES; f++)
        if (r->fd[f] > 0)
            close(r->fd[f]);
    if (r->lock_fd > 0)
        close(r->lock_fd);
    free(r->dir), free(r->run_id), free(r->host);
    memset(r, 0, sizeof *r);
}
