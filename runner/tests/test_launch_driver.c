/* test_launch_driver.c - tests hb_launch()'s driver mode (server programs measured under a
 * driver): ready polling, the driver's output, the SIGTERM stop, and every way it can fail.
 * Always holds: servers, ready checks and drivers are /bin/sh and sleep from the base system;
 * each test also checks that nothing of the server is left running. */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tcheck.h"
#include "test_launch_util.h"

/* The server: writes its pid to the phase fd, becomes ready after 0.3 s (touches flag), then
 * waits to be stopped. The sh builtin wait keeps sh itself (the measured pid) alive. */
static char *td_server[] = {"sh", "-c", "echo \"pid $$\" >&3; sleep 0.3; touch \"$0\"; sleep 60 & wait", NULL, NULL};

/* A spec for td_server with flag as its ready file, driven by driver; ready checks flag. */
static struct hb_launch_spec td_spec(const char *flag, char **ready, char **driver, const char *out)
{
    struct hb_launch_spec s = tl_spec(td_server, 20);
    td_server[3] = (char *)flag;
    s.ready_argv = ready;
    s.driver_argv = driver;
    s.stdout_path = out;
    s.ready_timeout_s = 30; /* no speed claim: sh's start and its 0.3 s sleep took over 3 s at load 60 */
    return s;
}

/* The server pid reported on the phase pipe, 0 if none. */
static int td_server_pid(const struct hb_result *r)
{
    int pid = 0;
    return r->phase_text && sscanf(r->phase_text, "pid %d", &pid) == 1 ? pid : 0;
}

/* The normal path: ready after 0.3 s, the driver runs, the server is stopped by SIGTERM -> ok. */
static void td_test_ok(const char *dir)
{
    char flag[256], out[256], test[300], text[256];
    struct hb_result r;
    snprintf(flag, sizeof flag, "%s/ready1", dir);
    snprintf(out, sizeof out, "%s/out1", dir);
    snprintf(test, sizeof test, "test -e %s", flag);
    char *ready[] = {"sh", "-c", test, NULL}, *driver[] = {"sh", "-c", "echo driven; echo driver-err >&2", NULL};
    struct hb_launch_spec s = td_spec(flag, ready, driver, out);
    int rc = hb_launch(&s, &r);
    int pid = td_server_pid(&r);
    if (rc != 0 || r.status != HB_OK)
        printf("# driver ok: rc %d, status %s after %.2f s: %s\n", rc, hb_status_names[r.status], r.wall_s, r.reason);
    TCHECK("driver ok: status ok", rc == 0 && r.status == HB_OK && r.exit_code == 0 && r.signal == 0);
    /* stopped by the driver's end, not by the run's 20 s timeout (the server sleeps 60 s) */
    TCHECK("driver ok: waited for ready (>= 0.3 s), stopped before the timeout", r.wall_s >= 0.3 && r.wall_s < 20);
    TCHECK("driver ok: driver output appended to stdout_path",
           tl_read_file(out, text, sizeof text) > 0 && !strcmp(text, "driven\ndriver-err\n"));
    TCHECK("driver ok: server measured (rusage)", r.maxrss_kb > 0 && r.minflt > 0);
    TCHECK("driver ok: no server process left", pid > 0 && tl_group_gone(pid));
    hb_result_free(&r);
}

/* A server that never becomes ready: failed after ready_timeout_s, killed. */
static void td_test_never_ready(const char *dir)
{
    char flag[256];
    struct hb_result r;
    snprintf(flag, sizeof flag, "%s/ready2", dir);
    char *ready[] = {"false", NULL}, *driver[] = {"true", NULL};
    struct hb_launch_spec s = td_spec(flag, ready, driver, NULL);
    s.ready_timeout_s = 0.8;
    int rc = hb_launch(&s, &r);
    TCHECK("never ready: failed", rc == 0 && r.status == HB_FAILED);
    TCHECK("never ready: reason", !strncmp(r.reason, "server never became ready", 25));
    TCHECK("never ready: gave up after the ready timeout", r.wall_s >= 0.8 && r.wall_s < 3);
    TCHECK("never ready: no server process left", td_server_pid(&r) > 0 && tl_group_gone(td_server_pid(&r)));
    hb_result_free(&r);
}

/* A driver that fails makes the run fail (the server still stopped); no ready_argv given. */
static void td_test_driver_fails(const char *dir)
{
    char flag[256];
    struct hb_result r;
    snprintf(flag, sizeof flag, "%s/ready3", dir);
    char *driver[] = {"sh", "-c", "sleep 0.2; exit 4", NULL};
    struct hb_launch_spec s = td_spec(flag, NULL, driver, NULL);
    int rc = hb_launch(&s, &r);
    TCHECK("driver fails: failed", rc == 0 && r.status == HB_FAILED);
    TCHECK("driver fails: reason names the driver", !strcmp(r.reason, "driver sh exited with status 4"));
    TCHECK("driver fails: no server process left", td_server_pid(&r) > 0 && tl_group_gone(td_server_pid(&r)));
    hb_result_free(&r);
}

/* A server that exits on its own before its driver is done: failed, the driver killed. */
static void td_test_server_exits(void)
{
    struct hb_result r;
    char *server[] = {"sh", "-c", "sleep 0.2", NULL}, *driver[] = {"sleep", "30", NULL};
    struct hb_launch_spec s = tl_spec(server, 20);
    s.driver_argv = driver;
    int rc = hb_launch(&s, &r);
    TCHECK("server exits early: failed", rc == 0 && r.status == HB_FAILED);
    TCHECK("server exits early: reason", !strcmp(r.reason, "server exited before its driver finished"));
    TCHECK("server exits early: driver killed, not waited for", r.wall_s < 3);
    hb_result_free(&r);
}

/* Seam: records the server's pid (its group's leader) before its release: at 0.5 s a loaded machine
 * may kill it before it wrote its pid on fd 3 (it failed so at load 60). */
static pid_t td_launched;
static void td_record_child(pid_t pid)
{
    td_launched = pid;
}

/* The server times out while the driver still runs: timeout, both killed. */
static void td_test_timeout(const char *dir)
{
    char flag[256];
    struct hb_result r;
    snprintf(flag, sizeof flag, "%s/ready4", dir);
    char *driver[] = {"sleep", "30", NULL};
    struct hb_launch_spec s = td_spec(flag, NULL, driver, NULL);
    s.timeout_s = 0.5;
    td_launched = 0;
    hb_launch_before_release = td_record_child;
    int rc = hb_launch(&s, &r);
    hb_launch_before_release = NULL;
    TCHECK("driver timeout: status timeout", rc == 0 && r.status == HB_TIMEOUT && r.wall_s < 3);
    TCHECK("driver timeout: no server process left", td_launched > 0 && tl_group_gone(td_launched));
    hb_result_free(&r);
}

/* Runs every driver-mode test (as a subreaper) and prints the closing count. */
int main(void)
{
    const char *dir = tl_tmpdir();
    char cmd[128];
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    TCHECK("temporary directory", dir[0] != '\0');
    td_test_ok(dir);
    td_test_never_ready(dir);
    td_test_driver_fails(dir);
    td_test_server_exits();
    td_test_timeout(dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return tcheck_summary();
}
