/* cancel.c - refmalloc under thread cancellation (linked against it): a thread cancelled while
 * malloc_info writes leaves no lock behind, and malloc_stats cannot be cut short by a cancel.
 * Each scenario blocks the printing thread on a full pipe, so the cancel always lands inside the
 * call; each runs in a child with a deadline (rmbounded.h): a hang is a FAIL line.
 * Always holds: the cancelled thread is always blocked in write(2) (the pipe is full before it
 * starts), so the outcome does not depend on timing; stderr is restored before the check ends.
 * Prints PASS/FAIL lines and a summary.
 */
#include "rmbounded.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A pipe whose buffer is full, so the next write to fds[1] blocks until fds[0] is read. */
static int cn_full_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return -1;
    int flags = fcntl(fds[1], F_GETFL);
    fcntl(fds[1], F_SETFL, flags | O_NONBLOCK);
    char block[4096];
    memset(block, '.', sizeof block);
    while (write(fds[1], block, sizeof block) > 0)
        ;
    while (write(fds[1], block, 1) > 0)
        ;
    fcntl(fds[1], F_SETFL, flags);
    return 0;
}

static void *cn_info_thread(void *fp)
{
    malloc_info(0, fp);
    return NULL;
}

/* Cancels a thread blocked inside malloc_info, then calls malloc_info again. */
static int cn_info_cancelled(void)
{
    int fds[2];
    if (cn_full_pipe(fds) != 0)
        return 2;
    FILE *fp = fdopen(fds[1], "w");
    setvbuf(fp, NULL, _IONBF, 0);
    pthread_t t;
    void *ret;
    pthread_create(&t, NULL, cn_info_thread, fp);
    pthread_cancel(t);
    pthread_join(t, &ret);
    if (ret != PTHREAD_CANCELED)
        printf("note: the thread was not cancelled inside malloc_info\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc = malloc_info(0, mem);
    fclose(mem);
    int ok = ret == PTHREAD_CANCELED && rc == 0 && strstr(buf, "</malloc>") != NULL;
    free(buf);
    return ok ? 0 : 1;
}

static void *cn_stats_thread(void *arg)
{
    (void)arg;
    malloc_stats();
    return NULL;
}

struct cn_drain {
    int fd;
    char *buf;
    size_t len;
};

/* Reads fd to its end into a memstream. */
static void *cn_drainer(void *arg)
{
    struct cn_drain *d = arg;
    FILE *mem = open_memstream(&d->buf, &d->len);
    char chunk[4096];
    ssize_t n;
    while ((n = read(d->fd, chunk, sizeof chunk)) > 0)
        fwrite(chunk, 1, (size_t)n, mem);
    fclose(mem);
    return NULL;
}

/* Cancels a thread blocked inside malloc_stats (stderr on a full pipe); its output must still
 * end with the last line glibc's malloc_stats prints. */
static int cn_stats_cancelled(void)
{
    int fds[2];
    if (cn_full_pipe(fds) != 0)
        return 2;
    int saved_err = dup(2);
    dup2(fds[1], 2);
    pthread_t t, drainer;
    struct cn_drain d = {fds[0], NULL, 0};
    pthread_create(&t, NULL, cn_stats_thread, NULL);
    pthread_cancel(t);
    pthread_create(&drainer, NULL, cn_drainer, &d);
    pthread_join(t, NULL);
    dup2(saved_err, 2);
    close(fds[1]);
    pthread_join(drainer, NULL);
    int ok = d.buf && strstr(d.buf, "max mmap bytes") != NULL;
    if (!ok)
        printf("note: malloc_stats output was cut short\n");
    free(d.buf);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    unsigned deadline = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
    rmt_bounded_check("malloc_info after a thread was cancelled inside malloc_info does not hang",
                      cn_info_cancelled, deadline);
    rmt_bounded_check("malloc_stats cancelled while writing still prints all its lines",
                      cn_stats_cancelled, deadline);
    return tcheck_summary();
}
