/* rmbounded.h - runs one check of a refmalloc C test in a child process with a deadline, so a
 * deadlock becomes a FAIL line instead of a stuck test run (header-only, for test programs).
 *
 * Always holds: the check runs in a forked child that leads its own process group; when it does
 * not end within the deadline the whole group (the check and anything it forked) is killed and
 * the check fails as "hung"; settings the check changes (mallopt, rlimits, stderr) die with the
 * child. The deadline only bounds a hang: a passing check does not depend on timing.
 */
#ifndef RMBOUNDED_H
#define RMBOUNDED_H
#include "tcheck.h"

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Runs fn() in a child; returns its exit status (128 + signal when killed by one), or -1 when it
 * was still running after seconds and was killed with its process group. */
static inline int rmt_bounded(int (*fn)(void), unsigned seconds)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        setpgid(0, 0);
        int rc = fn();
        fflush(stdout);
        _exit(rc);
    }
    setpgid(pid, pid);
    for (unsigned long waited_ms = 0; waited_ms < seconds * 1000UL; waited_ms += 10) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* One check: PASS when fn() returns 0 in time, else FAIL with "hung" or the exit status. */
static inline void rmt_bounded_check(const char *name, int (*fn)(void), unsigned seconds)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = rmt_bounded(fn, seconds);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == 0) {
        tcheck_passed++;
        printf("PASS %s\n", name);
        printf("note: took %.1f s\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    } else if (rc < 0) {
        tcheck_failed++;
        printf("FAIL %s: hung (killed after %u s)\n", name, seconds);
    } else {
        tcheck_failed++;
        printf("FAIL %s: the check exited with status %d\n", name, rc);
    }
    fflush(stdout);
}
#endif
