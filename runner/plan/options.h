/* options.h - the command line of every subcommand: ONE options struct, one usage text each.
 *
 * Always holds: after hb_options_parse() returns, every numeric field is in range, every
 * list option is split, and nothing has been checked against the registries yet (names are
 * checked by matrix.c, which knows the valid ones). Bad syntax exits 2 with one line.
 */
#ifndef HEAPBENCH_OPTIONS_H
#define HEAPBENCH_OPTIONS_H

#include <sched.h>
#include <stdio.h>

#include "base/util.h"

enum hb_cmd { HB_CMD_NONE, HB_CMD_RUN, HB_CMD_EXEC, HB_CMD_LIST, HB_CMD_RECORD, HB_CMD_TRACE };

struct hb_options {
    enum hb_cmd cmd;
    struct hb_strv argv;         /* the subcommand and its arguments as given (for meta/resume) */
    struct hb_strv workloads;    /* -w, split on ',' */
    struct hb_strv allocators;   /* -a, split on ',' */
    struct hb_strv threads;      /* -t, split on ',' (validated numbers) */
    int reps, warmup;            /* -n, --warmup */
    int reps_set;
    int quick;
    struct hb_strv envs;         /* --env, one set each (may be "") */
    struct hb_strv params;       /* -p, one param set each */
    struct hb_strv user_allocs;  /* --allocator NAME=PATH */
    struct hb_strv user_bins;    /* --workload-bin NAME=PATH */
    cpu_set_t pin;
    int have_pin;
    char *pin_text;
    double timeout_s;
    int priority;                /* --priority: a level of base/priority.h (HB_PRIO_NORMAL by default) */
    int interval_ms;
    char *outdir;                /* -o (record: the trace file) */
    char *resume;                /* --resume */
    int shard_i, shard_n;        /* --shard i/N (1/1 without, or from the environment: shardenv.h) */
    int shards;                  /* --shards N: the count for an index read from the environment */
    const char *shard_source;    /* "--shard", the environment variable of the index, or NULL (1/1) */
    int list_shard;              /* run --list-shard i/N: print the shard's cells, run nothing */
    struct hb_strv metrics;      /* --metric NAME=REGEX[,higher] */
    int hyperfine;               /* exec --hyperfine */
    int json;                    /* list --json */
    int alternate;               /* --alternate: every other round visits the groups in reverse order */
    char *wrap;                  /* --wrap 'CMD ARGS': prefix of every measured process's argv */
    int count;                   /* HB_COUNT_*: --count-instructions (cachegrind) or --count-alloc-instructions
                                  * (callgrind): o->wrap is then valgrind, whose output file the engine names */
    int allocstats;              /* run --allocstats: preload build/lib/libhbstats.so in workload cells */
    int thp;                     /* --thp: a mode of thp.h; -1 when not given or given as a list */
    struct hb_strv thp_axis;     /* --thp M1,M2,...: two or more modes, an axis (each env set x each mode) */
    char *latency;               /* --latency MODE (wl_latmode.h; default off): HEAPBENCH_LATENCY of workloads */
    unsigned long long mem_limit; /* --mem-limit: bytes (the run's cgroup, else RLIMIT_DATA), 0 = none;
                                   * default 3/4 of physical memory (protects the machine) */
    int mem_limit_set;           /* 1: given on the command line */
    char *tested_commit;         /* --commit: the commit under test, a lower-case hash of 7 to 40 hex digits
                                  * (a revision name is resolved by git rev-parse), or NULL */
    struct hb_strv command;      /* exec and record: CMD ARGS...; trace: FILE; exec with -w N1,N2,...:
                                  * the commands, HB_EXEC_SEP between them */
};

/* The word between exec's commands: heapbench exec -w base,head -- CMD1 ARGS ::: CMD2 ARGS */
#define HB_EXEC_SEP ":::"

/* What valgrind counts in every measured process (options.count). */
enum { HB_COUNT_NONE, HB_COUNT_PROGRAM, HB_COUNT_ALLOC };

/* Parses argv (argv[0] is the subcommand name, e.g. "run") for cmd into o. Prints the
 * subcommand's usage and exits 0 on --help; exits 2 with one line on any error. */
void hb_options_parse(struct hb_options *o, enum hb_cmd cmd, int argc, char **argv);

/* The usage text of a subcommand (HB_CMD_NONE: the top-level one) on stream. */
void hb_options_usage(enum hb_cmd cmd, FILE *stream);

/* Parses a CPU list "0,2-3" into set; 0 or -1 when malformed. */
int hb_parse_cpus(const char *text, cpu_set_t *set);

void hb_options_free(struct hb_options *o);

/* Is text a commit hash of 7 to 40 hex digits (either case)? The rule of --commit and of meta.json's
 * tested_commit (lower case there), history's commit.py's too. */
int hb_commit_hex(const char *text);

#endif
