/* perf.c - opens, reads and probes the perf counters of runs.csv with perf_event_open(2): software
 * and hardware counters, and the system calls an allocator makes (mmap, munmap, mremap, madvise,
 * brk, mprotect) counted by the kernel's syscall tracepoints, without ptrace and without touching
 * the process (a libc wrapper would miss glibc malloc's own internal calls).
 *
 * Always holds: hb_counter_reason[i] is NULL exactly while counter i has never failed to open;
 * a value leaves this file only with counter_ok=1 after the counter really counted (see perf.h).
 * The kernel may refuse kernel-mode counting (EACCES/EPERM under perf_event_paranoid); then
 * every later counter is opened with exclude_kernel=1/exclude_hv=1 (user-space only).
 */
#include "measure/perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"

const char *hb_counter_reason[HB_CTR_COUNT];

/* type/config of each counter, in enum hb_counter order */
static const struct {
    uint32_t type;
    uint64_t config;
} hb_perf_events[HB_CTR_COUNT] = {
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                             (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    /* the system calls: config is the tracepoint's id, read from tracefs (hb_perf_tracepoint) */
    {PERF_TYPE_TRACEPOINT, 0}, {PERF_TYPE_TRACEPOINT, 0}, {PERF_TYPE_TRACEPOINT, 0},
    {PERF_TYPE_TRACEPOINT, 0}, {PERF_TYPE_TRACEPOINT, 0}, {PERF_TYPE_TRACEPOINT, 0},
};

/* Where tracefs is mounted: its own mount point, or under debugfs. */
static const char *const hb_perf_tracefs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

/* The id of counter i's syscall tracepoint (sys_enter_<name without "sys_">), or -1 when no
 * tracefs has it (not mounted, or a kernel without syscall tracepoints). */
static long hb_perf_tracepoint(int i)
{
    for (size_t k = 0; k < sizeof hb_perf_tracefs / sizeof *hb_perf_tracefs; k++) {
        char path[160], buf[32];
        snprintf(path, sizeof path, "%s/events/syscalls/sys_enter_%s/id", hb_perf_tracefs[k], hb_counter_names[i] + 4);
        if (hb_read_small(path, buf, sizeof buf) > 0)
            return strtol(buf, NULL, 10);
    }
    return -1;
}

static char hb_perf_reason_buf[HB_CTR_COUNT][160];
static int hb_perf_user_only; /* 1 once the kernel refused kernel-mode counting */

/* Records why counter i is unavailable (the first reason wins; later calls are ignored). */
static void hb_perf_set_reason(int i, const char *fmt_reason)
{
    if (hb_counter_reason[i])
        return;
    snprintf(hb_perf_reason_buf[i], sizeof hb_perf_reason_buf[i], "%s", fmt_reason);
    hb_counter_reason[i] = hb_perf_reason_buf[i];
}

/* Returns a human explanation of a perf_event_open errno (static string). */
static const char *hb_perf_errno_text(int err)
{
    switch (err) {
    case ENOENT: return "the hardware does not expose this event";
    case EOPNOTSUPP: return "the PMU does not support this event";
    case ENODEV: return "no PMU for this event";
    case EACCES:
    case EPERM: return "not permitted: see /proc/sys/kernel/perf_event_paranoid";
    case ENOSYS: return "perf_event_open is not available (kernel or seccomp)";
    default: return strerror(err);
    }
}

/* 1 when counter i is named in HEAPBENCH_PERF_DENY (comma separated column names). */
static int hb_perf_denied(int i)
{
    const char *deny = getenv("HEAPBENCH_PERF_DENY");
    size_t n = strlen(hb_counter_names[i]);
    for (const char *p = deny; p && *p; p += strcspn(p, ",")) {
        p += *p == ',';
        if (strncmp(p, hb_counter_names[i], n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    }
    return 0;
}

/* Opens counter i on pid (0 = the caller) with the given enable_on_exec; returns the fd, or -1
 * with the reason recorded. Falls back to user-space only counting when kernel mode is refused. */
static int hb_perf_open_one(int i, pid_t pid, int on_exec)
{
    if (hb_perf_denied(i)) {
        hb_perf_set_reason(i, "disabled by HEAPBENCH_PERF_DENY");
        return -1;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = hb_perf_events[i].type;
    a.config = hb_perf_events[i].config;
    if (a.type == PERF_TYPE_TRACEPOINT) {
        long id = hb_perf_tracepoint(i);
        if (id < 0) {
            hb_perf_set_reason(i, "unavailable: no syscall tracepoints in tracefs (as root: mount -t tracefs nodev "
                                  "/sys/kernel/tracing)");
            return -1;
        }
        a.config = (uint64_t)id;
    }
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a.disabled = on_exec;
    a.enable_on_exec = on_exec;
    a.inherit = 1;
    a.exclude_kernel = a.exclude_hv = hb_perf_user_only;
    long fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !hb_perf_user_only) {
        hb_perf_user_only = 1;
        a.exclude_kernel = a.exclude_hv = 1;
        fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0 && errno == ESRCH) /* the child already died (failed before release): not the counter's fault */
        return -1;
    if (fd < 0) {
        char why[160];
        int err = errno;
        const char *name = strerrorname_np(err);
        snprintf(why, sizeof why, "unavailable: %s (%s)", name ? name : "error", hb_perf_errno_text(err));
        hb_perf_set_reason(i, why);
        return -1;
    }
    return (int)fd;
}

/* Opens every counter on pid, enabled at its exec; unavailable ones get fd -1 (perf.h). */
void hb_perf_open(struct hb_perf *p, pid_t pid)
{
    for (int i = 0; i < HB_CTR_COUNT; i++)
        p->fd[i] = hb_perf_open_one(i, pid, 1);
}

/* {value, enabled, running} -> reported figure, -1 when it never counted (perf.h). */
int hb_perf_scale(enum hb_counter c, const uint64_t v[3], double *out)
{
    if (v[1] == 0 || v[2] == 0)
        return -1;
    double value = (double)v[0];
    if (v[2] < v[1]) /* multiplexed: scale to the whole enabled time */
        value *= (double)v[1] / (double)v[2];
    *out = c == HB_CTR_TASK_CLOCK ? value / 1e6 : value; /* task-clock: ns -> ms */
    return 0;
}

/* Final values into res->counter/counter_ok; never-counted ones unavailable (perf.h). */
void hb_perf_read(const struct hb_perf *p, struct hb_result *res)
{
    for (int i = 0; i < HB_CTR_COUNT; i++) {
        uint64_t v[3]; /* value, time_enabled, time_running */
        res->counter_ok[i] = 0;
        res->counter[i] = 0;
        if (p->fd[i] < 0)
            continue;
        if (read(p->fd[i], v, sizeof v) != (ssize_t)sizeof v || hb_perf_scale(i, v, &res->counter[i]) != 0) {
            hb_perf_set_reason(i, "unavailable in some runs: opened but never counted");
            res->counter[i] = 0;
            continue;
        }
        res->counter_ok[i] = 1;
    }
}

/* Closes every open counter (perf.h). */
void hb_perf_close(struct hb_perf *p)
{
    for (int i = 0; i < HB_CTR_COUNT; i++) {
        if (p->fd[i] >= 0)
            close(p->fd[i]);
        p->fd[i] = -1;
    }
}

/* Opens each counter on the runner itself to fill hb_counter_reason (perf.h). The syscall
 * tracepoints' events stay open, disabled, for the runner's life: the kernel unregisters a
 * tracepoint when its last perf event closes and then waits for an RCU grace period (~27 ms at
 * idle, more under load, per tracepoint), which would otherwise be paid at every run's close. */
void hb_perf_probe(void)
{
    static int kept[HB_CTR_COUNT];
    for (int i = 0; i < HB_CTR_COUNT; i++) {
        if (kept[i] > 0)
            continue;
        int fd = hb_perf_open_one(i, 0, 0);
        if (fd >= 0 && hb_perf_events[i].type == PERF_TYPE_TRACEPOINT && ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0)
            kept[i] = fd;
        else if (fd >= 0)
            close(fd);
    }
}
