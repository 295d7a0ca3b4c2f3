/* hb-thp.c - runs a command under a transparent-huge-page mode: build/hb-thp MODE [--tunables F] [--preloaded] (--show | -- CMD ARGS...).
 *
 * MODE is never, madvise or always (thp.h). --tunables names the allocator's tunables family
 * (the registry column: glibc, jemalloc, tcmalloc, mimalloc, tbb, none; default glibc);
 * --preloaded says the allocator is preloaded (glibc's tunables then switch nothing). It sets the
 * allocator's switch in the environment, sets or clears PR_SET_THP_DISABLE, and execs CMD.
 * --show prints instead, one `name=value` per line: requested, system, in_effect, prctl, and the
 * variable it sets (env), then exits 0.
 * Always holds: usage errors print one line on stderr and exit 2; a failed exec exits 127. */
#include "thp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The parsed command line. */
struct ht_args {
    int mode, preloaded, show;
    const char *family;
    char **cmd;
};

/* One usage error line, exit 2. */
static void ht_usage(const char *what)
{
    fprintf(stderr, "hb-thp: %s; usage: hb-thp never|madvise|always [--tunables FAMILY] [--preloaded] (--show | -- CMD ARGS...)\n", what);
    exit(2);
}

/* Parses argv or exits 2. */
static struct ht_args ht_parse(int argc, char **argv)
{
    struct ht_args a = {-1, 0, 0, "glibc", NULL};
    if (argc < 2 || (a.mode = hb_thp_parse(argv[1])) < 0)
        ht_usage("the first argument must be never, madvise or always");
    for (int i = 2; i < argc && !a.cmd; i++) {
        if (strcmp(argv[i], "--tunables") == 0 && i + 1 < argc)
            a.family = argv[++i];
        else if (strcmp(argv[i], "--preloaded") == 0)
            a.preloaded = 1;
        else if (strcmp(argv[i], "--show") == 0)
            a.show = 1;
        else if (strcmp(argv[i], "--") == 0 && i + 1 < argc)
            a.cmd = &argv[i + 1];
        else
            ht_usage("unexpected argument (or a missing value or command)");
    }
    if (!a.show && !a.cmd)
        ht_usage("give --show or -- CMD");
    return a;
}

/* Sets the allocator's switch; returns the NAME=VALUE it set ("" when none) in line. */
static void ht_env(const struct ht_args *a, char *line, size_t n)
{
    char value[1024];
    const char *var = hb_thp_env_name(a->family, a->preloaded);
    const char *v = var ? hb_thp_env_value(a->mode, a->family, a->preloaded, getenv(var), value, sizeof value) : NULL;
    line[0] = '\0';
    if (!v)
        return;
    setenv(var, v, 1);
    snprintf(line, n, "%s=%s", var, v);
}

int main(int argc, char **argv)
{
    struct ht_args a = ht_parse(argc, argv);
    char env[1100];
    ht_env(&a, env, sizeof env);
    int rc = a.show ? 0 : hb_thp_prctl(a.mode);
    if (a.show) {
        printf("requested=%s\nsystem=%s\nin_effect=%s\nprctl=%s\nenv=%s\n", hb_thp_name(a.mode),
               hb_thp_name(hb_thp_system()), hb_thp_in_effect(a.mode, hb_thp_system(), a.family, a.preloaded),
               a.mode == HB_THP_NEVER ? "PR_SET_THP_DISABLE=1" : "PR_SET_THP_DISABLE=0", env);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "hb-thp: prctl(PR_SET_THP_DISABLE) failed: %s; this kernel cannot set the mode per process\n",
                strerror(-rc));
        return 2;
    }
    execvp(a.cmd[0], a.cmd);
    fprintf(stderr, "hb-thp: cannot run %s: %s\n", a.cmd[0], strerror(errno));
    return 127;
}
