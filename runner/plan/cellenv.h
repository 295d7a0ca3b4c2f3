/* cellenv.h - the argv and envp of one measured process, built before hb_launch() is called.
 *
 * Always holds: the child's environment is the runner's environ, minus any inherited
 * LD_PRELOAD / HEAPBENCH_PHASE_FD and the names the cell's env set overrides, plus
 * LD_PRELOAD=<allocator lib> (then the probe for programs and commands, where glibc's "lib" is
 * the C library itself, so that it serves malloc even in a program linked with another
 * allocator; nothing for glibc workloads; the statistics library after it for workloads with
 * --allocstats), the allocator's huge-page switch under --thp, HEAPBENCH_PHASE_FD=3, HEAPBENCH_PROBE_PPID=<runner pid> when the probe is
 * preloaded (so only the measured process reports, not its children) and the env set's words.
 */
#ifndef HEAPBENCH_CELLENV_H
#define HEAPBENCH_CELLENV_H

#include "plan/matrix.h"
#include "plan/registry.h"
#include "base/util.h"

/* argv of the group's process: the workload binary with --threads=N, --quick and its params
 * (split on blanks), the program's expanded command, or the exec command. */
void hb_cell_argv(const struct hb_group *g, int quick, struct hb_strv *argv);

/* What a cell's environment adds beyond its allocator and env set. */
struct hb_cell_extra {
    const char *probe; /* the served_by probe library for programs and commands; NULL for
                          workload binaries, which report served_by themselves */
    const char *stats; /* the statistics library, preloaded after the allocator when there is no
                          probe (run --allocstats, workload binaries); NULL: none */
    int thp;           /* a huge-page mode of thp.h whose allocator switch is set (merged into
                          MALLOC_CONF / GLIBC_TUNABLES); -1: none */
};

/* The huge-page mode of cell (g, a), worked out here alone: the env set's HEAPBENCH_THP, else
 * dflt (--thp), else -1 (none asked: no switch is set and no prctl made). *in_effect gets the mode
 * in effect as runs.csv's thp column writes it (hb_thp_in_effect() under the system mode sys; an
 * unasked mode counts as madvise, which changes nothing). */
int hb_cell_thp_mode(const struct hb_group *g, const struct hb_alloc *a, int dflt, int sys, const char **in_effect);

/* envp for group g under allocator a, with x's additions. */
void hb_cell_envp(const struct hb_group *g, const struct hb_alloc *a, const struct hb_cell_extra *x,
                  struct hb_strv *envp);

/* The environment without LD_PRELOAD (for drivers, ready checks and setup steps), plus the
 * program's HB_* variables when p is not NULL. */
void hb_cell_plain_envp(const struct hb_program *p, struct hb_strv *envp);

#endif
