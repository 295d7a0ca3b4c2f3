/* perf.h - the runner's perf_event_open counters on one measured child (opened and read by launch.c; hb_perf_probe() and hb_counter_reason for meta.json).
 *
 * Always holds: a counter is reported (counter_ok=1) only when it was opened AND actually
 * counted (time_enabled and time_running > 0); anything else leaves counter_ok=0 and a reason
 * in hb_counter_reason[], never a 0 that looks like a measurement.
 * Test hook: the environment variable HEAPBENCH_PERF_DENY=name,name (runs.csv column names,
 * e.g. "cycles,task_clock_ms") makes those counters unavailable with the reason
 * "disabled by HEAPBENCH_PERF_DENY", so the unavailable path is testable on any machine.
 */
#ifndef HEAPBENCH_PERF_H
#define HEAPBENCH_PERF_H

#include <stdint.h>
#include <sys/types.h>

#include "record/runresult.h"

/* Why each unavailable counter is unavailable, filled by the first hb_perf_open() (or hb_perf_probe())
 * e.g. "unavailable: ENOENT (the hardware does not expose this event)". NULL when available. */
extern const char *hb_counter_reason[HB_CTR_COUNT];

/* Probes which counters this machine can open (on the runner itself); fills hb_counter_reason. */
void hb_perf_probe(void);

/* The open counters of one child: fd[i] is -1 for an unavailable counter. */
struct hb_perf {
    int fd[HB_CTR_COUNT];
};

/* Opens every counter on pid (disabled, enable_on_exec, inherited by its threads and children).
 * Counters that cannot be opened get fd -1 and their reason in hb_counter_reason[]. Never fails. */
void hb_perf_open(struct hb_perf *p, pid_t pid);

/* Reads the final values after the child ended into res->counter/counter_ok (scaled when the
 * kernel multiplexed a counter; task-clock in ms). Call before hb_perf_close(). */
void hb_perf_read(const struct hb_perf *p, struct hb_result *res);

/* Turns one counter read {value, time_enabled, time_running} into the reported figure: scaled
 * by enabled/running when the kernel multiplexed it, task-clock converted from ns to ms.
 * Returns 0 with *out set, or -1 when the counter never counted (enabled or running time 0). */
int hb_perf_scale(enum hb_counter c, const uint64_t v[3], double *out);

/* Closes every open counter fd; p is all -1 afterwards. */
void hb_perf_close(struct hb_perf *p);

#endif
