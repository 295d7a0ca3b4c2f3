/* hbstats_smaps.c - anonymous huge pages of this process, from /proc/self/smaps_rollup (see hbstats.h).
 * Always holds: read with open/read into a stack buffer (no malloc, no stdio), parsed by
 * contract/thp.c (the one AnonHugePages parser, compiled into this library); the kernel walks
 * the page tables for this file, so it is read at phase ends only. */
#include "hbstats.h"
#include "thp.h"

#include <fcntl.h>
#include <unistd.h>

/* Emits AnonHugePages in bytes, or empty with the reason. */
void hbs_read_smaps(const struct hbs_out *o)
{
    struct hbs_out k = {o->fd, o->phase, "smaps_rollup"};
    char buf[4096];
    int fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    long long kb = hb_thp_anon_huge_kb(buf);
    if (kb < 0)
        hbs_emit(&k, "AnonHugePages", "hugepages", 0, "no AnonHugePages in /proc/self/smaps_rollup (kernel older than 4.14?)");
    else
        hbs_emit(&k, "AnonHugePages", "hugepages", (uint64_t)kb * 1024, NULL);
}
