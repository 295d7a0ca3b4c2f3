/* wl_readfile.h - reading a small /proc or /sys file whole into a caller's buffer, without allocating:
 * what the phase writer (/proc/self/statm), the replayer (/proc/self/status), the huge-page switch
 * (/sys/kernel/mm/transparent_hugepage/enabled), the latency clock (/proc/cpuinfo) and the recorder
 * (/proc/self/cmdline) read.
 *
 * Always holds: open, read until end of file or a full buffer, close: no stdio and no malloc (the
 * recorder and the workloads call it where the allocator under test must see nothing); the buffer
 * is NUL-terminated after what was read (which may itself hold NULs: /proc/self/cmdline); inline
 * here, so that every program that reads such a file links nothing more.
 */
#ifndef HEAPBENCH_WL_READFILE_H
#define HEAPBENCH_WL_READFILE_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

/* Reads path into buf (at most len - 1 bytes, then a NUL; len >= 1); returns the bytes read, or -1
 * (buf "") when nothing could be read: no such file, a read error before any byte, an empty file. */
static inline ssize_t wl_read_small(const char *path, char *buf, size_t len)
{
    size_t n = 0;
    ssize_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && n < len - 1 && (got = read(fd, buf + n, len - 1 - n)) > 0)
        n += (size_t)got;
    if (fd >= 0)
        close(fd);
    buf[n] = '\0';
    return n == 0 ? -1 : (ssize_t)n;
}

#endif
