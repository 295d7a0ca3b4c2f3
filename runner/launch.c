/* launch.c - runs and measures one process (launch.h): fork, open its perf counters, release it
 * to exec, then poll its pidfd and phase pipe while sampling RSS until it ends or times out.
 *
 * Always holds: everything the child uses is prepared before fork() and the child calls only
 * async-signal-safe functions until execve (no allocation); every fd the runner opens is
 * O_CLOEXEC and above HB_LAUNCH_FD_MIN so the child's dup2 onto 1, 2 and 3 never clobbers one;
 * when hb_launch() returns, the child's process group has been sent SIGKILL and the child reaped.
 * Server programs (spec->driver_argv) are driven by the helpers at the end of this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "perf.h"

#define HB_LAUNCH_FD_MIN 10         /* runner-side fds of a launch are moved at or above this */
#define HB_LAUNCH_READY_S 10.0      /* default time a server gets to become ready */
#define HB_LAUNCH_READY_RETRY_S 0.1 /* pause between two ready_argv attempts */
#define HB_LAUNCH_TERM_GRACE_S 5.0  /* SIGTERM -> SIGKILL delay when stopping a server */
#define HB_LAUNCH_DRAIN_S 1.0       /* how long leftover writers may hold the phase pipe */

const char *const hb_status_names[] = {"ok", "failed", "timeout", "crashed", "skipped"};

static volatile sig_atomic_t hb_launch_pgid;        /* measured child's group, 0 when none */
static volatile sig_atomic_t hb_launch_aux_pgid;    /* driver/ready program's group, 0 when none */
static volatile sig_atomic_t hb_launch_interrupted; /* hb_launch_interrupt() hit this launch */

/* What the child reports on the error pipe when it cannot reach execve. */
enum hb_child_stage { HB_STAGE_AFFINITY, HB_STAGE_REDIRECT, HB_STAGE_CHDIR, HB_STAGE_EXEC };
struct hb_child_error {
    int stage;
    int err;
};

/* Where a server program stands (driver mode); HB_DRV_NONE for ordinary programs. */
enum hb_drv_state { HB_DRV_NONE, HB_DRV_READY, HB_DRV_RUN, HB_DRV_STOP, HB_DRV_DONE };

/* Parent-side state of one hb_launch(). Times are seconds since the release (t0). */
struct hb_run {
    const struct hb_launch_spec *spec;
    struct hb_result *res;
    char path[4096]; /* the resolved program */
    pid_t pid;
    int pidfd, phase_fd, err_fd, statm_fd, release_fd;
    int child_phase_fd, child_err_fd, child_release_fd, child_out_fd;
    struct hb_perf perf;
    double t0, deadline, next_sample;
    size_t rss_cap, phase_cap;
    int timed_out, wstatus;
    struct rusage ru;
    struct hb_child_error cerr;
    int cerr_set;
    /* driver mode */
    enum hb_drv_state drv;
    pid_t aux_pid;
    int aux_pidfd;
    double drv_wake, ready_deadline;
    int driver_rc; /* exit status of driver_argv, -1 until it ended */
    char drv_fail[160];
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

/* The value of PATH in envp, else the runner's own PATH (may be NULL). */
static const char *hb_env_path(char *const *envp)
{
    for (; envp && *envp; envp++)
        if (strncmp(*envp, "PATH=", 5) == 0)
            return *envp + 5;
    return getenv("PATH");
}

int hb_resolve_program(const char *name, const char *path_var, char *out, size_t out_len)
{
    if (strchr(name, '/')) {
        if ((size_t)snprintf(out, out_len, "%s", name) >= out_len)
            return errno = ENAMETOOLONG, -1;
        return 0;
    }
    int err = ENOENT;
    if (!path_var || !*path_var)
        path_var = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path_var; *name; p++) {
        size_t len = strcspn(p, ":");
        struct stat st;
        if ((size_t)snprintf(out, out_len, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", name) < out_len &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            err = EACCES;
        }
        p += len;
        if (!*p)
            break;
    }
    return errno = err, -1;
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
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    if (s->pin && sched_setaffinity(0, sizeof *s->pin, s->pin) != 0)
        ce.stage = HB_STAGE_AFFINITY;
    else if (r->child_out_fd >= 0 && (dup2(r->child_out_fd, 1) < 0 || dup2(r->child_out_fd, 2) < 0))
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
                                       "cannot chdir for", "cannot exec"};
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
static void hb_run_read_phases(struct hb_run *r)
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

/* Appends one RSS sample (statm resident pages) at time t; skips unreadable or empty samples. */
static void hb_run_sample(struct hb_run *r, double t)
{
    char buf[128];
    unsigned long size, resident;
    ssize_t n = r->statm_fd >= 0 ? pread(r->statm_fd, buf, sizeof buf - 1, 0) : -1;
    if (n > 0) {
        buf[n] = '\0';
        if (sscanf(buf, "%lu %lu", &size, &resident) == 2 && resident > 0 &&
            hb_grow((void **)&r->res->rss, &r->rss_cap, r->res->rss_len + 1, sizeof *r->res->rss) == 0)
            r->res->rss[r->res->rss_len++] =
                (struct hb_rss_sample){t, (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024};
    }
    double iv = r->spec->interval_ms / 1000.0;
    r->next_sample += iv;
    if (r->next_sample <= t) /* fell behind (loaded machine): no burst of catch-up samples */
        r->next_sample = t + iv;
}

static void hb_driver_step(struct hb_run *r, double now, int aux_ended);
static void hb_driver_reap(struct hb_run *r);

/* Polls the child, its pipes and the driver until the child has ended, then reaps it. */
static void hb_run_loop(struct hb_run *r)
{
    int ended = 0;
    while (!ended) {
        double now = hb_now() - r->t0;
        double wake = fmin(fmin(r->next_sample, r->deadline), r->drv_wake);
        int ms = isinf(wake) ? -1 : wake <= now ? 0 : (int)ceil((wake - now) * 1000);
        struct pollfd pf[] = {{r->pidfd, POLLIN, 0}, {r->phase_fd, POLLIN, 0}, {r->err_fd, POLLIN, 0},
                              {r->aux_pidfd, POLLIN, 0}};
        if (poll(pf, 4, ms) < 0 && errno != EINTR)
            break;
        now = hb_now() - r->t0;
        if (pf[1].revents)
            hb_run_read_phases(r);
        if (pf[2].revents)
            hb_run_read_child_error(r);
        if (now >= r->next_sample)
            hb_run_sample(r, now);
        if (r->drv != HB_DRV_NONE)
            hb_driver_step(r, now, pf[3].revents != 0);
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
}

/* Kills what is left of the child's group, waits (bounded) for the phase pipe's EOF and reads
 * the error pipe, so that every byte the child wrote is in phase_text. */
static void hb_run_drain(struct hb_run *r)
{
    kill(-r->pid, SIGKILL);
    hb_launch_pgid = 0;
    hb_driver_reap(r);
    double until = hb_now() + HB_LAUNCH_DRAIN_S;
    while (r->phase_fd >= 0 && hb_now() < until) {
        struct pollfd pf = {r->phase_fd, POLLIN, 0};
        if (poll(&pf, 1, (int)ceil((until - hb_now()) * 1000)) > 0)
            hb_run_read_phases(r);
    }
    if (r->err_fd >= 0)
        hb_run_read_child_error(r);
}

/* Sets status, reason, exit_code and signal from the wait status, timeout and driver outcome. */
static void hb_run_status(struct hb_run *r)
{
    struct hb_result *res = r->res;
    int st = r->wstatus;
    res->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    res->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    res->status = HB_OK;
    if (r->drv == HB_DRV_STOP && res->signal == SIGTERM) /* stopped by us after its driver: exited 0 */
        res->exit_code = 0, res->signal = 0;
    if (r->timed_out) {
        res->status = HB_TIMEOUT;
        snprintf(res->reason, sizeof res->reason, "timeout after %g s", r->spec->timeout_s);
    } else if (hb_launch_interrupted) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "interrupted");
    } else if (r->drv_fail[0]) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "%s", r->drv_fail);
    } else if (res->signal) {
        const char *abbrev = sigabbrev_np(res->signal);
        res->status = HB_CRASHED;
        snprintf(res->reason, sizeof res->reason, "killed by signal %d (SIG%s)", res->signal,
                 abbrev ? abbrev : "?");
    } else if (res->exit_code != 0) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "exit code %d", res->exit_code);
    } else if (r->drv == HB_DRV_READY || r->drv == HB_DRV_RUN) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "server exited before its driver finished");
    } else if (r->driver_rc > 0) {
        res->status = HB_FAILED;
        snprintf(res->reason, sizeof res->reason, "driver %s exited with status %d", r->spec->driver_argv[0],
                 r->driver_rc);
    }
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
    r->t0 = hb_now();
    if (write(r->release_fd, "g", 1) != 1) {
        snprintf(r->res->reason, sizeof r->res->reason, "cannot release the child: %s", strerror(errno));
        return -1;
    }
    hb_close(&r->release_fd);
    r->deadline = r->spec->timeout_s > 0 ? r->spec->timeout_s : INFINITY;
    r->next_sample = r->spec->interval_ms > 0 ? r->spec->interval_ms / 1000.0 : INFINITY;
    if (r->spec->driver_argv)
        hb_driver_step(r, 0, 0);
    return 0;
}

/* Releases every fd and the perf counters of r. */
static void hb_run_close(struct hb_run *r)
{
    int *fds[] = {&r->pidfd,          &r->phase_fd,     &r->err_fd,           &r->statm_fd,
                  &r->release_fd,     &r->child_phase_fd, &r->child_err_fd, &r->child_release_fd,
                  &r->child_out_fd,   &r->aux_pidfd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        hb_close(fds[i]);
    hb_perf_close(&r->perf);
}

int hb_launch(const struct hb_launch_spec *spec, struct hb_result *res)
{
    static struct hb_run r; /* static: big path buffer; hb_launch is not reentrant anyway */
    memset(res, 0, sizeof *res);
    memset(&r, 0, sizeof r);
    r.spec = spec, r.res = res;
    r.pidfd = r.phase_fd = r.err_fd = r.statm_fd = r.release_fd = r.aux_pidfd = -1;
    r.child_phase_fd = r.child_err_fd = r.child_release_fd = r.child_out_fd = -1;
    for (int i = 0; i < HB_CTR_COUNT; i++)
        r.perf.fd[i] = -1;
    r.deadline = r.next_sample = r.drv_wake = INFINITY;
    r.driver_rc = -1;
    hb_launch_interrupted = 0;
    res->status = HB_FAILED;
    res->exit_code = -1;
    res->phase_text = calloc(1, 1);
    int rc = -1;
    if (hb_run_prepare(&r) != 0)
        goto out;
    fflush(NULL);
    r.pid = fork();
    if (r.pid < 0) {
        snprintf(res->reason, sizeof res->reason, "fork: %s", strerror(errno));
        goto out;
    }
    if (r.pid == 0)
        hb_child(&r);
    setpgid(r.pid, r.pid); /* also done by the child: whichever runs first wins the race */
    hb_launch_pgid = r.pid;
    int *child_side[] = {&r.child_phase_fd, &r.child_err_fd, &r.child_release_fd, &r.child_out_fd};
    for (size_t i = 0; i < 4; i++)
        hb_close(child_side[i]);
    if (hb_run_release(&r) != 0) {
        kill(-r.pid, SIGKILL);
        waitpid(r.pid, NULL, 0);
        hb_launch_pgid = 0;
        goto out;
    }
    hb_run_loop(&r);
    hb_run_drain(&r);
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
    return rc;
}

void hb_launch_interrupt(void)
{
    pid_t g = hb_launch_pgid, aux = hb_launch_aux_pgid;
    hb_launch_interrupted = 1;
    if (g > 0)
        kill(-g, SIGKILL);
    if (aux > 0)
        kill(-aux, SIGKILL);
}

void hb_result_free(struct hb_result *res)
{
    free(res->rss);
    free(res->phase_text);
    res->rss = NULL;
    res->phase_text = NULL;
    res->rss_len = res->phase_len = 0;
}

/* ---- driver mode: ready_argv polling, driver_argv, then SIGTERM to the server ---- */

/* Starts argv (not preloaded: envp, NULL = the runner's environment) as the aux program in its own process group, its output
 * appended to out_path (NULL: inherited). Returns 0, or -1 with r->drv_fail set. */
static int hb_driver_spawn(struct hb_run *r, char *const *argv, char *const *envp, const char *out_path)
{
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    sigset_t none, dfl;
    char path[4096];
    int rc = hb_resolve_program(argv[0], hb_env_path(envp), path, sizeof path) != 0 ? errno : 0;
    sigemptyset(&none);
    sigfillset(&dfl);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawn_file_actions_init(&fa);
    if (out_path) {
        posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    if (!rc)
        rc = posix_spawn(&r->aux_pid, path, &fa, &at, argv, envp ? envp : environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (!rc && (r->aux_pidfd = hb_fd_high(pidfd_open(r->aux_pid, 0))) < 0)
        rc = errno;
    if (rc) {
        snprintf(r->drv_fail, sizeof r->drv_fail, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    hb_launch_aux_pgid = r->aux_pid;
    return 0;
}

/* Reaps the aux program if one is running (killing its group first); returns its exit status
 * (128+signal when killed), or -1 when none ran. */
static int hb_driver_wait(struct hb_run *r, int kill_it)
{
    int st;
    if (r->aux_pid <= 0)
        return -1;
    if (kill_it)
        kill(-r->aux_pid, SIGKILL);
    while (waitpid(r->aux_pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-r->aux_pid, SIGKILL); /* its leftovers */
    hb_launch_aux_pgid = 0;
    r->aux_pid = 0;
    hb_close(&r->aux_pidfd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Kills and reaps a still-running aux program (the server ended or timed out first). */
static void hb_driver_reap(struct hb_run *r)
{
    hb_driver_wait(r, 1);
}

/* Gives up on the server: records why and kills its group. */
static void hb_driver_fail(struct hb_run *r, const char *why)
{
    if (!r->drv_fail[0])
        snprintf(r->drv_fail, sizeof r->drv_fail, "%s", why);
    hb_driver_wait(r, 1);
    kill(-r->pid, SIGKILL);
    r->drv = HB_DRV_DONE;
    r->drv_wake = INFINITY;
}

/* Starts driver_argv and moves to HB_DRV_RUN (or fails the run). */
static void hb_driver_start(struct hb_run *r)
{
    r->drv = HB_DRV_RUN;
    r->drv_wake = INFINITY;
    if (hb_driver_spawn(r, r->spec->driver_argv, r->spec->driver_envp, r->spec->stdout_path) != 0)
        hb_driver_fail(r, r->drv_fail);
}

/* Advances the driver state machine at time now; aux_ended: the aux program's pidfd fired. */
static void hb_driver_step(struct hb_run *r, double now, int aux_ended)
{
    const struct hb_launch_spec *s = r->spec;
    int aux_rc = aux_ended ? hb_driver_wait(r, 0) : -1;
    switch (r->drv) {
    case HB_DRV_NONE: /* just released */
        r->ready_deadline = s->ready_timeout_s > 0 ? s->ready_timeout_s : HB_LAUNCH_READY_S;
        r->drv = HB_DRV_READY;
        if (!s->ready_argv)
            hb_driver_start(r);
        else if (hb_driver_spawn(r, s->ready_argv, s->driver_envp, "/dev/null") != 0)
            hb_driver_fail(r, r->drv_fail);
        else
            r->drv_wake = r->ready_deadline;
        return;
    case HB_DRV_READY:
        if (aux_rc == 0) {
            hb_driver_start(r);
        } else if (now >= r->ready_deadline) {
            char why[96];
            snprintf(why, sizeof why, "server never became ready (%g s)", r->ready_deadline);
            hb_driver_fail(r, why);
        } else if (r->aux_pid <= 0 && now >= r->drv_wake - 1e-9) {
            if (hb_driver_spawn(r, s->ready_argv, s->driver_envp, "/dev/null") != 0)
                hb_driver_fail(r, r->drv_fail);
            else
                r->drv_wake = r->ready_deadline;
        } else if (aux_rc > 0) {
            r->drv_wake = fmin(now + HB_LAUNCH_READY_RETRY_S, r->ready_deadline);
        }
        return;
    case HB_DRV_RUN:
        if (aux_rc < 0)
            return;
        r->driver_rc = aux_rc;
        kill(r->pid, SIGTERM);
        r->drv = HB_DRV_STOP;
        r->drv_wake = now + HB_LAUNCH_TERM_GRACE_S;
        return;
    case HB_DRV_STOP:
        if (now >= r->drv_wake) {
            kill(-r->pid, SIGKILL);
            r->drv_wake = INFINITY;
        }
        return;
    case HB_DRV_DONE:
        return;
    }
}
