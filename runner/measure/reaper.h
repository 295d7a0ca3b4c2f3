/* reaper.h - no process the runner measured outlives its run: the runner is the child subreaper
 * of everything it starts (PR_SET_CHILD_SUBREAPER), so a descendant that leaves the measured
 * process group (setsid, a daemon's double fork) is reparented to the runner when its parent
 * ends, and the sweep after each run kills and reaps it.
 *
 * Always holds: after hb_reaper_sweep() returns, the runner has no child left and no process is
 * left in the measured group pgid (up to a bound of 2 s for processes that do not die).
 */
#ifndef HEAPBENCH_REAPER_H
#define HEAPBENCH_REAPER_H

#include <stddef.h>
#include <sys/types.h>

/* Makes the runner the subreaper of its descendants (once; later calls do nothing). */
void hb_reaper_init(void);

/* Leaves pid (a helper that outlives the runs: the cgroup guard, runcg.h) out of every sweep. */
void hb_reaper_spare(pid_t pid);

/* Kills (SIGKILL) and reaps every child of the runner (but the spared one) and every process of group pgid; the
 * live ones found are named in note ("left 1 process behind, killed: sleep[1234]"), "" when
 * none. Returns how many were found alive. Call it once the measured process was waited for
 * and no other child of the runner is meant to be running. */
int hb_reaper_sweep(pid_t pgid, char *note, size_t len);

#endif
