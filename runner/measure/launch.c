/* launch.c - runs and measures one process (launch.h): fork, open its perf counters, release it
 * to exec, then poll its pidfd and phase pipe while sampling RSS until it ends or times out.
 *
 * Always holds: everything the child uses is prepared before fork() and the child calls only
 * async-signal-safe functions until execve (no allocation); every fd opened before fork is
 * O_CLOEXEC and above HB_LAUNCH_FD_MIN so the child's dup2 onto 0..3 never clobbers one;
 * when hb_launch() returns, the child's process group has been sent SIGKILL and the child reaped;
 * every `phase` record read while the child's statm was readable has an RSS sample of its own,
 * taken when the read returned and tagged with the phase's name (the timeline's time base then
 * places each phase end within the pipe latency; docs/DATA.md rss.csv).
 * Server programs (spec->driver_argv) are driven by launch_driver.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/launch.h"
#include "measure/launch_driver.h"
#include "base/machstate.h"
#include "base/priority.h"
#include "measure/logtail.h"
#include "measure/perf.h"
#include "measure/phases.h"
#include "base/util.h"
#include "measure/reaper.h"
#include "base/resolve.h"
#include "thp.h"

/* AnonHugePages is read at every HB_HUGE_EVERY-th RSS sample (smaps_rollup walks the page tables:
 * several times statm's cost; docs/DATA.md has the figures). */
#define HB_HUGE_EVERY 10

#define HB_LAUNCH_FD_MIN 10   /* runner-side fds of a launch are moved at or above this */
#define HB_LAUNCH_DRAIN_S 1.0 /* how long leftover writers may hold the phase pipe */

static volatile sig_atomic_t hb_launch_pgid;        /* measured child's group, 0 when none */
static volatile sig_atomic_t hb_launch_interrupted; /* hb_launch_interrupt() hit this launch */

void (*hb_launch_before_release)(pid_t pid); /* test seam (launch.h); NULL in the CLI */

/* What the child reports on the error pipe when it cannot reach execve. */
enum hb_child_stage { HB_STAGE_AFFINITY, HB_STAGE_REDIRECT, HB_STAGE_CHDIR, HB_STAGE_EXEC, HB_STAGE_THP, HB_STAGE_LIMIT };
struct hb_child_error {
    int stage;
    int err;
};

/* Parent-side state of one hb_launch(). Times are seconds since the release (t0). */
struct hb_run {
    const struct hb_launch_spec *spec;
    struct hb_result *res;
    char path[4096]; /* the resolved program */
    pid_t pid;
    pid_t parent; /* the runner, for the child's PR_SET_PDEATHSIG race check */
    uint64_t data_peak_kb; /* the largest writable private memory sampled (statm's data field: what
                           * RLIMIT_DATA counts, not address space a allocator only reserves) */
    int pidfd, phase_fd, err_fd, statm_fd, release_fd;
    int child_phase_fd, child_err_fd, child_release_fd, child_out_fd;
    int child_in_fd; /* /dev/null when the runner's stdin is a terminal (the child is not in its group) */
    struct hb_perf perf;
    double t0, deadline, next_sample;
    struct hb_mach_snap mach0;   /* the machine just before the release (machstate.h) */
    size_t rss_cap, phase_cap;
    size_t scanned;  /* bytes of phase_text already looked at for phase records */
    size_t periodic; /* periodic RSS samples recorded (every HB_HUGE_EVERY-th also reads smaps) */
    int timed_out, wstatus;
    struct rusage ru;
    struct hb_child_error cerr;
    int cerr_set;
    int driving; /* 1: a server program under spec->driver_argv (drv is live) */
    unsigned long long oom_kills; /* the cgroup's OOM-kill count at the release */
    struct hb_driver drv;
};

/* Seconds on the monotonic clock. */
static double hb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Moves fd to a CLOEXEC descriptor >= HB_LAUNCH_FD_MIN (closing the old one); returns it or -1. */
static int hb_fd_high(int fd)
{
    if (fd < 0 || fd >= HB_LAUNCH_FD_MIN)
        return fd;
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, HB_LAUNCH_FD_MIN);
    close(fd);
    return hi;
}

/* pipe2(O_CLOEXEC) with both ends moved high: returns 0 with p[0] read end, p[1] write end. */
static int hb_pipe_high(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    p[0] = hb_fd_high(p[0]);
    p[1] = hb_fd_high(p[1]);
    return p[0] >= 0 && p[1] >= 0 ? 0 : -1;
}

/* Closes *fd if open and marks it closed (-1). */
static void hb_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Grows *buf (elements of size elem, capacity *cap) to hold at least need; 0 or -1 (unchanged). */
static int hb_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*buf, ncap * elem);
    if (!p)
        return -1;
    *buf = p;
    *cap = ncap;
    return 0;
}


/* The child between fork and execve: only async-signal-safe calls on prepared data. On any
 * failure it writes {stage, errno} to the error pipe and exits 127. Never returns. */
static void hb_child(const struct hb_run *r)
{
    const struct hb_launch_spec *s = r->spec;
    struct hb_child_error ce = {HB_STAGE_EXEC, 0};
    sigset_t none;
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    char go;

    setpgid(0, 0);
    /* dies with the runner (kill -9 included); a runner that died before this line is caught
     * by the getppid() check, since the death signal is then never sent */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != r->parent)
        _exit(127);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    struct rlimit data = {(rlim_t)s->mem_limit, (rlim_t)s->mem_limit};
    if (s->pin && sched_setaffinity(0, sizeof *s->pin, s->pin) != 0)
        ce.stage = HB_STAGE_AFFINITY;
    else if (s->thp && hb_thp_prctl(*s->thp) != 0)
        ce.stage = HB_STAGE_THP;
    else if (s->mem_limit && setrlimit(RLIMIT_DATA, &data) != 0)
        ce.stage = HB_STAGE_LIMIT;
    else if ((r->child_out_fd >= 0 && (dup2(r->child_out_fd, 1) < 0 || dup2(r->child_out_fd, 2) < 0)) ||
             (r->child_in_fd >= 0 && dup2(r->child_in_fd, 0) < 0))
        ce.stage = HB_STAGE_REDIRECT;
    else if (s->cwd && chdir(s->cwd) != 0)
        ce.stage = HB_STAGE_CHDIR;
    else if (read(r->child_release_fd, &go, 1) != 1)
        _exit(127); /* the parent gave up before releasing us */
    else if (r->child_phase_fd >= 0 && dup2(r->child_phase_fd, HB_PHASE_FD_CHILD) < 0)
        ce.stage = HB_STAGE_REDIRECT;
    else
        execve(r->path, s->argv, s->envp);
    ce.err = errno;
    ssize_t w = write(r->child_err_fd, &ce, sizeof ce);
    (void)w; /* nothing more the child can do when the parent stopped listening */
    _exit(127);
}

/* Fills res->reason with why the child never reached its program (from r->cerr). */
static void hb_child_error_reason(const struct hb_run *r)
{
    static const char *const what[] = {"cannot set CPU affinity for", "cannot redirect output of",
                                       "cannot chdir for", "cannot exec",
                                       "cannot set the huge-page mode (prctl PR_SET_THP_DISABLE) of",
                                       "cannot set the memory limit of"};
    const char *extra = r->cerr.stage == HB_STAGE_CHDIR ? r->spec->cwd : NULL;
    snprintf(r->res->reason, sizeof r->res->reason, "%s %s%s%s: %s", what[r->cerr.stage], r->spec->argv[0],
             extra ? " to " : "", extra ? extra : "", strerror(r->cerr.err));
}

/* Opens everything the child needs before fork (program path, pipes, output file).
 * Returns 0, or -1 with res->reason set. */
static int hb_run_prepare(struct hb_run *r)
{
    const struct hb_launch_spec *s = r->spec;
    int rel[2] = {-1, -1}, err[2] = {-1, -1}, ph[2] = {-1, -1};
    if (!s->argv || !s->argv[0]) {
        snprintf(r->res->reason, sizeof r->res->reason, "cannot exec: empty command");
        return -1;
    }
    if (hb_resolve_program(s->argv[0], hb_env_path(s->envp), r->path, sizeof r->path) != 0) {
        r->cerr = (struct hb_child_error){HB_STAGE_EXEC, errno};
        hb_child_error_reason(r);
        return -1;
    }
    if (s->stdout_path) {
        r->child_out_fd = hb_fd_high(open(s->stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644));
        if (r->child_out_fd < 0) {
            snprintf(r->res->reason, sizeof r->res->reason, "cannot open %s: %s", s->stdout_path, strerror(errno));
            return -1;
        }
    }
    if (isatty(0)) /* a child outside the terminal's foreground group would stop on reading it */
        r->child_in_fd = hb_fd_high(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (hb_pipe_high(rel) != 0 || hb_pipe_high(err) != 0 || (s->want_phases && hb_pipe_high(ph) != 0)) {
        snprintf(r->res->reason, sizeof r->res->reason, "cannot create pipes: %s", strerror(errno));
        int *fds[] = {&rel[0], &rel[1], &err[0], &err[1], &ph[0], &ph[1]};
        for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
            hb_close(fds[i]);
        return -1;
    }
    r->child_release_fd = rel[0], r->release_fd = rel[1];
    r->err_fd = err[0], r->child_err_fd = err[1];
    r->phase_fd = ph[0], r->child_phase_fd = ph[1];
    if (r->phase_fd >= 0)
        fcntl(r->phase_fd, F_SETFL, O_NONBLOCK);
    return 0;
}

/* Appends whatever the phase pipe holds now to res->phase_text; closes it at EOF. */
static void hb_run_drain_pipe(struct hb_run *r)
{
    struct hb_result *res = r->res;
    for (;;) {
        if (hb_grow((void **)&res->phase_text, &r->phase_cap, res->phase_len + 4097, 1) != 0)
            return;
        ssize_t n = read(r->phase_fd, res->phase_text + res->phase_len, 4096);
        if (n > 0) {
            res->phase_len += (size_t)n;
            res->phase_text[res->phase_len] = '\0';
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            hb_close(&r->phase_fd);
        if (n == 0 || errno != EINTR)
            return;
    }
}

/* Reads the child's error pipe: EOF means the exec succeeded; a record means it failed. */
static void hb_run_read_child_error(struct hb_run *r)
{
    if (read(r->err_fd, &r->cerr, sizeof r->cerr) == (ssize_t)sizeof r->cerr)
        r->cerr_set = 1;
    hb_close(&r->err_fd);
}

/* AnonHugePages of the child in KiB, or -1 when unreadable.
 * Opened at each read: a /proc/PID/smaps_rollup opened before the child's exec would go on
 * reading the address space it had then (statm follows the process, smaps files do not). */
static int64_t hb_run_anon_huge(struct hb_run *r)
{
    char buf[4096];
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)r->pid);
    if (hb_read_small(path, buf, sizeof buf) < 0)
        return -1;
    return hb_thp_anon_huge_kb(buf);
}

/* Appends one RSS sample at time t from statm (with AnonHugePages when huge; tagged with phase,
 * which it then owns, or NULL); returns 1, or 0 when statm was unreadable or empty (not kept). */
static int hb_run_statm(struct hb_run *r, double t, int huge, char *phase)
{
    char buf[128];
    unsigned long resident, data;
    uint64_t page_kb = (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
    ssize_t n = r->statm_fd >= 0 ? pread(r->statm_fd, buf, sizeof buf - 1, 0) : -1;
    buf[n > 0 ? n : 0] = '\0';
    if (n <= 0 || sscanf(buf, "%*u %lu %*u %*u %*u %lu", &resident, &data) != 2 || resident == 0 ||
        hb_grow((void **)&r->res->rss, &r->rss_cap, r->res->rss_len + 1, sizeof *r->res->rss) != 0) {
        free(phase);
        return 0;
    }
    if ((uint64_t)data * page_kb > r->data_peak_kb)
        r->data_peak_kb = (uint64_t)data * page_kb;
    struct hb_rss_sample s = {t, (uint64_t)resident * page_kb, huge ? hb_run_anon_huge(r) : -1, phase};
    r->res->rss[r->res->rss_len++] = s;
    return 1;
}

/* The periodic sample due at t (AnonHugePages at every HB_HUGE_EVERY-th one); schedules the next. */
static void hb_run_sample(struct hb_run *r, double t)
{
    r->periodic += (size_t)hb_run_statm(r, t, r->periodic % HB_HUGE_EVERY == 0, NULL);
    double iv = r->spec->interval_ms / 1000.0;
    r->next_sample += iv;
    if (r->next_sample <= t) /* fell behind (loaded machine): no burst of catch-up samples */
        r->next_sample = t + iv;
}

/* Reads the phase pipe (at time t, when poll said it was readable) and takes one RSS sample for
 * each complete `phase` record that arrived, tagged with its name. */
static void hb_run_read_phases(struct hb_run *r, double t)
{
    hb_run_drain_pipe(r);
    const char *text = r->res->phase_text, *nl;
    while ((nl = memchr(text + r->scanned, '\n', r->res->phase_len - r->scanned)) != NULL) {
        char *name = hb_phase_name_of(text + r->scanned, (size_t)(nl - text) - r->scanned);
        if (name)
            hb_run_statm(r, t, 0, name);
        r->scanned = (size_t)(nl - text) + 1;
    }
}

/* Polls the child, its pipes and the driver until the child has ended, then reaps it. */
static void hb_run_loop(struct hb_run *r)
{
    int ended = 0;
    while (!ended) {
        double now = hb_now() - r->t0;
        double wake = fmin(fmin(r->next_sample, r->deadline), r->driving ? r->drv.wake : INFINITY);
        int ms = isinf(wake) ? -1 : wake <= now ? 0 : (int)ceil((wake - now) * 1000);
        struct pollfd pf[] = {{r->pidfd, POLLIN, 0}, {r->phase_fd, POLLIN, 0}, {r->err_fd, POLLIN, 0},
                              {r->driving ? r->drv.aux_pidfd : -1, POLLIN, 0}};
        if (poll(pf, 4, ms) < 0 && errno != EINTR)
            break;
        now = hb_now() - r->t0;
        if (pf[1].revents)
            hb_run_read_phases(r, now);
        if (pf[2].revents)
            hb_run_read_child_error(r);
        if (now >= r->next_sample)
            hb_run_sample(r, now);
        if (r->driving)
            hb_driver_step(&r->drv, now, pf[3].revents != 0);
        if (now >= r->deadline) {
            r->timed_out = 1;
            r->deadline = INFINITY;
            kill(-r->pid, SIGKILL);
        }
        ended = pf[0].revents != 0;
    }
    while (wait4(r->pid, &r->wstatus, 0, &r->ru) < 0 && errno == EINTR)
        ;
    r->res->wall_s = hb_now() - r->t0;
    struct hb_mach_snap end;
    hb_mach_snap(&end, 1);
    hb_mach_between(&r->mach0, &end, &r->res->machine);
}

/* Kills what is left of the child's group, waits (bounded) for the phase pipe's EOF and reads
 * the error pipe, so that every byte the child wrote is in phase_text. */
static void hb_run_drain(struct hb_run *r)
{
    kill(-r->pid, SIGKILL);
    hb_launch_pgid = 0;
    if (r->driving)
        hb_driver_reap(&r->drv);
    double until = hb_now() + HB_LAUNCH_DRAIN_S;
    while (r->phase_fd >= 0 && hb_now() < until) {
        struct pollfd pf = {r->phase_fd, POLLIN, 0};
        if (poll(&pf, 1, (int)ceil((until - hb_now()) * 1000)) > 0)
            hb_run_read_phases(r, hb_now() - r->t0);
    }
    if (r->err_fd >= 0)
        hb_run_read_child_error(r);
}

/* The line a failed run's reason ends with: the workload's own failed verify record (its report
 * on the phase pipe), else the last line of its log. */
static void hb_run_last_word(const struct hb_run *r, char *line, size_t n)
{
    char detail[160];
    hb_phase_verify_detail(r->res->phase_text, detail, sizeof detail);
    if (detail[0])
        snprintf(line, n, "verify fail %s", detail);
    else
        hb_log_last_line(r->spec->stdout_path, line, n);
}

/* A failed or crashed process under --mem-limit whose sampled size came within 10% of the limit,
 * or whose last word (its failed verify record, else its log's last line) speaks of memory, ran
 * out of it: status oom, the limit in the reason. */
static void hb_run_oom(struct hb_run *r)
{
    char line[160];
    const struct hb_runcg *cg = r->spec->cgroup;
    if (cg && cg->limited && hb_runcg_oom_kills(cg) > r->oom_kills) {
        r->res->status = HB_OOM;
        snprintf(r->res->reason, sizeof r->res->reason, "out of memory: the limit is %llu MiB (--mem-limit, %s; "
                 "the kernel's OOM killer ended it)", cg->limit >> 20, cg->how);
        return;
    }
    if (!r->spec->mem_limit)
        return;
    hb_run_last_word(r, line, sizeof line);
    int near = (double)r->data_peak_kb * 1024.0 >= 0.9 * (double)r->spec->mem_limit;
    if (!near && !strcasestr(line, "memory") && !strcasestr(line, "bad_alloc") && !strcasestr(line, "alloc fail"))
        return;
    r->res->status = HB_OOM;
    snprintf(r->res->reason, sizeof r->res->reason, "out of memory: the limit is %llu MiB of writable memory "
             "(--mem-limit, RLIMIT_DATA; largest seen %llu MiB)", r->spec->mem_limit >> 20,
             (unsigned long long)(r->data_peak_kb >> 10));
}

/* Appends the run's last word to its reason ("exit code 2: bad --size"). */
static void hb_run_reason_log(struct hb_run *r)
{
    char line[176];
    hb_run_last_word(r, line, sizeof line);
    size_t used = strlen(r->res->reason);
    if (line[0] && used + 3 < sizeof r->res->reason)
        snprintf(r->res->reason + used, sizeof r->res->reason - used, ": %s", line);
}

/* Sets status, reason, exit_code and signal from the wait status, timeout and driver outcome. */
static void hb_run_status(struct hb_run *r)
{
    struct hb_result *res = r->res;
    int st = r->wstatus;
    res->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    res->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    res->status = HB_OK;
    if (r->timed_out) {
        res->status = HB_TIMEOUT;
        snprintf(res->reason, sizeof res->reason, "timeout after %g s", r->spec->timeout_s);
    } else if (hb_launch_interrupted) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "interrupted");
    } else if (r->driving && hb_driver_verdict(&r->drv, res)) {
        return; /* the driver decided: it gave up, or the server or driver misbehaved */
    } else if (res->signal) {
        const char *abbrev = sigabbrev_np(res->signal);
        res->status = HB_CRASHED;
        snprintf(res->reason, sizeof res->reason, "killed by signal %d (SIG%s)", res->signal,
                 abbrev ? abbrev : "?");
    } else if (res->exit_code != 0) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "exit code %d", res->exit_code);
    }
    if (res->status == HB_FAILED || res->status == HB_CRASHED)
        hb_run_oom(r);
    if (res->status == HB_FAILED || res->status == HB_CRASHED || res->status == HB_OOM)
        hb_run_reason_log(r);
}

/* Copies the rusage figures into res (Linux reports ru_maxrss in KiB). */
static void hb_run_rusage(struct hb_run *r)
{
    const struct rusage *ru = &r->ru;
    struct hb_result *res = r->res;
    res->user_s = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
    res->sys_s = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
    res->maxrss_kb = ru->ru_maxrss;
    res->minflt = ru->ru_minflt;
    res->majflt = ru->ru_majflt;
    res->nvcsw = ru->ru_nvcsw;
    res->nivcsw = ru->ru_nivcsw;
}

/* Opens the per-child handles (perf counters, pidfd, statm) and releases the child; starts the
 * clock. Returns 0, or -1 with res->reason set (the child is then killed by the caller). */
static int hb_run_release(struct hb_run *r)
{
    char statm[64];
    hb_perf_open(&r->perf, r->pid);
    r->pidfd = hb_fd_high(pidfd_open(r->pid, 0));
    if (r->pidfd < 0) {
        snprintf(r->res->reason, sizeof r->res->reason, "pidfd_open: %s (Linux >= 5.3 needed)", strerror(errno));
        return -1;
    }
    snprintf(statm, sizeof statm, "/proc/%d/statm", (int)r->pid);
    r->statm_fd = hb_fd_high(open(statm, O_RDONLY | O_CLOEXEC));
    int err = hb_runcg_join(r->spec->cgroup, r->pid);
    if (err != 0) {
        snprintf(r->res->reason, sizeof r->res->reason, "cannot move the process into the run's cgroup %.120s: %s",
                 r->spec->cgroup->dir, strerror(err));
        return -1;
    }
    r->oom_kills = hb_runcg_oom_kills(r->spec->cgroup);
    /* --priority: set on the child while it waits for its release (in its cgroup by now), so that
     * it wakes at that priority: set by the child itself after the release, it would first wait
     * for a turn among the machine's other tasks, inside the measured time */
    if (r->spec->priority && hb_prio_set(r->pid, r->spec->priority) != 0) {
        snprintf(r->res->reason, sizeof r->res->reason, "cannot set the scheduling priority (--priority %s) of %s: %s",
                 hb_prio_name(r->spec->priority), r->spec->argv[0], strerror(errno));
        return -1;
    }
    if (hb_launch_before_release)
        hb_launch_before_release(r->pid);
    hb_mach_snap(&r->mach0, 0);
    r->t0 = hb_now();
    /* EPIPE: the child failed before its release (affinity, redirect, chdir) and has exited;
     * its reason is on the error pipe, which the loop reads like any other outcome. */
    if (write(r->release_fd, "g", 1) != 1 && errno != EPIPE) {
        snprintf(r->res->reason, sizeof r->res->reason, "cannot release the child: %s", strerror(errno));
        return -1;
    }
    hb_close(&r->release_fd);
    r->deadline = r->spec->timeout_s > 0 ? r->spec->timeout_s : INFINITY;
    r->next_sample = r->spec->interval_ms > 0 ? r->spec->interval_ms / 1000.0 : INFINITY;
    r->driving = r->spec->driver_argv != NULL;
    if (r->driving) {
        const struct hb_launch_spec *s = r->spec;
        struct hb_driver_spec ds = {s->driver_argv, s->ready_argv, s->driver_envp, s->stdout_path, s->ready_timeout_s};
        hb_driver_begin(&r->drv, &ds, r->pid);
    }
    return 0;
}

/* Releases every fd and the perf counters of r. */
static void hb_run_close(struct hb_run *r)
{
    int *fds[] = {&r->pidfd,          &r->phase_fd,      &r->err_fd,       &r->statm_fd,     &r->release_fd,
                  &r->child_phase_fd, &r->child_err_fd, &r->child_release_fd, &r->child_out_fd, &r->child_in_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        hb_close(fds[i]);
    hb_perf_close(&r->perf);
}

/* Runs and measures one process; 0 when started, -1 with res->reason when not (launch.h). */
int hb_launch(const struct hb_launch_spec *spec, struct hb_result *res)
{
    static struct hb_run r; /* static: big path buffer; hb_launch is not reentrant anyway */
    signal(SIGPIPE, SIG_IGN); /* writes to a child that already died give EPIPE, never kill us */
    memset(res, 0, sizeof *res);
    memset(&r, 0, sizeof r);
    r.spec = spec, r.res = res;
    r.pidfd = r.phase_fd = r.err_fd = r.statm_fd = r.release_fd = -1;
    r.child_phase_fd = r.child_err_fd = r.child_release_fd = r.child_out_fd = r.child_in_fd = -1;
    for (int i = 0; i < HB_CTR_COUNT; i++)
        r.perf.fd[i] = -1;
    r.deadline = r.next_sample = INFINITY;
    hb_launch_interrupted = 0;
    res->status = HB_FAILED;
    res->exit_code = -1;
    res->phase_text = calloc(1, 1);
    int rc = -1;
    if (hb_run_prepare(&r) != 0)
        goto out;
    fflush(NULL);
    hb_reaper_init();
    r.parent = getpid();
    r.pid = fork();
    if (r.pid < 0) {
        snprintf(res->reason, sizeof res->reason, "fork: %s", strerror(errno));
        goto out;
    }
    if (r.pid == 0)
        hb_child(&r);
    setpgid(r.pid, r.pid); /* also done by the child: whichever runs first wins the race */
    hb_launch_pgid = r.pid;
    int *child_side[] = {&r.child_phase_fd, &r.child_err_fd, &r.child_release_fd, &r.child_out_fd, &r.child_in_fd};
    for (size_t i = 0; i < sizeof child_side / sizeof child_side[0]; i++)
        hb_close(child_side[i]);
    if (hb_run_release(&r) != 0) {
        kill(-r.pid, SIGKILL);
        waitpid(r.pid, NULL, 0);
        hb_launch_pgid = 0;
        goto out;
    }
    /* An interrupt that came before the group was known (prepare, fork) killed nothing: kill it
     * now, once its counters are open (a dead child would fail them, and the reason sticks). */
    if (hb_launch_interrupted)
        kill(-r.pid, SIGKILL);
    hb_run_loop(&r);
    hb_run_drain(&r);
    hb_reaper_sweep(r.pid, res->leaked, sizeof res->leaked);
    hb_runcg_empty(spec->cgroup); /* what neither the group nor the subreaper caught */
    hb_run_rusage(&r);
    if (r.cerr_set) { /* never reached its program: no counters (counter_ok stays 0) */
        hb_child_error_reason(&r);
        res->status = HB_FAILED;
        goto out;
    }
    hb_perf_read(&r.perf, res);
    hb_run_status(&r);
    rc = 0;
out:
    hb_run_close(&r);
    if (rc != 0) /* nothing to own on failure: hb_result_free() stays harmless but is not needed */
        hb_result_free(res);
    return rc;
}

/* Async-signal-safe: SIGKILL to the measured group and any driver helper (launch.h). */
void hb_launch_interrupt(void)
{
    pid_t g = hb_launch_pgid;
    hb_launch_interrupted = 1;
    if (g > 0)
        kill(-g, SIGKILL);
    hb_driver_interrupt();
}
