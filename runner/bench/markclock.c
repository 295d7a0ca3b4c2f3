/* markclock.c - build/bench/libmarkclock.so: a clock at every phase end, for runner/bench/markgap.
 *
 * A workload calls the statistics hook heapbench_allocstat right after writing each `phase`
 * record (contract/wl_phase.c). This library defines that hook and, instead of
 * statistics, appends "<phase>\t<CLOCK_MONOTONIC seconds>\n" to the file named by
 * HB_MARKCLOCK_FILE, so markgap knows when each phase end really happened on the machine's clock.
 * Always holds: one write(2) per phase end, nothing allocated; without HB_MARKCLOCK_FILE, nothing
 * is written; the only exported symbol is heapbench_allocstat (-fvisibility=hidden).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int mc_fd = -1; /* the clock file, -1 when none */

/* Before main: opens the clock file named by HB_MARKCLOCK_FILE. */
__attribute__((constructor)) static void mc_open(void)
{
    const char *path = getenv("HB_MARKCLOCK_FILE");
    if (path && *path)
        mc_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* Called right after the `phase` record of phase was written: appends the phase and the time now. */
__attribute__((visibility("default"))) void heapbench_allocstat(int fd, const char *phase)
{
    struct timespec ts;
    char line[256];
    (void)fd;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int n = snprintf(line, sizeof line, "%s\t%lld.%09ld\n", phase, (long long)ts.tv_sec, ts.tv_nsec);
    if (mc_fd >= 0 && n > 0 && n < (int)sizeof line && write(mc_fd, line, (size_t)n) != n)
        mc_fd = -1; /* a benchmark helper: a failed write only leaves the mark out */
}
