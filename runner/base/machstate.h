/* machstate.h - the machine's state around a measurement: load average, CPU steal and iowait,
 * CPU frequency and the other runnable tasks, read from /proc and /sys (docs/DATA.md: runs.csv's
 * load1, steal_pct, iowait_pct, cpu_mhz, others_runnable and meta.json's "machine").
 *
 * Always holds: a snapshot never fails: a figure that cannot be read is marked unavailable
 * (its *_ok flag 0), and a state computed from snapshots is unavailable where either snapshot's
 * figure is, or where no clock tick of /proc/stat passed between them (a fraction of nothing).
 */
#ifndef HEAPBENCH_MACHSTATE_H
#define HEAPBENCH_MACHSTATE_H

/* The times of /proc/stat's "cpu" line that a state uses, in clock ticks (USER_HZ). */
enum hb_mach_time { HB_MT_USER, HB_MT_NICE, HB_MT_SYSTEM, HB_MT_IDLE, HB_MT_IOWAIT, HB_MT_IRQ, HB_MT_SOFTIRQ,
                    HB_MT_STEAL, HB_MT_COUNT };

struct hb_mach_snap {
    unsigned long long cpu[HB_MT_COUNT]; /* all CPUs together; valid when cpu_ok */
    long procs_running;                  /* /proc/stat procs_running (the reader included); -1: unknown */
    double load[3];                      /* /proc/loadavg 1, 5 and 15 minute averages; valid when load_ok */
    double mhz;                          /* mean current frequency of the online CPUs; valid when mhz_ok */
    int cpu_ok, load_ok, mhz_ok;
    const char *mhz_source;              /* "scaling_cur_freq", "/proc/cpuinfo" or the reason it is unavailable */
};

/* What the machine did between two snapshots, as runs.csv records it beside each run. */
struct hb_mach_state {
    double load1;           /* 1-minute load average at the second snapshot */
    double steal_pct;       /* % of all CPUs' time stolen by the hypervisor between the snapshots */
    double iowait_pct;      /* % of all CPUs' time idle waiting for I/O between them */
    double cpu_mhz;         /* mean CPU frequency at the second snapshot */
    double others_runnable; /* runnable tasks besides the reader, mean of the two snapshots */
    int load1_ok, steal_ok, iowait_ok, mhz_ok, runnable_ok;
};

/* Takes a snapshot now. with_mhz: also read the CPU frequency (a read of every CPU's cpufreq
 * file, or of /proc/cpuinfo). */
void hb_mach_snap(struct hb_mach_snap *s, int with_mhz);

/* The state between snapshots a (earlier) and b (later). */
void hb_mach_between(const struct hb_mach_snap *a, const struct hb_mach_snap *b, struct hb_mach_state *out);

/* Parsers of the files' text, for the snapshot and the tests: 0, or -1 when the text has no such figure. */
int hb_mach_parse_stat(const char *text, unsigned long long cpu[HB_MT_COUNT], long *procs_running);
int hb_mach_parse_loadavg(const char *text, double load[3]);
int hb_mach_parse_cpuinfo_mhz(const char *text, double *mhz);

#endif
