/* shardlist.c - prints the cells of one shard (see shardlist.h).
 *
 * Always holds: one line per cell, fields separated by tabs: group index (0-based, the one
 * the shard rule g % N == i-1 is taken on), workload, threads, params, env, allocator.
 */
#include "cli/shardlist.h"

/* Prints the cells of the shard. */
int hb_shardlist_print(const struct hb_matrix *m, FILE *out)
{
    size_t cells = 0;
    fprintf(out, "group\tworkload\tthreads\tparams\tenv\tallocator\n");
    for (size_t g = 0; g < m->ng; g++) {
        if (!hb_matrix_in_shard(m, g))
            continue;
        const struct hb_group *gr = &m->g[g];
        for (size_t a = 0; a < m->nalloc; a++, cells++)
            fprintf(out, "%zu\t%s\t%d\t%s\t%s\t%s\n", g, gr->wl->name, gr->threads, gr->params, gr->env,
                    m->alloc[a]->name);
    }
    fprintf(stderr, "shard %d/%d: %zu of %zu cells\n", m->shard_i, m->shard_n, cells, m->ng * m->nalloc);
    return fflush(out) == 0 ? 0 : 1;
}
