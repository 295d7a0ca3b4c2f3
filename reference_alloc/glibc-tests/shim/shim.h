/* shim.h - our stand-in for the parts of glibc's test support library (support/NAME.h) that
 * glibc 2.36's malloc tests use, so each malloc/tst-*.c builds as a standalone program.
 *
 * Always holds: written for heapbench (no glibc code copied); same names and meaning as glibc's
 * support library: TEST_VERIFY and friends report "error: FILE:LINE: ..." on stdout and record
 * a failure that turns the test's exit status into 1, x* wrappers end the test with status 1
 * when the call fails, FAIL_UNSUPPORTED exits 77. The failure record lives in shared memory,
 * so a failure recorded in a forked child counts too. Implementation: shim.c; main: test-driver.c.
 */
#ifndef HB_GLIBC_SHIM_H
#define HB_GLIBC_SHIM_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- results (glibc: support/check.h) ---- */
#define DEFAULT_TIMEOUT 20
#define EXIT_UNSUPPORTED 77

void support_record_failure(void);
int support_record_failure_is_failed(void);
void support_record_failure_reset(void);
int support_report_failure(int status);
void support_print_failure_impl(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
__attribute__((noreturn)) void support_exit_failure_impl(int status, const char *file, int line,
                                                         const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void support_test_verify_impl(const char *file, int line, const char *expr);
__attribute__((noreturn)) void support_test_verify_exit_impl(int status, const char *file, int line,
                                                             const char *expr);
void support_test_compare_failure(const char *file, int line, const char *left, long long lv,
                                  int lneg, const char *right, long long rv, int rneg);
void support_test_compare_blob(const void *a, unsigned long alen, const void *b,
                               unsigned long blen, const char *file, int line,
                               const char *aexpr, const char *bexpr);

#define FAIL(...) support_print_failure_impl(__FILE__, __LINE__, __VA_ARGS__)
#define FAIL_RET(...) return (support_print_failure_impl(__FILE__, __LINE__, __VA_ARGS__), 1)
#define FAIL_EXIT(status, ...) support_exit_failure_impl(status, __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_EXIT1(...) support_exit_failure_impl(1, __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_UNSUPPORTED(...) support_exit_failure_impl(EXIT_UNSUPPORTED, __FILE__, __LINE__, __VA_ARGS__)
#define TEST_VERIFY(expr)                                                                    \
    ({ if (!(expr)) support_test_verify_impl(__FILE__, __LINE__, #expr); (void)0; })
#define TEST_VERIFY_EXIT(expr)                                                               \
    ({ if (!(expr)) support_test_verify_exit_impl(1, __FILE__, __LINE__, #expr); (void)0; })
/* Integer comparison that is right across signedness (a negative value never equals an
 * unsigned one), as glibc's TEST_COMPARE. "x < 1 && x != 0" is "x < 0" written so that it
 * draws no always-false warning for an unsigned type. */
#define TEST_COMPARE(left, right)                                                            \
    ({                                                                                       \
        __typeof__(left) hb_l = (left);                                                      \
        __typeof__(right) hb_r = (right);                                                    \
        int hb_ln = hb_l < (__typeof__(left))1 && hb_l != 0;                                 \
        int hb_rn = hb_r < (__typeof__(right))1 && hb_r != 0;                               \
        if (hb_ln != hb_rn || (long long)hb_l != (long long)hb_r)                            \
            support_test_compare_failure(__FILE__, __LINE__, #left, (long long)hb_l, hb_ln,  \
                                         #right, (long long)hb_r, hb_rn);                    \
        (void)0;                                                                             \
    })
#define TEST_COMPARE_BLOB(a, alen, b, blen)                                                  \
    support_test_compare_blob(a, alen, b, blen, __FILE__, __LINE__, #a, #b)

/* ---- allocation and misc (glibc: support/support.h) ---- */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t s);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xposix_memalign(size_t align, size_t n);
long xsysconf(int name);
void ignore_stderr(void);
void *support_shared_allocate(size_t size);
void support_shared_free(void *p);
void write_message(const char *s);

/* ---- threads (glibc: support/xthread.h) ---- */
void xpthread_check_return(const char *function, int value);
pthread_t xpthread_create(pthread_attr_t *attr, void *(*fn)(void *), void *closure);
void *xpthread_join(pthread_t thr);
void xpthread_cancel(pthread_t thr);
void xpthread_kill(pthread_t thr, int signo);
void xpthread_detach(pthread_t thr);
void xpthread_mutex_lock(pthread_mutex_t *m);
void xpthread_mutex_unlock(pthread_mutex_t *m);
void xpthread_barrier_init(pthread_barrier_t *b, pthread_barrierattr_t *attr, unsigned int count);
int xpthread_barrier_wait(pthread_barrier_t *b);
void xpthread_barrier_destroy(pthread_barrier_t *b);
void xpthread_barrierattr_init(pthread_barrierattr_t *attr);
void xpthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared);
void xpthread_barrierattr_destroy(pthread_barrierattr_t *attr);

/* ---- processes and files (glibc: support/xunistd.h, xsignal.h, temp_file.h) ---- */
pid_t xfork(void);
pid_t xwaitpid(pid_t pid, int *status, int flags);
void xpipe(int fds[2]);
void xclose(int fd);
void xwrite(int fd, const void *buf, size_t n);
int xopen(const char *path, int flags, mode_t mode);
void *xmmap(void *addr, size_t len, int prot, int flags, int fd);
void xmunmap(void *addr, size_t len);
sighandler_t xsignal(int sig, sighandler_t handler);
void xraise(int sig);
int create_temp_file(const char *base, char **filename); /* removed when the test ends */
void add_temp_file(const char *name);

/* ---- subprocess capture (glibc: support/capture_subprocess.h) ---- */
struct xmemstream {
    FILE *out;
    char *buffer;
    size_t length;
};
struct support_capture_subprocess {
    struct xmemstream out, err;
    int status; /* as from waitpid */
};
struct support_capture_subprocess support_capture_subprocess(void (*callback)(void *), void *closure);
void support_capture_subprocess_free(struct support_capture_subprocess *p);

/* ---- the test driver (glibc: support/test-driver.h) ---- */
struct hb_test_config {
    int (*test_function)(void);
    int (*test_function_argv)(int, char **);
    void (*prepare_function)(int, char **);
    void (*cleanup_function)(void);
    int expected_signal, expected_status, timeout;
};
int hb_test_main(int argc, char **argv, const struct hb_test_config *config);

#endif
