/* launch.h - run one process and measure it: the only part of the runner that measures a process.
 *
 * hb_launch() starts argv with envp (the allocator already in envp's LD_PRELOAD), measures it
 * and returns when it has ended (exited, crashed, or killed at its timeout, with its whole
 * process group). Contract:
 *   - everything the child needs (argv, envp, cpu set) is prepared before fork(); between
 *     fork and exec the child only calls async-signal-safe functions and allocates nothing;
 *   - the child waits on a pipe until the parent has opened the perf counters on it
 *     (enable_on_exec, inherit), then execs; wall time runs from that release to reaping;
 *   - the child is the leader of a new process group (setpgid(0,0)); timeout and
 *     hb_launch_interrupt() kill the group;
 *   - the phase pipe's write end is the child's fd HB_PHASE_FD_CHILD, named in envp by the
 *     caller as HEAPBENCH_PHASE_FD; its lines are returned raw in phase_text (the caller parses);
 *   - RSS is sampled from /proc/PID/statm every interval_ms without stopping the child;
 *   - with spec->cgroup, the parent moves the child into that cgroup before releasing it, so the
 *     program and every descendant are in it from their first instruction.
 * The caller owns and frees everything in struct hb_result (runresult.h) through hb_result_free().
 * Helper programs (setup, drivers, captures) are started by spawner.c; this is the only code that
 * forks a process to measure it.
 */
#ifndef HEAPBENCH_LAUNCH_H
#define HEAPBENCH_LAUNCH_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/runresult.h"
#include "measure/runcg.h"

struct hb_launch_spec {
    char *const *argv;        /* argv[0] is a path (or a name looked up in PATH) */
    char *const *envp;        /* the complete environment of the child */
    const char *cwd;          /* NULL: the runner's */
    double timeout_s;         /* <= 0: none */
    int interval_ms;          /* RSS sampling interval; <= 0: no timeline */
    const cpu_set_t *pin;     /* NULL: no affinity change */
    int priority;             /* a level of base/priority.h, set on the child by the parent before its release;
                               * the caller has raised the runner first (hb_prio_self), which checked it is permitted */
    const int *thp;           /* NULL: the inherited huge-page state; else a mode of thp.h, set in the child */
    int want_phases;          /* 1: create the phase pipe (workloads and the exec probe) */
    const char *stdout_path;  /* NULL: inherit; else the child's stdout (and stderr) go to this file */
    /* Programs that are servers (exec): when driver_argv is set, the runner waits for
     * ready_argv (if set) to exit 0 (polled, up to 30 s), runs driver_argv (not preloaded:
     * driver_envp) to completion with its output appended to stdout_path, then sends SIGTERM
     * to the measured process; a measured process that ends by that SIGTERM counts as exited 0. */
    char *const *driver_argv;
    char *const *ready_argv;
    char *const *driver_envp;
    double ready_timeout_s;   /* how long ready_argv is polled; <= 0: 10 s (tests shorten it) */
    unsigned long long mem_limit; /* bytes of writable private memory (RLIMIT_DATA: what an allocator maps
                                   * for use, not the address space it only reserves) of the process; 0: none.
                                   * A process that fails or crashes with its sampled size near the
                                   * limit, or whose last output line speaks of memory, is HB_OOM. */
    const struct hb_runcg *cgroup; /* NULL: none; else the run's cgroup (runcg.h): the child joins it
                                    * before its release, whatever is left in it after the run is
                                    * killed, and an OOM kill the cgroup counts during the run
                                    * (its memory limit) makes the run HB_OOM */
};

/* Runs and measures one process as described above. Returns 0 when the process was started
 * (whatever its outcome, see res->status), -1 with res->reason set and nothing left allocated in
 * res (hb_result_free() is then optional) when it could not be started. */
int hb_launch(const struct hb_launch_spec *spec, struct hb_result *res);

/* Test seam: when set, called with the child's pid just before the release byte is written
 * (a test waits there for a child that fails before release to exit, another records the pid).
 * NULL in the CLI. */
extern void (*hb_launch_before_release)(pid_t pid);

/* Async-signal-safe: kills the process group of the child being measured (SIGINT handling). Called
 * at any moment of an hb_launch(), before the fork included, it ends that launch as "interrupted". */
void hb_launch_interrupt(void);

#endif
