/* pauser.c - preloaded into a replayer by replay/tests/run, stands for a loaded machine that
 * deschedules a thread for long: HB_PAUSE_EVERY_MS (default 3) ms after the last pause ended it
 * stops one of the process's other threads, in turn, for HB_PAUSE_MS (default 30) ms, wherever that thread is
 * (a signal whose handler sleeps), so that a replay's verdicts can be tested against threads
 * that do not run when they could.
 * Always holds: makes no allocator call after its constructor (its thread's stack is mmap'd by
 * pthread_create), pauses only threads of its own process and never itself, and handles its
 * signal with SA_RESTART, so the paused thread's system calls are resumed, not failed. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAUSE_SIG (SIGRTMIN + 5)

static long env_ms(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : dflt;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static long pause_ms;

static void on_pause(int sig)
{
    (void)sig;
    sleep_ms(pause_ms);
}

/* The tid of the n-th thread of this process (in /proc/self/task's order) other than self, or 0
 * when there are fewer; *count gets how many others there are. */
static pid_t nth_other(DIR *d, pid_t self, unsigned n, unsigned *count)
{
    pid_t pick = 0;
    struct dirent *de;
    *count = 0;
    rewinddir(d);
    while ((de = readdir(d)) != NULL) {
        pid_t tid = (pid_t)atol(de->d_name);
        if (tid <= 0 || tid == self)
            continue;
        if ((*count)++ == n)
            pick = tid;
    }
    return pick;
}

static void *pauser_main(void *arg)
{
    DIR *d = arg;
    long every = env_ms("HB_PAUSE_EVERY_MS", 3);
    pid_t self = (pid_t)syscall(SYS_gettid);
    for (unsigned turn = 0; d; turn++) {
        sleep_ms(every + pause_ms); /* the last pause over first: a thread is never kept stopped */
        unsigned count;
        pid_t tid = nth_other(d, self, turn, &count);
        if (!tid && count)
            tid = nth_other(d, self, turn % count, &count);
        if (tid)
            syscall(SYS_tgkill, getpid(), tid, PAUSE_SIG);
    }
    return NULL;
}

__attribute__((constructor)) static void pauser_start(void)
{
    pause_ms = env_ms("HB_PAUSE_MS", 30);
    struct sigaction sa = {.sa_handler = on_pause, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(PAUSE_SIG, &sa, NULL);
    DIR *d = opendir("/proc/self/task"); /* here, before the replay starts: its buffer is malloc'd */
    if (!d)
        return;
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &at, pauser_main, d);
    pthread_attr_destroy(&at);
}
