/* test_cellenv.c - unit tests of the argv and envp of a measured process (runner/plan/cellenv.c):
 * inherited LD_PRELOAD/HEAPBENCH_PHASE_FD dropped, env-set names override, the allocator (and
 * the probe for commands) preloaded, nothing preloaded for glibc workloads, libc.so.6 then the
 * probe for glibc commands; the cell's huge-page mode and the mode in effect (hb_cell_thp_mode).
 * Always holds: expectations follow from the environment and cells set up here.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/cellenv.h"
#include "thp.h"
#include "tcheck.h"

/* How many entries of envp start with prefix; *value gets the last one's text after prefix. */
static int count_prefix(const struct hb_strv *envp, const char *prefix, const char **value)
{
    int n = 0;
    for (size_t i = 0; i < envp->n; i++)
        if (strncmp(envp->v[i], prefix, strlen(prefix)) == 0) {
            n++;
            *value = envp->v[i] + strlen(prefix);
        }
    return n;
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    setenv("LD_PRELOAD", "/inherited/lib.so", 1);
    setenv("HEAPBENCH_PHASE_FD", "9", 1);
    setenv("HB_TEST_KEEP", "kept", 1);
    setenv("MALLOC_ARENA_MAX", "8", 1);
    struct hb_workload bin = {.name = "w", .kind = HB_WL_BINARY, .bin = "/x/w", .nthreads = 1};
    struct hb_group g = {&bin, 4, 1, "--ops=10  --mode=loop", "MALLOC_ARENA_MAX=1 EXTRA=a=b"};
    struct hb_alloc glibc = {.name = "glibc", .system = 1, .found = 1};
    struct hb_alloc je = {.name = "je", .found = 1, .lib = "/lib/je.so"};
    const char *v = NULL;
    const struct hb_cell_extra none = {NULL, NULL, -1}, probe = {"/p/probe.so", NULL, -1};

    struct hb_strv argv = {0};
    hb_cell_argv(&g, 1, &argv);
    TCHECK("workload argv: binary, --threads, --quick, params split on blanks",
           argv.n == 5 && strcmp(argv.v[0], "/x/w") == 0 && strcmp(argv.v[1], "--threads=4") == 0 &&
               strcmp(argv.v[2], "--quick") == 0 && strcmp(argv.v[4], "--mode=loop") == 0 && !argv.v[5]);
    hb_strv_free(&argv);
    g.pass_threads = 0;
    hb_cell_argv(&g, 0, &argv);
    TCHECK("single-threaded, not quick: no --threads, no --quick", argv.n == 3 && strcmp(argv.v[1], "--ops=10") == 0);
    hb_strv_free(&argv);

    struct hb_strv envp = {0};
    hb_cell_envp(&g, &glibc, &none, &envp);
    TCHECK("glibc workload: inherited LD_PRELOAD dropped, nothing preloaded", count_prefix(&envp, "LD_PRELOAD=", &v) == 0);
    TCHECK("phase fd is 3, once", count_prefix(&envp, "HEAPBENCH_PHASE_FD=", &v) == 1 && strcmp(v, "3") == 0);
    TCHECK("env set overrides the inherited value, once",
           count_prefix(&envp, "MALLOC_ARENA_MAX=", &v) == 1 && strcmp(v, "1") == 0);
    TCHECK("env set value may hold '='", count_prefix(&envp, "EXTRA=", &v) == 1 && strcmp(v, "a=b") == 0);
    TCHECK("the rest of the environment is kept", count_prefix(&envp, "HB_TEST_KEEP=", &v) == 1);
    TCHECK("no probe pid for workloads", count_prefix(&envp, "HEAPBENCH_PROBE_PPID=", &v) == 0);
    hb_strv_free(&envp);

    hb_cell_envp(&g, &je, &none, &envp);
    TCHECK("preloaded workload: LD_PRELOAD is the library only",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, "/lib/je.so") == 0);
    hb_strv_free(&envp);

    const struct hb_cell_extra stats = {NULL, "/s/stats.so", -1};
    hb_cell_envp(&g, &je, &stats, &envp);
    TCHECK("--allocstats: the statistics library after the allocator",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, "/lib/je.so /s/stats.so") == 0);
    hb_strv_free(&envp);
    hb_cell_envp(&g, &glibc, &stats, &envp);
    TCHECK("--allocstats under glibc: the statistics library alone",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, "/s/stats.so") == 0);
    hb_strv_free(&envp);

    /* --thp: the allocator's switch, merged into the env set's value of the same variable. */
    struct hb_alloc jet = {.name = "je", .found = 1, .lib = "/lib/je.so", .tunables = "jemalloc"};
    struct hb_alloc tc = {.name = "tc", .found = 1, .lib = "/lib/tc.so", .tunables = "tcmalloc"};
    struct hb_group gm = {&bin, 1, 0, "", "MALLOC_CONF=dirty_decay_ms:0"};
    const struct hb_cell_extra always = {NULL, NULL, 2};
    hb_cell_envp(&gm, &jet, &always, &envp);
    TCHECK("--thp always, jemalloc: thp:always merged into the env set's MALLOC_CONF, once",
           count_prefix(&envp, "MALLOC_CONF=", &v) == 1 && strcmp(v, "dirty_decay_ms:0,thp:always") == 0);
    hb_strv_free(&envp);
    hb_cell_envp(&gm, &tc, &always, &envp);
    TCHECK("--thp always, tcmalloc: no switch, the env set unchanged",
           count_prefix(&envp, "MALLOC_CONF=", &v) == 1 && strcmp(v, "dirty_decay_ms:0") == 0);
    hb_strv_free(&envp);

    /* The cell's mode: its env set's HEAPBENCH_THP before --thp; the mode in effect from it. */
    const char *eff = NULL;
    struct hb_group gt = {&bin, 1, 0, "", "A=1 HEAPBENCH_THP=never"};
    TCHECK("thp mode: the env set's HEAPBENCH_THP=never wins over --thp always, and is in effect",
           hb_cell_thp_mode(&gt, &jet, HB_THP_ALWAYS, HB_THP_MADVISE, &eff) == HB_THP_NEVER && strcmp(eff, "never") == 0);
    TCHECK("thp mode: --thp always under a madvise system is in effect through jemalloc's switch",
           hb_cell_thp_mode(&gm, &jet, HB_THP_ALWAYS, HB_THP_MADVISE, &eff) == HB_THP_ALWAYS && strcmp(eff, "always") == 0);
    TCHECK("thp mode: --thp always under a madvise system stays madvise for tcmalloc (no switch)",
           hb_cell_thp_mode(&gm, &tc, HB_THP_ALWAYS, HB_THP_MADVISE, &eff) == HB_THP_ALWAYS && strcmp(eff, "madvise") == 0);
    TCHECK("thp mode: none asked is -1, and the system's mode is in effect",
           hb_cell_thp_mode(&gm, &jet, -1, HB_THP_ALWAYS, &eff) == -1 && strcmp(eff, "always") == 0);

    struct hb_workload cmd = {.name = "c", .kind = HB_WL_COMMAND};
    hb_strv_push(&cmd.command, "prog");
    hb_strv_push(&cmd.command, "a b");
    struct hb_group gc = {&cmd, 1, 0, "prog a b", ""};
    hb_cell_argv(&gc, 0, &argv);
    TCHECK("command argv kept word for word", argv.n == 2 && strcmp(argv.v[1], "a b") == 0);
    hb_cell_envp(&gc, &je, &probe, &envp);
    TCHECK("command: allocator then probe in LD_PRELOAD",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, "/lib/je.so /p/probe.so") == 0);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    TCHECK("command: probe told the runner's pid", count_prefix(&envp, "HEAPBENCH_PROBE_PPID=", &v) == 1 && strcmp(v, pid) == 0);
    hb_strv_free(&envp);
    hb_cell_envp(&gc, &glibc, &probe, &envp);
    char want[4096];
    snprintf(want, sizeof want, "%s /p/probe.so", hb_registry_expected(&glibc));
    TCHECK("command under glibc: the C library (absolute libc.so.6 path), then the probe",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, want) == 0 && v[0] == '/' &&
               strstr(v, "/libc.so.6 /p/probe.so"));
    hb_strv_free(&envp);
    hb_strv_free(&argv);
    hb_strv_free(&cmd.command);
    return tcheck_summary();
}
