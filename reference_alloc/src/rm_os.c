/* rm_os.c - the only file of refmalloc that talks to the operating system.
 *
 * Always true: nothing here allocates, uses stdio or calls back into malloc, and every function
 * leaves errno as it was (a failed sbrk or mmap the allocator recovers from must not leak ENOMEM
 * into a successful malloc; the API sets ENOMEM itself when it finally fails). Since these are
 * refmalloc's only system calls, free() keeps errno without saving it on its fast paths
 * (rm_api.c defines ip_backend_free_keeps_errno): glibc's free, too, can only change errno in
 * its system calls.
 */
#include "rm_types.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* Moves the break by inc bytes; returns the old break, NULL on failure. */
void *rm_os_sbrk(intptr_t inc)
{
    int saved = errno;
    void *p = sbrk(inc);
    errno = saved;
    return p == (void *)-1 ? NULL : p;
}

/* Maps len fresh zeroed read-write bytes; NULL on failure. */
void *rm_os_map(size_t len)
{
    int saved = errno;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved;
    return p == MAP_FAILED ? NULL : p;
}

/* Maps len bytes at an address that is a multiple of align (a power of two >= page), with
 * no swap reservation (pages are committed when touched); NULL on failure. */
void *rm_os_map_aligned(size_t len, size_t align)
{
    int saved = errno;
    char *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        errno = saved;
        return NULL;
    }
    char *aligned = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    if (aligned > p)
        munmap(p, (size_t)(aligned - p));
    size_t tail = (size_t)(p + len + align - (aligned + len));
    if (tail)
        munmap(aligned + len, tail);
    errno = saved;
    return aligned;
}

/* Unmaps a range obtained from rm_os_map*. */
void rm_os_unmap(void *p, size_t len)
{
    int saved = errno;
    munmap(p, len);
    errno = saved;
}

/* Resizes a mapping, moving it if needed; NULL on failure (the old mapping is intact). */
void *rm_os_remap(void *p, size_t old_len, size_t new_len)
{
    int saved = errno;
    void *q = mremap(p, old_len, new_len, MREMAP_MAYMOVE);
    errno = saved;
    return q == MAP_FAILED ? NULL : q;
}

/* Returns the pages of [p, p+len) to the kernel; they read as zero when touched again. */
void rm_os_discard(void *p, size_t len)
{
    int saved = errno;
    madvise(p, len, MADV_DONTNEED);
    errno = saved;
}

/* Writes s to stderr with write(2), retrying short writes. */
void rm_os_write(const char *s)
{
    int saved = errno;
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t w = write(2, s, len);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            break;
        }
        s += w;
        len -= (size_t)w;
    }
    errno = saved;
}

/* /proc/self/environ, read once when environ is not set up yet (very early calls). */
static char rm_os_envbuf[64 << 10];
static size_t rm_os_envlen;

/* Loads /proc/self/environ into rm_os_envbuf (NUL-separated); truncates past 64 KiB. */
static void rm_os_load_proc_environ(void)
{
    int saved = errno;
    int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r;
        while (rm_os_envlen < sizeof rm_os_envbuf - 1 &&
               (r = read(fd, rm_os_envbuf + rm_os_envlen, sizeof rm_os_envbuf - 1 - rm_os_envlen)) > 0)
            rm_os_envlen += (size_t)r;
        close(fd);
    }
    rm_os_envbuf[rm_os_envlen] = '\0';
    errno = saved;
}

/* If entry is "name=value", returns value, else NULL. */
static const char *rm_os_match(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=' ? entry + n + 1 : NULL;
}

/* getenv without allocation: environ when set up, else /proc/self/environ. */
const char *rm_os_getenv(const char *name)
{
    if (environ) {
        for (char **e = environ; *e; e++) {
            const char *v = rm_os_match(*e, name);
            if (v)
                return v;
        }
        return NULL;
    }
    if (rm_os_envlen == 0)
        rm_os_load_proc_environ();
    for (size_t i = 0; i < rm_os_envlen; i += strlen(rm_os_envbuf + i) + 1) {
        const char *v = rm_os_match(rm_os_envbuf + i, name);
        if (v)
            return v;
    }
    return NULL;
}

/* CPUs this process may run on (at least 1). */
size_t rm_os_ncpus(void)
{
    cpu_set_t set;
    int saved = errno;
    int failed = sched_getaffinity(0, sizeof set, &set) != 0;
    errno = saved;
    if (failed)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? (size_t)n : 1;
}

/* The page size. */
size_t rm_os_pagesize(void)
{
    static size_t page;
    if (!page)
        page = (size_t)getpagesize();
    return page;
}

/* A random word from getrandom(2); falls back to address bits when that is unavailable. */
uintptr_t rm_os_random(void)
{
    uintptr_t v = 0;
    int saved = errno;
    if (syscall(SYS_getrandom, &v, sizeof v, 1 /* GRND_NONBLOCK */) != (long)sizeof v)
        v = ((uintptr_t)&v * 0x9e3779b97f4a7c15ull) ^ (uintptr_t)getpid();
    errno = saved;
    return v | 1;
}

/* Sleeps while *word == value; returns on a wake-up, a signal or a changed value (the caller
 * re-checks; the EAGAIN or EINTR of the last two does not reach errno). A private futex: arena
 * locks are never shared between processes. */
void rm_os_futex_wait(int *word, int value)
{
    int saved = errno;
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
    errno = saved;
}

/* Wakes one thread sleeping on word. */
void rm_os_futex_wake(int *word)
{
    int saved = errno;
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}
