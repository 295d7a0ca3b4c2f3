/* machstate.c - snapshots of the machine's load, CPU times and frequency, and the state between
 * two of them (see machstate.h).
 *
 * Always holds: only /proc/stat, /proc/loadavg, /proc/cpuinfo and the cpufreq files of /sys are
 * read; percentages are of every CPU's ticks together (user + nice + system + idle + iowait +
 * irq + softirq + steal), so 100% steal means the whole machine was taken.
 */
#include "base/machstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

/* The "cpu " line's first eight times and procs_running (machstate.h). */
int hb_mach_parse_stat(const char *text, unsigned long long cpu[HB_MT_COUNT], long *procs_running)
{
    *procs_running = -1;
    const char *p = strstr(text, "procs_running ");
    if (p)
        *procs_running = strtol(p + 14, NULL, 10);
    if (strncmp(text, "cpu ", 4) != 0)
        return -1;
    unsigned long long *c = cpu;
    return sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &c[0], &c[1], &c[2], &c[3], &c[4], &c[5],
                  &c[6], &c[7]) == HB_MT_COUNT ? 0 : -1;
}

/* The three load averages of /proc/loadavg (machstate.h). */
int hb_mach_parse_loadavg(const char *text, double load[3])
{
    return sscanf(text, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3 ? 0 : -1;
}

/* The mean of the "cpu MHz" lines of /proc/cpuinfo (machstate.h). */
int hb_mach_parse_cpuinfo_mhz(const char *text, double *mhz)
{
    double sum = 0, v;
    int n = 0;
    for (const char *p = text; (p = strstr(p, "cpu MHz")) != NULL; p++) {
        const char *colon = strchr(p, ':');
        if (colon && sscanf(colon + 1, "%lf", &v) == 1 && v > 0)
            sum += v, n++;
    }
    if (!n)
        return -1;
    *mhz = sum / n;
    return 0;
}

/* The mean scaling_cur_freq (kHz) of the online CPUs in MHz; -1 when a CPU has none (a VM). */
static int hb_mach_cpufreq(double *mhz)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double sum = 0;
    for (long i = 0; i < cores; i++) {
        char path[96], buf[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_cur_freq", i);
        if (hb_read_small(path, buf, sizeof buf) < 0)
            return -1;
        sum += strtod(buf, NULL) / 1000.0;
    }
    if (cores <= 0 || sum <= 0)
        return -1;
    *mhz = sum / (double)cores;
    return 0;
}

/* The frequency, from cpufreq where the kernel has it, else /proc/cpuinfo (on x86 the kernel's
 * own estimate; under a hypervisor often the nominal clock). */
static void hb_mach_mhz(struct hb_mach_snap *s)
{
    if (hb_mach_cpufreq(&s->mhz) == 0) {
        s->mhz_ok = 1, s->mhz_source = "scaling_cur_freq";
        return;
    }
    char *text = hb_read_file("/proc/cpuinfo", NULL);
    s->mhz_ok = text && hb_mach_parse_cpuinfo_mhz(text, &s->mhz) == 0;
    s->mhz_source = s->mhz_ok ? "/proc/cpuinfo" : "unavailable: no cpufreq in /sys and no 'cpu MHz' in /proc/cpuinfo";
    free(text);
}

/* A snapshot now (machstate.h). */
void hb_mach_snap(struct hb_mach_snap *s, int with_mhz)
{
    char buf[256];
    memset(s, 0, sizeof *s);
    s->procs_running = -1;
    s->mhz_source = "not read";
    /* whole: procs_running follows the per-CPU lines and the interrupt counts (kilobytes) */
    char *text = hb_read_file("/proc/stat", NULL);
    s->cpu_ok = text && hb_mach_parse_stat(text, s->cpu, &s->procs_running) == 0;
    free(text);
    s->load_ok = hb_read_small("/proc/loadavg", buf, sizeof buf) > 0 && hb_mach_parse_loadavg(buf, s->load) == 0;
    if (with_mhz)
        hb_mach_mhz(s);
}

/* The state between a and b (machstate.h). */
void hb_mach_between(const struct hb_mach_snap *a, const struct hb_mach_snap *b, struct hb_mach_state *out)
{
    memset(out, 0, sizeof *out);
    if ((out->load1_ok = b->load_ok))
        out->load1 = b->load[0];
    if ((out->mhz_ok = b->mhz_ok))
        out->cpu_mhz = b->mhz;
    if ((out->runnable_ok = a->procs_running > 0 && b->procs_running > 0))
        out->others_runnable = (double)(a->procs_running - 1 + b->procs_running - 1) / 2.0;
    if (!a->cpu_ok || !b->cpu_ok)
        return;
    unsigned long long total = 0, d[HB_MT_COUNT];
    for (int i = 0; i < HB_MT_COUNT; i++) {
        d[i] = b->cpu[i] >= a->cpu[i] ? b->cpu[i] - a->cpu[i] : 0;
        total += d[i];
    }
    if (!total)
        return;
    out->steal_ok = out->iowait_ok = 1;
    out->steal_pct = 100.0 * (double)d[HB_MT_STEAL] / (double)total;
    out->iowait_pct = 100.0 * (double)d[HB_MT_IOWAIT] / (double)total;
}
