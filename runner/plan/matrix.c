/* matrix.c - builds the matrix from the options and knows its order (see matrix.h).
 *
 * Always holds: groups are enumerated workload-major (workload, params, threads, env), so the
 * same options give the same groups, indices and run numbers on every machine and resume.
 */
#include "plan/matrix.h"
#include "thp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a group. */
static void hb_matrix_add(struct hb_matrix *m, struct hb_workload *w, int threads, int pass,
                          const char *params, const char *env)
{
    m->g = hb_xappend(m->g, m->ng, sizeof *m->g);
    m->g[m->ng++] = (struct hb_group){w, threads, pass, params, env};
}

/* 1 when one of the NAME=VALUE pairs names name. */
static int hb_pairs_name(const struct hb_strv *pairs, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < pairs->n; i++)
        if (strncmp(pairs->v[i], name, len) == 0 && pairs->v[i][len] == '=')
            return 1;
    return 0;
}

/* The workloads chosen: -w names, or the default set for the subcommand. */
static void hb_matrix_pick_workloads(struct hb_matrix *m, const struct hb_options *o, struct hb_worklist *wl)
{
    if (o->workloads.n && o->cmd == HB_CMD_RUN) {
        for (size_t i = 0; i < o->workloads.n; i++) {
            if (!hb_worklist_find(wl, o->workloads.v[i])) {
                char *names = hb_worklist_names(wl);
                hb_usage("unknown workload '%s'; valid: %s", o->workloads.v[i], names);
            }
            hb_strv_push(&m->workloads, o->workloads.v[i]);
        }
        return;
    }
    for (size_t i = 0; i < wl->n; i++) {
        struct hb_workload *w = &wl->w[i];
        int wanted = o->cmd == HB_CMD_EXEC ? w->kind == HB_WL_COMMAND
                     : o->user_bins.n      ? hb_pairs_name(&o->user_bins, w->name)
                     : w->kind == HB_WL_PROGRAM ? !o->quick && !(w->prog->matrix && !strcmp(w->prog->matrix, "opt-in"))
                     : strncmp(w->name, "trace:", 6) == 0 ? !o->quick
                                                : w->kind == HB_WL_BINARY;
        if (wanted)
            hb_strv_push(&m->workloads, w->name);
    }
}

/* The allocators chosen: -a names, or every default one plus the --allocator ones. */
static void hb_matrix_pick_allocs(struct hb_matrix *m, const struct hb_options *o, struct hb_registry *reg)
{
    for (size_t i = 0; i < o->allocators.n; i++) {
        struct hb_alloc *a = hb_registry_find(reg, o->allocators.v[i]);
        if (!a) {
            char *names = hb_registry_names(reg);
            hb_usage("unknown allocator '%s'; valid: %s (or add one with --allocator NAME=/path/lib.so)",
                     o->allocators.v[i], names);
        }
        m->alloc = hb_xappend(m->alloc, m->nalloc, sizeof *m->alloc);
        m->alloc[m->nalloc++] = a;
    }
    for (size_t i = 0; i < reg->n && !o->allocators.n; i++) {
        if (reg->a[i].is_default || hb_pairs_name(&o->user_allocs, reg->a[i].name)) {
            m->alloc = hb_xappend(m->alloc, m->nalloc, sizeof *m->alloc);
            m->alloc[m->nalloc++] = &reg->a[i];
        }
    }
}

/* Adds set to the env axis, once per mode of --thp M1,M2,... when that is an axis. */
static void hb_matrix_add_env(struct hb_matrix *m, const struct hb_options *o, const char *set)
{
    if (!o->thp_axis.n) {
        hb_strv_push(&m->envs, set);
        return;
    }
    if (hb_thp_of_env(set, -1) != -1)
        hb_usage("--thp: the env set '%s' already sets HEAPBENCH_THP; give the modes with --thp or with --env, "
                 "not both", set);
    for (size_t t = 0; t < o->thp_axis.n; t++) {
        char *with = hb_xasprintf("%s%sHEAPBENCH_THP=%s", set, set[0] ? " " : "", o->thp_axis.v[t]);
        hb_strv_push(&m->envs, with);
        free(with);
    }
}

/* Checks and normalises the environment sets ("K=V K2=V2", single spaces). */
static void hb_matrix_pick_envs(struct hb_matrix *m, const struct hb_options *o)
{
    if (!o->envs.n)
        hb_matrix_add_env(m, o, "");
    for (size_t i = 0; i < o->envs.n; i++) {
        struct hb_strv words = {0};
        hb_strv_split(&words, o->envs.v[i], " \t", 0);
        for (size_t k = 0; k < words.n; k++)
            if (!strchr(words.v[k], '=') || words.v[k][0] == '=')
                hb_usage("--env '%s': '%s' is not NAME=VALUE; give e.g. --env 'MALLOC_ARENA_MAX=1'",
                         o->envs.v[i], words.v[k]);
        char *norm = hb_strv_join(&words, " ");
        hb_matrix_add_env(m, o, norm);
        free(norm);
        hb_strv_free(&words);
    }
}

/* Builds every group of the chosen workloads. */
void hb_matrix_build(struct hb_matrix *m, const struct hb_options *o, struct hb_worklist *wl,
                     struct hb_registry *reg)
{
    memset(m, 0, sizeof *m);
    m->reps = o->reps;
    m->warmup = o->warmup;
    m->quick = o->quick;
    m->alternate = o->alternate;
    m->shard_i = o->shard_i;
    m->shard_n = o->shard_n;
    hb_matrix_pick_workloads(m, o, wl);
    hb_matrix_pick_allocs(m, o, reg);
    hb_matrix_pick_envs(m, o);
    for (size_t i = 0; i < m->workloads.n; i++) {
        struct hb_workload *w = hb_worklist_find(wl, m->workloads.v[i]);
        const struct hb_strv *params = w->kind == HB_WL_BINARY && o->params.n ? &o->params
                                       : o->quick                             ? &w->quick_params
                                                                              : &w->params;
        int user_threads[HB_MAX_THREADS];
        size_t nt = w->nthreads;
        const int *threads = w->threads;
        if (nt && o->threads.n) {
            nt = o->threads.n < HB_MAX_THREADS ? o->threads.n : HB_MAX_THREADS;
            for (size_t t = 0; t < nt; t++)
                hb_parse_int(o->threads.v[t], &user_threads[t]);
            threads = user_threads;
        }
        for (size_t p = 0; p < params->n; p++)
            for (size_t t = 0; t < (nt ? nt : 1); t++)
                for (size_t e = 0; e < m->envs.n; e++)
                    hb_matrix_add(m, w, nt ? threads[t] : 1, nt != 0, params->v[p], m->envs.v[e]);
    }
    m->done = hb_xcalloc((size_t)m->reps * (m->ng ? m->ng : 1) * (m->nalloc ? m->nalloc : 1), 1);
}

/* Full-matrix run number. */
size_t hb_matrix_run(const struct hb_matrix *m, int rep, size_t g, size_t a)
{
    return ((size_t)(rep - 1) * m->ng + g) * m->nalloc + a + 1;
}

/* Shard membership of a group. */
int hb_matrix_in_shard(const struct hb_matrix *m, size_t g)
{
    return (int)(g % (size_t)m->shard_n) == m->shard_i - 1;
}

/* Done flag address. */
unsigned char *hb_matrix_done(const struct hb_matrix *m, int rep, size_t g, size_t a)
{
    return &m->done[hb_matrix_run(m, rep, g, a) - 1];
}

/* Marks a runs.csv row's cell done. */
int hb_matrix_mark(struct hb_matrix *m, const char *workload, const char *allocator, const char *threads,
                   const char *params, const char *env, const char *rep, size_t *gp, size_t *ap)
{
    int r, t;
    if (hb_parse_int(rep, &r) || r < 1 || r > m->reps || hb_parse_int(threads, &t))
        return -1;
    for (size_t a = 0; a < m->nalloc; a++) {
        if (strcmp(m->alloc[a]->name, allocator) != 0)
            continue;
        for (size_t g = 0; g < m->ng; g++) {
            const struct hb_group *gr = &m->g[g];
            if (gr->threads == t && strcmp(gr->wl->name, workload) == 0 &&
                strcmp(gr->params, params) == 0 && strcmp(gr->env, env) == 0) {
                *hb_matrix_done(m, r, g, a) = 1;
                *gp = g;
                *ap = a;
                return 0;
            }
        }
    }
    return -1;
}

/* The group visited k-th in round: k, or ng-1-k in the even rounds of --alternate (matrix.h). */
size_t hb_matrix_group_at(const struct hb_matrix *m, int round, size_t k)
{
    return m->alternate && round % 2 == 0 ? m->ng - 1 - k : k;
}

/* Undone measured (rep, cell) pairs of this shard. */
size_t hb_matrix_pending(const struct hb_matrix *m)
{
    size_t n = 0;
    for (int r = 1; r <= m->reps; r++)
        for (size_t g = 0; g < m->ng; g++)
            for (size_t a = 0; a < m->nalloc && hb_matrix_in_shard(m, g); a++)
                n += !*hb_matrix_done(m, r, g, a);
    return n;
}

/* Whether group g has work left. */
int hb_matrix_group_pending(const struct hb_matrix *m, size_t g)
{
    for (int r = 1; r <= m->reps; r++)
        for (size_t a = 0; a < m->nalloc && hb_matrix_in_shard(m, g); a++)
            if (!*hb_matrix_done(m, r, g, a))
                return 1;
    return 0;
}

/* Frees what the matrix owns (not the workloads or allocators). */
void hb_matrix_free(struct hb_matrix *m)
{
    free(m->g);
    free(m->alloc);
    free(m->done);
    hb_strv_free(&m->envs);
    hb_strv_free(&m->workloads);
    memset(m, 0, sizeof *m);
}
