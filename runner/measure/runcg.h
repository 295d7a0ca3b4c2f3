/* runcg.h - the run's cgroup: every measured process of one heapbench run is put in a cgroup of
 * its own, which holds --mem-limit where the memory controller allows, and which a guard process
 * empties and removes when the runner ends, however it ends (kill -9 included).
 *
 * Where: the first that works of (1) a child of the runner's cgroup v2 whose parent delegates the
 * memory controller (memory.max, memory.swap.max 0), (2) a child of the runner's cgroup v1 memory
 * hierarchy (memory.limit_in_bytes, memory.swappiness 0), (3) a child of its cgroup v2 without the
 * memory controller (processes only: the limit stays RLIMIT_DATA); else none (not root, no
 * writable cgroup fs, or HEAPBENCH_CGROUP=off): process groups, PR_SET_PDEATHSIG and the
 * subreaper (reaper.h) then do what they can, and --mem-limit is RLIMIT_DATA.
 * The guard (`heapbench cgroup-guard DIR`, started through spawner.c in a process group of its
 * own, ignoring SIGINT/SIGTERM/SIGHUP/SIGQUIT) reads a pipe whose only writer is the runner (the
 * write end is O_CLOEXEC: no measured process holds it); at EOF it kills every process listed in
 * DIR/cgroup.procs until none is left, then removes DIR.
 *
 * Always holds: after hb_runcg_close() or the runner's death, DIR holds no process and is removed
 * (bounded by HB_RUNCG_BOUND_S for processes that do not die); only processes in DIR are ever
 * signalled.
 */
#ifndef HEAPBENCH_RUNCG_H
#define HEAPBENCH_RUNCG_H

#include <limits.h>
#include <sys/types.h>

#define HB_RUNCG_BOUND_S 5.0 /* how long emptying a cgroup waits for its processes to die */

struct hb_runcg {
    int version;                /* 0: no cgroup, 1 or 2 */
    int limited;                /* 1: the cgroup holds the memory limit (then no RLIMIT_DATA) */
    unsigned long long limit;   /* the limit in bytes when limited */
    char dir[PATH_MAX];         /* the cgroup directory; "" when none */
    const char *how;            /* one line for meta.json: the mechanism, or why none */
    int guard_fd;               /* the runner's write end of the guard's pipe, -1 when none */
    pid_t guard_pid;
};

/* Creates the run's cgroup (with limit, 0 = none) and starts its guard; on any failure cg->version
 * is 0 and cg->how says why. Never fails the run. */
void hb_runcg_open(struct hb_runcg *cg, unsigned long long limit);

/* Moves pid into the cgroup; 0, or an errno value. */
int hb_runcg_join(const struct hb_runcg *cg, pid_t pid);

/* The cgroup's count of OOM kills so far (memory.events or memory.oom_control), 0 when unknown. */
unsigned long long hb_runcg_oom_kills(const struct hb_runcg *cg);

/* Kills every process in the cgroup until none is left (bounded); returns how many were found. */
int hb_runcg_empty(const struct hb_runcg *cg);

/* Empties and removes the cgroup, then ends the guard and reaps it (once; cg keeps version, dir
 * and how, for the record). */
void hb_runcg_close(struct hb_runcg *cg);

/* The guard's main: waits for EOF on stdin, then empties and removes dir. Returns the exit status. */
int hb_runcg_guard_main(const char *dir);

#endif
