/* site_map.c - a trace's call sites read into tables (site_map.h).
 * Always holds: see site_map.h; the site chunks are read three times (sizes, then the definitions,
 * then the runs and the text), so that every id a run names is defined before it is checked. */
#include "site_map.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fill {
    struct site_map *m;
    int pass;                  /* 0: count definitions and the maps text, 1: the definitions, 2: the runs and the text */
    uint32_t max_id, bad;
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

/* alias[i]: the first id whose stack has the frames of id i + 1. 0, or -1 when out of memory. */
static int fold_ids(struct fill *f)
{
    const struct site_map *m = f->m;
    uint32_t *ord = hbt_pages((m->nsites ? m->nsites : 1) * sizeof *ord);
    f->alias = hbt_pages((m->nsites ? m->nsites : 1) * sizeof *f->alias);
    if (!ord || !f->alias)
        return hbt_unpages(ord, (m->nsites ? m->nsites : 1) * sizeof *ord), -1;
    for (uint32_t i = 0; i < m->nsites; i++)
        ord[i] = i;
    sort_base = m->stacks;
    qsort(ord, m->nsites, sizeof *ord, by_frames);
    for (uint32_t i = 0, first = 0; i < m->nsites; i++) {
        const struct site_stack *a = i ? &m->stacks[ord[i - 1]] : NULL, *b = &m->stacks[ord[i]];
        if (!a || a->n != b->n || memcmp(a->f, b->f, b->n * sizeof b->f[0])) /* sorted by frames, then id: a group's first is its least id */
            first = ord[i];
        f->alias[ord[i]] = first + 1;
    }
    hbt_unpages(ord, (m->nsites ? m->nsites : 1) * sizeof *ord);
    return 0;
}

static int fill_one(void *arg, const struct hbt_site *r)
{
    struct fill *f = arg;
    struct site_map *m = f->m;
    if (f->pass == 0) {
        if (r->type == HBT_SITE_DEF && r->id > f->max_id)
            f->max_id = r->id;
        if (r->type == HBT_SITE_MAPS)
            m->maps_len += r->len;
        return 0;
    }
    if (r->type == HBT_SITE_DEF) {
        if (f->pass == 2)
            return 0;
        m->stacks[r->id - 1].n = r->nframes;
        memcpy(m->stacks[r->id - 1].f, r->frames, r->nframes * sizeof r->frames[0]);
    } else if (f->pass == 1) {
        return 0;
    } else if (r->type == HBT_SITE_OBJS) {
        if (r->id > m->nsites || !m->stacks[r->id - 1].n) {
            f->bad = r->id;
            return 1;
        }
        uint32_t id = f->alias[r->id - 1];
        for (uint64_t i = 0; i < r->count; i++)
            m->of_obj[r->obj + i] = id;
        m->objs_with_site += r->count;
    } else if (r->type == HBT_SITE_MAPS && m->maps) {
        size_t at = strlen(m->maps);
        memcpy(m->maps + at, r->text, r->len);
        m->maps[at + r->len] = '\0';
    }
    return 0;
}

int site_map_build(struct site_map *m, const struct hbt_trace *t, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (t->nsite_chunks == 0)
        return 0;
    struct fill f = {.m = m};
    if (hbt_site_each(t, fill_one, &f) != 0)
        return hbt_fail(err, errlen, "cannot read the trace's call sites again (out of memory?)");
    m->nsites = f.max_id;
    m->nobj = t->objects;
    size_t text = m->maps_len;
    m->maps_len = 0;
    m->of_obj = hbt_pages((t->objects ? t->objects : 1) * sizeof *m->of_obj);
    m->stacks = hbt_pages((m->nsites ? m->nsites : 1) * sizeof *m->stacks);
    m->maps = text ? hbt_pages(text + 1) : NULL;
    if (!m->of_obj || !m->stacks || (text && !m->maps)) {
        site_map_free(m);
        return hbt_fail(err, errlen, "out of memory for the call sites of %" PRIu64 " objects", t->objects);
    }
    f.pass = 1;
    int rc = hbt_site_each(t, fill_one, &f);
    if (rc == 0 && fold_ids(&f) < 0) {
        site_map_free(m);
        return hbt_fail(err, errlen, "out of memory for the call sites of %" PRIu64 " objects", t->objects);
    }
    f.pass = 2;
    rc = rc ? rc : hbt_site_each(t, fill_one, &f);
    hbt_unpages(f.alias, f.alias ? (m->nsites ? m->nsites : 1) * sizeof *f.alias : 0);
    if (rc != 0) {
        site_map_free(m);
        if (f.bad)
            return hbt_fail(err, errlen, "corrupt trace: its objects name call site %u, which it does not define; record it again", f.bad);
        return hbt_fail(err, errlen, "cannot read the trace's call sites again (out of memory?)");
    }
    m->maps_len = text;
    return 0;
}

void site_map_free(struct site_map *m)
{
    hbt_unpages(m->of_obj, m->of_obj ? (m->nobj ? m->nobj : 1) * sizeof *m->of_obj : 0);
    hbt_unpages(m->stacks, m->stacks ? (m->nsites ? m->nsites : 1) * sizeof *m->stacks : 0);
    hbt_unpages(m->maps, m->maps ? m->maps_len + 1 : 0);
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
