/* priority.h - the scheduling priority of measured processes (run/exec --priority): normal, nice
 * (nice -20) or rt (SCHED_FIFO), so that other jobs of a loaded machine do not preempt the program
 * in the middle of its measurement.
 *
 * Always holds: the runner itself is raised first (hb_prio_self), which is also the check that the
 * priority is permitted here: a refused one is refused before anything is measured; the runner's
 * raise carries SCHED_RESET_ON_FORK, so no helper it starts (setup, drivers, sha256sum, hyperfine)
 * inherits it, and each measured child is set to the level by the runner (hb_prio_set) while it
 * waits for its release, so that it wakes at that level; under rt the runner stays one step above its child (HB_PRIO_RT_RUNNER over HB_PRIO_RT_CHILD),
 * so that a measured program spinning on every CPU cannot keep the runner from its timeout.
 */
#ifndef HEAPBENCH_PRIORITY_H
#define HEAPBENCH_PRIORITY_H

#include <stddef.h>
#include <sys/types.h>

enum hb_prio { HB_PRIO_NORMAL, HB_PRIO_NICE, HB_PRIO_RT };

#define HB_PRIO_WORDS "normal, nice or rt"
#define HB_PRIO_NICE_VALUE (-20) /* the nice value of --priority nice */
#define HB_PRIO_RT_CHILD 1       /* SCHED_FIFO priority of the measured process under --priority rt */
#define HB_PRIO_RT_RUNNER 2      /* and of the runner, above it */

/* The level named by word (normal, nice, rt), or -1. */
int hb_prio_parse(const char *word);

/* The word of a level. */
const char *hb_prio_name(int level);

/* Raises the calling process (the runner) to level, reset on fork. 0, or -1 with errno (EPERM or EACCES: not
 * permitted here) and a one-line reason with what to do in err. */
int hb_prio_self(int level, char *err, size_t n);

/* Sets the process pid (a measured child, not yet released) to level. 0, or -1 with errno. */
int hb_prio_set(pid_t pid, int level);

#endif
