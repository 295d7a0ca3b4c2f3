/* ctlcost.c - build/bench/hbstats-ctlcost: what each mallctl step of the statistics library costs
 * jemalloc in resident memory, for allocators/stats/bench.
 *
 *   LD_PRELOAD=libjemalloc.so.2 build/bench/hbstats-ctlcost [THREADS]
 *
 * Touches THREADS arenas first (each thread makes one small allocation, which binds it to an
 * arena of its own while there are fewer threads than automatic arenas), then takes the library's
 * steps one at a time: the first mallctl of any name (which makes jemalloc build its statistics
 * structures, ctl_init), the "epoch" refresh, the six stats.* reads, a second epoch; and prints
 * for each the minor page faults it caused and the change of anonymous and of file-backed RSS
 * (/proc/self/status RssAnon, RssFile: memory jemalloc wrote, and its code paged in by the
 * kernel's fault-around), then jemalloc's own opt.narenas, arenas.narenas and stats.metadata.
 * Always holds: a benchmark helper, not a test; nothing of it allocates between two measurements
 * (stack buffers, raw open/read, sscanf on a stack string); mallctl is looked up with dlsym, so the program runs (and says
 * so, exit 1) without jemalloc preloaded; exit 2 on a usage error.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef int (*cc_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static cc_mallctl_fn cc_ctl;

/* RssAnon (file 0) or RssFile (file 1) of /proc/self/status, KiB; -1 when unreadable. */
static long cc_rss_kb(int file)
{
    char buf[4096];
    long kb = -1;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *at = strstr(buf, file ? "\nRssFile:" : "\nRssAnon:");
    if (at)
        sscanf(at + 9, "%ld", &kb);
    return kb;
}

static long cc_minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* One allocation that stays: binds the thread to an arena. */
static void *cc_touch(void *arg)
{
    (void)arg;
    return malloc(64);
}

/* What the process had at the last step: minor faults, anonymous and file-backed resident KiB. */
struct cc_mark {
    long flt, anon, file;
};

static struct cc_mark cc_now(void)
{
    return (struct cc_mark){cc_minflt(), cc_rss_kb(0), cc_rss_kb(1)};
}

/* Prints one step: its name and what changed since *last, then moves *last to now. */
static void cc_step(const char *name, struct cc_mark *last)
{
    struct cc_mark now = cc_now();
    printf("| %s | %ld | %ld | %ld |\n", name, now.flt - last->flt, now.anon - last->anon, now.file - last->file);
    *last = cc_now();
}

/* A size_t or unsigned statistic by name (0 when refused). */
static size_t cc_read(const char *name, size_t width)
{
    size_t v = 0;
    unsigned u = 0;
    size_t sz = width;
    cc_ctl(name, width == sizeof u ? (void *)&u : (void *)&v, &sz, NULL, 0);
    return width == sizeof u ? u : v;
}

int main(int argc, char **argv)
{
    static const char *const stats[] = {"stats.allocated", "stats.active", "stats.resident",
                                        "stats.mapped", "stats.retained", "stats.metadata"};
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (argc > 2 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: %s [THREADS 1..64] (under LD_PRELOAD of jemalloc)\n", argv[0]);
        return 2;
    }
    cc_ctl = (cc_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
    if (!cc_ctl) {
        fprintf(stderr, "%s: no mallctl in the process: preload jemalloc (LD_PRELOAD=.../libjemalloc.so.2)\n", argv[0]);
        return 1;
    }
    void *keep[64];
    keep[0] = malloc(64);
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, cc_touch, NULL) != 0 || pthread_join(t, &keep[i]) != 0) {
            fprintf(stderr, "%s: cannot start thread %d\n", argv[0], i);
            return 1;
        }
    }
    struct cc_mark last = cc_now();
    printf("| step (%d threads) | minor faults | RssAnon change, KiB (jemalloc's structures) | RssFile change, KiB (code paged in) |\n"
           "| --- | --- | --- | --- |\n", threads);
    const char *version = NULL;
    size_t vsz = sizeof version;
    cc_ctl("version", &version, &vsz, NULL, 0);
    cc_step("first mallctl (\"version\": ctl_init)", &last);
    uint64_t epoch = 1;
    size_t esz = sizeof epoch;
    cc_ctl("epoch", &epoch, &esz, &epoch, esz);
    cc_step("\"epoch\" (refresh)", &last);
    for (size_t i = 0; i < sizeof stats / sizeof *stats; i++)
        cc_read(stats[i], sizeof(size_t));
    cc_step("the six stats.* reads", &last);
    cc_ctl("epoch", &epoch, &esz, &epoch, esz);
    cc_step("a second \"epoch\"", &last);
    printf("\njemalloc %s: opt.narenas %zu, arenas.narenas %zu, stats.metadata %zu B\n", version ? version : "?",
           cc_read("opt.narenas", sizeof(unsigned)), cc_read("arenas.narenas", sizeof(unsigned)),
           cc_read("stats.metadata", sizeof(size_t)));
    for (int i = 0; i < threads; i++)
        free(keep[i]);
    return 0;
}
