/* addr_table.c - the post-pass's address -> value hash table (addr_table.h).
 * Always holds: every present key is reachable from its home slot without crossing an empty slot
 * (common/oa_table.h's probe and deletion). */
#include "addr_table.h"
#include "common/oa_table.h"

#include <stdlib.h>
#include <string.h>

static uint64_t home(uint64_t key) { return oa_mix(key) >> 20; }

static int alloc_slots(struct addr_table *t, size_t cap)
{
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots)
        return -1;
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
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t find(const struct addr_table *t, uint64_t key)
{
    return oa_find(t->slots, sizeof *t->slots, t->cap - 1, home(key), key);
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
        if (old.slots[i].key)
            addr_table_put(t, old.slots[i].key, old.slots[i].val);
    free(old.slots);
    return 0;
}

int addr_table_put(struct addr_table *t, uint64_t key, uint64_t val)
{
    if (2 * (t->n + 1) > t->cap && grow(t) < 0)
        return -1;
    struct addr_slot *s = &t->slots[find(t, key)];
    t->n += !s->key;
    *s = (struct addr_slot){key, val};
    return 0;
}

int addr_table_take(struct addr_table *t, uint64_t key, uint64_t *val)
{
    size_t i = find(t, key);
    if (!t->slots[i].key)
        return 0;
    *val = t->slots[i].val;
    t->n--;
    oa_remove(t->slots, sizeof *t->slots, t->cap - 1, i, home);
    return 1;
}

uint64_t addr_table_get(const struct addr_table *t, uint64_t key) { return t->slots[find(t, key)].val; }

int addr_table_find(const struct addr_table *t, uint64_t key, uint64_t *val)
{
    size_t i = find(t, key);
    if (!t->slots[i].key)
        return 0;
    *val = t->slots[i].val;
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
        if (t->slots[i].key)
            k[m++] = t->slots[i].key;
    qsort(k, m, sizeof *k, cmp_u64);
    return k;
}
