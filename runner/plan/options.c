/* options.c - parses the command line of run, exec, list, record and trace into struct hb_options (options.h).
 *
 * Always holds: one getopt_long table serves every subcommand (each subcommand accepts the
 * subset its usage text lists); every error is one line and exit 2, naming the option and
 * what a valid value looks like.
 */
#include "plan/options.h"
#include "thp.h"
#include "wl_latmode.h"

#include "plan/shardenv.h"
#include "base/priority.h"
#include "base/sysinfo.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_WARMUP = 256, OPT_QUICK, OPT_ENV, OPT_ALLOCATOR, OPT_WORKLOAD_BIN, OPT_PIN, OPT_TIMEOUT,
    OPT_INTERVAL, OPT_RESUME, OPT_SHARD, OPT_METRIC, OPT_HYPERFINE, OPT_WRAP, OPT_INSTRUCTIONS, OPT_ALLOCSTATS,
    OPT_THP, OPT_LATENCY, OPT_SHARDS, OPT_LIST_SHARD, OPT_MEM_LIMIT, OPT_ALLOC_INSTRUCTIONS, OPT_JSON,
    OPT_ALTERNATE, OPT_PRIORITY, OPT_COMMIT
};

/* --count-instructions: valgrind's cachegrind without its cache simulation counts the instructions
 * each process executes (deterministic where wall time is not: machines without hardware counters,
 * noisy CI; ~2.7x faster than callgrind, the same count: docs/measurements/instruction-counts.md).
 * --count-alloc-instructions: callgrind, whose call graph also gives the instructions inside the
 * malloc API (cgalloc.h). The engine names the output file each run writes and reads the counts
 * into metric_instructions (and metric_alloc_instructions). */
#define HB_INSTR_VALGRIND "/usr/bin/valgrind" /* Debian's valgrind package */
#define HB_INSTR_PROGRAM HB_INSTR_VALGRIND " --tool=cachegrind --cache-sim=no"
#define HB_INSTR_ALLOC HB_INSTR_VALGRIND " --tool=callgrind"

static const char hb_usage_measure[] =
    "  -a, --allocators A1,A2   allocators to run (default: every 'default' one of the registry)\n"
    "  -n, --reps N             measured repetitions per cell (default 5; --quick: 2)\n"
    "      --warmup N           warm-up rounds, not recorded (default 1): each workload's first\n"
    "                           cell runs under every allocator, its other cells only measured\n"
    "      --alternate          every other round visits the workloads in reverse order (A B, B A, ...),\n"
    "                           so that no workload always runs first or always after another\n"
    "      --env 'K=V K2=V2'    one environment set (an axis value); repeat for more sets\n"
    "      --allocator NAME=/path/lib.so   add a library for this run\n"
    "      --pin CPUS           run every process on these CPUs (e.g. 0 or 0-1)\n"
    "      --timeout S          kill a process (group) after S seconds (default 300)\n"
    "      --priority LEVEL     scheduling of the measured processes: normal (default), nice (nice -20)\n"
    "                           or rt (SCHED_FIFO; the runner one step above, so --timeout still kills):\n"
    "                           other jobs then preempt the program far less; needs root or CAP_SYS_NICE\n"
    "                           (refused, exit 2, before measuring where not permitted); in meta.json\n"
    "      --interval MS        RSS sampling interval (default 10; 0 = no timeline)\n"
    "      --thp MODE[,MODE]    transparent huge pages never|madvise|always per process (prctl and the\n"
    "                           allocator's own switch; the mode in effect is runs.csv's thp column);\n"
    "                           two or more modes are an axis: each env set runs with HEAPBENCH_THP=MODE\n"
    "      --mem-limit SIZE     memory the run's processes may use, e.g. 512M, 4G, or none: the memory\n"
    "                           limit of the run's cgroup where heapbench can create one (root), else\n"
    "                           RLIMIT_DATA (writable memory) of each process (meta.json's mem_limit_how says which);\n"
    "                           default 3/4 of physical memory; a process that runs out is status oom\n"
    "  -o, --output DIR         results directory (default results/<run-id>, see heapbench --help)\n"
    "      --commit REV         the commit of the thing under test (a hash of 7 to 40 hex digits, or a\n"
    "                           revision of the git repository here, resolved to its hash): meta.json's\n"
    "                           tested_commit, which 'heapbench history add' stores with the point\n"
    "      --resume DIR         finish an interrupted run in DIR (its options come from DIR/meta.json)\n"
    "      --shard i/N          run only the workload groups g with g % N == i-1 (merge with 'heapbench merge');\n"
    "                           without it, from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or TEST_SHARD_INDEX\n"
    "      --shards N           the number of shards, for an index from the environment (JOB_COMPLETION_INDEX)\n"
    "      --metric NAME=REGEX[,higher]  read a figure from each run's output into metric_NAME\n"
    "      --wrap 'CMD ARGS'    run every measured process under CMD (e.g. 'taskset -c 1')\n"
    "      --count-instructions count each process's instructions with valgrind (cachegrind, no cache\n"
    "                           simulation) into metric_instructions (deterministic; times and RSS are\n"
    "                           then valgrind's: compare and ci do not gate them)\n"
    "      --count-alloc-instructions  also the instructions inside malloc, free, calloc, realloc, the\n"
    "                           aligned forms and C++ new/delete into metric_alloc_instructions (callgrind:\n"
    "                           ~2.7x slower than --count-instructions)\n"
    "      --latency MODE       off (default), sampled (about 1 malloc-API call in 64 timed: ~1.1 M\n"
    "                           instructions per process and ~1.8 per call more, +0.4 to +0.6% on the\n"
    "                           default cells, +3 to +8% on --quick cells and malloc-only loops\n"
    "                           (docs/measurements/latency-cost.md); ~15 page faults and ~50 KiB RSS)\n"
    "                           or all (every call timed: distorts throughput); the workloads'\n"
    "                           latency histograms go to latency.csv\n"

    "  -h, --help               this text\n"
    "Exit status: 0 every measured run was ok; 1 a run failed, crashed or timed out, an allocator\n"
    "named with -a/--allocator is missing, or a results file could not be written (every row is still\n"
    "written and the failed cells are named on stderr; a missing allocator of the default matrix only\n"
    "gives skipped rows and a warning); 2 usage error (nothing run); 130 interrupted.\n";

/* Prints the usage of cmd. */
void hb_options_usage(enum hb_cmd cmd, FILE *out)
{
    switch (cmd) {
    case HB_CMD_RUN:
        fprintf(out, "usage: heapbench run [options]\n"
                     "Runs the benchmark matrix (workloads x params x threads x env x allocators) and\n"
                     "writes results/<run-id>/ (docs/DATA.md). Options:\n"
                     "  -w, --workloads W1,W2    workloads (LIST names, prog:NAME, trace:FILE; default: all)\n"
                     "  -t, --threads 1,2,4      thread counts of multi-threaded workloads\n"
                     "  -p, --params 'ARGS'      one param set replacing the workloads' own; repeat for more\n"
                     "      --quick              quick param sets, 2 reps, every default allocator\n"
                     "      --workload-bin NAME=PATH   use (or add) a workload binary\n"
                     "      --allocstats         preload the statistics library: allocator figures at every\n"
                     "                           phase end into allocstats.csv\n"
                     "      --list-shard i/N     print the cells of shard i of N (what --shard i/N runs) and exit\n");
        fputs(hb_usage_measure, out);
        break;
    case HB_CMD_EXEC:
        fprintf(out, "usage: heapbench exec [options] -- CMD ARGS...\n"
                     "Measures any command under every allocator, like a workload without phases.\n"
                     "  -w, --workloads NAME     name of the command's cell (default: basename of CMD)\n"
                     "  -w N1,N2 -- CMD1 ARGS ::: CMD2 ARGS   several commands, one cell each, measured\n"
                     "                           in turn every round (with --alternate: A B, B A, ...)\n"
                     "      --hyperfine          also time the commands with hyperfine afterwards\n");
        fputs(hb_usage_measure, out);
        break;
    case HB_CMD_LIST:
        fprintf(out, "usage: heapbench list [--json]\n"
                     "Prints the allocators (found or missing, version, package, matrix) and the workloads\n"
                     "(description, threads, param sets, parameters with their defaults).\n"
                     "      --json               the registry and workloads/LIST as the runner read them, and\n"
                     "                           where it found its files, as one JSON object (docs/DATA.md)\n");
        break;
    case HB_CMD_RECORD:
        fprintf(out, "usage: heapbench record [-o FILE] -- CMD ARGS...  |  heapbench record [-o FILE] -w prog:NAME\n"
                     "Records every malloc-API call of CMD (and of the processes it starts) into the trace FILE\n"
                     "(default results/traces/<CMD or NAME>.hbt, which joins the default matrix as trace:FILE),\n"
                     "after running CMD once without the recorder to store its wall time and peak RSS.\n"
                     "FILE holds the trace of the process with the most events (for gcc: cc1); the other\n"
                     "processes' traces go to FILE.d/.\n"
                     "  -o, --output FILE        the trace to write\n"
                     "  -w, --workloads prog:NAME  record the program definition exec/programs/NAME.prog (its setup\n"
                     "                           runs first in .work.NAME beside FILE, its cleanup after)\n"
                     "  -h, --help               this text\n");
        break;
    case HB_CMD_TRACE:
        fprintf(out, "usage: heapbench trace FILE\nPrints the statistics of an allocation trace (heapbench record).\n");
        break;
    case HB_CMD_NONE:
        fprintf(out, "usage: heapbench COMMAND [options]   (heapbench COMMAND --help for each)\n"
                     "  run       run the benchmark matrix into results/<run-id>/\n"
                     "  exec      benchmark any command: heapbench exec [options] -- CMD ARGS...\n"
                     "  list      show allocators and workloads\n"
                     "  check     is a results directory whole: heapbench check DIR (exit 1 if not; run --resume repairs it)\n"
                     "  doctor    what would make measurements noisy on this machine, and what to do about each\n"
                     "  record    record a program's malloc calls once into a trace: heapbench record [-o FILE] -- CMD ARGS...\n"
                     "  trace     a trace's statistics: heapbench trace FILE (replay it with heapbench run -w trace:FILE)\n"
                     "  report    draw a results directory: heapbench report DIR   (this and the commands below: Python)\n"
                     "  compare   per-cell verdicts between two results directories: heapbench compare BASE NEW\n"
                     "  ci        regression gate: the quick matrix against a baseline or the history\n"
                     "  merge     merge shards' results directories: heapbench merge DIR...\n"
                     "  tune      sweep allocator knobs, verify each took effect, Pareto front\n"
                     "  history   the history of runs per testbed: heapbench history add|testbeds|changes|report|export\n"
                     "  advise    which allocator and settings for my program: heapbench advise [--goal G] -- CMD ARGS...\n"
                     "  explain   where a program's memory goes under each allocator, which call sites pin free memory:\n"
                     "            heapbench explain [-a A1,A2] [--at end|peak|N|-N] -- CMD ARGS... (or a TRACE)\n"
                     "  bisect    the first commit that changed memory or speed: heapbench bisect --good A --bad B -- CMD\n"
                     "  --version print the version and the commit it was built from\n"
                     "Results: each run writes <run-id>/ and the link latest into the results location:\n"
                     "$HEAPBENCH_RESULTS when set; else, installed, ./results of the current directory\n"
                     "(never the install prefix); else, run from a source tree, that tree's results/.\n");
        break;
    }
}

/* Parses "0,2-3" into set. */
int hb_parse_cpus(const char *text, cpu_set_t *set)
{
    struct hb_strv parts = {0};
    hb_strv_split(&parts, text, ",", 1);
    CPU_ZERO(set);
    int rc = parts.n ? 0 : -1;
    for (size_t i = 0; i < parts.n && rc == 0; i++) {
        int lo, hi;
        char *dash = strchr(parts.v[i], '-');
        if (dash)
            *dash = '\0';
        rc = hb_parse_int(parts.v[i], &lo);
        hi = lo;
        if (rc == 0 && dash)
            rc = hb_parse_int(dash + 1, &hi);
        if (rc == 0 && (hi < lo || hi >= CPU_SETSIZE))
            rc = -1;
        for (int c = lo; rc == 0 && c <= hi; c++)
            CPU_SET(c, set);
    }
    hb_strv_free(&parts);
    return rc;
}

/* Parses a number option or exits 2 naming it (and the largest value it takes). */
static int hb_opt_int(const char *opt, const char *val, int min)
{
    int v;
    if (hb_parse_int(val, &v) != 0 || v < min)
        hb_usage("%s: '%s' is not a whole number from %d to %d; give e.g. %s %d", opt, val, min, INT_MAX, opt,
                 min + 1);
    return v;
}

/* A word's value in its plain form when it is a whole number (NAME=007 and NAME=+7 -> NAME=7). */
static char *hb_opt_canon_word(const char *w)
{
    const char *eq = strchr(w, '='), *v = eq ? eq + 1 : w;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || strchr(" \t\n", *v))
        return hb_xstrdup(w);
    return hb_xasprintf("%.*s%lld", (int)(v - w), w, n);
}

static int hb_opt_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An axis value as the runner reads it, so that two spellings of one value compare equal: a
 * thread count as its number, a -p or --env set as its words in sorted order, each whole-number
 * value in its plain form; any other axis value as given. New string. */
static char *hb_opt_canon(const char *opt, const char *val)
{
    if (strcmp(opt, "-p") != 0 && strcmp(opt, "--env") != 0 && strcmp(opt, "-t") != 0)
        return hb_xstrdup(val);
    struct hb_strv words = {0}, canon = {0};
    hb_strv_split(&words, val, " \t", 0);
    for (size_t i = 0; i < words.n; i++) {
        char *c = hb_opt_canon_word(words.v[i]);
        hb_strv_push(&canon, c);
        free(c);
    }
    if (canon.n > 1)
        qsort(canon.v, canon.n, sizeof *canon.v, hb_opt_cmp_str);
    char *out = hb_strv_join(&canon, " ");
    hb_strv_free(&words), hb_strv_free(&canon);
    return out;
}

/* Adds val to an axis list, refusing a value it already holds, in any spelling (it would repeat
 * cells, which --resume would then drop and measure again every time). */
static void hb_opt_unique(struct hb_strv *sv, const char *opt, const char *val)
{
    char *mine = hb_opt_canon(opt, val);
    for (size_t i = 0; i < sv->n; i++) {
        char *theirs = hb_opt_canon(opt, sv->v[i]);
        int same = strcmp(mine, theirs) == 0;
        free(theirs);
        if (same && strcmp(val, sv->v[i]) == 0)
            hb_usage("%s: '%s' is given twice; give each value once", opt, val);
        if (same)
            hb_usage("%s: '%s' is the value '%s' given before, spelled differently; give each value once", opt, val,
                     sv->v[i]);
    }
    free(mine);
    hb_strv_push(sv, val);
}

/* Splits a comma list into sv, rejecting an empty list, an empty item and a repeated item. */
static void hb_opt_list(struct hb_strv *sv, const char *opt, const char *val)
{
    struct hb_strv items = {0};
    hb_strv_split(&items, val, ",", 1);
    if (!*val)
        hb_usage("%s: empty list; give names separated by commas", opt);
    for (size_t i = 0; i < items.n; i++) {
        if (!items.v[i][0])
            hb_usage("%s: '%s' has an empty item; give values separated by single commas", opt, val);
        hb_opt_unique(sv, opt, items.v[i]);
    }
    hb_strv_free(&items);
}

/* --env 'K=V K2=V2': every word NAME=VALUE with a shell-style NAME, no quotes (not a shell). */
static void hb_opt_env(struct hb_strv *envs, const char *val)
{
    struct hb_strv words = {0};
    hb_strv_split(&words, val, " \t", 0);
    for (size_t i = 0; i < words.n; i++) {
        const char *w = words.v[i];
        size_t name = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
        if (!name || w[name] != '=' || (w[0] >= '0' && w[0] <= '9'))
            hb_usage("--env: '%s' is not NAME=VALUE; an env set is NAME=VALUE words separated by blanks", w);
        if (strpbrk(w, "\"'"))
            hb_usage("--env: '%s' holds a quote; values cannot hold blanks or quotes (no shell parses them)", w);
    }
    hb_strv_free(&words);
    hb_opt_unique(envs, "--env", val);
}

/* --thp MODE or --thp M1,M2,...: one mode for every process, or several as an axis. */
static void hb_opt_thp(struct hb_options *o, const char *val)
{
    hb_strv_free(&o->thp_axis);
    hb_opt_list(&o->thp_axis, "--thp", val);
    for (size_t i = 0; i < o->thp_axis.n; i++)
        if (hb_thp_parse(o->thp_axis.v[i]) < 0)
            hb_usage("--thp: '%s' is not a mode; give never, madvise or always (or several, comma-separated)",
                     o->thp_axis.v[i]);
    o->thp = o->thp_axis.n == 1 ? hb_thp_parse(o->thp_axis.v[0]) : -1;
    if (o->thp_axis.n == 1)
        hb_strv_free(&o->thp_axis);
}

/* Checks NAME=VALUE shape of a pair option (what: its VALUE's word; example: one of its own). */
static void hb_opt_pair(struct hb_strv *sv, const char *opt, const char *val, const char *what, const char *example)
{
    const char *eq = strchr(val, '=');
    if (!eq || eq == val || !eq[1])
        hb_usage("%s: '%s' is not NAME=%s; e.g. %s %s", opt, val, what, opt, example);
    hb_strv_push(sv, val);
}

/* Parses --mem-limit SIZE: a whole number with an optional K, M, G or T suffix (powers of 1024),
 * or "none". */
static unsigned long long hb_opt_size(const char *val)
{
    if (strcmp(val, "none") == 0)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    const char *units = "KMGT", *u = *end ? strchr(units, *end) : NULL;
    if (errno || end == val || *val == '-' || (*end && (!u || end[1])) || v == 0)
        hb_usage("--mem-limit: '%s' is not a size; give e.g. --mem-limit 512M, 4G or none", val);
    for (int i = 0; u && i <= (int)(u - units); i++) {
        if (v > ULLONG_MAX / 1024)
            hb_usage("--mem-limit: '%s' is too large; give e.g. --mem-limit 4G or none", val);
        v *= 1024;
    }
    return v;
}

/* The default --mem-limit: 3/4 of physical memory. */
static unsigned long long hb_opt_default_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size / 4 * 3 : 0;
}

/* Parses --shard i/N (or --list-shard i/N, named by opt). */
static void hb_opt_shard(struct hb_options *o, const char *opt, const char *val)
{
    char *copy = hb_xstrdup(val);
    char *slash = strchr(copy, '/');
    if (slash)
        *slash = '\0';
    if (!slash || hb_parse_int(copy, &o->shard_i) || hb_parse_int(slash + 1, &o->shard_n) ||
        o->shard_n < 1 || o->shard_i < 1 || o->shard_i > o->shard_n)
        hb_usage("%s: '%s' is not i/N with 1 <= i <= N; e.g. %s 1/2", opt, val, opt);
    free(copy);
    o->shard_source = "--shard";
}

/* Without --shard: the shard from the scheduler's environment (shardenv.h), also appended to
 * argv as --shard i/N so that meta.json and --resume keep it outside the scheduler. */
static void hb_opt_shard_env(struct hb_options *o)
{
    char err[256];
    if (o->shard_source) {
        if (o->shards && o->shards != o->shard_n)
            hb_usage("--shards %d disagrees with --shard %d/%d; give one of them", o->shards, o->shard_i, o->shard_n);
        return;
    }
    if (o->resume || o->cmd != HB_CMD_RUN)
        return;
    if (hb_shard_from_env(o->shards, &o->shard_i, &o->shard_n, &o->shard_source, err, sizeof err) != 0)
        hb_usage("shard from the environment: %s", err);
    if (o->shard_source)
        hb_strv_pushf(&o->argv, "--shard=%d/%d", o->shard_i, o->shard_n);
}

/* Is text 7 to 40 hex digits (either case)? history's rule for a commit under test (commit.py). */
int hb_commit_hex(const char *text)
{
    size_t n = strspn(text, "0123456789abcdefABCDEF");
    return !text[n] && n >= 7 && n <= 40;
}

/* --commit REV: a hash (lower-cased) or a revision of the git repository of the working directory,
 * resolved to its full hash as history add --commit does; appended to argv as --commit=HASH so that
 * --resume and meta.json keep the commit, not a name (HEAD) that may have moved. */
static void hb_opt_commit(struct hb_options *o)
{
    char *word = o->tested_commit;
    if (!word || o->resume)
        return;
    if (hb_commit_hex(word)) {
        for (char *c = word; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
        return;
    }
    char *rev = hb_xasprintf("%s^{commit}", word);
    char *argv[] = {"git", "rev-parse", "--verify", "--quiet", rev, NULL};
    char *hash = *word && *word != '-' ? hb_capture(argv) : hb_xstrdup("");
    free(rev);
    if (!hb_commit_hex(hash))
        hb_usage("--commit: '%s' is not a commit hash (7 to 40 hex digits) nor a revision of a git repository here; "
                 "give the hash of the commit under test (git rev-parse REV)", word);
    free(o->tested_commit);
    o->tested_commit = hash;
    hb_strv_pushf(&o->argv, "--commit=%s", hash);
}

/* Handles one parsed option; returns 0 when c is not an option of this table. */
static int hb_opt_apply(struct hb_options *o, int c, const char *val)
{
    switch (c) {
    case 'w': hb_opt_list(&o->workloads, "-w", val); break;
    case 'a': hb_opt_list(&o->allocators, "-a", val); break;
    case 't':
        hb_opt_list(&o->threads, "-t", val);
        for (size_t i = 0; i < o->threads.n; i++) { /* the cells' threads: the number, in its plain form */
            int t = hb_opt_int("-t", o->threads.v[i], 1);
            free(o->threads.v[i]);
            o->threads.v[i] = hb_xasprintf("%d", t);
        }
        break;
    case 'n': o->reps = hb_opt_int("-n", val, 1); o->reps_set = 1; break;
    case 'p': hb_opt_unique(&o->params, "-p", val); break;
    case 'o': free(o->outdir); o->outdir = hb_xstrdup(val); break;
    case OPT_WARMUP: o->warmup = hb_opt_int("--warmup", val, 0); break;
    case OPT_QUICK: o->quick = 1; break;
    case OPT_ENV:
        if (hb_thp_of_env(val, 0) == -2)
            hb_usage("--env: '%s' has HEAPBENCH_THP= without one of the modes; give HEAPBENCH_THP=never, madvise or "
                     "always", val);
        hb_opt_env(&o->envs, val);
        break;
    case OPT_ALLOCATOR: hb_opt_pair(&o->user_allocs, "--allocator", val, "/PATH", "name=/path/lib.so"); break;
    case OPT_WORKLOAD_BIN: hb_opt_pair(&o->user_bins, "--workload-bin", val, "/PATH", "name=/path/binary"); break;
    case OPT_PIN:
        if (hb_parse_cpus(val, &o->pin) != 0)
            hb_usage("--pin: '%s' is not a CPU list; e.g. --pin 0 or --pin 0-1", val);
        o->have_pin = 1;
        free(o->pin_text);
        o->pin_text = hb_xstrdup(val);
        break;
    case OPT_TIMEOUT:
        if (hb_parse_double(val, &o->timeout_s) != 0)
            hb_usage("--timeout: '%s' is not a number of seconds; e.g. --timeout 60", val);
        break;
    case OPT_PRIORITY:
        if ((o->priority = hb_prio_parse(val)) < 0)
            hb_usage("--priority: '%s' is not a level; give " HB_PRIO_WORDS, val);
        break;
    case OPT_INTERVAL: o->interval_ms = hb_opt_int("--interval", val, 0); break;
    case OPT_RESUME: free(o->resume); o->resume = hb_xstrdup(val); break;
    case OPT_SHARD: hb_opt_shard(o, "--shard", val); break;
    case OPT_LIST_SHARD: hb_opt_shard(o, "--list-shard", val); o->list_shard = 1; break;
    case OPT_SHARDS: o->shards = hb_opt_int("--shards", val, 1); break;
    case OPT_METRIC: hb_opt_pair(&o->metrics, "--metric", val, "REGEX", "'ops=([0-9]+) ops'"); break;
    case OPT_HYPERFINE: o->hyperfine = 1; break;
    case OPT_JSON: o->json = 1; break;
    case OPT_ALTERNATE: o->alternate = 1; break;
    case OPT_ALLOCSTATS: o->allocstats = 1; break;
    case OPT_THP: hb_opt_thp(o, val); break;
    case OPT_WRAP:
        if (!*val)
            hb_usage("--wrap: empty command; e.g. --wrap 'taskset -c 1'");
        if (o->count)
            hb_usage("--wrap and --count-instructions both wrap every process (the count runs valgrind); give one");
        free(o->wrap);
        o->wrap = hb_xstrdup(val);
        break;
    case OPT_LATENCY:
        if (wl_lat_mode_parse(val) < 0)
            hb_usage("--latency: '%s' is not a mode; give " WL_LAT_MODE_WORDS, val);
        free(o->latency);
    free(o->tested_commit);
        o->latency = hb_xstrdup(val);
        break;
    case OPT_MEM_LIMIT: o->mem_limit = hb_opt_size(val); o->mem_limit_set = 1; break;
    case OPT_COMMIT: free(o->tested_commit); o->tested_commit = hb_xstrdup(val); break;
    case OPT_INSTRUCTIONS:
    case OPT_ALLOC_INSTRUCTIONS:
        if (access(HB_INSTR_VALGRIND, X_OK) != 0)
            hb_usage("--%s needs valgrind (" HB_INSTR_VALGRIND "), which is not installed here: run 'make deps' "
                     "(or apt-get install valgrind)",
                     c == OPT_INSTRUCTIONS ? "count-instructions" : "count-alloc-instructions");
        if (o->wrap && !o->count)
            hb_usage("--wrap and --count-instructions both wrap every process (the count runs valgrind); give one");
        if (o->count != HB_COUNT_ALLOC) /* callgrind counts the program too: the alloc count wins */
            o->count = c == OPT_INSTRUCTIONS ? HB_COUNT_PROGRAM : HB_COUNT_ALLOC;
        free(o->wrap);
        o->wrap = hb_xstrdup(o->count == HB_COUNT_ALLOC ? HB_INSTR_ALLOC : HB_INSTR_PROGRAM);
        break;
    default: return 0;
    }
    return 1;
}

/* Whether option c belongs to cmd (each subcommand accepts the options its usage text lists). */
static int hb_opt_allowed(enum hb_cmd cmd, int c)
{
    switch (cmd) {
    case HB_CMD_RUN: return c != OPT_HYPERFINE && c != OPT_JSON;
    case HB_CMD_EXEC: return c != 't' && c != 'p' && c != OPT_ALLOCSTATS && c != OPT_LIST_SHARD && c != OPT_JSON;
    case HB_CMD_RECORD: return c == 'w' || c == 'o';
    case HB_CMD_LIST: return c == OPT_JSON;
    default: return 0;
    }
}

/* exec -w N1,N2,...: one command per name, HB_EXEC_SEP between them, none empty, no name twice. */
static void hb_opt_commands(const struct hb_options *o)
{
    size_t seps = 0, words = 0;
    for (size_t i = 0; i < o->command.n; i++) {
        int sep = strcmp(o->command.v[i], HB_EXEC_SEP) == 0;
        if (sep && !words)
            hb_usage("exec: command %zu of -w is empty; give one command per name: -w %s,%s -- CMD1 ARGS %s CMD2 ARGS",
                     seps + 1, o->workloads.v[0], o->workloads.v[1], HB_EXEC_SEP);
        seps += sep;
        words = sep ? 0 : words + 1;
    }
    if (seps + 1 != o->workloads.n || !words)
        hb_usage("exec: -w names %zu commands and %zu were given; separate them with '%s': "
                 "-w %s,%s -- CMD1 ARGS %s CMD2 ARGS", o->workloads.n, words ? seps + 1 : seps, HB_EXEC_SEP,
                 o->workloads.v[0], o->workloads.v[1], HB_EXEC_SEP);
    for (size_t i = 0; i < o->workloads.n; i++)
        for (size_t k = 0; k < i; k++)
            if (strcmp(o->workloads.v[i], o->workloads.v[k]) == 0)
                hb_usage("exec: -w names '%s' twice; give each command its own name", o->workloads.v[i]);
}

/* exec -w's names: printable (a name is shown on one line, in tables and in one-line messages). */
static void hb_opt_names(const struct hb_options *o)
{
    for (size_t i = 0; i < o->workloads.n; i++)
        for (const unsigned char *c = (const unsigned char *)o->workloads.v[i]; *c; c++)
            if (hb_is_ctrl(*c))
                hb_usage("exec: name %zu of -w holds a control character (a newline, a tab, ...); give a name of "
                         "printable characters", i + 1);
}

/* The operands after the options: exec's and record's command, trace's one file, nothing else. */
static void hb_opt_operands(struct hb_options *o, const char *name)
{
    if (o->cmd == HB_CMD_EXEC && !o->command.n && !o->resume)
        hb_usage("exec: no command; give it after --, e.g. heapbench exec -- python3 -c 'pass'");
    if (o->cmd == HB_CMD_EXEC)
        hb_opt_names(o);
    if (o->cmd == HB_CMD_EXEC && o->workloads.n > 1)
        hb_opt_commands(o);
    if (o->cmd == HB_CMD_RECORD && o->workloads.n &&
        (o->workloads.n > 1 || strncmp(o->workloads.v[0], "prog:", 5) != 0 || !o->workloads.v[0][5]))
        hb_usage("record: -w takes one prog:NAME (a definition of exec/programs/), got '%s'", o->workloads.v[0]);
    if (o->cmd == HB_CMD_RECORD && o->workloads.n && o->command.n)
        hb_usage("record: give -w prog:NAME or -- CMD ARGS..., not both");
    if (o->cmd == HB_CMD_RECORD && !o->workloads.n && !o->command.n)
        hb_usage("record: no command given; usage: heapbench record [-o FILE] -- CMD ARGS...");
    if (o->cmd == HB_CMD_TRACE && o->command.n != 1)
        hb_usage("trace: give one trace file: heapbench trace FILE");
    if (o->cmd != HB_CMD_EXEC && o->cmd != HB_CMD_RECORD && o->cmd != HB_CMD_TRACE && o->command.n)
        hb_usage("%s: unexpected argument '%s'; see heapbench %s --help", name, o->command.v[0], name);
}

/* Parses one subcommand's arguments. */
void hb_options_parse(struct hb_options *o, enum hb_cmd cmd, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"workloads", required_argument, 0, 'w'}, {"allocators", required_argument, 0, 'a'},
        {"threads", required_argument, 0, 't'},   {"reps", required_argument, 0, 'n'},
        {"params", required_argument, 0, 'p'},    {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},            {"warmup", required_argument, 0, OPT_WARMUP},
        {"quick", no_argument, 0, OPT_QUICK},     {"env", required_argument, 0, OPT_ENV},
        {"allocator", required_argument, 0, OPT_ALLOCATOR},
        {"workload-bin", required_argument, 0, OPT_WORKLOAD_BIN},
        {"pin", required_argument, 0, OPT_PIN},   {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"interval", required_argument, 0, OPT_INTERVAL},
        {"resume", required_argument, 0, OPT_RESUME}, {"shard", required_argument, 0, OPT_SHARD},
        {"metric", required_argument, 0, OPT_METRIC}, {"hyperfine", no_argument, 0, OPT_HYPERFINE},
        {"alternate", no_argument, 0, OPT_ALTERNATE}, {"priority", required_argument, 0, OPT_PRIORITY},
        {"wrap", required_argument, 0, OPT_WRAP},
        {"count-instructions", no_argument, 0, OPT_INSTRUCTIONS},
        {"count-alloc-instructions", no_argument, 0, OPT_ALLOC_INSTRUCTIONS},
        {"allocstats", no_argument, 0, OPT_ALLOCSTATS}, {"thp", required_argument, 0, OPT_THP},
        {"latency", required_argument, 0, OPT_LATENCY},
        {"shards", required_argument, 0, OPT_SHARDS}, {"list-shard", required_argument, 0, OPT_LIST_SHARD},
        {"mem-limit", required_argument, 0, OPT_MEM_LIMIT}, {"json", no_argument, 0, OPT_JSON},
        {"commit", required_argument, 0, OPT_COMMIT},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->reps = 5;
    o->warmup = 1;
    o->timeout_s = 300;
    o->interval_ms = 10;
    o->shard_i = o->shard_n = 1;
    o->thp = -1;
    o->latency = hb_xstrdup(wl_lat_mode_names[WL_LAT_OFF]);
    o->mem_limit = hb_opt_default_mem();
    for (int i = 0; i < argc; i++) { /* meta.json and the CSVs hold them, and they are UTF-8 text */
        if (!hb_utf8_valid(argv[i], strlen(argv[i]), NULL))
            hb_usage("%s: argument %d is not UTF-8 text (a byte such as \\xfe); heapbench records its command line "
                     "and the directory name in UTF-8 files: give names and values in UTF-8", argv[0], i);
        hb_strv_push(&o->argv, argv[i]);
    }
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:w:a:t:n:p:o:h", longopts, NULL)) != -1) {
        const char *bad = argv[optind - 1];
        if (c == 'h') {
            hb_options_usage(cmd, stdout);
            exit(0);
        }
        if (c == ':')
            hb_usage("%s %s: the option needs a value; see heapbench %s --help", argv[0], bad, argv[0]);
        if (c == '?' || !hb_opt_allowed(cmd, c) || !hb_opt_apply(o, c, optarg))
            hb_usage("%s: unknown option '%s'; see heapbench %s --help", argv[0], bad, argv[0]);
    }
    if (o->quick && !o->reps_set)
        o->reps = 2;
    hb_opt_shard_env(o);
    hb_opt_commit(o);
    for (int i = optind; i < argc; i++)
        hb_strv_push(&o->command, argv[i]);
    hb_opt_operands(o, argv[0]);
}

/* Frees every owned member. */
void hb_options_free(struct hb_options *o)
{
    struct hb_strv *lists[] = {&o->argv, &o->workloads, &o->allocators, &o->threads, &o->envs,
                               &o->params, &o->user_allocs, &o->user_bins, &o->metrics, &o->command, &o->thp_axis};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        hb_strv_free(lists[i]);
    free(o->pin_text);
    free(o->wrap);
    free(o->latency);
    free(o->outdir);
    free(o->resume);
}
