/* test_perf.c - tests perf.c's arithmetic and probe on their own: multiplexing scale,
 * never-counted counters, the task-clock unit, and the HEAPBENCH_PERF_DENY list parsing.
 * Always holds: the expected figures are computed here from the inputs, so a wrong scale fails;
 * this covers the multiplexed path that a VM without hardware counters never takes. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/perf.h"
#include "tcheck.h"

/* Scaling: exact when running == enabled, enabled/running times bigger when multiplexed. */
static void tp_test_scale(void)
{
    double out = -1;
    uint64_t full[3] = {1000, 500, 500}, half[3] = {1000, 600, 200}, never[3] = {0, 500, 0},
             off[3] = {0, 0, 0}, clock[3] = {2500000, 10, 10};
    TCHECK("scale: not multiplexed is exact", hb_perf_scale(HB_CTR_CYCLES, full, &out) == 0 && out == 1000);
    TCHECK("scale: multiplexed 1/3 of the time -> x3", hb_perf_scale(HB_CTR_CYCLES, half, &out) == 0 && out == 3000);
    out = 42;
    TCHECK("scale: enabled but never running is unavailable", hb_perf_scale(HB_CTR_INSTRUCTIONS, never, &out) == -1 && out == 42);
    TCHECK("scale: never enabled is unavailable", hb_perf_scale(HB_CTR_PAGE_FAULTS, off, &out) == -1);
    TCHECK("scale: task-clock ns -> ms", hb_perf_scale(HB_CTR_TASK_CLOCK, clock, &out) == 0 && out == 2.5);
}

/* The deny list matches whole names only, anywhere in the list. */
static void tp_test_deny(void)
{
    setenv("HEAPBENCH_PERF_DENY", "cpu_migrations_x,,page_faults", 1);
    hb_perf_probe();
    TCHECK("deny: listed name denied", hb_counter_reason[HB_CTR_PAGE_FAULTS] &&
                                           !strcmp(hb_counter_reason[HB_CTR_PAGE_FAULTS], "disabled by HEAPBENCH_PERF_DENY"));
    TCHECK("deny: a longer name does not deny its prefix", !hb_counter_reason[HB_CTR_CPU_MIGRATIONS]);
    TCHECK("deny: unlisted software counter still opens", !hb_counter_reason[HB_CTR_TASK_CLOCK]);
    for (int i = HB_CTR_CYCLES; i < HB_CTR_COUNT; i++) {
        char name[80];
        snprintf(name, sizeof name, "probe: hardware counter %s opens or has an 'unavailable:' reason", hb_counter_names[i]);
        TCHECK(name, !hb_counter_reason[i] || !strncmp(hb_counter_reason[i], "unavailable: ", 13));
    }
    unsetenv("HEAPBENCH_PERF_DENY");
}

/* The open perf events of this process (links of /proc/self/fd to anon_inode:[perf_event]). */
static int tp_open_events(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++) {
        char path[64], target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = 0;
            n += strcmp(target, "anon_inode:[perf_event]") == 0;
        }
    }
    return n;
}

/* The probe keeps one event per counted syscall tracepoint open (so that a run's close does not
 * unregister the tracepoint and wait for RCU), and a second probe opens no more. */
static void tp_test_probe_keeps_tracepoints(void)
{
    hb_perf_probe();
    int sys = 0;
    for (int i = 0; i < HB_CTR_COUNT; i++)
        sys += !strncmp(hb_counter_names[i], "sys_", 4) && !hb_counter_reason[i];
    TCHECK("probe: one open event per syscall tracepoint that opens", tp_open_events() == sys);
    hb_perf_probe();
    TCHECK("probe: a second probe keeps the same events", tp_open_events() == sys);
}

/* Runs the perf arithmetic and deny-list tests and prints the closing count. */
int main(void)
{
    tp_test_scale();
    tp_test_deny();
    tp_test_probe_keeps_tracepoints();
    return tcheck_summary();
}
