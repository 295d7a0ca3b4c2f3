/* tracecmd.c - `heapbench record` and `heapbench trace` (see tracecmd.h and docs/DATA.md).
 *
 * record: 1. runs CMD once without the recorder, measured by launch.c (wall time, peak RSS);
 * 2. runs it again with build/lib/libhbrecord.so preloaded in raw mode (HEAPBENCH_RECORD_RAW=1)
 * and HEAPBENCH_RECORD_DIR set to a fresh directory beside FILE; 3. converts every raw recording
 * there (fork and exec children's too) into a format-4 trace with build/replay/hbconvert, the
 * post-pass, whose CPU time is said apart from the recorder's slowdown; 4. moves the trace with the most events (the process that
 * allocates: cc1 under gcc's driver) to FILE, the other processes' traces to FILE.d/, and
 * writes the first run's figures into FILE's header. -w prog:NAME records a program
 * definition (its setup and cleanup run around the two runs, in .work.NAME beside FILE). FILE defaults to results/traces/<command name>.hbt, where every trace
 * joins the default matrix as trace:results/traces/NAME.hbt.
 * Both runs go through launch.c in a cgroup of their own (runcg.h), as `exec` runs do.
 * Always holds: FILE is written only from a complete recorded run (exit 0); otherwise the
 * traces are left in the directory, named in the error line (exit 1; usage errors exit 2), except
 * when there is none to read or the disk is full (it is said so): then the directory is removed;
 * no process CMD started outlives its run, nor the runner when it is killed (kill -9 included).
 */
#include "cli/tracecmd.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "measure/launch.h"
#include "base/elfcheck.h"
#include "base/layout.h"
#include "plan/options.h"
#include "plan/program.h"
#include "measure/runcg.h"
#include "base/spawner.h"
#include "trace.h"
#include "base/util.h"

extern char **environ;

/* The environment of a run of CMD: the runner's, without another run's variables, plus add. */
static void hb_record_envp(struct hb_strv *envp, const struct hb_strv *add)
{
    hb_spawn_clean_env(add, envp);
    hb_strv_extend(envp, add);
}

/* Runs CMD through launch.c in the run's cgroup (when there is one): whatever it leaves running
 * is killed when it ends, and everything it started dies with the runner, kill -9 included.
 * 0 when it exited 0; else -1 with the reason in res. */
static int hb_record_launch(char *const *cmd, const char *cwd, const struct hb_strv *add,
                            const struct hb_runcg *cg, struct hb_result *res)
{
    struct hb_strv envp = {0};
    hb_record_envp(&envp, add);
    struct hb_launch_spec spec = {.argv = cmd, .envp = envp.v, .cwd = cwd, .cgroup = cg->version ? cg : NULL};
    int started = hb_launch(&spec, res) == 0;
    hb_strv_free(&envp);
    if (started && res->status == HB_OK)
        return 0;
    if (!res->reason[0])
        snprintf(res->reason, sizeof res->reason, "exit code %d", res->exit_code);
    return -1;
}

/* Refuses (exit 2, one line) a CMD that LD_PRELOAD cannot reach: the recorder is preloaded, so a static
 * or set-id program would run unrecorded and leave no trace. */
static void hb_record_check_preload(const char *cmd)
{
    char why[256];
    if (hb_preload_impossible(cmd, why, sizeof why))
        hb_usage("record: %s cannot be recorded (%s): the recorder reaches a program only through LD_PRELOAD; "
                 "record a dynamically linked build of it (without set-id bits)", cmd, why);
}

/* Run 1: CMD measured without the recorder. */
static void hb_record_original(char *const *cmd, const char *cwd, const struct hb_runcg *cg, struct hb_result *res)
{
    struct hb_strv none = {0};
    if (hb_record_launch(cmd, cwd, &none, cg, res) != 0)
        hb_fatal("record: %s did not run cleanly without the recorder (%s); fix the command first", cmd[0], res->reason);
}

#define HB_RECORD_FULL_KB 1024 /* less free space than this after a failed recording: the disk is full */

/* The free KiB of the file system holding dir when it is below HB_RECORD_FULL_KB (full), else -1. */
static long long hb_record_full_kb(const char *dir)
{
    struct statvfs v;
    if (statvfs(dir, &v) != 0)
        return -1;
    unsigned long long kb = (unsigned long long)v.f_bavail * v.f_frsize / 1024;
    return kb < HB_RECORD_FULL_KB ? (long long)kb : -1;
}

static void hb_record_clear(const char *sub);

/* Ends the recording when the disk holding dir is full: removes dir and its traces (cut, and
 * taking the space) and says so (exit 1); returns when the disk is not full. */
static void hb_record_if_full(const char *dir, const char *cmd)
{
    long long kb = hb_record_full_kb(dir);
    if (kb < 0)
        return;
    hb_record_clear(dir);
    const char *slash = strrchr(dir, '/'); /* dir is <the trace's directory>/.record.XXXXXX */
    hb_fatal("record: the disk holding %.*s is full (%lld KiB free): the trace of %s could not be written "
             "(its part removed); free some space, or give -o FILE on another disk, and record again",
             slash ? (int)(slash - dir) : (int)strlen(dir), dir, kb, cmd);
}

/* Children's CPU time so far (user + sys of the waited-for children), s. */
static double hb_record_children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void hb_record_if_full(const char *dir, const char *cmd);

/* Step 3, the post-pass: every raw recording in dir (*.hbr) into a format-4 trace; its CPU time into
 * *cpu_s (when not NULL). A conversion that fails ends the recording (hbconvert's line is above; on
 * a full disk, as hb_record_if_full says). */
static void hb_record_convert(const char *dir, const char *cmd, double *cpu_s)
{
    char *bin = hb_root_path("build/replay/hbconvert");
    char *args[] = {bin, (char *)dir, NULL};
    struct hb_spawn s = {.argv = args};
    double before = hb_record_children_cpu();
    int rc = access(bin, X_OK) == 0 ? hb_spawn_run(&s) : -1;
    if (cpu_s)
        *cpu_s = hb_record_children_cpu() - before;
    if (rc < 0)
        hb_usage("record: %s is missing; run make", bin);
    if (rc != 0)
        hb_record_if_full(dir, cmd);
    if (rc != 0)
        hb_fatal("record: the raw recording in %s could not be converted (hbconvert's message is above); its raw "
                 "files (.hbr) are left there: run build/replay/hbconvert %s once the cause is fixed", dir, dir);
    free(bin);
}

/* Run 2: CMD with the recorder writing into dir; its result (CPU time) into res. */
static void hb_record_traced(char *const *cmd, const char *cwd, const char *dir, const struct hb_runcg *cg,
                             struct hb_result *out)
{
    struct hb_strv add = {0};
    struct hb_result res;
    const char *pre = getenv("LD_PRELOAD");
    char *lib = hb_root_path("build/lib/libhbrecord.so");
    if (access(lib, R_OK) != 0)
        hb_usage("record: %s is missing; run make", lib);
    hb_strv_pushf(&add, "LD_PRELOAD=%s%s%s", lib, pre && *pre ? ":" : "", pre && *pre ? pre : "");
    hb_strv_pushf(&add, "HEAPBENCH_RECORD_DIR=%s", dir);
    hb_strv_pushf(&add, "HEAPBENCH_RECORD_RAW=1");
    if (hb_record_launch(cmd, cwd, &add, cg, &res) != 0) {
        hb_record_convert(dir, cmd[0], NULL); /* what it recorded, readable in dir */
        hb_record_if_full(dir, cmd[0]);
        hb_fatal("record: %s failed while recorded (%s); its traces are in %s", cmd[0], res.reason, dir);
    }
    *out = res;
    free(lib);
    hb_strv_free(&add);
}

/* Removes an earlier recording's FILE.d/, or a failed recording's directory (its *.hbt and raw *.hbr
 * files and the replayer's cached checks *.hbt.check, then the directory). */
static void hb_record_clear(const char *sub)
{
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if ((len > 4 && (strcmp(e->d_name + len - 4, ".hbt") == 0 || strcmp(e->d_name + len - 4, ".hbr") == 0)) ||
            (len > 10 && strcmp(e->d_name + len - 10, ".hbt.check") == 0)) {
            char *path = hb_xasprintf("%s/%s", sub, e->d_name);
            unlink(path);
            free(path);
        }
    }
    if (d) {
        closedir(d);
        rmdir(sub);
    }
}

/* Moves the trace with the most events (the process that allocates: cc1 under gcc's driver)
 * to out and every other trace of dir into out.d/; returns how many traces there were. */
static size_t hb_record_collect(const char *dir, const char *cmd, const char *out)
{
    char *root = NULL, *sub = hb_xasprintf("%s.d", out);
    uint64_t best = 0;
    int complete = 0;
    size_t n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        char *path = hb_xasprintf("%s/%s", dir, e->d_name), err[256];
        struct hbt_trace t;
        if (hbt_open(path, &t, err, sizeof err) == 0) {
            if (!root || t.ops > best)
                free(root), root = hb_xstrdup(path), best = t.ops, complete = t.h.complete;
            hbt_close(&t);
        }
        free(path);
    }
    if (d)
        closedir(d);
    if (!root || !complete)
        hb_record_if_full(dir, cmd); /* a trace cut by a full disk is not kept */
    if (!root) {
        hb_record_clear(dir);
        hb_fatal("record: no readable trace of %s or its children in %s (%s; removed); was "
                 "build/lib/libhbrecord.so preloaded? (its own message, if any, is above)", cmd, dir,
                 n ? "none readable" : "none written: a program that calls no malloc-API function writes none");
    }
    if (rename(root, out) != 0)
        hb_fatal("record: cannot move the trace %s to %s: %s; the traces are in %s", root, out, strerror(errno), dir);
    if (n > 1)
        hb_record_clear(sub);
    if (n > 1 && rename(dir, sub) != 0)
        hb_usage("record: cannot move the child processes' traces from %s to %s: %s", dir, sub, strerror(errno));
    if (n == 1)
        rmdir(dir);
    free(root);
    free(sub);
    return n;
}

/* CPU time (user + sys of the process and its children) of a run, ns. */
static uint64_t hb_record_cpu_ns(const struct hb_result *r)
{
    return (uint64_t)((r->user_s + r->sys_s) * 1e9);
}

/* Writes the original run's figures and both runs' CPU times into out's header; returns its event count. */
static uint64_t hb_record_annotate(const char *out, const struct hb_result *orig, const struct hb_result *rec)
{
    struct hbt_trace t;
    char err[512];
    if (hbt_open(out, &t, err, sizeof err) != 0)
        hb_usage("record: %s: %s", out, err);
    struct hbt_header h = t.h;
    uint64_t ops = t.ops;
    hbt_close(&t);
    h.orig_wall_ns = (uint64_t)(orig->wall_s * 1e9);
    h.orig_maxrss_kb = (uint64_t)orig->maxrss_kb;
    h.orig_cpu_ns = hb_record_cpu_ns(orig);
    h.rec_cpu_ns = hb_record_cpu_ns(rec);
    if (hbt_header_rewrite(out, &h, err, sizeof err) != 0)
        hb_usage("record: %s", err);
    return ops;
}

/* The program definition prog:NAME, set up in work; its argv into cmd. */
static struct hb_program *hb_record_program(const char *spec, const char *work, struct hb_program **all, size_t *n,
                                            struct hb_strv *cmd)
{
    hb_program_load_all(all, n);
    struct hb_program *p = NULL;
    for (size_t i = 0; i < *n && !p; i++)
        p = strcmp((*all)[i].name, spec + 5) == 0 ? &(*all)[i] : NULL;
    if (!p)
        hb_usage("record: no program definition exec/programs/%s.prog", spec + 5);
    if (p->missing)
        hb_usage("record: %s needs %s (apt-get install %s)", spec, p->missing, p->package ? p->package : p->missing);
    if (p->driver)
        hb_usage("record: %s is a server under a driver; record it with -- CMD instead", spec);
    char err[512];
    if (hb_program_setup(p, work, err, sizeof err) != 0)
        hb_fatal("record: %s", err);
    hb_program_argv(p, p->command, cmd);
    return p;
}

int hb_cmd_record(int argc, char **argv)
{
    struct hb_options o;
    hb_options_parse(&o, HB_CMD_RECORD, argc, argv);
    const char *out = o.outdir, *prog = o.workloads.n ? o.workloads.v[0] : NULL;
    const char *first = prog ? prog + 5 : o.command.v[0];
    const char *base = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;
    char *results = hb_results_dir();
    char *file = out ? hb_xstrdup(out) : hb_xasprintf("%s/traces/%s.hbt", results, base);
    free(results);
    struct stat st;
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode))
        hb_usage("record: %s is a directory; give the trace's file name, e.g. -o %s/%s.hbt", file, file, base);
    char *slash = strrchr(file, '/');
    char *parent = slash ? hb_xasprintf("%.*s", (int)(slash - file), file) : hb_xstrdup(".");
    if (hb_mkdir_p(parent) != 0)
        hb_usage("record: cannot create %s: %s; give -o FILE", parent, strerror(errno));
    char *absparent = realpath(parent, NULL); /* the recorded program may run in another directory */
    if (!absparent)
        hb_usage("record: no directory %s for %s: %s", parent, file, strerror(errno));
    char *dir = hb_xasprintf("%s/.record.XXXXXX", absparent), *work = hb_xasprintf("%s/.work.%s", absparent, base);
    free(absparent);
    struct hb_program *all = NULL, *p = NULL;
    size_t nprogs = 0;
    struct hb_strv pcmd = {0};
    if (prog)
        p = hb_record_program(prog, work, &all, &nprogs, &pcmd);
    char **cmd = p ? pcmd.v : o.command.v;
    const char *cwd = p ? p->workdir : NULL;
    hb_record_check_preload(cmd[0]);
    struct hb_result orig, rec;
    struct hb_runcg cg;
    hb_runcg_open(&cg, 0);
    hb_record_original(cmd, cwd, &cg, &orig);
    if (!mkdtemp(dir))
        hb_fatal("record: cannot create a directory beside %s: %s", file, strerror(errno));
    hb_record_traced(cmd, cwd, dir, &cg, &rec);
    hb_runcg_close(&cg);
    double post_s = 0;
    hb_record_convert(dir, cmd[0], &post_s);
    size_t n = hb_record_collect(dir, cmd[0], file);
    uint64_t ops = hb_record_annotate(file, &orig, &rec);
    printf("recorded %llu events of %s into %s (%zu process%s%s); its run without the recorder: %.3f s, %ld KiB peak RSS\n",
           (unsigned long long)ops, cmd[0], file, n, n == 1 ? "" : "es", n > 1 ? ", the others in FILE.d/" : "",
           orig.wall_s, orig.maxrss_kb);
    if (hb_record_cpu_ns(&orig) > 0)
        printf("recorder slowdown: %.2fx CPU (%.3f s recorded against %.3f s plain); a program that runs for a fixed "
               "time does less work recorded, and its trace holds less\n",
               (double)hb_record_cpu_ns(&rec) / (double)hb_record_cpu_ns(&orig), rec.user_s + rec.sys_s,
               orig.user_s + orig.sys_s);
    printf("post-pass: %.3f s CPU after the program exited (hbconvert: naming the objects, writing the trace), "
           "not in the slowdown above\n", post_s);
    hb_result_free(&orig);
    hb_result_free(&rec);
    if (p)
        hb_program_cleanup(p);
    for (size_t k = 0; k < nprogs; k++)
        hb_program_free(&all[k]);
    free(all);
    hb_strv_free(&pcmd);
    free(dir), free(work), free(parent), free(file);
    hb_options_free(&o);
    return 0;
}

int hb_cmd_trace(int argc, char **argv)
{
    struct hb_options o;
    hb_options_parse(&o, HB_CMD_TRACE, argc, argv);
    char *bin = hb_root_path("build/replay/hbtrace");
    char *args[] = {bin, o.command.v[0], NULL};
    struct hb_spawn s = {.argv = args};
    int rc = access(bin, X_OK) == 0 ? hb_spawn_run(&s) : -1;
    if (rc < 0)
        hb_usage("trace: %s is missing; run make", bin);
    free(bin);
    hb_options_free(&o);
    return rc;
}
