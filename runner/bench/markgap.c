/* markgap.c - build/bench/runner-markgap: how far each phase end (the server's idle marks) is from
 * the nearest RSS sample of the runner's timeline, measured against the machine's clock.
 *
 *   build/bench/runner-markgap REPS PROGRAM [ARGS...]      (runner/bench/marks runs it on server)
 *
 * Runs PROGRAM REPS times through hb_launch() exactly as the runner does (phase pipe, 10 ms
 * statm sampling), with build/bench/libmarkclock.so preloaded: it stamps every phase end with
 * CLOCK_MONOTONIC right after the record's write(2), and the launch's test seam stamps the
 * release (the timeline's t = 0) on the same clock. For every phase end it then prints, in ms:
 * the distance to the nearest sample of rss.csv, the lag of the sample tagged with that phase,
 * the distance to the nearest periodic sample (what the timeline had before the tagged samples),
 * the error of placing the end at the sum of the phase durations (how the report placed it), and
 * the error of the report's placement now (report/heapbench/report/plots_memory.py phase_times:
 * the tag, unless it is more than 2 ms past the previous end plus the duration).
 * Always holds: a benchmark, not a test: it prints figures and never judges them; exit 0 when
 * every run was ok, 1 otherwise, 2 on a usage error.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/launch.h"
#include "measure/phases.h"

#define MG_MAX_MARKS 4096
#define MG_TAG_SLACK_S 0.002 /* report/heapbench/report/plots_memory.py TAG_SLACK_S */

extern char **environ;

/* One phase end of one run: its name and the five distances (s). */
struct mg_mark {
    char name[64];
    double nearest, tagged, periodic, summed, placed;
};

static struct mg_mark mg_marks[MG_MAX_MARKS];
static size_t mg_n;
static double mg_release; /* CLOCK_MONOTONIC seconds at the current launch's release */

/* Seconds on the monotonic clock. */
static double mg_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The launch seam: called just before the release, i.e. before the timeline's t = 0 (by the
 * time of one clock reading). */
static void mg_before_release(pid_t pid)
{
    (void)pid;
    mg_release = mg_now();
}

/* The environment of the measured program: ours plus the phase fd, the clock hook and its file. */
static char **mg_env(const char *clockfile)
{
    static char preload[PATH_MAX + 64], file[PATH_MAX + 32];
    char self[PATH_MAX];
    size_t n = 0;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s/libmarkclock.so", self);
    snprintf(file, sizeof file, "HB_MARKCLOCK_FILE=%s", clockfile);
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = environ[i];
    env[k++] = "HEAPBENCH_PHASE_FD=3";
    env[k++] = preload;
    env[k++] = file;
    return env;
}

/* Smallest |t - sample| over the samples of res (periodic only when periodic_only); INFINITY if none. */
static double mg_nearest(const struct hb_result *res, double t, int periodic_only)
{
    double best = INFINITY;
    for (size_t i = 0; i < res->rss_len; i++)
        if (!periodic_only || !res->rss[i].phase)
            best = fmin(best, fabs(res->rss[i].t - t));
    return best;
}

/* Lag of the k-th sample tagged name (k counted from 0) behind t; NAN when there is none. */
static double mg_tagged(const struct hb_result *res, const char *name, int k, double t)
{
    for (size_t i = 0; i < res->rss_len; i++)
        if (res->rss[i].phase && strcmp(res->rss[i].phase, name) == 0 && k-- == 0)
            return res->rss[i].t - t;
    return NAN;
}

/* How many of the first i marks of this run (from first) are named name. */
static int mg_seen(size_t first, size_t i, const char *name)
{
    int k = 0;
    for (size_t j = first; j < i; j++)
        k += strcmp(mg_marks[j].name, name) == 0;
    return k;
}

/* Where the report places a phase end (plots_memory.phase_times, TAG_SLACK_S there), from the
 * previous placement *placed (anchored: a tag has been seen), the phase's duration and its tag
 * (NAN: none); updates both. */
static double mg_place(double *placed, int *anchored, double seconds, double tag)
{
    double chained = *placed + seconds;
    *placed = isnan(tag) || (*anchored && tag > chained + MG_TAG_SLACK_S) ? chained : tag;
    *anchored |= !isnan(tag);
    return *placed;
}

/* Adds the marks of one run: the clock file's lines in order, matched with the phase records. */
static void mg_take_run(const struct hb_result *res, const char *clockfile)
{
    struct hb_phase_report rep;
    hb_phase_parse(res->phase_text, &rep);
    FILE *f = fopen(clockfile, "r");
    char name[64];
    double at, summed = 0, placed = 0;
    int anchored = 0;
    size_t first = mg_n;
    for (size_t p = 0; f && p < rep.nph && mg_n < MG_MAX_MARKS && fscanf(f, "%63[^\t]\t%lf\n", name, &at) == 2; p++) {
        double t = at - mg_release, seconds = strtod(rep.ph[p].seconds, NULL);
        struct mg_mark *m = &mg_marks[mg_n];
        summed += seconds;
        snprintf(m->name, sizeof m->name, "%s", name);
        m->nearest = mg_nearest(res, t, 0);
        m->periodic = mg_nearest(res, t, 1);
        m->tagged = mg_tagged(res, name, mg_seen(first, mg_n, name), t);
        m->summed = t - summed;
        m->placed = mg_place(&placed, &anchored, seconds, t + m->tagged) - t;
        mg_n++;
    }
    if (f)
        fclose(f);
    hb_phase_report_free(&rep);
}

static int mg_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "median / max" in ms of field off of the marks named name (all marks when name is NULL); a mark
 * without the figure (NAN: no tagged sample) is counted as missing. */
static void mg_print_stat(const char *name, size_t off)
{
    double v[MG_MAX_MARKS];
    size_t n = 0, missing = 0;
    for (size_t i = 0; i < mg_n; i++) {
        double x = *(const double *)((const char *)&mg_marks[i] + off);
        if (name && strcmp(mg_marks[i].name, name) != 0)
            continue;
        if (isnan(x))
            missing++;
        else
            v[n++] = fabs(x) * 1000;
    }
    qsort(v, n, sizeof *v, mg_cmp);
    if (n == 0)
        printf(" -");
    else
        printf(" %.2f / %.2f", n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[n - 1]);
    if (missing)
        printf(" (none in %zu)", missing);
    printf(" |");
}

/* One table row: the marks named name (NULL: all), their count and the five distances. */
static void mg_print_row(const char *name)
{
    static const size_t fields[] = {offsetof(struct mg_mark, nearest), offsetof(struct mg_mark, tagged),
                                    offsetof(struct mg_mark, periodic), offsetof(struct mg_mark, summed),
                                    offsetof(struct mg_mark, placed)};
    size_t n = 0;
    for (size_t i = 0; i < mg_n; i++)
        n += !name || strcmp(mg_marks[i].name, name) == 0;
    printf("| %s | %zu |", name ? name : "all phase ends", n);
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        mg_print_stat(name, fields[i]);
    printf("\n");
}

/* The table: a row per phase name (in first-seen order), then all of them. */
static void mg_print(void)
{
    printf("| phase end | n | nearest sample, ms (median / max) | its tagged sample's lag | nearest periodic sample "
           "| sum of durations off by | the report's placement off by |\n"
           "| --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < mg_n; i++)
        if (mg_seen(0, i, mg_marks[i].name) == 0)
            mg_print_row(mg_marks[i].name);
    mg_print_row(NULL);
}

int main(int argc, char **argv)
{
    int reps = argc >= 3 ? atoi(argv[1]) : 0;
    if (reps < 1) {
        fprintf(stderr, "usage: %s REPS PROGRAM [ARGS...] (REPS >= 1; PROGRAM writes phase records)\n", argv[0]);
        return 2;
    }
    char clockfile[] = "/tmp/hb-markgap-XXXXXX";
    int fd = mkstemp(clockfile);
    if (fd < 0) {
        perror("markgap: cannot create a temporary file in /tmp");
        return 1;
    }
    close(fd);
    struct hb_launch_spec spec = {.argv = argv + 2, .envp = mg_env(clockfile), .timeout_s = 3600,
                                  .interval_ms = 10, .want_phases = 1};
    hb_launch_before_release = mg_before_release;
    int bad = 0;
    for (int r = 0; r < reps; r++) {
        struct hb_result res;
        if (truncate(clockfile, 0) != 0) {
            perror("markgap: cannot empty the clock file");
            return 1;
        }
        if (hb_launch(&spec, &res) != 0 || res.status != HB_OK) {
            fprintf(stderr, "markgap: run %d of %s failed: %s\n", r + 1, argv[2], res.reason);
            bad = 1;
        } else {
            mg_take_run(&res, clockfile);
        }
        hb_result_free(&res);
    }
    unlink(clockfile);
    mg_print();
    return bad;
}
