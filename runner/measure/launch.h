/* launch.h - run one process and measure it: the only part of the runner that forks.
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
 *   - RSS is sampled from /proc/PID/statm every interval_ms without stopping the child.
 * The caller owns and frees everything in struct hb_result through hb_result_free().
 */
#ifndef HEAPBENCH_LAUNCH_H
#define HEAPBENCH_LAUNCH_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HB_PHASE_FD_CHILD 3 /* fd number of the phase pipe in the child */

/* The perf counters, in the column order of runs.csv (docs/DATA.md). */
enum hb_counter {
    HB_CTR_TASK_CLOCK, /* reported in ms */
    HB_CTR_PAGE_FAULTS,
    HB_CTR_CONTEXT_SWITCHES,
    HB_CTR_CPU_MIGRATIONS,
    HB_CTR_CYCLES,
    HB_CTR_INSTRUCTIONS,
    HB_CTR_CACHE_MISSES,
    HB_CTR_BRANCH_MISSES,
    HB_CTR_DTLB_LOAD_MISSES,
    HB_CTR_COUNT
};

/* Column names, "task_clock_ms", "page_faults", ... "dtlb_load_misses". */
extern const char *const hb_counter_names[HB_CTR_COUNT];

enum hb_status { HB_OK, HB_FAILED, HB_TIMEOUT, HB_CRASHED, HB_SKIPPED };
extern const char *const hb_status_names[]; /* "ok", "failed", "timeout", "crashed", "skipped" */

struct hb_launch_spec {
    char *const *argv;        /* argv[0] is a path (or a name looked up in PATH) */
    char *const *envp;        /* the complete environment of the child */
    const char *cwd;          /* NULL: the runner's */
    double timeout_s;         /* <= 0: none */
    int interval_ms;          /* RSS sampling interval; <= 0: no timeline */
    const cpu_set_t *pin;     /* NULL: no affinity change */
    int want_phases;          /* 1: create the phase pipe (workloads and the exec probe) */
    const char *stdout_path;  /* NULL: inherit; else the child's stdout (and stderr) go to this file */
    /* Programs that are servers (exec): when driver_argv is set, the runner waits for
     * ready_argv (if set) to exit 0 (polled, up to 10 s), runs driver_argv (not preloaded:
     * driver_envp) to completion with its output appended to stdout_path, then sends SIGTERM
     * to the measured process; a measured process that ends by that SIGTERM counts as exited 0. */
    char *const *driver_argv;
    char *const *ready_argv;
    char *const *driver_envp;
    double ready_timeout_s;   /* how long ready_argv is polled; <= 0: 10 s (tests shorten it) */
};

struct hb_rss_sample {
    double t;        /* seconds since the child was released */
    uint64_t rss_kb;
};

struct hb_result {
    enum hb_status status;  /* HB_OK here only means "exited 0"; served_by is checked by the caller */
    char reason[256];       /* why, for any status but ok */
    int exit_code;          /* -1 when killed by a signal */
    int signal;             /* 0 when it exited */
    double wall_s, user_s, sys_s;
    long maxrss_kb, minflt, majflt, nvcsw, nivcsw;
    int counter_ok[HB_CTR_COUNT];     /* 1: value below is real; 0: unavailable (empty column) */
    double counter[HB_CTR_COUNT];
    struct hb_rss_sample *rss;        /* rss_len samples */
    size_t rss_len;
    char *phase_text;                 /* everything the child wrote on the phase pipe, NUL-terminated */
    size_t phase_len;
};

/* Why each unavailable counter is unavailable, filled by the first hb_launch() (or hb_perf_probe())
 * e.g. "unavailable: ENOENT (the hardware does not expose this event)". NULL when available. */
extern const char *hb_counter_reason[HB_CTR_COUNT];

/* Probes which counters this machine can open (on the runner itself); fills hb_counter_reason. */
void hb_perf_probe(void);

/* Runs and measures one process as described above. Returns 0 when the process was started
 * (whatever its outcome, see res->status), -1 with res->reason set and nothing left allocated in
 * res (hb_result_free() is then optional) when it could not be started. */
int hb_launch(const struct hb_launch_spec *spec, struct hb_result *res);

/* Test seam: when set, called with the child's pid just before the release byte is written
 * (a test waits there for a child that fails before release to exit). NULL in the CLI. */
extern void (*hb_launch_before_release)(pid_t pid);

/* Async-signal-safe: kills the process group of the child being measured (SIGINT handling). */
void hb_launch_interrupt(void);

void hb_result_free(struct hb_result *res);

/* 1 if path is an ELF without PT_INTERP (statically linked) or is setuid/setgid: LD_PRELOAD
 * cannot take effect. why gets a short explanation. 0 otherwise or when unreadable. */
int hb_preload_impossible(const char *path, char *why, size_t why_len);

/* 1 if path is an ELF shared object of the runner's class and machine, with a dynamic section,
 * that is not a position-independent executable (what `--allocator NAME=PATH` must name).
 * 0 otherwise, with why set to a one-line explanation ("cannot open ...", "not an ELF file"...). */
int hb_is_shared_object(const char *path, char *why, size_t why_len);

/* Finds the executable that execvp() would run for name: name itself when it contains a '/',
 * else the first executable regular file in the ':'-separated path_var (NULL or empty:
 * "/usr/local/bin:/usr/bin:/bin"). Returns 0 with the path in out, or -1 with errno set
 * (ENOENT, EACCES, ENAMETOOLONG). Allocates nothing (usable before fork). */
int hb_resolve_program(const char *name, const char *path_var, char *out, size_t out_len);

/* The PATH that programs run with envp are looked up in: envp's PATH, else the runner's own
 * (NULL when neither has one). */
const char *hb_env_path(char *const *envp);

#endif
