/* peak_rss.c - the kernel's high-water mark of the replayer's RSS, reset and read (see peak_rss.h).
 * Always holds: touches only /proc/self/clear_refs and /proc/self/status, through open, read and
 * write on a stack buffer (no stdio, no allocation: the allocator under test sees none of it). */
#include "peak_rss.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_readfile.h"

int peak_rss_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, "5", 1);
    close(fd);
    return n == 1 ? 0 : -1;
}

uint64_t peak_rss_kb(void)
{
    char buf[4096];
    if (wl_read_small("/proc/self/status", buf, sizeof buf) < 0)
        return 0;
    const char *at = strstr(buf, "\nVmHWM:");
    return at ? strtoull(at + 7, NULL, 10) : 0;
}
