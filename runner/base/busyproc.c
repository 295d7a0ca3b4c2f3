/* busyproc.c - the CPU time of every process, and the busiest between two readings (see busyproc.h).
 *
 * Always holds: /proc/PID/stat's command name is the text between the first '(' and the last ')'
 * (a name may hold spaces and parentheses); utime and stime are the 14th and 15th fields.
 */
#include "base/busyproc.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

/* One stat line (busyproc.h). */
int hb_proc_parse_stat(const char *text, pid_t pid, struct hb_proc_cpu *p)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    if (!open || !close || close < open)
        return -1;
    size_t len = (size_t)(close - open - 1);
    if (len >= sizeof p->comm)
        len = sizeof p->comm - 1;
    memcpy(p->comm, open + 1, len);
    p->comm[len] = '\0';
    /* after ") ": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    unsigned long long utime, stime;
    if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1;
    p->pid = pid;
    p->ticks = utime + stime;
    return 0;
}

/* Every process's CPU time now (busyproc.h). */
void hb_procs_read(struct hb_proc_list *l)
{
    l->n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    pid_t self = getpid();
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atol(e->d_name);
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        struct hb_proc_cpu p;
        if (pid == self || hb_read_small(path, buf, sizeof buf) < 0 || hb_proc_parse_stat(buf, pid, &p) != 0)
            continue;
        if (l->n == l->cap)
            l->p = hb_xrealloc(l->p, (l->cap = l->cap ? 2 * l->cap : 256) * sizeof *l->p);
        l->p[l->n++] = p;
    }
    closedir(d);
}

static int hb_procs_by_ticks(const void *a, const void *b)
{
    const struct hb_proc_cpu *x = a, *y = b;
    return x->ticks < y->ticks ? 1 : x->ticks > y->ticks ? -1 : x->pid - y->pid;
}

/* The busiest processes between two readings (busyproc.h). */
size_t hb_procs_busy(const struct hb_proc_list *earlier, const struct hb_proc_list *later, double seconds,
                     double min_pct, struct hb_proc_cpu *out, size_t max)
{
    if (!later->n || seconds <= 0)
        return 0;
    struct hb_proc_cpu *used = hb_xmalloc(later->n * sizeof *used);
    size_t n = 0;
    double hz = (double)sysconf(_SC_CLK_TCK);
    for (size_t i = 0; i < later->n; i++) {
        unsigned long long before = 0;
        for (size_t j = 0; j < earlier->n; j++)
            if (earlier->p[j].pid == later->p[i].pid && strcmp(earlier->p[j].comm, later->p[i].comm) == 0)
                before = earlier->p[j].ticks;
        used[n] = later->p[i];
        used[n].ticks = later->p[i].ticks >= before ? later->p[i].ticks - before : 0;
        if (100.0 * (double)used[n].ticks / hz / seconds >= min_pct)
            n++;
    }
    qsort(used, n, sizeof *used, hb_procs_by_ticks);
    if (n > max)
        n = max;
    memcpy(out, used, n * sizeof *used);
    free(used);
    return n;
}

void hb_procs_free(struct hb_proc_list *l)
{
    free(l->p);
    memset(l, 0, sizeof *l);
}
