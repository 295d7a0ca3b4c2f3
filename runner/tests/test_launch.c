/* test_launch.c - tests hb_launch() on real children: outcomes, rusage, perf counters, phases,
 * the RSS timeline, timeouts, interrupts and exec failures.
 * Always holds: the children are this binary re-exec'ed with a mode argument (tl_child_main),
 * so no extra build rule exists; every check compares against what the child really did. */
#include <errno.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "tcheck.h"
#include "measure/perf.h"
#include "base/priority.h"
#include "base/resolve.h"
#include "test_launch_util.h"

#define TL_PHASE_LINES 3000 /* more than a pipe buffer holds: the parent must read while it runs */
#define TL_MARKS 5           /* phase records of the "marks" child, each read before the next is written */

/* Writes line i of the phase-protocol test stream into buf; returns its length. */
static int tl_phase_line(int i, char *buf, size_t len)
{
    return snprintf(buf, len, "phase\tstep%d\t0.%06d\t%d\t%d\t%d\n", i, i, i * 7, i * 1000, 4096 + i);
}

/* Busy work plus a sleep so that every software counter has something to count. */
static int tl_mode_work(void)
{
    size_t n = 8u << 20;
    volatile char *p = malloc(n);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = (char)i;
    volatile double x = 0;
    for (int i = 0; i < 20000000; i++)
        x += i * 0.5;
    usleep(2000);
    return p[4096] == 0 ? 0 : 0; /* the value only keeps the allocation alive */
}

/* 100 madvise and 3 mremap calls on a mapping of its own (the system-call counters' known answer). */
static int tl_mode_syscalls(void)
{
    size_t page = 4096;
    char *p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    for (int i = 0; i < 100; i++)
        madvise(p, page, MADV_NORMAL);
    for (int i = 0; i < 3; i++) {
        char *q = mremap(p, 4 * page, (i % 2 ? 4 : 8) * page, MREMAP_MAYMOVE);
        if (q == MAP_FAILED)
            return 1;
        p = q;
    }
    return 0;
}

/* Holds 100 MB (touched) for 300 ms. */
static int tl_mode_alloc100(void)
{
    size_t n = 100u << 20;
    char *p = malloc(n);
    memset(p, 1, n);
    __asm__ volatile("" : : "r"(p) : "memory"); /* the compiler must not elide the buffer */
    usleep(300000);
    return p[n - 1] == 1 ? 0 : 1;
}

/* Writes TL_PHASE_LINES lines on HEAPBENCH_PHASE_FD, one write(2) each. */
static int tl_mode_phases(void)
{
    const char *fdname = getenv("HEAPBENCH_PHASE_FD");
    int fd = fdname ? atoi(fdname) : 1;
    char line[128];
    for (int i = 0; i < TL_PHASE_LINES; i++) {
        int n = tl_phase_line(i, line, sizeof line);
        if (write(fd, line, (size_t)n) != n)
            return 1;
    }
    return 0;
}

/* Waits until the parent has read everything written on fd (the pipe holds no byte). */
static void tl_wait_drained(int fd)
{
    int left = 1;
    while (ioctl(fd, FIONREAD, &left) == 0 && left > 0)
        usleep(1000);
}

/* Writes TL_MARKS phase records ("other" records between them), each once the parent has read the
 * one before, then lives on for 1 s so that the parent samples RSS for the last one while it is alive. */
static int tl_mode_marks(void)
{
    char line[128];
    for (int i = 0; i < TL_MARKS; i++) {
        int n = snprintf(line, sizeof line, "other\tx\nphase\tmark%d\t0.001\t0\t0\t0\n", i);
        if (write(3, line, (size_t)n) != n)
            return 1;
        tl_wait_drained(3);
    }
    usleep(1000000);
    return 0;
}

/* Starts a grandchild, reports both pids on the phase fd, then both sleep far past any timeout;
 * with signal_parent, sends SIGALRM to the runner right after the report. */
static int tl_mode_sleeper(int signal_parent)
{
    char line[64];
    pid_t g = fork();
    if (g == 0) {
        sleep(60);
        _exit(0);
    }
    int n = snprintf(line, sizeof line, "pids\t%d\t%d\n", (int)getpid(), (int)g);
    if (write(3, line, (size_t)n) != n)
        return 1;
    if (signal_parent) /* the interrupt test: interrupt now that both processes exist */
        kill(getppid(), SIGALRM);
    sleep(60);
    return 0;
}

/* Child side: runs the mode named by argv[1]; returns the exit status. */
static int tl_child_main(int argc, char **argv)
{
    const char *m = argv[1];
    struct rlimit nocore = {0, 0};
    cpu_set_t set;
    char cwd[4096];
    if (!strcmp(m, "work"))
        return tl_mode_work();
    if (!strcmp(m, "syscalls"))
        return tl_mode_syscalls();
    if (!strcmp(m, "exit3"))
        return 3;
    if (!strcmp(m, "segv")) {
        setrlimit(RLIMIT_CORE, &nocore);
        raise(SIGSEGV);
        return 0;
    }
    if (!strcmp(m, "alloc100"))
        return tl_mode_alloc100();
    if (!strcmp(m, "phases"))
        return tl_mode_phases();
    if (!strcmp(m, "sleeper"))
        return tl_mode_sleeper(argc > 2 && !strcmp(argv[2], "signal-parent"));
    if (!strcmp(m, "marks"))
        return tl_mode_marks();
    if (!strcmp(m, "hello")) {
        printf("hello out\n");
        fflush(stdout);
        fprintf(stderr, "hello err\n");
        return 0;
    }
    if (!strcmp(m, "where")) {
        sched_getaffinity(0, sizeof set, &set);
        printf("%s cpus=%d\n", getcwd(cwd, sizeof cwd) ? cwd : "?", CPU_COUNT(&set));
        return 0;
    }
    fprintf(stderr, "%s: unknown mode %s (argc %d)\n", argv[0], m, argc);
    return 2;
}

/* Launches this binary in mode m (timeout in s) into *res; returns hb_launch's value. */
static int tl_run(const char *m, double timeout_s, struct hb_result *res)
{
    char *argv[] = {(char *)tl_self(), (char *)m, NULL};
    struct hb_launch_spec s = tl_spec(argv, timeout_s);
    return hb_launch(&s, res);
}

/* A normal run: outcome, rusage and the counters (software ones real, hardware ok or explained). */
static void tl_test_ok(void)
{
    struct hb_result r;
    int rc = tl_run("work", 30, &r);
    TCHECK("ok: hb_launch returns 0", rc == 0);
    TCHECK("ok: status ok, exit 0", r.status == HB_OK && r.exit_code == 0 && r.signal == 0);
    TCHECK("ok: wall > 0 and below 30 s", r.wall_s > 0 && r.wall_s < 30);
    TCHECK("ok: maxrss covers the 8 MB touched", r.maxrss_kb >= 8 * 1024);
    TCHECK("ok: minflt > 0", r.minflt > 0);
    TCHECK("ok: user time > 0", r.user_s > 0);
    TCHECK("ok: nvcsw > 0 (the child slept)", r.nvcsw > 0);
    for (int i = HB_CTR_TASK_CLOCK; i <= HB_CTR_CONTEXT_SWITCHES; i++) {
        char name[80];
        snprintf(name, sizeof name, "ok: software counter %s measured and > 0", hb_counter_names[i]);
        TCHECK(name, r.counter_ok[i] && r.counter[i] > 0);
    }
    TCHECK("ok: cpu_migrations measured", r.counter_ok[HB_CTR_CPU_MIGRATIONS] && r.counter[HB_CTR_CPU_MIGRATIONS] >= 0);
    double cpu_ms = (r.user_s + r.sys_s) * 1000;
    TCHECK("ok: task_clock_ms agrees with user+sys", fabs(r.counter[HB_CTR_TASK_CLOCK] - cpu_ms) < 0.5 * cpu_ms + 30);
    TCHECK("ok: page_faults see the 2048 pages touched", r.counter[HB_CTR_PAGE_FAULTS] >= 2048);
    for (int i = HB_CTR_CYCLES; i <= HB_CTR_DTLB_LOAD_MISSES; i++) {
        char name[80];
        snprintf(name, sizeof name, "ok: hardware counter %s real or explained", hb_counter_names[i]);
        TCHECK(name, r.counter_ok[i] ? r.counter[i] > 0 && !hb_counter_reason[i]
                                     : hb_counter_reason[i] && !strncmp(hb_counter_reason[i], "unavailable", 11));
    }
    hb_result_free(&r);
}

/* The system-call counters: exactly the process's own calls where the kernel has syscall
 * tracepoints (100 madvise, 3 mremap: the loader and libc make none of either), else explained. */
static void tl_test_syscalls(void)
{
    struct hb_result r;
    int rc = tl_run("syscalls", 30, &r);
    TCHECK("syscalls: run ok", rc == 0 && r.status == HB_OK);
    if (r.counter_ok[HB_CTR_SYS_MADVISE]) {
        TCHECK("syscalls: sys_madvise counts the 100 calls", r.counter[HB_CTR_SYS_MADVISE] == 100);
        TCHECK("syscalls: sys_mremap counts the 3 calls", r.counter[HB_CTR_SYS_MREMAP] == 3);
        TCHECK("syscalls: sys_mmap counts the loader's maps and ours", r.counter[HB_CTR_SYS_MMAP] >= 2);
    } else {
        TCHECK("syscalls: unavailable with a reason", hb_counter_reason[HB_CTR_SYS_MADVISE] &&
                                                        !strncmp(hb_counter_reason[HB_CTR_SYS_MADVISE], "unavailable", 11));
    }
    hb_result_free(&r);
}

/* Exit 3 and SIGSEGV: failed and crashed with their figures. */
static void tl_test_failures(void)
{
    struct hb_result r;
    int rc = tl_run("exit3", 30, &r);
    TCHECK("exit 3: failed with exit code 3", rc == 0 && r.status == HB_FAILED && r.exit_code == 3 && r.signal == 0);
    TCHECK("exit 3: reason", !strcmp(r.reason, "exit code 3"));
    hb_result_free(&r);
    rc = tl_run("segv", 30, &r);
    TCHECK("segv: crashed with signal 11", rc == 0 && r.status == HB_CRASHED && r.signal == SIGSEGV && r.exit_code == -1);
    TCHECK("segv: reason names the signal", !strcmp(r.reason, "killed by signal 11 (SIGSEGV)"));
    TCHECK("segv: rusage still measured", r.maxrss_kb > 0);
    hb_result_free(&r);
}

/* The pids the sleeper reported on its phase pipe; 0 when absent. */
static void tl_sleeper_pids(const struct hb_result *r, int *child, int *grandchild)
{
    *child = *grandchild = 0;
    if (!r->phase_text || sscanf(r->phase_text, "pids\t%d\t%d", child, grandchild) != 2)
        *child = *grandchild = 0;
}

/* Timeout: killed quickly, with its grandchild, status timeout. The sleeper must have started its
 * grandchild before the deadline for the test to mean anything, which a loaded machine can delay
 * past any fixed timeout: a run that ended before the sleeper reported its pids is run again with
 * twice the timeout (0.3 s, 0.6 s, ... up to 19.2 s), and the checks are made on the first run that
 * reached the deadline with both processes started. */
static void tl_test_timeout(void)
{
    struct hb_result r;
    int child = 0, grandchild = 0, rc = -1;
    double t = 0.3;
    char want[64];
    for (int attempt = 0; attempt < 7; attempt++, t *= 2) {
        rc = tl_run("sleeper", t, &r);
        tl_sleeper_pids(&r, &child, &grandchild);
        if (child > 0 || attempt == 6)
            break;
        printf("# timeout: the sleeper had not reported its pids by the %g s deadline (loaded machine); again with %g s\n", t, 2 * t);
        hb_result_free(&r);
    }
    snprintf(want, sizeof want, "timeout after %g s", t);
    TCHECK("timeout: status timeout", rc == 0 && r.status == HB_TIMEOUT);
    TCHECK("timeout: reason", !strcmp(r.reason, want));
    TCHECK("timeout: killed soon after the deadline", r.wall_s >= t && r.wall_s < t + 1.7);
    TCHECK("timeout: the child led its own process group", child > 0 && grandchild > 0 && getpgid(0) != child);
    TCHECK("timeout: no process left in the group", child > 0 && tl_group_gone(child));
    hb_result_free(&r);
}

static volatile double tl_alarm_at; /* tl_mono() when the interrupt handler ran; 0 before */

/* Monotonic seconds (clock_gettime is async-signal-safe). */
static double tl_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SIGALRM handler of the interrupt tests. */
static void tl_on_alarm(int sig)
{
    (void)sig;
    tl_alarm_at = tl_mono();
    hb_launch_interrupt();
}

static pid_t tl_launched; /* the measured child's pid (its group), as hb_launch saw it */

/* Seam: records the child's pid before its release. */
static void tl_record_child(pid_t pid)
{
    tl_launched = pid;
}

/* hb_launch_interrupt() from a signal handler ends the run at once, killing the whole group. The
 * sleeper sends the signal itself once it has started its grandchild and reported both pids, so
 * the group to kill has two processes however slowly the machine started them. */
static void tl_test_interrupt(void)
{
    struct hb_result r;
    char *argv[] = {(char *)tl_self(), "sleeper", "signal-parent", NULL};
    struct hb_launch_spec s = tl_spec(argv, 30);
    int child, grandchild;
    tl_alarm_at = 0;
    signal(SIGALRM, tl_on_alarm);
    int rc = hb_launch(&s, &r);
    double after = tl_mono() - tl_alarm_at;
    tl_sleeper_pids(&r, &child, &grandchild);
    TCHECK("interrupt: the sleeper started both processes and signalled", child > 0 && grandchild > 0 && tl_alarm_at > 0);
    TCHECK("interrupt: ends within 2 s of the interrupt, not ok", rc == 0 && r.status != HB_OK && tl_alarm_at > 0 && after < 2.0);
    TCHECK("interrupt: reason", !strcmp(r.reason, "interrupted"));
    TCHECK("interrupt: no process left in the group", child > 0 && tl_group_gone(child));
    signal(SIGALRM, SIG_DFL);
    hb_result_free(&r);
}

/* An interrupt at an arbitrary moment of the launch (a timer of 50 ms: before the fork, between
 * fork and release, or while the child starts, depending on the machine's load) ends the run,
 * never lost: an interrupt that came before the child's group was known still kills it. */
static void tl_test_interrupt_anytime(void)
{
    struct hb_result r;
    struct itimerval it = {{0, 0}, {0, 50000}};
    int gone = 0, right = 0, runs = 5;
    signal(SIGALRM, tl_on_alarm);
    hb_launch_before_release = tl_record_child;
    for (int i = 0; i < runs; i++) {
        tl_alarm_at = 0;
        tl_launched = 0;
        setitimer(ITIMER_REAL, &it, NULL);
        int rc = tl_run("sleeper", 10, &r);
        double after = tl_mono() - tl_alarm_at;
        int ok = rc == 0 && tl_alarm_at > 0 && after < 2.0 && !strcmp(r.reason, "interrupted");
        if (!ok)
            printf("# interrupt at 50 ms, run %d: rc %d, %s, %.2f s after the interrupt: %s\n", i, rc,
                   tl_alarm_at > 0 ? "interrupted" : "no interrupt", tl_alarm_at > 0 ? after : 0.0, r.reason);
        right += ok;
        gone += tl_launched > 0 && tl_group_gone(tl_launched);
        hb_result_free(&r);
    }
    hb_launch_before_release = NULL;
    signal(SIGALRM, SIG_DFL);
    printf("# interrupt at 50 ms: %d/%d ended within 2 s as interrupted, %d/%d groups gone\n", right, runs, gone, runs);
    TCHECK("interrupt anytime: every run ends within 2 s as interrupted", right == runs);
    TCHECK("interrupt anytime: no process left in any group", gone == runs);
}

/* Phase lines written on fd 3 come back byte for byte, even beyond a pipe buffer. */
static void tl_test_phases(void)
{
    struct hb_result r;
    size_t cap = TL_PHASE_LINES * 64, len = 0;
    char *want = malloc(cap);
    for (int i = 0; i < TL_PHASE_LINES; i++)
        len += (size_t)tl_phase_line(i, want + len, cap - len);
    int rc = tl_run("phases", 30, &r);
    TCHECK("phases: run ok", rc == 0 && r.status == HB_OK);
    TCHECK("phases: length round-trips", r.phase_len == len && strlen(r.phase_text) == len);
    TCHECK("phases: text round-trips", r.phase_len == len && !memcmp(r.phase_text, want, len));
    free(want);
    hb_result_free(&r);
}

/* A 300 ms child holding 100 MB: the timeline has samples in time order and peaks near 100 MB.
 * The timeout is no speed claim: touching the 100 MB beside a 10 ms sampler took 13-29 s of wall
 * time at load 55-60 (2 cores), and once 30 s killed it at 97 MB; 300 s leaves room at any load. */
static void tl_test_rss(void)
{
    struct hb_result r;
    uint64_t max = 0;
    int ordered = 1;
    int rc = tl_run("alloc100", 300, &r);
    for (size_t i = 0; i < r.rss_len; i++) {
        max = r.rss[i].rss_kb > max ? r.rss[i].rss_kb : max;
        ordered &= i == 0 || r.rss[i].t >= r.rss[i - 1].t;
    }
    TCHECK("rss: run ok", rc == 0 && r.status == HB_OK);
    TCHECK("rss: at least 10 samples over 300 ms", r.rss_len >= 10);
    TCHECK("rss: samples in time order within the wall time", ordered && r.rss_len && r.rss[r.rss_len - 1].t <= r.wall_s);
    printf("# rss: %zu samples, max %llu kB, maxrss %ld kB, status %s, wall %.2f s%s%s\n", r.rss_len,
           (unsigned long long)max, r.maxrss_kb, hb_status_names[r.status], r.wall_s, r.reason[0] ? ": " : "", r.reason);
    TCHECK("rss: timeline peaks near 100 MB", max >= 100 * 1024 - 1024 && max <= 110 * 1024);
    TCHECK("rss: maxrss near 100 MB", r.maxrss_kb >= 100 * 1024 && r.maxrss_kb <= 110 * 1024);
    hb_result_free(&r);
}

/* Every phase record read while the child lives has one RSS sample tagged with its name, in the
 * records' order, within the time-ordered timeline; other records and periodic samples have none. */
static void tl_test_marks(void)
{
    struct hb_result r;
    char want[16];
    int k = 0, ordered = 1, bad_tag = 0;
    int rc = tl_run("marks", 60, &r);
    for (size_t i = 0; i < r.rss_len; i++) {
        ordered &= i == 0 || r.rss[i].t >= r.rss[i - 1].t;
        if (!r.rss[i].phase)
            continue;
        snprintf(want, sizeof want, "mark%d", k++);
        bad_tag |= strcmp(r.rss[i].phase, want) != 0 || r.rss[i].anon_huge_kb != -1;
    }
    TCHECK("marks: run ok", rc == 0 && r.status == HB_OK);
    TCHECK("marks: one tagged sample per phase record", k == TL_MARKS);
    TCHECK("marks: tags name the phases in order (no smaps read)", !bad_tag);
    TCHECK("marks: timeline in time order, periodic samples too", ordered && r.rss_len > (size_t)TL_MARKS);
    hb_result_free(&r);
}

/* stdout_path takes stdout and stderr; cwd and pin reach the child. */
static void tl_test_redirect(void)
{
    struct hb_result r;
    char out[256], text[512];
    cpu_set_t one;
    snprintf(out, sizeof out, "%s/out.txt", tl_tmpdir());
    char *argv[] = {(char *)tl_self(), "hello", NULL};
    struct hb_launch_spec s = tl_spec(argv, 30);
    s.stdout_path = out;
    int rc = hb_launch(&s, &r);
    TCHECK("redirect: stdout and stderr in the file",
           rc == 0 && tl_read_file(out, text, sizeof text) > 0 && !strcmp(text, "hello out\nhello err\n"));
    hb_result_free(&r);
    char *argv2[] = {(char *)tl_self(), "where", NULL};
    s.argv = argv2;
    s.cwd = "/";
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    s.pin = &one;
    rc = hb_launch(&s, &r);
    TCHECK("cwd and pin: child runs in / on one CPU",
           rc == 0 && tl_read_file(out, text, sizeof text) > 0 && !strcmp(text, "/ cpus=1\n"));
    hb_result_free(&r);
}

/* Seam: waits until the child has exited (it failed before its release), without reaping it. */
static void tl_wait_child_exit(pid_t pid)
{
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
}

/* A child that fails before release (here: chdir) has exited when the release byte is written:
 * that write gets EPIPE and must neither kill the runner (SIGPIPE) nor hide the child's reason.
 * The seam makes the race certain, 200 times over. */
static void tl_test_release_after_child_died(void)
{
    struct hb_result r;
    char *argv[] = {(char *)tl_self(), "hello", NULL};
    struct hb_launch_spec s = tl_spec(argv, 5);
    int right = 0;
    s.cwd = "/nonexistent-hb-dir";
    signal(SIGPIPE, SIG_DFL); /* as a fresh process has it: hb_launch must cope by itself */
    hb_launch_before_release = tl_wait_child_exit;
    for (int i = 0; i < 200; i++) {
        int rc = hb_launch(&s, &r);
        right += rc == -1 && r.status == HB_FAILED && strstr(r.reason, "cannot chdir") != NULL;
        hb_result_free(&r);
    }
    hb_launch_before_release = NULL;
    printf("# release after the child died: %d/200 reported 'cannot chdir'\n", right);
    TCHECK("release: a child dead before release is a failed row, 200 times, no SIGPIPE", right == 200);
}

/* Programs that cannot be started: -1, failed, "cannot exec X: why". */
static void tl_test_exec_errors(void)
{
    struct hb_result r;
    char *missing[] = {"/nonexistent/hb-prog", NULL}, *unknown[] = {"hb-no-such-program", NULL},
         *dir[] = {"/tmp", NULL};
    struct hb_launch_spec s = tl_spec(missing, 5);
    int rc = hb_launch(&s, &r);
    TCHECK("exec: missing path fails", rc == -1 && r.status == HB_FAILED);
    TCHECK("exec: missing path reason", !strcmp(r.reason, "cannot exec /nonexistent/hb-prog: No such file or directory"));
    hb_result_free(&r);
    s.argv = unknown;
    rc = hb_launch(&s, &r);
    TCHECK("exec: unknown name in PATH", rc == -1 && !strcmp(r.reason, "cannot exec hb-no-such-program: No such file or directory"));
    hb_result_free(&r);
    s.argv = dir; /* exists, so the child itself reports execve's error over the error pipe */
    rc = hb_launch(&s, &r);
    TCHECK("exec: execve error from the child", rc == -1 && r.status == HB_FAILED && !strcmp(r.reason, "cannot exec /tmp: Permission denied"));
    TCHECK("exec: no counters for a process that never ran", !r.counter_ok[HB_CTR_TASK_CLOCK]);
    hb_result_free(&r);
    s.argv = (char *[]){(char *)tl_self(), "hello", NULL};
    s.cwd = "/nonexistent-dir";
    rc = hb_launch(&s, &r);
    TCHECK("exec: chdir error reported", rc == -1 && strstr(r.reason, "cannot chdir") && strstr(r.reason, "/nonexistent-dir"));
    hb_result_free(&r);
}

/* hb_resolve_program finds names in PATH like execvp. */
static void tl_test_resolve(void)
{
    char out[4096];
    TCHECK("resolve: sh found in PATH", hb_resolve_program("sh", "/nonexistent:/usr/bin:/bin", out, sizeof out) == 0 &&
                                            !strcmp(out, "/usr/bin/sh"));
    errno = 0;
    TCHECK("resolve: missing name gives ENOENT", hb_resolve_program("hb-nope", "/usr/bin", out, sizeof out) == -1 && errno == ENOENT);
    TCHECK("resolve: a path is taken as is", hb_resolve_program("./x", NULL, out, sizeof out) == 0 && !strcmp(out, "./x"));
}

/* HEAPBENCH_PERF_DENY makes named counters unavailable with their reason (run last: it sticks). */
static void tl_test_perf_deny(void)
{
    struct hb_result r;
    setenv("HEAPBENCH_PERF_DENY", "context_switches,task_clock_ms", 1);
    int rc = tl_run("work", 30, &r);
    TCHECK("deny: run ok", rc == 0 && r.status == HB_OK);
    TCHECK("deny: task_clock_ms unavailable", !r.counter_ok[HB_CTR_TASK_CLOCK] && r.counter[HB_CTR_TASK_CLOCK] == 0);
    TCHECK("deny: context_switches unavailable", !r.counter_ok[HB_CTR_CONTEXT_SWITCHES]);
    TCHECK("deny: reason recorded", hb_counter_reason[HB_CTR_TASK_CLOCK] &&
                                        !strcmp(hb_counter_reason[HB_CTR_TASK_CLOCK], "disabled by HEAPBENCH_PERF_DENY"));
    TCHECK("deny: other counters still measured", r.counter_ok[HB_CTR_PAGE_FAULTS] && r.counter[HB_CTR_PAGE_FAULTS] > 0);
    unsetenv("HEAPBENCH_PERF_DENY");
    hb_result_free(&r);
}

/* Child mode when given a mode argument; else runs every test and prints the closing count. */
/* The scheduling policy of the child at its release (read by the seam hb_launch_before_release). */
static int tl_policy_at_release = -1;
static void tl_record_policy(pid_t pid)
{
    tl_policy_at_release = sched_getscheduler(pid);
}

/* --priority rt: the child is already SCHED_FIFO while it waits for its release (so it wakes at
 * that priority, not after a turn among the machine's other tasks), and runs ok. Root only. */
static void tl_test_priority(void)
{
    struct hb_result r;
    char *argv[] = {(char *)tl_self(), "work", NULL};
    struct hb_launch_spec s = tl_spec(argv, 30);
    s.priority = HB_PRIO_RT;
    if (geteuid() != 0) {
        printf("note: not root: --priority at release not tested\n");
        return;
    }
    hb_launch_before_release = tl_record_policy;
    int rc = hb_launch(&s, &r);
    hb_launch_before_release = NULL;
    TCHECK("priority rt: the child is SCHED_FIFO before its release", tl_policy_at_release == SCHED_FIFO);
    TCHECK("priority rt: the run is ok", rc == 0 && r.status == HB_OK);
    if (rc == 0)
        hb_result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return tl_child_main(argc, argv);
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphaned grandchildren come to us: tl_group_gone reaps them */
    hb_perf_probe();
    TCHECK("probe: software counters open", !hb_counter_reason[HB_CTR_TASK_CLOCK] && !hb_counter_reason[HB_CTR_PAGE_FAULTS]);
    tl_test_ok();
    tl_test_syscalls();
    tl_test_failures();
    tl_test_timeout();
    tl_test_interrupt();
    tl_test_phases();
    tl_test_rss();
    tl_test_marks();
    tl_test_redirect();
    tl_test_exec_errors();
    tl_test_release_after_child_died();
    tl_test_resolve();
    tl_test_priority();
    tl_test_perf_deny();
    tl_test_interrupt_anytime(); /* last: a child killed before its counters open records a reason that sticks */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tl_tmpdir());
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", tl_tmpdir());
    return tcheck_summary();
}
