/* wl_phase.c - writes phase protocol records (see wl_phase.h and docs/DATA.md).
 * Always holds: every record goes through wl_record (one write(2) of at most 512 bytes), to
 * HEAPBENCH_PHASE_FD or stdout; a phase record is followed by the latency records of the samples
 * taken since the previous one; when the allocator-statistics library is preloaded
 * (heapbench_allocstat, a weak reference the dynamic linker binds at start-up), it is called right
 * after each `phase` record and only then, outside the phase's measured duration; without it
 * nothing else happens (no failed dlsym: its dlerror buffer is a malloc that moved the heap). */
#include "wl_phase.h"
#include "wl_latency.h"
#include "wl_record.h"
#include "wl_readfile.h"
#include "wl_time.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

/* Reads the second field of /proc/self/statm (resident pages) without allocating. */
uint64_t wl_rss_kb(void)
{
    char buf[128];
    if (wl_read_small("/proc/self/statm", buf, sizeof buf) < 0)
        return 0;
    unsigned long long size = 0, resident = 0;
    if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
        return 0;
    return (uint64_t)resident * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

/* ru_minflt of RUSAGE_SELF. */
long wl_minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* The statistics library's hook (allocators/stats): writes allocstat records for a phase to an
 * fd. Weak: NULL unless the preloaded library defines it. A dlsym that fails would malloc its
 * error text, and that small chunk changed glibc's heap: frag --pin lost its pin above the batch,
 * and thread-churn showed 5 more page faults under glibc). */
extern void heapbench_allocstat(int fd, const char *phase) __attribute__((weak));

/* dlsym finds the malloc the dynamic linker binds (the preloaded one first); dladdr names its object. */
void wl_served_by(void)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    const char *path = (sym && dladdr(sym, &info) && info.dli_fname) ? info.dli_fname : "unknown";
    wl_record(WL_TAG_SERVED_BY "\t%s\n", path);
    wl_lat_start();
}

/* Writes the record of a phase that ended now (then its latency records and the statistics, if
 * any); returns now. */
static double wl_phase_end(const char *name, double t0, uint64_t ops, uint64_t live_bytes)
{
    double now = wl_now();
    wl_phase_record(name, now - t0, ops, live_bytes, wl_rss_kb());
    wl_lat_flush(name);
    if (heapbench_allocstat)
        heapbench_allocstat(wl_record_fd(), name);
    return now;
}

/* Duration is measured up to the moment the record is formatted; returns the time after writing
 * it, so the record (the latency records and the statistics) count in no phase. */
double wl_phase(const char *name, double t0, uint64_t ops, uint64_t live_bytes)
{
    wl_phase_end(name, t0, ops, live_bytes);
    return wl_now();
}

/* Returns the end of the phase itself (see wl_phase.h). */
double wl_phase_mark(const char *name, double t0, uint64_t ops, uint64_t live_bytes)
{
    return wl_phase_end(name, t0, ops, live_bytes);
}

/* One `phase` record, every field given. */
void wl_phase_record(const char *name, double seconds, uint64_t ops, uint64_t live_bytes, uint64_t rss_kb)
{
    wl_record(WL_TAG_PHASE "\t%s\t%.9f\t%llu\t%llu\t%llu\n", name, seconds, (unsigned long long)ops,
              (unsigned long long)live_bytes, (unsigned long long)rss_kb);
}

/* One `size` record. */
void wl_size(size_t request, size_t usable)
{
    wl_record(WL_TAG_SIZE "\t%zu\t%zu\n", request, usable);
}

/* Tabs and newlines in detail would break the record; they are written as spaces. */
int wl_verify(int ok, const char *detail)
{
    char clean[256];
    size_t i = 0;
    for (; detail && detail[i] && i < sizeof clean - 1; i++)
        clean[i] = (detail[i] == '\t' || detail[i] == '\n') ? ' ' : detail[i];
    clean[i] = '\0';
    wl_record(WL_TAG_VERIFY "\t%s\t%s\n", ok ? WL_VERIFY_OK : WL_VERIFY_FAIL, clean);
    return ok ? 0 : 1;
}
