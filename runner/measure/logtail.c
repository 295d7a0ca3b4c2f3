/* logtail.c - the last line of a run's log (see logtail.h).
 *
 * Always holds: out is always NUL-terminated.
 */
#include "measure/logtail.h"

#include "base/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HB_LOGTAIL_BYTES 4096

void hb_log_last_line(const char *path, char *out, size_t len)
{
    char buf[HB_LOGTAIL_BYTES + 1];
    struct stat st;
    ssize_t n = -1;
    if (len)
        out[0] = '\0';
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        off_t from = st.st_size > HB_LOGTAIL_BYTES ? st.st_size - HB_LOGTAIL_BYTES : 0;
        n = pread(fd, buf, HB_LOGTAIL_BYTES, from);
    }
    if (fd >= 0)
        close(fd);
    if (n <= 0 || len == 0)
        return;
    size_t end = (size_t)n;
    while (end > 0 && strchr(" \t\r\n", buf[end - 1]))
        end--;
    size_t start = end;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    size_t take = end - start < len - 1 ? end - start : len - 1;
    for (size_t i = 0; i < take; i++) {
        unsigned char c = (unsigned char)buf[start + i];
        out[i] = hb_is_ctrl(c) ? '?' : (char)c;
    }
    out[take] = '\0';
}

/* The cap (logtail.h): the tail is read first, then the file is cut after its head and the
 * marker and the tail are appended. */
int hb_log_cap(const char *path, size_t cap)
{
    struct stat st;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size <= cap) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    size_t half = cap / 2, size = (size_t)st.st_size;
    char *tail = malloc(half ? half : 1);
    char mark[160];
    int len = snprintf(mark, sizeof mark, "\n[heapbench: %zu bytes of this log were cut here; a log keeps its first "
                       "and last %zu KiB]\n", size - 2 * half, half / 1024);
    int rc = tail && pread(fd, tail, half, (off_t)(size - half)) == (ssize_t)half &&
                     ftruncate(fd, (off_t)half) == 0 && pwrite(fd, mark, (size_t)len, (off_t)half) == len &&
                     pwrite(fd, tail, half, (off_t)(half + (size_t)len)) == (ssize_t)half
                 ? 0
                 : -1;
    free(tail);
    close(fd);
    return rc;
}
