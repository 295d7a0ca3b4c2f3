/* doctor.c - `heapbench doctor` (see doctor.h): watches the machine for a few seconds and prints
 * each source of noise it finds, with the remedy.
 *
 * Always holds: the thresholds are the constants below; the load, steal and iowait figures are
 * the ones runs.csv records (machstate.h), taken over the watch instead of over a run.
 */
#include "cli/doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/busyproc.h"
#include "base/machstate.h"
#include "measure/perf.h"
#include "base/sysinfo.h"
#include "base/util.h"

#define HB_DOCTOR_LOAD_SHARE 0.5  /* warn when the 1-minute load reaches half the CPUs */
#define HB_DOCTOR_STEAL_PCT 1.0   /* warn at 1% of the CPUs' time stolen */
#define HB_DOCTOR_IOWAIT_PCT 5.0  /* warn at 5% in iowait */
#define HB_DOCTOR_BUSY_PCT 10.0   /* a process using 10% of a CPU is named */
#define HB_DOCTOR_BUSY_MAX 5

static const char hb_doctor_usage[] =
    "usage: heapbench doctor [--seconds S]\n"
    "Watches this machine for S seconds (default 2) and prints what would make measurements noisy here,\n"
    "one line each, 'ok', 'warn' or 'note' first, with what to do: load, other busy processes, CPU steal,\n"
    "iowait, a virtual machine, the frequency governor and turbo, transparent huge pages, ASLR, hardware\n"
    "counters and valgrind (instruction counts). Changes nothing.\n"
    "Exit status: 0 (whatever it finds), 2 usage.\n";

static void hb_doctor_say(const char *level, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One finding: "LEVEL WHAT: text". */
static void hb_doctor_say(const char *level, const char *what, const char *fmt, ...)
{
    va_list ap;
    printf("%-4s  %-10s ", level, what);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* The load average and runnable tasks against the CPUs. */
static void hb_doctor_load(const struct hb_mach_snap *b, const struct hb_mach_state *st, int cores)
{
    if (!b->load_ok) {
        hb_doctor_say("note", "load", "/proc/loadavg is unreadable: the load cannot be judged");
        return;
    }
    int busy = b->load[0] >= HB_DOCTOR_LOAD_SHARE * cores;
    hb_doctor_say(busy ? "warn" : "ok", "load",
                  "load average %.2f %.2f %.2f on %d CPUs, %.1f other tasks runnable%s", b->load[0], b->load[1],
                  b->load[2], cores, st->runnable_ok ? st->others_runnable : 0.0,
                  busy ? "; other work shares the CPUs and times spread: measure when the machine is idle, "
                         "or gate on counts (ci chooses instructions, minflt and maxrss_kb when times spread; "
                         "--count-instructions), and compare interleaved (ci --ab) so both sides see the same load"
                       : "");
}

/* The processes that used the CPUs during the watch. */
static void hb_doctor_busy(const struct hb_proc_list *a, const struct hb_proc_list *b, double seconds)
{
    struct hb_proc_cpu top[HB_DOCTOR_BUSY_MAX];
    size_t n = hb_procs_busy(a, b, seconds, HB_DOCTOR_BUSY_PCT, top, HB_DOCTOR_BUSY_MAX);
    if (!n) {
        hb_doctor_say("ok", "processes", "no other process used %.0f%% of a CPU during the %.1f s watch",
                      HB_DOCTOR_BUSY_PCT, seconds);
        return;
    }
    char list[512] = "";
    double hz = (double)sysconf(_SC_CLK_TCK);
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s[%d] %.0f%%", i ? ", " : "", top[i].comm, (int)top[i].pid,
                 100.0 * (double)top[i].ticks / hz / seconds);
    }
    hb_doctor_say("warn", "processes", "busy during the %.1f s watch (%% of one CPU): %s; stop them or wait for them, "
                  "or pin the benchmark away from them (--pin CPUS)", seconds, list);
}

/* Steal and iowait over the watch. */
static void hb_doctor_cpu_times(const struct hb_mach_state *st)
{
    if (!st->steal_ok) {
        hb_doctor_say("note", "steal", "/proc/stat was unreadable or no tick passed: steal and iowait not judged");
        return;
    }
    int stolen = st->steal_pct >= HB_DOCTOR_STEAL_PCT;
    hb_doctor_say(stolen ? "warn" : "ok", "steal", "%.1f%% of the CPUs' time taken by the hypervisor%s", st->steal_pct,
                  stolen ? "; other guests of the host run on these CPUs: times jitter with them; use a dedicated "
                           "host or instance, or gate on counts"
                         : "");
    int io = st->iowait_pct >= HB_DOCTOR_IOWAIT_PCT;
    hb_doctor_say(io ? "warn" : "ok", "iowait", "%.1f%% of the CPUs' time waiting for I/O%s", st->iowait_pct,
                  io ? "; disk traffic delays page-ins and logs: wait for it to end, or put results on a quiet disk"
                     : "");
}

/* A virtual machine. */
static void hb_doctor_vm(void)
{
    char *virt = hb_sys_virt();
    if (strcmp(virt, "vm") == 0)
        hb_doctor_say("note", "vm", "this is a virtual machine (the CPU's hypervisor flag): steal and timer jitter come "
                      "from the host; watch steal_pct in runs.csv, prefer counts (instructions, minflt, maxrss_kb)");
    else
        hb_doctor_say("ok", "vm", "%s", strcmp(virt, "none") == 0 ? "not a virtual machine" : "unknown (no CPU flags)");
    free(virt);
}

/* The cpufreq governor of every CPU, and turbo. */
static void hb_doctor_frequency(int cores, const struct hb_mach_snap *b)
{
    int other = 0, seen = 0;
    char gov[64] = "", first[64] = "";
    for (int i = 0; i < cores; i++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", i);
        if (hb_read_small(path, gov, sizeof gov) < 0)
            continue;
        gov[strcspn(gov, "\n")] = '\0';
        if (!seen++)
            snprintf(first, sizeof first, "%s", gov);
        other += strcmp(gov, "performance") != 0;
    }
    if (!seen)
        hb_doctor_say("note", "governor", "no cpufreq in /sys: the frequency is set by the hypervisor or the firmware "
                      "(%s%.0f MHz from %s); nothing to set here", b->mhz_ok ? "" : "unknown, ", b->mhz_ok ? b->mhz : 0.0,
                      b->mhz_source);
    else if (other)
        hb_doctor_say("warn", "governor", "%d of %d CPUs not on the performance governor (e.g. %s): the frequency follows "
                      "the load; sudo cpupower frequency-set -g performance (package linux-cpupower)", other, seen, first);
    else
        hb_doctor_say("ok", "governor", "performance on every CPU");
    char buf[16];
    if (hb_read_small("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof buf) > 0)
        hb_doctor_say(buf[0] == '0' ? "warn" : "ok", "turbo", "%s", buf[0] == '0'
                      ? "turbo boost on: the frequency depends on temperature and the other cores; "
                        "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
                      : "turbo boost off");
    else if (hb_read_small("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof buf) > 0)
        hb_doctor_say(buf[0] == '1' ? "warn" : "ok", "turbo", "%s", buf[0] == '1'
                      ? "frequency boost on: the frequency depends on temperature and the other cores; "
                        "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"
                      : "frequency boost off");
}

/* Transparent huge pages and ASLR. */
static void hb_doctor_memory(void)
{
    char *thp = hb_sys_thp();
    if (strcmp(thp, "always") == 0)
        hb_doctor_say("warn", "thp", "transparent huge pages 'always': RSS and page faults depend on when khugepaged "
                      "runs; echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled, or set it per run "
                      "with heapbench run --thp");
    else
        hb_doctor_say("ok", "thp", "transparent huge pages '%s' (heapbench run --thp sets it per run)", thp);
    free(thp);
    char buf[16];
    if (hb_read_small("/proc/sys/kernel/randomize_va_space", buf, sizeof buf) < 0)
        hb_doctor_say("note", "aslr", "/proc/sys/kernel/randomize_va_space is unreadable");
    else if (buf[0] != '0')
        hb_doctor_say("note", "aslr", "address space layout randomization on (%c): addresses differ each run, so cache and "
                      "TLB placement vary a little from rep to rep; reps average it out; for a one-off comparison of "
                      "tiny differences run under setarch -R (disables it for that command only)", buf[0]);
    else
        hb_doctor_say("ok", "aslr", "address space layout randomization off: every run has the same layout");
}

/* Hardware counters and valgrind: what deterministic counts are available. */
static void hb_doctor_counters(void)
{
    hb_perf_probe();
    const char *why = hb_counter_reason[HB_CTR_INSTRUCTIONS];
    if (why)
        hb_doctor_say("note", "counters", "no hardware instruction counter (%s): runs.csv's cycles and instructions stay "
                      "empty; count instructions with valgrind (heapbench run --count-instructions)", why);
    else
        hb_doctor_say("ok", "counters", "hardware counters readable: runs.csv has cycles and instructions");
    why = hb_counter_reason[HB_CTR_SYS_MMAP];
    if (why)
        hb_doctor_say("warn", "syscalls", "system calls cannot be counted (%s); runs.csv's sys_* columns stay empty", why);
    else
        hb_doctor_say("ok", "syscalls", "syscall tracepoints readable: runs.csv counts mmap, munmap, mremap, madvise, "
                      "brk and mprotect");
    if (access("/usr/bin/valgrind", X_OK) == 0)
        hb_doctor_say("ok", "valgrind", "/usr/bin/valgrind found: --count-instructions works");
    else
        hb_doctor_say("warn", "valgrind", "valgrind missing: no instruction counts where hardware counters are not "
                      "readable; apt-get install valgrind");
}

/* Parses the options; exits 2 on a bad one. */
static double hb_doctor_seconds(int argc, char **argv)
{
    double s = 2.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            if (hb_parse_double(argv[++i], &s) != 0 || !(s >= 0.1 && s <= 600))
                hb_usage("doctor --seconds: '%s' is not a number of seconds from 0.1 to 600; e.g. --seconds 5", argv[i]);
        } else {
            hb_usage("doctor: unknown argument '%s'; usage: heapbench doctor [--seconds S]", argv[i]);
        }
    }
    return s;
}

/* The subcommand. */
int hb_cmd_doctor(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(hb_doctor_usage, stdout);
        return 0;
    }
    double seconds = hb_doctor_seconds(argc, argv);
    int cores = hb_sys_cores();
    struct hb_mach_snap a, b;
    struct hb_mach_state st;
    struct hb_proc_list pa = {0}, pb = {0};
    hb_mach_snap(&a, 0);
    hb_procs_read(&pa);
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
    hb_mach_snap(&b, 1);
    hb_procs_read(&pb);
    hb_mach_between(&a, &b, &st);
    hb_doctor_load(&b, &st, cores);
    hb_doctor_busy(&pa, &pb, seconds);
    hb_doctor_cpu_times(&st);
    hb_doctor_vm();
    hb_doctor_frequency(cores, &b);
    hb_doctor_memory();
    hb_doctor_counters();
    hb_procs_free(&pa), hb_procs_free(&pb);
    return 0;
}
