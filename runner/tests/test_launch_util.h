/* test_launch_util.h - helpers shared by the runner/tests/test_launch*.c and test_elfcheck.c programs (header-only).
 * Always holds: helpers only prepare specs and read files; every assertion stays in the tests. */
#ifndef HEAPBENCH_TEST_LAUNCH_UTIL_H
#define HEAPBENCH_TEST_LAUNCH_UTIL_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/launch.h"

extern char **environ;

/* The runner's environment plus HEAPBENCH_PHASE_FD=3 (what the runner gives a workload). */
static inline char **tl_child_env(void)
{
    static char **env;
    size_t n = 0;
    if (env)
        return env;
    while (environ[n])
        n++;
    env = calloc(n + 2, sizeof *env);
    memcpy(env, environ, n * sizeof *env);
    env[n] = "HEAPBENCH_PHASE_FD=3";
    return env;
}

/* The path of the running test binary (children re-exec it with a mode argument). */
static inline const char *tl_self(void)
{
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    path[n > 0 ? n : 0] = '\0';
    return path;
}

/* A spec for argv with the phase pipe, the child environment and the given timeout (s). */
static inline struct hb_launch_spec tl_spec(char *const *argv, double timeout_s)
{
    struct hb_launch_spec s;
    memset(&s, 0, sizeof s);
    s.argv = argv;
    s.envp = tl_child_env();
    s.timeout_s = timeout_s;
    s.interval_ms = 10;
    s.want_phases = 1;
    return s;
}

/* Reads up to len-1 bytes of path into buf (NUL-terminated); returns the length or -1. */
static inline ssize_t tl_read_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return (ssize_t)n;
}

/* A fresh temporary directory for this test program; "" when none could be made. */
static inline const char *tl_tmpdir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/hb-test-launch-XXXXXX");
        if (!mkdtemp(dir))
            dir[0] = '\0';
    }
    return dir;
}

/* 1 when no process of group pgid is left within 2 s. Orphaned members are reaped here, so the
 * test must be a child subreaper (prctl PR_SET_CHILD_SUBREAPER) for zombies not to count. */
static inline int tl_group_gone(int pgid)
{
    for (int i = 0; i < 200; i++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (kill(-pgid, 0) < 0 && errno == ESRCH)
            return 1;
        usleep(10000);
    }
    return 0;
}

#endif
