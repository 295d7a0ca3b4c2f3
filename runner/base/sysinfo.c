/* sysinfo.c - machine and project facts for meta.json (see sysinfo.h).
 *
 * Always holds: nothing here fails the run; a fact that cannot be read is "unknown".
 */
#include "base/sysinfo.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/spawner.h"
#include "base/util.h"

/* Runs argv with stdout on a pipe (spawner.c); returns all it printed ("" when it failed). */
char *hb_capture_all(char *const argv[])
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return hb_xstrdup("");
    struct hb_spawn sp = {.argv = argv, .out_fd = fds[1], .err_null = 1};
    pid_t pid = 0;
    fflush(NULL);
    int started = hb_spawn_start(&sp, &pid) == 0;
    close(fds[1]);
    size_t len = 0, cap = 4096;
    char *buf = hb_xmalloc(cap);
    ssize_t got;
    while (started && (got = read(fds[0], buf + len, cap - 1 - len)) > 0) {
        len += (size_t)got;
        if (cap - 1 - len == 0)
            buf = hb_xrealloc(buf, cap *= 2);
    }
    close(fds[0]);
    buf[len] = '\0';
    if (!started || hb_spawn_wait(pid) != 0)
        buf[0] = '\0';
    return buf;
}

/* First line of hb_capture_all(). */
char *hb_capture(char *const argv[])
{
    char *all = hb_capture_all(argv);
    all[strcspn(all, "\n")] = '\0';
    return all;
}

/* sha256sum's digest of path (sysinfo.h). */
char *hb_sha256_file(const char *path)
{
    char *argv[] = {"sha256sum", "--", (char *)path, NULL};
    char *line = hb_capture(argv);
    line[strcspn(line, " ")] = '\0';
    return line;
}

/* Host name. */
char *hb_sys_host(void)
{
    char h[256] = "unknown";
    gethostname(h, sizeof h - 1);
    h[sizeof h - 1] = '\0';
    return hb_xstrdup(h);
}

/* First "model name" line of /proc/cpuinfo. */
char *hb_sys_cpu_model(void)
{
    char *text = hb_read_file("/proc/cpuinfo", NULL);
    char *model = NULL;
    char *p = text ? strstr(text, "model name") : NULL;
    if (p && (p = strchr(p, ':'))) {
        p[strcspn(p, "\n")] = '\0';
        model = hb_trim_dup(p + 1);
    }
    free(text);
    return model ? model : hb_xstrdup("unknown");
}

/* Online CPU count. */
int hb_sys_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* uname -r. */
char *hb_sys_kernel(void)
{
    struct utsname u;
    return hb_xstrdup(uname(&u) == 0 ? u.release : "unknown");
}

/* The bracketed choice of /sys/kernel/mm/transparent_hugepage/enabled. */
char *hb_sys_thp(void)
{
    char *text = hb_read_file("/sys/kernel/mm/transparent_hugepage/enabled", NULL);
    char *open = text ? strchr(text, '[') : NULL;
    char *close = open ? strchr(open, ']') : NULL;
    char *mode = NULL;
    if (close) {
        *close = '\0';
        mode = hb_xstrdup(open + 1);
    }
    free(text);
    return mode ? mode : hb_xstrdup("unknown");
}

/* glibc version string. */
char *hb_sys_glibc(void)
{
    return hb_xstrdup(gnu_get_libc_version());
}

/* Physical memory in KiB, from sysconf (0 when unknown). */
long long hb_sys_mem_kb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (long long)pages * (size / 1024) : 0;
}

/* "vm" when the first "flags" line of /proc/cpuinfo holds the word hypervisor (the CPU runs
 * under a hypervisor), "none" when it does not, "unknown" when there is no such line. */
char *hb_sys_virt(void)
{
    char *text = hb_read_file("/proc/cpuinfo", NULL);
    char *p = text ? strstr(text, "\nflags") : NULL;
    const char *what = "unknown";
    if (p && (p = strchr(p, ':'))) {
        p[strcspn(p, "\n")] = '\0';
        what = "none";
        for (char *w = strtok(p + 1, " \t"); w; w = strtok(NULL, " \t"))
            if (strcmp(w, "hypervisor") == 0)
                what = "vm";
    }
    free(text);
    return hb_xstrdup(what);
}

/* realpath of the object defining gnu_get_libc_version, i.e. libc.so.6. */
char *hb_sys_libc_path(void)
{
    Dl_info info;
    char real[PATH_MAX];
    if (dladdr((void *)gnu_get_libc_version, &info) && info.dli_fname && realpath(info.dli_fname, real))
        return hb_xstrdup(real);
    return hb_xstrdup("libc.so.6");
}

/* Local time as 2026-11-30T05:25:01+0000. */
char *hb_sys_now_iso(void)
{
    char buf[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
    return hb_xstrdup(buf);
}
