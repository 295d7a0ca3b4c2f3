/* cellenv.c - builds argv and envp of a measured process (see cellenv.h).
 *
 * Always holds: every string is built here, in the parent, so hb_launch() allocates nothing
 * between fork and exec.
 */
#include "plan/cellenv.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/runresult.h"
#include "base/spawner.h"
#include "thp.h"

/* Builds the group's argv. */
void hb_cell_argv(const struct hb_group *g, int quick, struct hb_strv *argv)
{
    const struct hb_workload *w = g->wl;
    switch (w->kind) {
    case HB_WL_BINARY:
        hb_strv_push(argv, w->bin);
        hb_strv_extend(argv, &w->args);
        if (g->pass_threads)
            hb_strv_pushf(argv, "--threads=%d", g->threads);
        if (quick)
            hb_strv_push(argv, "--quick");
        hb_strv_split(argv, g->params, " \t", 0);
        break;
    case HB_WL_PROGRAM:
        hb_program_argv(w->prog, w->prog->command, argv);
        break;
    case HB_WL_COMMAND:
        hb_strv_extend(argv, &w->command);
        break;
    }
}

/* The library to preload first for a: the allocator's own; for glibc, the C library itself when
 * the probe is preloaded (commands and programs, which may be linked with another allocator,
 * like Debian's redis-server with libjemalloc: glibc's malloc must then come first in the
 * lookup order); NULL for glibc workloads (nothing preloaded). */
static const char *hb_cell_first_lib(const struct hb_alloc *a, const char *probe)
{
    if (!a->system)
        return a->lib;
    return probe ? hb_registry_expected(a) : NULL;
}

/* The index of the last NAME=... word of words (the cell's env set), or words->n. */
static size_t hb_cell_word(const struct hb_strv *words, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = words->n; i-- > 0;)
        if (strncmp(words->v[i], name, len) == 0 && words->v[i][len] == '=')
            return i;
    return words->n;
}

/* Adds the allocator's huge-page switch for mode to words, merged into the variable's current
 * value (contract/thp.c); nothing when the allocator has no switch or the mode needs none. */
static void hb_cell_thp(struct hb_strv *words, const struct hb_alloc *a, int mode)
{
    char buf[1024];
    const char *var = hb_thp_env_name(a->tunables, !a->system);
    if (!var)
        return;
    size_t i = hb_cell_word(words, var);
    const char *cur = i < words->n ? words->v[i] + strlen(var) + 1 : getenv(var);
    const char *v = hb_thp_env_value(mode, a->tunables, !a->system, cur, buf, sizeof buf);
    if (!v)
        return;
    if (i < words->n) {
        free(words->v[i]);
        words->v[i] = hb_xasprintf("%s=%s", var, v);
    } else {
        hb_strv_pushf(words, "%s=%s", var, v);
    }
}

/* The cell's mode and the mode in effect (cellenv.h). */
int hb_cell_thp_mode(const struct hb_group *g, const struct hb_alloc *a, int dflt, int sys, const char **in_effect)
{
    int mode = hb_thp_of_env(g->env, dflt);
    *in_effect = hb_thp_in_effect(mode >= 0 ? mode : HB_THP_MADVISE, sys, a->tunables, !a->system);
    return mode;
}

/* The measured process's environment. */
void hb_cell_envp(const struct hb_group *g, const struct hb_alloc *a, const struct hb_cell_extra *x,
                  struct hb_strv *envp)
{
    struct hb_strv words = {0};
    hb_strv_split(&words, g->env, " \t", 0);
    if (g->wl->kind == HB_WL_PROGRAM)
        hb_program_env(g->wl->prog, &words);
    if (x->thp >= 0)
        hb_cell_thp(&words, a, x->thp);
    hb_spawn_clean_env(&words, envp);
    const char *probe = x->probe;
    const char *lib = hb_cell_first_lib(a, probe);
    const char *second = probe ? probe : x->stats;
    if (lib && second)
        hb_strv_pushf(envp, "LD_PRELOAD=%s %s", lib, second);
    else if (lib || second)
        hb_strv_pushf(envp, "LD_PRELOAD=%s", lib ? lib : second);
    hb_strv_pushf(envp, "HEAPBENCH_PHASE_FD=%d", HB_PHASE_FD_CHILD);
    if (probe)
        hb_strv_pushf(envp, "HEAPBENCH_PROBE_PPID=%d", (int)getpid());
    hb_strv_extend(envp, &words);
    hb_strv_free(&words);
}

/* Environment for helpers that must not be preloaded. */
void hb_cell_plain_envp(const struct hb_program *p, struct hb_strv *envp)
{
    struct hb_strv words = {0};
    if (p)
        hb_program_env(p, &words);
    hb_spawn_clean_env(&words, envp);
    hb_strv_extend(envp, &words);
    hb_strv_free(&words);
}
