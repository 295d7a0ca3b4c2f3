/* site_map.c - a trace's call sites read into tables (site_map.h).
 * Always holds: see site_map.h; the site chunks are read once (a run may come before the definition
 * it names: the runs' ids are checked and folded after the pass, over the per-object table). */
#include "site_map.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fill {
    struct site_map *m;
    uint32_t cap;              /* stacks' room, in stacks */
    size_t maps_cap;           /* maps' room, in bytes */
    uint32_t bad;              /* a run's id without a definition, found after the pass */
    int oom;
    uint32_t *alias;           /* per id - 1: the first id of the same frames */
};

static const struct site_stack *sort_base;

static int by_frames(const void *a, const void *b)
{
    const struct site_stack *x = &sort_base[*(const uint32_t *)a], *y = &sort_base[*(const uint32_t *)b];
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    int c = memcmp(x->f, y->f, x->n * sizeof x->f[0]);
    return c ? c : *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* alias[i]: the first id whose stack has the frames of id i + 1 (ids never defined keep 0). 0, or -1
 * when out of memory. */
static int fold_ids(struct fill *f)
{
    const struct site_map *m = f->m;
    uint32_t *ord = hbt_pages((m->nsites ? m->nsites : 1) * sizeof *ord);
    f->alias = hbt_pages((m->nsites ? m->nsites : 1) * sizeof *f->alias);
    if (!ord || !f->alias)
        return hbt_unpages(ord, (m->nsites ? m->nsites : 1) * sizeof *ord), -1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nsites; i++)
        if (m->stacks[i].n)
            ord[n++] = i;
    sort_base = m->stacks;
    qsort(ord, n, sizeof *ord, by_frames);
    for (uint32_t i = 0, first = 0; i < n; i++) {
        const struct site_stack *a = i ? &m->stacks[ord[i - 1]] : NULL, *b = &m->stacks[ord[i]];
        if (!a || a->n != b->n || memcmp(a->f, b->f, b->n * sizeof b->f[0])) /* sorted by frames, then id: a group's first is its least id */
            first = ord[i];
        f->alias[ord[i]] = first + 1;
    }
    hbt_unpages(ord, (m->nsites ? m->nsites : 1) * sizeof *ord);
    return 0;
}

/* Grows the mmap'd array *p of *cap bytes to hold need bytes (doubling). 0, or -1 when out of memory. */
static int grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    void *q = hbt_pages(n);
    if (!q)
        return -1;
    if (*p)
        memcpy(q, *p, *cap), hbt_unpages(*p, *cap);
    *p = q;
    *cap = n;
    return 0;
}

/* One record of the one pass: a definition into stacks, a run's raw ids into of_obj (folded after
 * the pass, when every definition is known), the maps text appended. */
static int fill_one(void *arg, const struct hbt_site *r)
{
    struct fill *f = arg;
    struct site_map *m = f->m;
    if (r->type == HBT_SITE_DEF) {
        if (r->id > f->cap) {
            size_t bytes = (size_t)f->cap * sizeof *m->stacks;
            void *st = m->stacks;
            if (grow(&st, &bytes, (size_t)r->id * sizeof *m->stacks) < 0)
                return f->oom = 1;
            m->stacks = st;
            f->cap = (uint32_t)(bytes / sizeof *m->stacks);
        }
        m->nsites = r->id > m->nsites ? r->id : m->nsites;
        m->stacks[r->id - 1].n = r->nframes;
        memcpy(m->stacks[r->id - 1].f, r->frames, r->nframes * sizeof r->frames[0]);
    } else if (r->type == HBT_SITE_OBJS) {
        for (uint64_t i = 0; i < r->count; i++)
            m->of_obj[r->obj + i] = r->id;
        m->objs_with_site += r->count;
    } else if (r->type == HBT_SITE_MAPS) {
        void *mp = m->maps;
        if (grow(&mp, &f->maps_cap, m->maps_len + r->len + 1) < 0)
            return f->oom = 1;
        m->maps = mp;
        memcpy(m->maps + m->maps_len, r->text, r->len);
        m->maps_len += r->len;
        m->maps[m->maps_len] = '\0';
    }
    return 0;
}

/* Every run's id through alias (its stack's first id); f->bad: an id without a definition. */
static void fold_objs(struct fill *f)
{
    struct site_map *m = f->m;
    for (uint64_t i = 0; i < m->nobj; i++) {
        uint32_t id = m->of_obj[i];
        if (!id)
            continue;
        if (id > m->nsites || !f->alias[id - 1]) {
            f->bad = id;
            return;
        }
        m->of_obj[i] = f->alias[id - 1];
    }
}

int site_map_build(struct site_map *m, const struct hbt_trace *t, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (t->nsite_chunks == 0)
        return 0;
    struct fill f = {.m = m};
    m->nobj = t->objects;
    m->of_obj = hbt_pages((t->objects ? t->objects : 1) * sizeof *m->of_obj);
    int rc = m->of_obj ? hbt_site_each(t, fill_one, &f) : -1;
    m->stacks_room = f.cap;
    m->maps_room = f.maps_cap;
    if (rc == 0 && fold_ids(&f) == 0)
        fold_objs(&f);
    else
        rc = rc ? rc : -1;
    hbt_unpages(f.alias, f.alias ? (m->nsites ? m->nsites : 1) * sizeof *f.alias : 0);
    if (rc != 0 || f.bad) {
        site_map_free(m);
        if (f.bad)
            return hbt_fail(err, errlen, "corrupt trace: its objects name call site %u, which it does not define; record it again", f.bad);
        return hbt_fail(err, errlen, "out of memory for the call sites of %" PRIu64 " objects", t->objects);
    }
    return 0;
}

void site_map_free(struct site_map *m)
{
    hbt_unpages(m->of_obj, m->of_obj ? (m->nobj ? m->nobj : 1) * sizeof *m->of_obj : 0);
    hbt_unpages(m->stacks, m->stacks ? (size_t)m->stacks_room * sizeof *m->stacks : 0);
    hbt_unpages(m->maps, m->maps ? m->maps_room : 0);
    memset(m, 0, sizeof *m);
}

const char *site_map_missing(const struct site_map *m, const struct hbt_trace *t)
{
    if (t->h.version < 5)
        return "the trace is of format version 4 or older, which records no call sites: record it again with this heapbench "
               "(heapbench record -o FILE -- CMD)";
    if (!m->of_obj)
        return "the trace holds no call sites (recorded with HEAPBENCH_RECORD_SITES=none, or by the in-process writer): record it "
               "again with heapbench record";
    return NULL;
}
