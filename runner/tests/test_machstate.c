/* test_machstate.c - unit tests of the machine-state snapshots (runner/base/machstate.c): the
 * parsers of /proc/stat, /proc/loadavg and /proc/cpuinfo, the state between two snapshots, and
 * a snapshot of this machine.
 * Always holds: every expected value follows from the text and the figures given here.
 */
#include <math.h>
#include <string.h>

#include "base/machstate.h"
#include "tcheck.h"

static const char stat_text[] = "cpu  100 5 50 800 20 3 2 20 0 0\n"
                                "cpu0 50 2 25 400 10 1 1 10 0 0\n"
                                "intr 12345 0 1\nctxt 999\nprocs_running 7\nprocs_blocked 1\n";

static void test_parsers(void)
{
    unsigned long long cpu[HB_MT_COUNT];
    long running;
    double load[3], mhz;
    TCHECK("stat: the cpu line", hb_mach_parse_stat(stat_text, cpu, &running) == 0 && cpu[HB_MT_USER] == 100 &&
                                     cpu[HB_MT_IOWAIT] == 20 && cpu[HB_MT_STEAL] == 20);
    TCHECK("stat: procs_running", running == 7);
    TCHECK("stat: no cpu line refused", hb_mach_parse_stat("intr 1\nprocs_running 2\n", cpu, &running) != 0 && running == 2);
    TCHECK("stat: a short cpu line refused", hb_mach_parse_stat("cpu  1 2 3\n", cpu, &running) != 0 && running == -1);
    TCHECK("loadavg", hb_mach_parse_loadavg("17.25 12.00 3.50 6/135 17927\n", load) == 0 && load[0] == 17.25 &&
                          load[2] == 3.5);
    TCHECK("loadavg: garbage refused", hb_mach_parse_loadavg("x y z", load) != 0);
    TCHECK("cpuinfo: the mean of the cpu MHz lines",
           hb_mach_parse_cpuinfo_mhz("processor : 0\ncpu MHz\t\t: 2000.000\nprocessor : 1\ncpu MHz\t\t: 3000.000\n",
                                     &mhz) == 0 && mhz == 2500.0);
    TCHECK("cpuinfo: no MHz line refused", hb_mach_parse_cpuinfo_mhz("processor : 0\n", &mhz) != 0);
}

static void test_between(void)
{
    struct hb_mach_snap a, b;
    struct hb_mach_state st;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
    hb_mach_parse_stat(stat_text, a.cpu, &a.procs_running);
    a.cpu_ok = 1;
    b = a;
    /* 200 ticks later: 50 stolen, 30 iowait, 120 user; 3 tasks runnable at the end */
    b.cpu[HB_MT_STEAL] += 50, b.cpu[HB_MT_IOWAIT] += 30, b.cpu[HB_MT_USER] += 120;
    b.procs_running = 3;
    b.load[0] = 15.5, b.load_ok = 1, b.mhz = 2100, b.mhz_ok = 1;
    hb_mach_between(&a, &b, &st);
    TCHECK("steal is 50 of 200 ticks", st.steal_ok && fabs(st.steal_pct - 25.0) < 1e-9);
    TCHECK("iowait is 30 of 200 ticks", st.iowait_ok && fabs(st.iowait_pct - 15.0) < 1e-9);
    TCHECK("load and frequency from the later snapshot", st.load1_ok && st.load1 == 15.5 && st.mhz_ok && st.cpu_mhz == 2100);
    TCHECK("others runnable: mean of (7-1) and (3-1)", st.runnable_ok && st.others_runnable == 4.0);
    hb_mach_between(&a, &a, &st);
    TCHECK("no tick passed: steal and iowait unavailable, not 0", !st.steal_ok && !st.iowait_ok);
    b.cpu_ok = 0;
    hb_mach_between(&a, &b, &st);
    TCHECK("an unreadable snapshot: steal unavailable", !st.steal_ok);
}

static void test_here(void)
{
    struct hb_mach_snap s;
    hb_mach_snap(&s, 1);
    TCHECK("this machine: /proc/stat and /proc/loadavg read", s.cpu_ok && s.load_ok && s.procs_running >= 1);
    TCHECK("this machine: the frequency is read or says why", s.mhz_source && (s.mhz_ok ? s.mhz > 0 : 1));
}

int main(void)
{
    test_parsers();
    test_between();
    test_here();
    return tcheck_summary();
}
