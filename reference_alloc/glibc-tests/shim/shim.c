/* shim.c - the functions behind shim.h: failure recording, checked wrappers (x*), temporary
 * files and subprocess capture for glibc's malloc tests built standalone.
 *
 * Always holds: a failed x* call prints "error: <call>: <reason>" on stdout and exits 1; the
 * failure flag is one int in a MAP_SHARED page created before main, so a child's failure is
 * seen by the parent; temporary files are unlinked at exit by the process that made them.
 */
#include "shim.h"

#include <fcntl.h>
#include <stdarg.h>

static volatile int *hb_failed; /* shared with forked children */

__attribute__((constructor)) static void hb_failure_init(void)
{
    void *p = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        printf("error: mmap of the failure flag: %m\n");
        exit(1);
    }
    hb_failed = p;
}

void support_record_failure(void) { __atomic_store_n(hb_failed, 1, __ATOMIC_SEQ_CST); }
int support_record_failure_is_failed(void) { return __atomic_load_n(hb_failed, __ATOMIC_SEQ_CST); }
void support_record_failure_reset(void) { __atomic_store_n(hb_failed, 0, __ATOMIC_SEQ_CST); }

/* The exit status of a test that returned status: 1 if any failure was recorded. */
int support_report_failure(int status)
{
    if (support_record_failure_is_failed() && status == 0)
        return 1;
    return status;
}

/* Prints "error: FILE:LINE: " and the formatted message on stdout. */
static void hb_report(const char *file, int line, const char *fmt, va_list ap)
{
    fflush(stdout);
    printf("error: %s:%d: ", file, line);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
}

void support_print_failure_impl(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hb_report(file, line, fmt, ap);
    va_end(ap);
    support_record_failure();
}

void support_exit_failure_impl(int status, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hb_report(file, line, fmt, ap);
    va_end(ap);
    if (status != EXIT_UNSUPPORTED)
        support_record_failure();
    exit(status);
}

void support_test_verify_impl(const char *file, int line, const char *expr)
{
    support_print_failure_impl(file, line, "not true: %s", expr);
}

void support_test_verify_exit_impl(int status, const char *file, int line, const char *expr)
{
    support_exit_failure_impl(status, file, line, "not true: %s", expr);
}

/* Formats v as signed when it is negative, else as unsigned. */
static const char *hb_num(char *buf, size_t len, long long v, int neg)
{
    if (neg)
        snprintf(buf, len, "%lld", v);
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
    return buf;
}

void support_test_compare_failure(const char *file, int line, const char *left, long long lv,
                                  int lneg, const char *right, long long rv, int rneg)
{
    char a[32], b[32];
    support_print_failure_impl(file, line, "numeric comparison failure: %s = %s, %s = %s", left,
                               hb_num(a, sizeof a, lv, lneg), right, hb_num(b, sizeof b, rv, rneg));
}

void support_test_compare_blob(const void *a, unsigned long alen, const void *b,
                               unsigned long blen, const char *file, int line,
                               const char *aexpr, const char *bexpr)
{
    if (alen != blen || (alen && memcmp(a, b, alen) != 0))
        support_print_failure_impl(file, line, "blob comparison failure: %s (%lu bytes) != %s (%lu bytes)",
                                   aexpr, alen, bexpr, blen);
}

/* Ends the test: call failed with errno. */
__attribute__((noreturn)) static void hb_die(const char *call)
{
    printf("error: %s: %m\n", call);
    support_record_failure();
    exit(1);
}

/* Ends the test when a pthread function returned an error number. */
void xpthread_check_return(const char *function, int value)
{
    if (value != 0) {
        errno = value;
        hb_die(function);
    }
}

void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p && n)
        hb_die("malloc");
    return p;
}

void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n, s);
    if (!p && n && s)
        hb_die("calloc");
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q && n)
        hb_die("realloc");
    return q;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        hb_die("strdup");
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        hb_die("asprintf");
    return s;
}

void *xposix_memalign(size_t align, size_t n)
{
    void *p = NULL;
    int err = posix_memalign(&p, align, n);
    xpthread_check_return("posix_memalign", err);
    return p;
}

long xsysconf(int name)
{
    errno = 0;
    long v = sysconf(name);
    if (v < 0 && errno)
        hb_die("sysconf");
    return v;
}

/* Sends this process's stderr to /dev/null (expected crash messages stay off the terminal). */
void ignore_stderr(void)
{
    int fd = xopen("/dev/null", O_WRONLY, 0);
    if (dup2(fd, STDERR_FILENO) < 0)
        hb_die("dup2");
    xclose(fd);
}

/* A zeroed block shared with forked children. */
void *support_shared_allocate(size_t size)
{
    size_t *p = xmmap(NULL, size + 16, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
    *p = size + 16;
    return (char *)p + 16;
}

void support_shared_free(void *p)
{
    size_t *base = (size_t *)((char *)p - 16);
    xmunmap(base, *base);
}

void write_message(const char *s)
{
    ssize_t unused = write(STDOUT_FILENO, s, strlen(s));
    (void)unused;
}

pthread_t xpthread_create(pthread_attr_t *attr, void *(*fn)(void *), void *closure)
{
    pthread_t t;
    xpthread_check_return("pthread_create", pthread_create(&t, attr, fn, closure));
    return t;
}

void *xpthread_join(pthread_t thr)
{
    void *ret;
    xpthread_check_return("pthread_join", pthread_join(thr, &ret));
    return ret;
}

void xpthread_cancel(pthread_t thr) { xpthread_check_return("pthread_cancel", pthread_cancel(thr)); }
void xpthread_kill(pthread_t thr, int signo) { xpthread_check_return("pthread_kill", pthread_kill(thr, signo)); }
void xpthread_detach(pthread_t thr) { xpthread_check_return("pthread_detach", pthread_detach(thr)); }
void xpthread_mutex_lock(pthread_mutex_t *m) { xpthread_check_return("pthread_mutex_lock", pthread_mutex_lock(m)); }
void xpthread_mutex_unlock(pthread_mutex_t *m)
{
    xpthread_check_return("pthread_mutex_unlock", pthread_mutex_unlock(m));
}

void xpthread_barrier_init(pthread_barrier_t *b, pthread_barrierattr_t *attr, unsigned int count)
{
    xpthread_check_return("pthread_barrier_init", pthread_barrier_init(b, attr, count));
}

/* Returns 1 in exactly one of the waiting threads (PTHREAD_BARRIER_SERIAL_THREAD), else 0. */
int xpthread_barrier_wait(pthread_barrier_t *b)
{
    int r = pthread_barrier_wait(b);
    if (r != 0 && r != PTHREAD_BARRIER_SERIAL_THREAD)
        xpthread_check_return("pthread_barrier_wait", r);
    return r == PTHREAD_BARRIER_SERIAL_THREAD;
}

void xpthread_barrier_destroy(pthread_barrier_t *b)
{
    xpthread_check_return("pthread_barrier_destroy", pthread_barrier_destroy(b));
}

void xpthread_barrierattr_init(pthread_barrierattr_t *attr)
{
    xpthread_check_return("pthread_barrierattr_init", pthread_barrierattr_init(attr));
}

void xpthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared)
{
    xpthread_check_return("pthread_barrierattr_setpshared", pthread_barrierattr_setpshared(attr, pshared));
}

void xpthread_barrierattr_destroy(pthread_barrierattr_t *attr)
{
    xpthread_check_return("pthread_barrierattr_destroy", pthread_barrierattr_destroy(attr));
}

pid_t xfork(void)
{
    pid_t pid = fork();
    if (pid < 0)
        hb_die("fork");
    return pid;
}

pid_t xwaitpid(pid_t pid, int *status, int flags)
{
    pid_t r;
    while ((r = waitpid(pid, status, flags)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        hb_die("waitpid");
    return r;
}

void xpipe(int fds[2])
{
    if (pipe(fds) != 0)
        hb_die("pipe");
}

void xclose(int fd)
{
    if (close(fd) != 0 && errno != EINTR)
        hb_die("close");
}

void xwrite(int fd, const void *buf, size_t n)
{
    for (const char *p = buf; n;) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            hb_die("write");
        p += w;
        n -= (size_t)w;
    }
}

int xopen(const char *path, int flags, mode_t mode)
{
    int fd = open(path, flags, mode);
    if (fd < 0)
        hb_die(path);
    return fd;
}

void *xmmap(void *addr, size_t len, int prot, int flags, int fd)
{
    void *p = mmap(addr, len, prot, flags, fd, 0);
    if (p == MAP_FAILED)
        hb_die("mmap");
    return p;
}

void xmunmap(void *addr, size_t len)
{
    if (munmap(addr, len) != 0)
        hb_die("munmap");
}

sighandler_t xsignal(int sig, sighandler_t handler)
{
    sighandler_t old = signal(sig, handler);
    if (old == SIG_ERR)
        hb_die("signal");
    return old;
}

void xraise(int sig)
{
    if (raise(sig) != 0)
        hb_die("raise");
}

/* ---- temporary files: in $TMPDIR (the runner's temp dir), unlinked at exit ---- */
#define HB_MAX_TEMP 16
static char *hb_temp[HB_MAX_TEMP];
static int hb_ntemp;
static pid_t hb_temp_owner;

static void hb_temp_cleanup(void)
{
    if (getpid() != hb_temp_owner)
        return;
    for (int i = 0; i < hb_ntemp; i++)
        unlink(hb_temp[i]);
}

void add_temp_file(const char *name)
{
    if (hb_ntemp == HB_MAX_TEMP)
        FAIL_EXIT1("too many temporary files");
    if (hb_ntemp == 0) {
        hb_temp_owner = getpid();
        atexit(hb_temp_cleanup);
    }
    hb_temp[hb_ntemp++] = xstrdup(name);
}

int create_temp_file(const char *base, char **filename)
{
    const char *dir = getenv("TMPDIR");
    char *name = xasprintf("%s/%sXXXXXX", dir && *dir ? dir : "/tmp", base);
    int fd = mkstemp(name);
    if (fd < 0) {
        printf("error: mkstemp %s: %m\n", name);
        free(name);
        return -1;
    }
    add_temp_file(name);
    if (filename)
        *filename = name;
    else
        free(name);
    return fd;
}

/* ---- subprocess capture: the child's stdout and stderr go to anonymous files ---- */

/* Reads the whole of fd (from its start) into a NUL-terminated stream buffer. */
static void hb_slurp(int fd, struct xmemstream *m)
{
    m->out = open_memstream(&m->buffer, &m->length);
    if (!m->out)
        hb_die("open_memstream");
    char buf[4096];
    ssize_t n;
    lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, m->out);
    fclose(m->out);
    m->out = NULL;
    xclose(fd);
}

struct support_capture_subprocess support_capture_subprocess(void (*callback)(void *), void *closure)
{
    struct support_capture_subprocess r;
    memset(&r, 0, sizeof r);
    int out = memfd_create("stdout", 0), err = memfd_create("stderr", 0);
    if (out < 0 || err < 0)
        hb_die("memfd_create");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = xfork();
    if (pid == 0) {
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        callback(closure);
        fflush(stdout);
        _exit(0);
    }
    xwaitpid(pid, &r.status, 0);
    hb_slurp(out, &r.out);
    hb_slurp(err, &r.err);
    return r;
}

void support_capture_subprocess_free(struct support_capture_subprocess *p)
{
    free(p->out.buffer);
    free(p->err.buffer);
}
