/* addr_table.c - the post-pass's address -> value hash table (addr_table.h).
 * Always holds: every present key is reachable from its home slot without crossing an empty slot. */
#include "addr_table.h"

#include <stdlib.h>
#include <string.h>

static size_t home(const struct addr_table *t, uint64_t key) { return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1); }

static int alloc_slots(struct addr_table *t, size_t cap)
{
    t->keys = calloc(cap, sizeof *t->keys);
    t->vals = malloc(cap * sizeof *t->vals);
    if (!t->keys || !t->vals) {
        free(t->keys), free(t->vals);
        return -1;
    }
    t->cap = cap;
    return 0;
}

int addr_table_init(struct addr_table *t)
{
    memset(t, 0, sizeof *t);
    return alloc_slots(t, 1u << 12);
}

void addr_table_free(struct addr_table *t)
{
    free(t->keys), free(t->vals);
    memset(t, 0, sizeof *t);
}

static size_t find(const struct addr_table *t, uint64_t key)
{
    size_t i = home(t, key);
    while (t->keys[i] && t->keys[i] != key)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static int grow(struct addr_table *t)
{
    struct addr_table old = *t;
    if (alloc_slots(t, old.cap * 2) < 0) {
        *t = old;
        return -1;
    }
    t->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i])
            addr_table_put(t, old.keys[i], old.vals[i]);
    free(old.keys), free(old.vals);
    return 0;
}

int addr_table_put(struct addr_table *t, uint64_t key, uint64_t val)
{
    if (2 * (t->n + 1) > t->cap && grow(t) < 0)
        return -1;
    size_t i = find(t, key);
    t->n += !t->keys[i];
    t->keys[i] = key;
    t->vals[i] = val;
    return 0;
}

int addr_table_take(struct addr_table *t, uint64_t key, uint64_t *val)
{
    size_t i = find(t, key), mask = t->cap - 1;
    if (!t->keys[i])
        return 0;
    *val = t->vals[i];
    t->n--;
    /* backward shift: move later entries of the run into the hole when their home allows it */
    for (size_t j = (i + 1) & mask; t->keys[j]; j = (j + 1) & mask) {
        size_t h = home(t, t->keys[j]);
        if (((j - h) & mask) >= ((j - i) & mask)) {
            t->keys[i] = t->keys[j];
            t->vals[i] = t->vals[j];
            i = j;
        }
    }
    t->keys[i] = 0;
    return 1;
}

uint64_t addr_table_get(const struct addr_table *t, uint64_t key) { return t->vals[find(t, key)]; }

int addr_table_find(const struct addr_table *t, uint64_t key, uint64_t *val)
{
    size_t i = find(t, key);
    if (!t->keys[i])
        return 0;
    *val = t->vals[i];
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t *addr_table_sorted_keys(const struct addr_table *t)
{
    uint64_t *k = malloc((t->n ? t->n : 1) * sizeof *k);
    if (!k)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->keys[i])
            k[m++] = t->keys[i];
    qsort(k, m, sizeof *k, cmp_u64);
    return k;
}
