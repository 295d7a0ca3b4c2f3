/* logtail.c - the last line of a run's log (see logtail.h).
 *
 * Always holds: out is always NUL-terminated.
 */
#include "logtail.h"

#include <fcntl.h>
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
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    out[take] = '\0';
}
