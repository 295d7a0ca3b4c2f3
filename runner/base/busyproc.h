/* busyproc.h - which processes used the CPUs over an interval: /proc/PID/stat's utime + stime of
 * every process, read at two moments (for heapbench doctor).
 *
 * Always holds: a process that started or ended between the two readings counts only the time it
 * had at the later one (since the first when it was there); the caller's own process is left out;
 * nothing here fails: an unreadable process is skipped.
 */
#ifndef HEAPBENCH_BUSYPROC_H
#define HEAPBENCH_BUSYPROC_H

#include <stddef.h>
#include <sys/types.h>

struct hb_proc_cpu {
    pid_t pid;
    char comm[32];            /* the command name (stat's second field, without its parentheses) */
    unsigned long long ticks; /* utime + stime, clock ticks (USER_HZ) */
};

struct hb_proc_list {
    struct hb_proc_cpu *p;
    size_t n, cap;
};

/* Reads every process's CPU time now into *l (replacing its content). */
void hb_procs_read(struct hb_proc_list *l);

/* Parses one /proc/PID/stat line into *p (pid given); 0, or -1 when it is not one. */
int hb_proc_parse_stat(const char *text, pid_t pid, struct hb_proc_cpu *p);

/* The processes of later that used at least min_pct of one CPU between earlier and later, over
 * seconds, busiest first, at most max of them, into out (each with ticks = ticks used); returns
 * how many. */
size_t hb_procs_busy(const struct hb_proc_list *earlier, const struct hb_proc_list *later, double seconds,
                     double min_pct, struct hb_proc_cpu *out, size_t max);

void hb_procs_free(struct hb_proc_list *l);

#endif
