/* engine.c - the rounds of a run: decides, launches, judges and records each cell visit
 * (see engine.h).
 *
 * Always holds: every argv/envp is built before hb_launch(); the only work done in the
 * signal handler is setting a flag and hb_launch_interrupt() (async-signal-safe).
 */
#include "run/engine.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/cellenv.h"
#include "measure/cgalloc.h"
#include "base/elfcheck.h"
#include "measure/launch.h"
#include "measure/logtail.h"
#include "measure/ownscan.h"
#include "measure/phases.h"
#include "run/progress.h"
#include "base/resolve.h"
#include "write/rows.h"

static volatile sig_atomic_t hb_stop;

/* SIGINT/SIGTERM: stop after the current run, whose process group is killed now. */
static void hb_engine_on_signal(int sig)
{
    (void)sig;
    hb_stop = 1;
    hb_launch_interrupt();
}

/* Installs the handlers (no SA_RESTART, so waits see EINTR). */
void hb_engine_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hb_engine_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Decides whether cell (g, a) can run; HB_OK, or a status with reason (not measured). */
static enum hb_status hb_engine_precheck(const struct hb_engine *e, const struct hb_group *g,
                                         const struct hb_alloc *a, char *reason, size_t len)
{
    const struct hb_workload *w = g->wl;
    char path[PATH_MAX], why[200] = "";
    if (!a->found && strcmp(a->package, "-") == 0) {
        snprintf(reason, len, "not built: %s missing; run make", a->candidates);
        return HB_SKIPPED;
    }
    if (!a->found) {
        snprintf(reason, len, "not installed: apt-get install %s", a->package);
        return HB_SKIPPED;
    }
    if (w->kind == HB_WL_PROGRAM && w->prog->missing) {
        snprintf(reason, len, "skipped: %s not installed (apt-get install %s)", w->prog->missing,
                 w->prog->package ? w->prog->package : w->prog->missing);
        return HB_SKIPPED;
    }
    if (w->kind == HB_WL_PROGRAM && !w->prog->setup_done) {
        snprintf(reason, len, "setup of prog:%s failed, see work/%s/setup.log", w->prog->name, w->prog->name);
        return HB_FAILED;
    }
    if (w->kind == HB_WL_BINARY)
        return HB_OK;
    if (access(e->probe, R_OK) != 0) {
        snprintf(reason, len, "probe %s missing: run make", e->probe);
        return HB_FAILED;
    }
    struct hb_strv argv = {0};
    hb_cell_argv(g, e->m->quick, &argv);
    enum hb_status st = HB_OK;
    if (hb_resolve_program(argv.v[0], getenv("PATH"), path, sizeof path) != 0) {
        snprintf(reason, len, "command not found: %s", argv.v[0]);
        st = HB_FAILED;
    } else if (hb_preload_impossible(path, why, sizeof why)) {
        why[strcspn(why, ":")] = '\0'; /* "statically linked", "setuid/setgid", ... */
        snprintf(reason, len, "preload had no effect: %s", why);
        st = HB_FAILED;
    }
    hb_strv_free(&argv);
    return st;
}

/* "workload params threads env allocator rep" for progress lines. */
static char *hb_engine_label(const struct hb_group *g, const struct hb_alloc *a, int rep)
{
    char repword[24];
    snprintf(repword, sizeof repword, rep > 0 ? "rep %d" : "warm-up", rep);
    return hb_xasprintf("%s %s t=%d%s%s %s %s", g->wl->name, g->params, g->threads, g->env[0] ? " " : "",
                        g->env, a->name, repword);
}

/* Whether metric m is one cell g must have: a --metric is every cell's, a program's own metric its cells'. */
static int hb_engine_metric_wanted(const struct hb_metric *m, const struct hb_group *g)
{
    const char *spec = g->wl->kind == HB_WL_PROGRAM ? g->wl->prog->metric : NULL;
    size_t n = strlen(m->name);
    return m->every_cell || (spec && strncmp(spec, m->name, n) == 0 && spec[n] == '=');
}

/* Reads the run's log (and its valgrind output file, removed then) and extracts every metric; a
 * metric of the log that the cell must have and that is missing or not a finite number fails an
 * ok run, the reason naming it (the first such metric). */
static void hb_engine_metrics(const struct hb_engine *e, const struct hb_group *g, const char *log, double *val,
                              int *ok, struct hb_result *res)
{
    char *text = e->nmetrics ? hb_read_file(log, NULL) : NULL;
    char *vgpath = e->o->count ? hb_xasprintf("%s.vg", log) : NULL;
    FILE *vg = vgpath ? fopen(vgpath, "r") : NULL;
    double vgval[3] = {0};
    int vgok = vg && hb_cgalloc_read(vg, &vgval[HB_METRIC_VG_ALLOC], &vgval[HB_METRIC_VG_TOTAL]) == 0;
    for (size_t i = 0; i < e->nmetrics; i++) {
        int w = e->metrics[i].valgrind;
        if (w) {
            ok[i] = vgok;
            val[i] = vgval[w];
            continue;
        }
        char got[64], last[120];
        enum hb_metric_found found = hb_metric_extract(&e->metrics[i], text, &val[i], got, sizeof got);
        ok[i] = found == HB_METRIC_VALUE;
        if (ok[i] || res->status != HB_OK || !hb_engine_metric_wanted(&e->metrics[i], g))
            continue;
        hb_log_last_line(log, last, sizeof last);
        hb_metric_reason(&e->metrics[i], found, got, last, res->reason, sizeof res->reason);
        res->status = HB_FAILED;
    }
    if (vg)
        fclose(vg);
    if (vgpath) /* read once: the file is the count's source, not a result */
        unlink(vgpath);
    free(vgpath);
    free(text);
}

/* Writes every row of a finished measured run (runs.csv last, so a row means "complete"). */
static void hb_engine_record(struct hb_engine *e, const struct hb_run_record *rec)
{
    e->write_errors += hb_rows_append(e->r, rec) != 0;
}

/* The launch spec's program helpers (driver, ready) of a program cell. */
static void hb_engine_driver(const struct hb_group *g, struct hb_strv *driver, struct hb_strv *ready,
                             struct hb_strv *denv, struct hb_launch_spec *spec)
{
    const struct hb_program *p = g->wl->kind == HB_WL_PROGRAM ? g->wl->prog : NULL;
    if (!p || !p->driver)
        return;
    hb_program_argv(p, p->driver, driver);
    hb_program_argv(p, p->ready, ready);
    hb_cell_plain_envp(p, denv);
    spec->driver_argv = driver->v;
    spec->ready_argv = ready->n ? ready->v : NULL;
    spec->driver_envp = denv->v;
}

/* The allocators of its own the run's program brings: the probe's findings in rep (libraries
 * loaded at start-up) and the program file's static symbols (argv[0] looked up in envp's PATH).
 * Fills rec's own_allocator and preloaded_share, keeps the names for meta.json, and warns once
 * per cell (at its first measured rep). */
static void hb_engine_own(struct hb_progress *pr, const struct hb_group *g, const struct hb_alloc *a, int rep,
                          char *const *argv, char *const *envp, struct hb_phase_report *found,
                          struct hb_run_record *rec)
{
    char path[4096], statics[128] = "";
    if (argv && argv[0] && hb_resolve_program(argv[0], hb_env_path(envp), path, sizeof path) == 0)
        hb_own_static(path, statics, sizeof statics);
    hb_own_merge(found->own_allocator, sizeof found->own_allocator, statics);
    rec->own_allocator = found->own_allocator;
    rec->preloaded_share = found->own_share;
    if (!found->own_allocator[0])
        return;
    hb_own_merge(g->wl->own_allocator, sizeof g->wl->own_allocator, found->own_allocator);
    if (rep != 1)
        return;
    char *share = found->own_share ? hb_xasprintf("%.0f%%", 100 * atof(found->own_share))
                                   : hb_xstrdup("an unknown share");
    char *msg = hb_xasprintf("heapbench: warning: %s brings its own allocator (%s in %s): the preloaded %s had %s of "
                             "its anonymous memory, so its figures are not %s's alone; compare, advise and tune refuse "
                             "to rank allocators for it unless given --allow-own-allocator",
                             g->wl->name, found->own_allocator, found->own_where ? found->own_where : "the program file",
                             a->name, share, a->name);
    hb_progress_note(pr, msg);
    free(msg), free(share);
}

/* Launches one visit of cell (g, a); records it when rep > 0. Returns -1 when interrupted. */
static int hb_engine_visit(struct hb_engine *e, struct hb_progress *pr, size_t gi, size_t ai, int rep)
{
    const struct hb_group *g = &e->m->g[gi];
    const struct hb_alloc *a = e->m->alloc[ai];
    size_t run = hb_matrix_run(e->m, rep > 0 ? rep : 1, gi, ai);
    char reason[256] = "";
    double mval[e->nmetrics + 1];
    int mok[e->nmetrics + 1];
    const char *thp_in_effect;
    int thp = hb_cell_thp_mode(g, a, e->o->thp, e->thp_system, &thp_in_effect);
    struct hb_run_record rec = {.run = run, .rep = rep, .workload = g->wl->name, .allocator = a->name,
                                .params = g->params, .env = g->env, .threads = g->threads, .status = HB_OK,
                                .thp = thp_in_effect, .reason = reason, .metric = mval, .metric_ok = mok, .nmetric = e->nmetrics};
    memset(mok, 0, sizeof mok);
    rec.status = hb_engine_precheck(e, g, a, reason, sizeof reason);
    if (rec.status != HB_OK) {
        char *label = hb_engine_label(g, a, rep);
        hb_progress_end(pr, label, hb_status_names[rec.status], 0);
        free(label);
        if (rep > 0)
            hb_engine_record(e, &rec);
        if (rep > 0 && rec.status != HB_SKIPPED)
            hb_summary_fail(e->summary, gi, ai);
        return 0;
    }
    struct hb_strv argv = {0}, envp = {0}, driver = {0}, ready = {0}, denv = {0};
    char *log = rep > 0 ? hb_xasprintf("%s/logs/%zu.log", e->r->dir, run)
                        : hb_xasprintf("%s/logs/warmup-%zu.log", e->r->dir, run);
    if (e->o->wrap) /* the wrapper first (--wrap, --count-instructions), then the cell's own argv */
        hb_strv_split(&argv, e->o->wrap, " \t", 0);
    if (e->o->count) /* valgrind's output file, read into the metrics after the run */
        hb_strv_pushf(&argv, "--%s-out-file=%s.vg", e->o->count == HB_COUNT_ALLOC ? "callgrind" : "cachegrind", log);
    size_t program_at = argv.n;
    hb_cell_argv(g, e->m->quick, &argv);
    int binary = g->wl->kind == HB_WL_BINARY;
    struct hb_cell_extra extra = {binary ? NULL : e->probe, binary ? e->stats : NULL, thp};
    hb_cell_envp(g, a, &extra, &envp);
    if (binary) /* the workloads' latency sampler (docs/DATA.md) */
        hb_strv_pushf(&envp, "HEAPBENCH_LATENCY=%s", e->o->latency);
    struct hb_launch_spec spec = {
        .argv = argv.v, .envp = envp.v, .timeout_s = e->o->timeout_s, .interval_ms = e->o->interval_ms,
        .priority = e->o->priority, .pin = e->o->have_pin ? &e->o->pin : NULL, .thp = thp >= 0 ? &thp : NULL,
        .want_phases = 1, .stdout_path = log,
        .cwd = g->wl->kind == HB_WL_PROGRAM ? g->wl->prog->workdir : NULL, .mem_limit = e->o->mem_limit,
        .cgroup = e->cgroup && e->cgroup->version ? e->cgroup : NULL};
    if (spec.cgroup && spec.cgroup->limited) /* the cgroup holds the limit: no RLIMIT_DATA as well */
        spec.mem_limit = 0;
    hb_engine_driver(g, &driver, &ready, &denv, &spec);
    char *label = hb_engine_label(g, a, rep);
    hb_progress_begin(pr, label);
    struct hb_result res;
    memset(&res, 0, sizeof res);
    int started = hb_stop ? -1 : hb_launch(&spec, &res);
    int interrupted = hb_stop != 0;
    if (!interrupted) {
        struct hb_phase_report rep_text;
        hb_phase_parse(started == 0 ? res.phase_text : NULL, &rep_text);
        if (started == 0)
            hb_phase_judge(&rep_text, hb_registry_expected(a), &res);
        else
            res.status = HB_FAILED;
        hb_engine_metrics(e, g, log, mval, mok, &res);
        hb_progress_end(pr, label, hb_status_names[res.status], res.wall_s);
        rec.res = started == 0 ? &res : NULL;
        rec.status = res.status;
        rec.reason = res.reason;
        rec.served_by = rep_text.served_by;
        if (started == 0)
            hb_engine_own(pr, g, a, rep, argv.v + program_at, envp.v, &rep_text, &rec);
        if (hb_log_cap(log, HB_LOG_CAP) != 0)
            hb_progress_note(pr, "heapbench: the log of a run could not be capped (see its logs/ file)");
        rec.phases = &rep_text;
        if (rep > 0)
            hb_engine_record(e, &rec);
        if (rep > 0 && res.status == HB_OK)
            hb_summary_add(e->summary, gi, ai, res.wall_s);
        else if (rep > 0 && res.status != HB_SKIPPED)
            hb_summary_fail(e->summary, gi, ai);
        hb_phase_report_free(&rep_text);
    }
    if (started == 0)
        hb_result_free(&res);
    free(label), free(log);
    hb_strv_free(&argv), hb_strv_free(&envp), hb_strv_free(&driver), hb_strv_free(&ready), hb_strv_free(&denv);
    return interrupted ? -1 : 0;
}

/* Sets up every program of the shard that has work left and whose requirements are met. */
static void hb_engine_setup_programs(struct hb_engine *e, struct hb_progress *pr)
{
    for (size_t gi = 0; gi < e->m->ng; gi++) {
        struct hb_workload *w = e->m->g[gi].wl;
        if (w->kind != HB_WL_PROGRAM || w->prog->setup_done || w->prog->missing ||
            !hb_matrix_group_pending(e->m, gi))
            continue;
        char *dir = hb_xasprintf("%s/work/%s", e->r->dir, w->prog->name);
        char err[512];
        if (hb_program_setup(w->prog, dir, err, sizeof err) != 0) {
            hb_progress_note(pr, err);
            hb_program_cleanup(w->prog);
        }
        free(dir);
    }
}

/* Runs cleanup of every program that was set up. */
static void hb_engine_cleanup_programs(struct hb_engine *e)
{
    for (size_t gi = 0; gi < e->m->ng; gi++)
        if (e->m->g[gi].wl->kind == HB_WL_PROGRAM)
            hb_program_cleanup(e->m->g[gi].wl->prog);
}

/* Notes the programs skipped for lack of their requirements, once each. */
static void hb_engine_note_skipped(struct hb_engine *e, struct hb_progress *pr)
{
    for (size_t i = 0; i < e->m->workloads.n; i++) {
        for (size_t gi = 0; gi < e->m->ng; gi++) {
            const struct hb_workload *w = e->m->g[gi].wl;
            if (strcmp(w->name, e->m->workloads.v[i]) != 0 || w->kind != HB_WL_PROGRAM || !w->prog->missing)
                continue;
            char *msg = hb_xasprintf("heapbench: skipping %s: %s not installed (apt-get install %s)", w->name,
                                     w->prog->missing, w->prog->package ? w->prog->package : w->prog->missing);
            hb_progress_note(pr, msg);
            free(msg);
            break;
        }
    }
}

/* Whether group g gets warm-up runs: the first pending group of its workload in this shard does,
 * the others do not. A warm-up loads the workload's binary, the allocator and their files into
 * the caches; a sibling group (other params, threads or env) runs the same binary under the same
 * allocator, so a warm-up of its own repeated that work (it was 60% of the warm-up processes). */
static int hb_engine_warms_up(const struct hb_matrix *m, size_t g)
{
    if (!hb_matrix_in_shard(m, g) || !hb_matrix_group_pending(m, g))
        return 0;
    for (size_t h = 0; h < g; h++)
        if (m->g[h].wl == m->g[g].wl && hb_matrix_in_shard(m, h) && hb_matrix_group_pending(m, h))
            return 0;
    return 1;
}

/* Number of launches still to do (warm-ups included), for the progress bar. */
static size_t hb_engine_total(const struct hb_matrix *m)
{
    size_t groups = 0;
    for (size_t g = 0; g < m->ng; g++)
        groups += hb_engine_warms_up(m, g);
    return hb_matrix_pending(m) + groups * m->nalloc * (size_t)m->warmup;
}

/* The rounds. */
int hb_engine_run(struct hb_engine *e)
{
    struct hb_matrix *m = e->m;
    struct hb_progress pr;
    hb_progress_start(&pr, hb_engine_total(m));
    hb_engine_note_skipped(e, &pr);
    hb_engine_setup_programs(e, &pr);
    int stopped = 0;
    for (int round = 1; round <= m->warmup + m->reps && !stopped; round++) {
        int rep = round - m->warmup;
        for (size_t k = 0; k < m->ng && !stopped; k++) {
            size_t g = hb_matrix_group_at(m, round, k);
            if (!hb_matrix_in_shard(m, g) || (rep <= 0 && !hb_engine_warms_up(m, g)))
                continue;
            for (size_t a = 0; a < m->nalloc && !stopped; a++) {
                if (rep > 0 && *hb_matrix_done(m, rep, g, a))
                    continue;
                stopped = hb_engine_visit(e, &pr, g, a, rep) != 0;
                if (!stopped && rep > 0)
                    *hb_matrix_done(m, rep, g, a) = 1;
            }
        }
    }
    hb_engine_cleanup_programs(e);
    hb_progress_finish(&pr);
    return stopped || hb_stop;
}
