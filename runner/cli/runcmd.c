/* runcmd.c - the run/exec subcommands: options, registries, matrix, results, engine (runcmd.h).
 *
 * Always holds: meta.json exists (complete=false) before the first process starts, and is
 * rewritten with the end state whatever happens after that.
 */
#include "cli/runcmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/engine.h"
#include "cli/inputs.h"
#include "measure/perf.h"
#include "cli/meta.h"
#include "cli/python.h"
#include "cli/resume.h"
#include "base/layout.h"
#include "base/priority.h"
#include "cli/shardlist.h"
#include "base/sysinfo.h"
#include "thp.h"
#include "measure/runcg.h"
#include "plan/validate.h"

/* All the state of one run. */
struct hb_runctx {
    struct hb_options o;
    struct hb_registry reg;
    struct hb_worklist wl;
    struct hb_program *progs;
    size_t nprogs;
    struct hb_matrix m;
    struct hb_metric *metrics;
    size_t nmetrics;
    struct hb_results r;
    struct hb_summary summary;
};

/* The statistics library for --allocstats (NULL without it); exits 2 when it is not built. */
static char *hb_runcmd_stats(const struct hb_options *o)
{
    if (!o->allocstats)
        return NULL;
    char *path = hb_root_path("build/lib/libhbstats.so");
    if (access(path, R_OK) != 0)
        hb_usage("--allocstats: %s is missing; build it with make", path);
    return path;
}

/* Parses the options; with --resume DIR, the options stored in DIR/meta.json instead. */
static void hb_runctx_options(struct hb_runctx *c, enum hb_cmd cmd, int argc, char **argv, char **run_id,
                              char **start)
{
    hb_options_parse(&c->o, cmd, argc, argv);
    hb_validate_options(&c->o);
    if (!c->o.resume)
        return;
    char *dir = hb_xstrdup(c->o.resume);
    struct hb_strv stored = {0};
    hb_resume_read_meta(dir, &stored, run_id, start);
    enum hb_cmd stored_cmd = strcmp(stored.v[0], "exec") == 0 ? HB_CMD_EXEC : HB_CMD_RUN;
    hb_options_free(&c->o);
    hb_options_parse(&c->o, stored_cmd, (int)stored.n, stored.v);
    c->o.resume = dir;
    hb_strv_free(&stored);
}

/* Adds one metric spec (exit 2 when malformed); a name already present is kept once. */
static void hb_runctx_metric(struct hb_runctx *c, const char *spec, int every_cell)
{
    struct hb_metric mt;
    char err[256];
    if (hb_metric_parse(&mt, spec, err, sizeof err) != 0)
        hb_usage("--metric %s", err);
    mt.every_cell = every_cell;
    for (size_t i = 0; i < c->nmetrics; i++)
        if (strcmp(c->metrics[i].name, mt.name) == 0) {
            hb_metric_free(&mt);
            return;
        }
    c->metrics = hb_xappend(c->metrics, c->nmetrics, sizeof *c->metrics);
    c->metrics[c->nmetrics++] = mt;
}

/* The counts of the runs' valgrind output files, after any --metric of the same name (which they replace). */
static void hb_runctx_valgrind(struct hb_runctx *c)
{
    static const struct { const char *name; int which, count; } vg[] = {
        {"instructions", HB_METRIC_VG_TOTAL, HB_COUNT_PROGRAM}, {"alloc_instructions", HB_METRIC_VG_ALLOC, HB_COUNT_ALLOC}};
    for (size_t k = 0; k < sizeof vg / sizeof *vg; k++) {
        if (c->o.count < vg[k].count)
            continue;
        size_t i = 0;
        while (i < c->nmetrics && strcmp(c->metrics[i].name, vg[k].name) != 0)
            i++;
        if (i == c->nmetrics)
            c->metrics = hb_xappend(c->metrics, c->nmetrics++, sizeof *c->metrics);
        else
            hb_metric_free(&c->metrics[i]);
        hb_metric_valgrind(&c->metrics[i], vg[k].name, vg[k].which);
    }
}

/* exec's commands into the worklist: one, or one per -w name (HB_EXEC_SEP between them, checked
 * by options.c). */
static void hb_runctx_commands(struct hb_runctx *c)
{
    if (c->o.workloads.n <= 1) {
        hb_worklist_add_command(&c->wl, c->o.workloads.n ? c->o.workloads.v[0] : NULL, &c->o.command);
        return;
    }
    struct hb_strv one = {0};
    size_t k = 0;
    for (size_t i = 0; i <= c->o.command.n; i++) {
        if (i < c->o.command.n && strcmp(c->o.command.v[i], HB_EXEC_SEP) != 0) {
            hb_strv_push(&one, c->o.command.v[i]);
            continue;
        }
        hb_worklist_add_command(&c->wl, c->o.workloads.v[k++], &one);
        hb_strv_free(&one);
    }
}

/* Loads registries, applies user additions and builds the matrix and metrics. */
static void hb_runctx_matrix(struct hb_runctx *c)
{
    hb_registry_load(&c->reg);
    for (size_t i = 0; i < c->o.user_allocs.n; i++)
        hb_registry_add_user(&c->reg, c->o.user_allocs.v[i]);
    hb_worklist_load(&c->wl);
    hb_program_load_all(&c->progs, &c->nprogs);
    hb_worklist_add_programs(&c->wl, c->progs, c->nprogs);
    hb_worklist_add_traces(&c->wl);
    for (size_t i = 0; c->o.cmd == HB_CMD_RUN && i < c->o.workloads.n; i++)
        if (strncmp(c->o.workloads.v[i], "trace:", 6) == 0 && !hb_worklist_find(&c->wl, c->o.workloads.v[i]))
            hb_worklist_add_trace(&c->wl, c->o.workloads.v[i]);
    for (size_t i = 0; i < c->o.user_bins.n; i++)
        hb_worklist_add_bin(&c->wl, c->o.user_bins.v[i]);
    if (c->o.cmd == HB_CMD_EXEC)
        hb_runctx_commands(c);
    hb_matrix_build(&c->m, &c->o, &c->wl, &c->reg);
    if (!c->m.ng || !c->m.nalloc)
        hb_usage("the matrix is empty (no workloads or no allocators chosen); see heapbench list");
    if (c->o.params.n || c->o.threads.n) /* -p and -t: LIST's own are the project's, checked by its tests */
        hb_validate_params(&c->m);
    for (size_t i = 0; i < c->o.metrics.n; i++)
        hb_runctx_metric(c, c->o.metrics.v[i], 1);
    if (c->o.count) /* --count-instructions, --count-alloc-instructions */
        hb_runctx_valgrind(c);
    for (size_t g = 0; g < c->m.ng; g++)
        if (c->m.g[g].wl->kind == HB_WL_PROGRAM && c->m.g[g].wl->prog->metric)
            hb_runctx_metric(c, c->m.g[g].wl->prog->metric, 0);
}

/* Runs exec's hyperfine step on the results (exec --hyperfine); its failure is only reported. */
static void hb_runctx_hyperfine(const struct hb_runctx *c)
{
    char *args[] = {c->r.dir, NULL};
    int rc = hb_python_run("hyperfine", args);
    if (rc != 0)
        fprintf(stderr, "heapbench: the hyperfine step on %s failed (status %d); the heapbench results are complete\n",
                c->r.dir, rc);
}

/* Names every allocator the user asked for (-a or --allocator) that is missing; their count.
 * A missing allocator of the default matrix is only the warning its skipped rows carry. */
static int hb_runctx_missing_named(const struct hb_runctx *c)
{
    int n = 0;
    for (size_t a = 0; a < c->m.nalloc; a++) {
        const struct hb_alloc *al = c->m.alloc[a];
        if (al->found || (hb_strv_find(&c->o.allocators, al->name) < 0 && strcmp(al->version_how, "path") != 0))
            continue;
        fprintf(stderr, "heapbench: allocator %s was asked for but is missing (%s); its rows are skipped\n",
                al->name, strcmp(al->package, "-") == 0 ? "run make" : al->package);
        n++;
    }
    return n;
}

/* The exit status (runcmd.h): 130 interrupted, 1 a run not ok, a named allocator missing or a
 * results file not written, else 0. */
static int hb_runctx_status(const struct hb_runctx *c, int interrupted, int write_failed)
{
    size_t failed = hb_summary_failures(&c->summary, stderr);
    int missing = hb_runctx_missing_named(c);
    if (interrupted)
        return 130;
    return write_failed || failed || missing ? 1 : 0;
}

/* What to do about a failed write of errno err: free space only when space is what lacked. */
static const char *hb_runcmd_remedy(int err)
{
    return err == ENOSPC || err == EDQUOT ? "free some space" : "make the directory writable (or fix the cause above)";
}

/* The subcommand. */
int hb_cmd_run(enum hb_cmd cmd, int argc, char **argv)
{
    struct hb_runctx c;
    memset(&c, 0, sizeof c);
    char *run_id = NULL, *start = NULL;
    hb_runctx_options(&c, cmd, argc, argv, &run_id, &start);
    hb_runctx_matrix(&c);
    if (c.o.list_shard)
        return hb_shardlist_print(&c.m, stdout);
    char prio_err[256]; /* --priority: the runner first, which is also the check that it is permitted */
    if (c.o.priority != HB_PRIO_NORMAL && hb_prio_self(c.o.priority, prio_err, sizeof prio_err) != 0)
        hb_usage("%s", prio_err);
    hb_summary_init(&c.summary, &c.m);
    struct hb_inputs inputs;
    hb_inputs_collect(&inputs, &c.o, &c.m);
    struct hb_strv names = {0};
    for (size_t i = 0; i < c.nmetrics; i++)
        hb_strv_push(&names, c.metrics[i].name);
    if (c.o.resume) {
        hb_inputs_check(&inputs, c.o.resume);
        hb_results_reopen(&c.r, c.o.resume, run_id, &names);
        hb_resume_mark(c.o.resume, &c.m, &c.summary);
    } else {
        hb_results_create(&c.r, c.o.outdir, &names);
    }
    hb_strv_free(&names);
    hb_perf_probe();
    struct hb_runcg cg;
    hb_runcg_open(&cg, c.o.mem_limit);
    struct hb_meta meta = {.opts = &c.o, .matrix = &c.m, .metrics = c.metrics, .nmetrics = c.nmetrics,
                           .start = start ? start : hb_sys_now_iso(), .cgroup = &cg, .inputs = &inputs};
    hb_mach_snap(&meta.mach0, 1);
    if (hb_meta_write(&c.r, &meta) != 0)
        hb_fatal("cannot write %s/meta.json: %s; %s, then run the same command again with -o %s", c.r.dir,
                 strerror(errno), hb_runcmd_remedy(errno), c.r.dir);
    hb_results_link_latest(&c.r);
    struct hb_engine e = {&c.o, &c.m, &c.r, c.metrics, c.nmetrics, &c.summary,
                          hb_root_path("build/lib/libhbprobe.so"), hb_runcmd_stats(&c.o), hb_thp_system(), 0, &cg};
    hb_engine_signals();
    int interrupted = hb_engine_run(&e);
    hb_runcg_close(&cg);
    meta.end = hb_sys_now_iso();
    meta.interrupted = interrupted;
    /* a run whose rows could not be written is missing: not complete (--resume and contrib/slurm measure it) */
    meta.complete = !interrupted && hb_matrix_pending(&c.m) == 0 && !e.write_errors;
    int meta_failed = hb_meta_write(&c.r, &meta) != 0, meta_errno = errno;
    int write_failed = meta_failed || e.write_errors;
    if (write_failed)
        fprintf(stderr, "heapbench: some results could not be written to %s (%d runs not written, meta.json %s%s); "
                "%s, then heapbench run --resume %s\n", c.r.dir, e.write_errors,
                meta_failed ? "not written: " : "written", meta_failed ? strerror(meta_errno) : "",
                meta_failed ? hb_runcmd_remedy(meta_errno) : "free some space", c.r.dir);
    hb_summary_print(&c.summary, stdout);
    int status = hb_runctx_status(&c, interrupted, write_failed);
    if (interrupted)
        fprintf(stderr, "heapbench: interrupted; finish it with: heapbench run --resume %s\n", c.r.dir);
    else if (c.o.hyperfine)
        hb_runctx_hyperfine(&c);
    printf("results: %s\n", c.r.dir);
    fflush(stdout);
    return status;
}
