/* test_busyproc.c - unit tests of the busy-process sampler (runner/base/busyproc.c): the stat line
 * parser (names with spaces and parentheses) and the busiest processes between two readings.
 * Always holds: every expected value follows from the lines and lists given here.
 */
#include <string.h>
#include <unistd.h>

#include "base/busyproc.h"
#include "tcheck.h"

static void test_parse(void)
{
    struct hb_proc_cpu p;
    TCHECK("a plain stat line", hb_proc_parse_stat("42 (cc1) R 1 42 42 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0",
                                                   42, &p) == 0 && strcmp(p.comm, "cc1") == 0 && p.ticks == 300);
    TCHECK("a name with spaces and parentheses",
           hb_proc_parse_stat("7 (a (b) c) S 1 7 7 0 -1 0 0 0 0 0 3 4 0 0", 7, &p) == 0 &&
               strcmp(p.comm, "a (b) c") == 0 && p.ticks == 7);
    TCHECK("a line without its name refused", hb_proc_parse_stat("7 cc1 R 1", 7, &p) != 0);
    TCHECK("a line cut before stime refused", hb_proc_parse_stat("7 (x) R 1 7 7 0 -1 0 0 0 0 0 3", 7, &p) != 0);
}

static void test_busy(void)
{
    double hz = (double)sysconf(_SC_CLK_TCK);
    unsigned long long sec = (unsigned long long)hz; /* one CPU-second in ticks */
    struct hb_proc_cpu before[] = {{10, "busy", 0}, {11, "idle", 5}, {12, "half", 100}, {13, "gone", 0}};
    struct hb_proc_cpu after[] = {{10, "busy", 2 * sec}, {11, "idle", 5}, {12, "half", 100 + sec},
                                  {14, "new", sec / 2}, {15, "reused", 3}};
    struct hb_proc_list a = {before, 4, 4}, b = {after, 5, 5};
    struct hb_proc_cpu top[4];
    size_t n = hb_procs_busy(&a, &b, 2.0, 10.0, top, 4);
    TCHECK("three used >= 10% of a CPU over 2 s, busiest first", n == 3 && top[0].pid == 10 && top[1].pid == 12 &&
                                                                   top[2].pid == 14);
    TCHECK("ticks are those used between the readings", n == 3 && top[0].ticks == 2 * sec && top[1].ticks == sec);
    TCHECK("at most max", hb_procs_busy(&a, &b, 2.0, 10.0, top, 1) == 1 && top[0].pid == 10);
    TCHECK("an interval of 0 s names none", hb_procs_busy(&a, &b, 0, 10.0, top, 4) == 0);
}

static void test_here(void)
{
    struct hb_proc_list l = {0};
    hb_procs_read(&l);
    int self = 0, init = 0;
    for (size_t i = 0; i < l.n; i++)
        self |= l.p[i].pid == getpid(), init |= l.p[i].pid == 1;
    TCHECK("this machine: pid 1 read, this process left out", init && !self);
    hb_procs_free(&l);
}

int main(void)
{
    test_parse();
    test_busy();
    test_here();
    return tcheck_summary();
}
