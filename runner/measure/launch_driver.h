/* launch_driver.h - driver mode of hb_launch() (used by launch.c only): a measured server program
 * is polled with ready_argv until ready, exercised by driver_argv, then stopped with SIGTERM.
 *
 * Always holds: at most one helper program (ready check or driver) runs at a time, in its own
 * process group, never preloaded (driver_envp); hb_driver_reap() leaves none behind; the server
 * is only ever signalled, never waited for here (launch.c reaps it).
 */
#ifndef HEAPBENCH_LAUNCH_DRIVER_H
#define HEAPBENCH_LAUNCH_DRIVER_H

#include <sys/types.h>

#include "record/runresult.h"

/* The helper programs of a server (copied from launch.h's struct hb_launch_spec, same meaning). */
struct hb_driver_spec {
    char *const *driver_argv;
    char *const *ready_argv;   /* NULL: no ready check */
    char *const *driver_envp;  /* environment of both helpers (not preloaded) */
    const char *stdout_path;   /* where the driver's output is appended (NULL: inherited) */
    double ready_timeout_s;    /* <= 0: 10 s */
};

/* Where a server stands. */
enum hb_drv_state { HB_DRV_READY, HB_DRV_RUN, HB_DRV_STOP, HB_DRV_DONE };

/* One server's driver. Times are seconds since the server was released. */
struct hb_driver {
    struct hb_driver_spec spec;
    pid_t server;          /* the measured process (leader of its group) */
    enum hb_drv_state state;
    pid_t aux_pid;         /* the running ready check or driver, 0 when none */
    int aux_pidfd;         /* its pidfd (poll it; -1 when none) */
    double wake;           /* when hb_driver_step() wants to run again, INFINITY: only on aux_pidfd */
    double ready_deadline; /* give up on ready_argv at this time */
    double retry_s;        /* pause before the next ready_argv attempt after a failed one */
    int driver_rc;         /* exit status of driver_argv (128+signal if killed), -1 until it ended */
    char fail[160];        /* why the driver gave up on the server; "" while all is well */
};

/* Starts driving server (just released, time 0): the first ready check, or the driver. */
void hb_driver_begin(struct hb_driver *d, const struct hb_driver_spec *spec, pid_t server);

/* Advances the driver at time now; aux_ended: aux_pidfd became readable. */
void hb_driver_step(struct hb_driver *d, double now, int aux_ended);

/* Kills and reaps a helper program still running (the server ended or timed out first). */
void hb_driver_reap(struct hb_driver *d);

/* After the server was reaped (res->exit_code and res->signal set): an exit by our SIGTERM
 * becomes exit 0; returns 1 when the driver decides status and reason (it gave up, the server
 * ended before its driver, the driver failed), 0 when the server's own exit status decides. */
int hb_driver_verdict(const struct hb_driver *d, struct hb_result *res);

/* Async-signal-safe: kills the running helper program's group (hb_launch_interrupt()). */
void hb_driver_interrupt(void);

#endif
