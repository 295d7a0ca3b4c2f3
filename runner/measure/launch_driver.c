/* launch_driver.c - driver mode of hb_launch(): ready polling, the driver run, the SIGTERM stop
 * of a measured server (see launch_driver.h for the contract).
 *
 * Always holds: d->aux_pid != 0 exactly while a helper runs and d->aux_pidfd is its pidfd;
 * every exit from a state that gives up goes through hb_driver_fail() (helper and server killed).
 */
#include "measure/launch_driver.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spawner.h"

#define HB_DRV_READY_S 30.0      /* default time a server gets to become ready (10 s was too short on a busy 2-core machine) */
/* Pause after a failed ready_argv attempt: 5 ms, doubled after each further failure up to 0.1 s.
 * A server is rarely ready at the first check (redis-server: ~30-80 ms here), and a fixed 0.1 s
 * pause held every run up to 0.1 s past its readiness. */
#define HB_DRV_RETRY_FIRST_S 0.005
#define HB_DRV_RETRY_MAX_S 0.1
#define HB_DRV_TERM_GRACE_S 5.0  /* SIGTERM -> SIGKILL delay when stopping a server */

static volatile sig_atomic_t hb_driver_aux_pgid; /* running helper's group, 0 when none */

/* Starts argv (not preloaded: envp, NULL = the runner's environment) as the helper program in
 * its own process group, its output appended to out_path (NULL: inherited).
 * Returns 0, or -1 with d->fail set. */
static int hb_driver_spawn(struct hb_driver *d, char *const *argv, char *const *envp, const char *out_path)
{
    /* helpers never read input; their output is appended to out_path with stderr */
    struct hb_spawn sp = {.argv = argv, .envp = envp, .in_path = "/dev/null", .out_path = out_path,
                          .err_to_out = out_path != NULL, .new_group = 1};
    int rc = hb_spawn_start(&sp, &d->aux_pid);
    if (!rc && (d->aux_pidfd = pidfd_open(d->aux_pid, 0)) < 0) {
        rc = errno;
        kill(d->aux_pid, SIGKILL);
        waitpid(d->aux_pid, NULL, 0);
    }
    if (rc) {
        d->aux_pid = 0;
        snprintf(d->fail, sizeof d->fail, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    hb_driver_aux_pgid = d->aux_pid;
    return 0;
}

/* Reaps the helper if one runs (kill_it: SIGKILL its group first); returns its exit status
 * (128+signal when killed), or -1 when none ran. */
static int hb_driver_wait(struct hb_driver *d, int kill_it)
{
    int st;
    if (d->aux_pid <= 0)
        return -1;
    if (kill_it)
        kill(-d->aux_pid, SIGKILL);
    while (waitpid(d->aux_pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-d->aux_pid, SIGKILL); /* its leftovers */
    hb_driver_aux_pgid = 0;
    d->aux_pid = 0;
    close(d->aux_pidfd);
    d->aux_pidfd = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Kills and reaps a helper still running (launch_driver.h). */
void hb_driver_reap(struct hb_driver *d)
{
    hb_driver_wait(d, 1);
}

/* Gives up on the server: keeps the first reason (why may be d->fail itself), kills the helper
 * and the server's group. */
static void hb_driver_fail(struct hb_driver *d, const char *why)
{
    if (!d->fail[0])
        snprintf(d->fail, sizeof d->fail, "%s", why);
    hb_driver_wait(d, 1);
    kill(-d->server, SIGKILL);
    d->state = HB_DRV_DONE;
    d->wake = INFINITY;
}

/* Runs one ready check (output discarded); gives up on failure to start it. */
static void hb_driver_check_ready(struct hb_driver *d)
{
    if (hb_driver_spawn(d, d->spec.ready_argv, d->spec.driver_envp, "/dev/null") != 0)
        hb_driver_fail(d, d->fail);
    else
        d->wake = d->ready_deadline;
}

/* Starts driver_argv (output appended to stdout_path) and moves to HB_DRV_RUN. */
static void hb_driver_run(struct hb_driver *d)
{
    d->state = HB_DRV_RUN;
    d->wake = INFINITY;
    if (hb_driver_spawn(d, d->spec.driver_argv, d->spec.driver_envp, d->spec.stdout_path) != 0)
        hb_driver_fail(d, d->fail);
}

/* Starts driving a just-released server: first ready check, or the driver (launch_driver.h). */
void hb_driver_begin(struct hb_driver *d, const struct hb_driver_spec *spec, pid_t server)
{
    memset(d, 0, sizeof *d);
    d->spec = *spec;
    d->server = server;
    d->aux_pidfd = -1;
    d->driver_rc = -1;
    d->wake = INFINITY;
    d->ready_deadline = spec->ready_timeout_s > 0 ? spec->ready_timeout_s : HB_DRV_READY_S;
    d->retry_s = HB_DRV_RETRY_FIRST_S;
    d->state = HB_DRV_READY;
    if (spec->ready_argv)
        hb_driver_check_ready(d);
    else
        hb_driver_run(d);
}

/* Advances the state machine READY -> RUN -> STOP at time now (launch_driver.h). */
void hb_driver_step(struct hb_driver *d, double now, int aux_ended)
{
    int aux_rc = aux_ended ? hb_driver_wait(d, 0) : -1;
    switch (d->state) {
    case HB_DRV_READY:
        if (aux_rc == 0) {
            hb_driver_run(d);
        } else if (now >= d->ready_deadline) {
            char why[96];
            snprintf(why, sizeof why, "server never became ready (%g s)", d->ready_deadline);
            hb_driver_fail(d, why);
        } else if (aux_rc > 0) {
            d->wake = fmin(now + d->retry_s, d->ready_deadline);
            d->retry_s = fmin(2 * d->retry_s, HB_DRV_RETRY_MAX_S);
        } else if (d->aux_pid <= 0 && now >= d->wake) {
            hb_driver_check_ready(d);
        }
        return;
    case HB_DRV_RUN:
        if (aux_rc < 0)
            return;
        d->driver_rc = aux_rc;
        kill(d->server, SIGTERM);
        d->state = HB_DRV_STOP;
        d->wake = now + HB_DRV_TERM_GRACE_S;
        return;
    case HB_DRV_STOP:
        if (now >= d->wake) {
            kill(-d->server, SIGKILL);
            snprintf(d->fail, sizeof d->fail, "server did not stop within %g s of SIGTERM", HB_DRV_TERM_GRACE_S);
            d->wake = INFINITY;
        }
        return;
    case HB_DRV_DONE:
        return;
    }
}

/* 1 when the driver decides the server's status and reason (launch_driver.h). */
int hb_driver_verdict(const struct hb_driver *d, struct hb_result *res)
{
    if (d->state == HB_DRV_STOP && res->signal == SIGTERM) /* stopped by us after its driver */
        res->exit_code = 0, res->signal = 0;
    if (d->fail[0])
        snprintf(res->reason, sizeof res->reason, "%s", d->fail);
    else if (res->signal || res->exit_code)
        return 0;
    else if (d->state == HB_DRV_READY || d->state == HB_DRV_RUN)
        snprintf(res->reason, sizeof res->reason, "server exited before its driver finished");
    else if (d->driver_rc > 0)
        snprintf(res->reason, sizeof res->reason, "driver %s exited with status %d", d->spec.driver_argv[0],
                 d->driver_rc);
    else
        return 0;
    res->status = HB_FAILED;
    return 1;
}

/* Async-signal-safe: SIGKILL to the running helper's group (launch_driver.h). */
void hb_driver_interrupt(void)
{
    pid_t g = hb_driver_aux_pgid;
    if (g > 0)
        kill(-g, SIGKILL);
}
