/* wl_record.c - writes one phase-protocol record with one write(2) (see wl_record.h); the one writer
 * of the record format in C, built into the workloads and (PIC) into libhbstats.so.
 * Always holds: at most WL_RECORD_MAX bytes per write, to HEAPBENCH_PHASE_FD or stdout, or to the
 * fd given; nothing here calls malloc. */
#include "wl_record.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The fd records go to: HEAPBENCH_PHASE_FD when set to a number, else stdout (1). Cached. */
int wl_record_fd(void)
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

/* A record that would exceed WL_RECORD_MAX bytes is cut and still ends in '\n'. */
static void wl_vrecord_to(int fd, const char *fmt, va_list ap)
{
    char buf[WL_RECORD_MAX];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0)
        return;
    if (n >= (int)sizeof buf) {
        n = (int)sizeof buf - 1;
        buf[n - 1] = '\n';
    }
    ssize_t w;
    do
        w = write(fd, buf, (size_t)n);
    while (w < 0 && errno == EINTR);
}

/* One record to fd. */
void wl_record_to(int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wl_vrecord_to(fd, fmt, ap);
    va_end(ap);
}

/* One record to wl_record_fd(). */
void wl_record(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wl_vrecord_to(wl_record_fd(), fmt, ap);
    va_end(ap);
}
