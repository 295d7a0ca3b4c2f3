/* worklist.h - the workloads a run can use: workloads/LIST, --workload-bin, programs, commands.
 *
 * A trace:FILE workload is a BINARY one: the replayer, which speaks the phase protocol.
 * Always holds: every hb_workload has a name, a kind and at least one param set (possibly "");
 * nthreads == 0 means single-threaded (never given --threads, the threads column is 1).
 */
#ifndef HEAPBENCH_WORKLIST_H
#define HEAPBENCH_WORKLIST_H

#include <stddef.h>
#include <stdio.h>

#include "plan/program.h"
#include "base/util.h"

enum hb_wl_kind {
    HB_WL_BINARY,   /* a phase-protocol workload binary (build/workloads/NAME or --workload-bin) */
    HB_WL_PROGRAM,  /* prog:NAME, an exec/programs/NAME.prog definition */
    HB_WL_COMMAND   /* heapbench exec -- CMD ARGS */
};

#define HB_MAX_THREADS 64 /* thread counts per workload */

struct hb_workload {
    char *name;
    enum hb_wl_kind kind;
    char *bin;                   /* BINARY: path of the executable */
    struct hb_strv args;         /* BINARY: fixed arguments before the params (trace:FILE's --trace=) */
    int threads[HB_MAX_THREADS]; /* default thread sweep */
    size_t nthreads;             /* 0: single-threaded */
    struct hb_strv params;       /* param sets */
    struct hb_strv quick_params; /* --quick param sets */
    char *description;
    struct hb_program *prog;     /* PROGRAM */
    struct hb_strv command;      /* COMMAND: argv */
    char own_allocator[128];     /* allocators of its own found in a run ('+'-separated; meta.json) */
};

struct hb_worklist {
    struct hb_workload *w;
    size_t n;
};

/* Parses LIST text (docs/DATA.md); binaries are $ROOT/build/workloads/NAME.
 * Returns 0, or -1 with err "line N: ...". */
int hb_worklist_parse(struct hb_worklist *wl, const char *text, char *err, size_t errlen);

/* Loads $ROOT/workloads/LIST (absent file = no workloads); exits 1 when malformed. */
void hb_worklist_load(struct hb_worklist *wl);

/* Applies --workload-bin NAME=PATH: replaces NAME's binary or adds a single-threaded
 * workload with one empty param set. Exits 2 when PATH is not executable. */
struct hb_workload *hb_worklist_add_bin(struct hb_worklist *wl, const char *spec);

/* Adds prog:NAME for each program definition. */
void hb_worklist_add_programs(struct hb_worklist *wl, struct hb_program *progs, size_t n);

/* Adds trace:FILE, the replayer (build/replay/hbreplay) on the trace FILE (relative to the
 * current directory, else to the root). Exits 2 when FILE is not a readable file or its path
 * holds a space. */
struct hb_workload *hb_worklist_add_trace(struct hb_worklist *wl, const char *name);

/* Adds trace:results/traces/NAME.hbt for every trace recorded there (make bench records the
 * program definitions there): they join the default matrix (not --quick, like prog:NAME). */
void hb_worklist_add_traces(struct hb_worklist *wl);

/* Adds the exec command workload named name (basename of argv[0] when NULL). */
struct hb_workload *hb_worklist_add_command(struct hb_worklist *wl, const char *name,
                                            const struct hb_strv *argv);

struct hb_workload *hb_worklist_find(const struct hb_worklist *wl, const char *name);

/* Every name, comma separated; new string. */
char *hb_worklist_names(const struct hb_worklist *wl);

/* Prints "  name default description" lines of `BIN --describe` to out, or a note when the
 * binary is missing or fails. */
void hb_worklist_describe(const struct hb_workload *w, FILE *out);

void hb_worklist_free(struct hb_worklist *wl);

#endif
