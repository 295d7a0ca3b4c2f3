/* test_cellenv.c - unit tests of the argv and envp of a measured process (runner/plan/cellenv.c):
 * inherited LD_PRELOAD/HEAPBENCH_PHASE_FD dropped, env-set names override, the allocator (and
 * the probe for commands) preloaded, nothing preloaded for glibc workloads, libc.so.6 then the
 * probe for glibc commands.
 * Always holds: expectations follow from the environment and cells set up here.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cellenv.h"
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
    hb_cell_envp(&g, &glibc, NULL, &envp);
    TCHECK("glibc workload: inherited LD_PRELOAD dropped, nothing preloaded", count_prefix(&envp, "LD_PRELOAD=", &v) == 0);
    TCHECK("phase fd is 3, once", count_prefix(&envp, "HEAPBENCH_PHASE_FD=", &v) == 1 && strcmp(v, "3") == 0);
    TCHECK("env set overrides the inherited value, once",
           count_prefix(&envp, "MALLOC_ARENA_MAX=", &v) == 1 && strcmp(v, "1") == 0);
    TCHECK("env set value may hold '='", count_prefix(&envp, "EXTRA=", &v) == 1 && strcmp(v, "a=b") == 0);
    TCHECK("the rest of the environment is kept", count_prefix(&envp, "HB_TEST_KEEP=", &v) == 1);
    TCHECK("no probe pid for workloads", count_prefix(&envp, "HEAPBENCH_PROBE_PPID=", &v) == 0);
    hb_strv_free(&envp);

    hb_cell_envp(&g, &je, NULL, &envp);
    TCHECK("preloaded workload: LD_PRELOAD is the library only",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, "/lib/je.so") == 0);
    hb_strv_free(&envp);

    struct hb_workload cmd = {.name = "c", .kind = HB_WL_COMMAND};
    hb_strv_push(&cmd.command, "prog");
    hb_strv_push(&cmd.command, "a b");
    struct hb_group gc = {&cmd, 1, 0, "prog a b", ""};
    hb_cell_argv(&gc, 0, &argv);
    TCHECK("command argv kept word for word", argv.n == 2 && strcmp(argv.v[1], "a b") == 0);
    hb_cell_envp(&gc, &je, "/p/probe.so", &envp);
    TCHECK("command: allocator then probe in LD_PRELOAD",
           count_prefix(&envp, "LD_PRELOAD=", &v) == 1 && strcmp(v, "/lib/je.so /p/probe.so") == 0);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    TCHECK("command: probe told the runner's pid", count_prefix(&envp, "HEAPBENCH_PROBE_PPID=", &v) == 1 && strcmp(v, pid) == 0);
    hb_strv_free(&envp);
    hb_cell_envp(&gc, &glibc, "/p/probe.so", &envp);
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
