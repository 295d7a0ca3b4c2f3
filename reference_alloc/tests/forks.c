/* forks.c - refmalloc around fork (linked against it): a signal handler that forks while the
 * single-threaded program is inside fork (200 times in a row), and glibc bug 19431's three-way
 * cycle of fork, fflush(NULL) and getdelim (which reallocs under a FILE lock).
 * Each scenario runs in a child with a deadline (rmbounded.h): a deadlock is a FAIL line.
 * Always holds: every scenario runs in its own child with a deadline, which only detects a hang:
 * the checks count events (forks made, forks hit by the handler), not time; every process it
 * forks exits at once and is reaped.
 * Prints PASS/FAIL lines and a summary.
 */
#include "rmbounded.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- a fork inside a fork ---- */

static volatile sig_atomic_t fk_in_fork;     /* the main program is inside fork() */
static volatile sig_atomic_t fk_landed;      /* a handler fork ran while it was */
static volatile sig_atomic_t fk_handler_err; /* a handler fork failed */

/* SIGALRM: fork a child that exits at once (the main program reaps it). */
static void fk_on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        fk_handler_err = 1;
    if (fk_in_fork)
        fk_landed = 1;
    errno = saved;
}

/* Reaps every child that has exited; with block, waits for all of them. */
static void fk_reap(int block)
{
    while (waitpid(-1, NULL, block ? 0 : WNOHANG) > 0)
        ;
}

/* One try: a timer signal due in 10..300 us, then fork. The signal mostly arrives while the
 * clone system call runs, and is delivered as it returns: inside fork, between the atfork
 * prepare and parent handlers. Returns whether the handler's fork ran inside this fork(). */
static int fk_one_fork(timer_t timer, unsigned *seed)
{
    struct itimerspec due = {{0, 0}, {0, 10000 + (long)(rand_r(seed) % 290) * 1000}};
    fk_landed = 0;
    timer_settime(timer, 0, &due, NULL);
    fk_in_fork = 1;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    fk_in_fork = 0;
    if (pid < 0)
        return -1;
    fk_reap(0);
    return fk_landed;
}

/* Forks until 200 of the (single-threaded) program's forks had a handler's fork inside them. */
static int fk_fork_in_fork(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fk_on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    timer_t timer;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGALRM;
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
        return 2;
    unsigned seed = 1;
    int landed = 0, forks = 0;
    while (landed < 200 && forks < 100000 && !fk_handler_err) {
        int r = fk_one_fork(timer, &seed);
        if (r < 0)
            break;
        landed += r;
        forks++;
    }
    timer_delete(timer);
    fk_reap(1);
    printf("note: %d forks of the main program, %d with a handler's fork inside\n", forks, landed);
    return landed == 200 && !fk_handler_err ? 0 : 1;
}

/* ---- fork vs fflush(NULL) vs getdelim (glibc bug 19431) ---- */

enum { FK_FORKERS = 3, FK_FLUSHERS = 3, FK_READERS = 3, FK_FORKS_EACH = 60 };
static volatile int fk_done;
static char *fk_text;  /* long lines: getdelim grows its buffer with realloc under the FILE lock */
static size_t fk_text_len;

static void *fk_forker(void *arg)
{
    (void)arg;
    for (int i = 0; i < FK_FORKS_EACH; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        if (pid > 0)
            waitpid(pid, NULL, 0);
    }
    return NULL;
}

static void *fk_flusher(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&fk_done, __ATOMIC_ACQUIRE))
        fflush(NULL);
    return NULL;
}

static void *fk_reader(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&fk_done, __ATOMIC_ACQUIRE)) {
        FILE *f = fmemopen(fk_text, fk_text_len, "r");
        char *line = NULL;
        size_t cap = 0;
        while (f && getline(&line, &cap, f) > 0) {
            free(line); /* every line grows a fresh buffer: many reallocs under the lock */
            line = NULL;
            cap = 0;
        }
        free(line);
        if (f)
            fclose(f);
    }
    return NULL;
}

/* Runs the three kinds of threads until every forker made its forks. */
static int fk_stdio_cycle(void)
{
    fk_text_len = 8 * 100000;
    fk_text = malloc(fk_text_len);
    memset(fk_text, 'x', fk_text_len);
    for (size_t i = 99999; i < fk_text_len; i += 100000)
        fk_text[i] = '\n';
    pthread_t forkers[FK_FORKERS], others[FK_FLUSHERS + FK_READERS];
    for (int i = 0; i < FK_FLUSHERS + FK_READERS; i++)
        pthread_create(&others[i], NULL, i < FK_FLUSHERS ? fk_flusher : fk_reader, NULL);
    for (int i = 0; i < FK_FORKERS; i++)
        pthread_create(&forkers[i], NULL, fk_forker, NULL);
    for (int i = 0; i < FK_FORKERS; i++)
        pthread_join(forkers[i], NULL);
    __atomic_store_n(&fk_done, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < FK_FLUSHERS + FK_READERS; i++)
        pthread_join(others[i], NULL);
    free(fk_text);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned deadline = argc > 1 ? (unsigned)atoi(argv[1]) : 60;
    rmt_bounded_check("a signal handler forks while the program is in fork: 200 times in a row",
                      fk_fork_in_fork, deadline);
    rmt_bounded_check("fork, fflush(NULL) and getdelim threads do not deadlock (glibc bug 19431)",
                      fk_stdio_cycle, deadline);
    return tcheck_summary();
}
