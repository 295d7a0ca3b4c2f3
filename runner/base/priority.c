/* priority.c - raises the runner and its measured children to the --priority level (priority.h).
 *
 * Always holds: only sched_setscheduler and setpriority change anything, on the runner itself or
 * on a measured child the runner names by its pid.
 */
#include "base/priority.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static const char *const hb_prio_names[] = {"normal", "nice", "rt"};

int hb_prio_parse(const char *word)
{
    for (int i = 0; i < (int)(sizeof hb_prio_names / sizeof *hb_prio_names); i++)
        if (strcmp(word, hb_prio_names[i]) == 0)
            return i;
    return -1;
}

const char *hb_prio_name(int level)
{
    return level >= HB_PRIO_NORMAL && level <= HB_PRIO_RT ? hb_prio_names[level] : "?";
}

/* level for process pid (0: this one): SCHED_FIFO at rt_prio, or SCHED_OTHER at nice -20;
 * reset_on_fork adds SCHED_RESET_ON_FORK (its children start at SCHED_OTHER, nice 0). */
static int hb_prio_take(pid_t pid, int level, int rt_prio, int reset_on_fork)
{
    int flag = reset_on_fork ? SCHED_RESET_ON_FORK : 0;
    if (level == HB_PRIO_RT) {
        struct sched_param sp = {.sched_priority = rt_prio};
        return sched_setscheduler(pid, SCHED_FIFO | flag, &sp);
    }
    if (level == HB_PRIO_NICE) {
        if (setpriority(PRIO_PROCESS, (id_t)pid, HB_PRIO_NICE_VALUE) != 0)
            return -1;
        struct sched_param sp = {.sched_priority = 0};
        return flag ? sched_setscheduler(pid, SCHED_OTHER | flag, &sp) : 0;
    }
    return 0;
}

int hb_prio_self(int level, char *err, size_t n)
{
    if (hb_prio_take(0, level, HB_PRIO_RT_RUNNER, 1) == 0)
        return 0;
    int e = errno;
    if (e == EPERM || e == EACCES) /* sched_setscheduler says EPERM, setpriority EACCES */
        snprintf(err, n, "--priority %s is not permitted here (%s needs root or CAP_SYS_NICE, or a raised %s); "
                 "run as root, or give --priority normal", hb_prio_name(level),
                 level == HB_PRIO_RT ? "SCHED_FIFO" : "nice -20",
                 level == HB_PRIO_RT ? "RLIMIT_RTPRIO (ulimit -r)" : "RLIMIT_NICE (ulimit -e)");
    else
        snprintf(err, n, "--priority %s: cannot set the runner's priority: %s; give --priority normal",
                 hb_prio_name(level), strerror(e));
    errno = e;
    return -1;
}

int hb_prio_set(pid_t pid, int level)
{
    return hb_prio_take(pid, level, HB_PRIO_RT_CHILD, 0);
}
