/* wl_phase.c - writes phase protocol records (see wl_phase.h and docs/DATA.md).
 * Always holds: one write(2) per record, at most 512 bytes, to HEAPBENCH_PHASE_FD or stdout. */
#include "wl_phase.h"
#include "wl_time.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WL_RECORD_MAX 512

/* The fd records go to: HEAPBENCH_PHASE_FD when set to a number, else stdout (1). Cached. */
static int wl_phase_fd(void)
{
    static int fd = -2;
    if (fd == -2) {
        const char *env = getenv("HEAPBENCH_PHASE_FD");
        char *end = NULL;
        long v = env && *env ? strtol(env, &end, 10) : -1;
        fd = (env && *env && end && *end == '\0' && v >= 0) ? (int)v : 1;
    }
    return fd;
}

/* Formats one record (printf-style, the caller supplies the trailing newline) and writes it
 * with one write(2); a record that would exceed 512 bytes is cut and still ends in '\n'. */
static void wl_record(const char *fmt, ...)
{
    char buf[WL_RECORD_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n >= (int)sizeof buf) {
        n = (int)sizeof buf - 1;
        buf[n - 1] = '\n';
    }
    ssize_t w;
    do
        w = write(wl_phase_fd(), buf, (size_t)n);
    while (w < 0 && errno == EINTR);
}

/* Reads the second field of /proc/self/statm (resident pages) without allocating. */
uint64_t wl_rss_kb(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    unsigned long long size = 0, resident = 0;
    if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
        return 0;
    return (uint64_t)resident * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

/* dlsym finds the malloc the dynamic linker binds (the preloaded one first); dladdr names its object. */
void wl_served_by(void)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    const char *path = (sym && dladdr(sym, &info) && info.dli_fname) ? info.dli_fname : "unknown";
    wl_record("served_by\t%s\n", path);
}

/* Duration is measured up to the moment the record is formatted; returns that moment. */
double wl_phase(const char *name, double t0, uint64_t ops, uint64_t live_bytes)
{
    double now = wl_now();
    wl_record("phase\t%s\t%.9f\t%llu\t%llu\t%llu\n", name, now - t0, (unsigned long long)ops,
              (unsigned long long)live_bytes, (unsigned long long)wl_rss_kb());
    return wl_now();
}

/* One `phase` record, every field given. */
void wl_phase_record(const char *name, double seconds, uint64_t ops, uint64_t live_bytes, uint64_t rss_kb)
{
    wl_record("phase\t%s\t%.9f\t%llu\t%llu\t%llu\n", name, seconds, (unsigned long long)ops,
              (unsigned long long)live_bytes, (unsigned long long)rss_kb);
}

/* One `size` record. */
void wl_size(size_t request, size_t usable)
{
    wl_record("size\t%zu\t%zu\n", request, usable);
}

/* Tabs and newlines in detail would break the record; they are written as spaces. */
int wl_verify(int ok, const char *detail)
{
    char clean[256];
    size_t i = 0;
    for (; detail && detail[i] && i < sizeof clean - 1; i++)
        clean[i] = (detail[i] == '\t' || detail[i] == '\n') ? ' ' : detail[i];
    clean[i] = '\0';
    wl_record("verify\t%s\t%s\n", ok ? "ok" : "fail", clean);
    return ok ? 0 : 1;
}
