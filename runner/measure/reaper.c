/* reaper.c - the subreaper and the sweep of escaped descendants (see reaper.h).
 *
 * Always holds: a process is counted once however many scans see it; only children of the
 * runner (never the spared one) and members of the measured group are ever signalled.
 */
#include "measure/reaper.h"
#include "base/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HB_REAPER_MAX 32       /* processes named in a note */
#define HB_REAPER_BOUND_S 2.0  /* how long the sweep waits for processes to die */

static pid_t hb_reaper_spared; /* hb_reaper_spare(): never signalled by a sweep */

void hb_reaper_spare(pid_t pid)
{
    hb_reaper_spared = pid;
}

void hb_reaper_init(void)
{
    static int done;
    if (!done && prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
        done = 1;
}

/* Reads /proc/PID/stat: its name, state, parent and group. 0 or -1. */
static int hb_reaper_stat(pid_t pid, char *comm, size_t len, char *state, pid_t *ppid, pid_t *pgrp)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (hb_read_small(path, buf, sizeof buf) < 0)
        return -1;
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    int p, g;
    if (!open_paren || !close_paren || sscanf(close_paren + 1, " %c %d %d", state, &p, &g) != 3)
        return -1;
    snprintf(comm, len, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
    *ppid = p, *pgrp = g;
    return 0;
}

static double hb_reaper_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One scan of /proc: kills every live child or group member; returns how many processes (zombies
 * included) are still to go. New live ones are added to seen[]. */
static int hb_reaper_scan(pid_t pgid, pid_t *seen, int *nseen, char *note, size_t len)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t self = getpid();
    int left = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        pid_t pid = (pid_t)atoi(de->d_name), ppid, pgrp;
        char comm[64], state;
        if (pid <= 0 || pid == self || pid == hb_reaper_spared || hb_reaper_stat(pid, comm, sizeof comm, &state, &ppid, &pgrp) != 0)
            continue;
        if (ppid != self && (pgid <= 0 || pgrp != pgid))
            continue;
        left++;
        if (state == 'Z')
            continue;
        kill(pid, SIGKILL);
        int known = 0;
        for (int i = 0; i < *nseen && !known; i++)
            known = seen[i] == pid;
        if (known || *nseen >= HB_REAPER_MAX)
            continue;
        seen[(*nseen)++] = pid;
        size_t used = strlen(note);
        snprintf(note + used, len - used, "%s%s[%d]", used ? " " : "", comm, (int)pid);
    }
    closedir(d);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return left;
}

/* The sweep (reaper.h). */
int hb_reaper_sweep(pid_t pgid, char *note, size_t len)
{
    pid_t seen[HB_REAPER_MAX];
    int nseen = 0;
    char names[192] = "";
    double until = hb_reaper_now() + HB_REAPER_BOUND_S;
    while (hb_reaper_scan(pgid, seen, &nseen, names, sizeof names) > 0 && hb_reaper_now() < until)
        usleep(10000);
    if (nseen)
        snprintf(note, len, "left %d process%s behind, killed: %s", nseen, nseen == 1 ? "" : "es", names);
    else if (len)
        note[0] = '\0';
    return nseen;
}
