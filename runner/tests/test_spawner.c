/* test_spawner.c - unit tests of the helper spawner (runner/base/spawner.c): a helper starts
 * with no ignored and no blocked signal although the runner ignores SIGPIPE and blocks SIGUSR1,
 * its output is appended where asked, its stdin can be a pipe the runner writes (in_fd), it runs
 * in the asked directory and group, exit statuses
 * and start failures are reported, and the clean environment drops the measured-process names.
 * Always holds: every expected value follows from what the test sets up; files live in a
 * temporary directory removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/spawner.h"
#include "tcheck.h"

/* The value of "Field:" in a /proc status text, or "" (static buffer). */
static const char *status_field(const char *text, const char *field)
{
    static char val[64];
    const char *p = text ? strstr(text, field) : NULL;
    val[0] = '\0';
    if (p)
        sscanf(p + strlen(field), " %63s", val);
    return val;
}

/* Signals: SIG_IGN and a blocked signal in the runner do not reach the helper. */
static void test_signals(const char *dir)
{
    signal(SIGPIPE, SIG_IGN);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old);
    char *out = hb_xasprintf("%s/status.txt", dir);
    char *argv[] = {"cat", "/proc/self/status", NULL};
    struct hb_spawn sp = {.argv = argv, .out_path = out};
    int rc = hb_spawn_run(&sp);
    char *text = hb_read_file(out, NULL);
    TCHECK("cat found in PATH and exits 0", rc == 0);
    /* signals 1-31: glibc's own reserved real-time signals (32, 33) are its business */
    unsigned long long ign = strtoull(status_field(text, "SigIgn:"), NULL, 16);
    if (ign & 0x7fffffffULL)
        printf("  helper SigIgn: %llx\n", ign);
    TCHECK("helper ignores no standard signal (runner ignores SIGPIPE)", text && !(ign & 0x7fffffffULL));
    TCHECK("helper blocks no signal (runner blocks SIGUSR1)", !strcmp(status_field(text, "SigBlk:"), "0000000000000000"));
    sigprocmask(SIG_SETMASK, &old, NULL);
    signal(SIGPIPE, SIG_DFL);
    free(text), free(out);
}

/* cwd, appended output, stderr with stdout, new group, statuses, a missing program. */
static void test_files_and_status(const char *dir)
{
    char *out = hb_xasprintf("%s/out.txt", dir);
    char *argv[] = {"/bin/sh", "-c", "pwd; echo err >&2; [ \"$(ps -o pgid= $$ | tr -d ' ')\" = $$ ] && echo leader", NULL};
    struct hb_spawn sp = {.argv = argv, .cwd = "/", .out_path = out, .err_to_out = 1, .new_group = 1};
    TCHECK("first run exits 0", hb_spawn_run(&sp) == 0);
    TCHECK("second run exits 0", hb_spawn_run(&sp) == 0);
    char *text = hb_read_file(out, NULL);
    TCHECK("output appended twice, in cwd /, stderr included, group leader",
           text && !strcmp(text, "/\nerr\nleader\n/\nerr\nleader\n"));
    free(text);
    char *code[] = {"/bin/sh", "-c", "exit 7", NULL};
    struct hb_spawn c7 = {.argv = code};
    TCHECK("exit status returned", hb_spawn_run(&c7) == 7);
    char *killed[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
    struct hb_spawn ck = {.argv = killed};
    TCHECK("killed by SIGTERM -> 128+15", hb_spawn_run(&ck) == 128 + SIGTERM);
    char *missing[] = {"hb-no-such-program", NULL};
    struct hb_spawn cm = {.argv = missing};
    pid_t pid = 0;
    TCHECK("missing program: ENOENT, nothing started", hb_spawn_start(&cm, &pid) == ENOENT && pid == 0);
    TCHECK("missing program: run gives -1", hb_spawn_run(&cm) == -1);
    free(out);
}

/* in_fd: the helper reads a pipe the runner writes, and sees its EOF once the runner closes the
 * write end (O_CLOEXEC: the helper holds no copy of it), as the cgroup guard does. */
static void test_in_fd(const char *dir)
{
    char *out = hb_xasprintf("%s/in.txt", dir);
    int p[2];
    pid_t pid = 0;
    char *argv[] = {"/bin/cat", NULL};
    TCHECK("a pipe for in_fd", pipe2(p, O_CLOEXEC) == 0);
    struct hb_spawn sp = {.argv = argv, .in_fd = p[0], .out_path = out};
    int err = hb_spawn_start(&sp, &pid);
    close(p[0]);
    TCHECK("in_fd: the helper starts", err == 0);
    TCHECK("in_fd: the runner writes to it", write(p[1], "through the pipe\n", 17) == 17);
    close(p[1]);
    TCHECK("in_fd: EOF ends the helper (exit 0)", err == 0 && hb_spawn_wait(pid) == 0);
    char *text = hb_read_file(out, NULL);
    TCHECK("in_fd: the helper read what the runner wrote", text && !strcmp(text, "through the pipe\n"));
    free(text), free(out);
}

/* The clean environment drops LD_PRELOAD, HEAPBENCH_PHASE_FD and the names given. */
static void test_clean_env(void)
{
    setenv("LD_PRELOAD", "/x.so", 1);
    setenv("HEAPBENCH_PHASE_FD", "3", 1);
    setenv("HB_KEEP", "1", 1);
    setenv("HB_PORT", "1", 1);
    struct hb_strv drop = {0}, env = {0};
    hb_strv_push(&drop, "HB_PORT=2");
    hb_spawn_clean_env(&drop, &env);
    int preload = 0, fd = 0, keep = 0, port = 0;
    for (size_t i = 0; i < env.n; i++) {
        preload |= !strncmp(env.v[i], "LD_PRELOAD=", 11);
        fd |= !strncmp(env.v[i], "HEAPBENCH_PHASE_FD=", 19);
        keep |= !strcmp(env.v[i], "HB_KEEP=1");
        port |= !strncmp(env.v[i], "HB_PORT=", 8);
    }
    TCHECK("clean env: no LD_PRELOAD, no HEAPBENCH_PHASE_FD", !preload && !fd);
    TCHECK("clean env: other names kept, dropped names gone", keep && !port);
    hb_strv_free(&drop), hb_strv_free(&env);
    unsetenv("LD_PRELOAD");
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    char dir[] = "/tmp/hb-spawner-test.XXXXXX";
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    test_signals(dir);
    test_files_and_status(dir);
    test_in_fd(dir);
    test_clean_env();
    char *rm = hb_xasprintf("rm -rf '%s'", dir);
    if (system(rm) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    free(rm);
    return tcheck_summary();
}
