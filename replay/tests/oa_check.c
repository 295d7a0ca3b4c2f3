/* oa_check.c - unit test of replay/'s one open-addressing core (common/oa_table.h) and of the post-pass's
 * table on it (trace/addr_table.c): keys whose homes collide in runs that wrap past the table's end,
 * removed in a scrambled order, every remaining key still found and every removed one not, after each
 * removal; addr_table's put, take, find and growth against a plain array of the same keys.
 * Prints PASS/FAIL lines and "N passed, N failed".
 * Always holds: touches no file. */
#include "common/oa_table.h"
#include "tcheck.h"
#include "trace/addr_table.h"

#include <stdint.h>
#include <stdlib.h>

#define SLOTS 64u
#define KEYS 44u

struct slot {
    uint64_t key, val;
};

/* Eight homes for all keys, the last ones near the table's end: long runs that wrap. */
static uint64_t crowded(uint64_t key) { return 56 + (key & 7); }

static int present(const struct slot *t, uint64_t key)
{
    uint64_t i = oa_find(t, sizeof *t, SLOTS - 1, crowded(key), key);
    return t[i].key == key && t[i].val == key * 3;
}

/* Removes the keys in a scrambled order, checking every key after each removal: 1 when all held. */
static int remove_all(struct slot *t)
{
    int gone[KEYS + 1] = {0};
    for (unsigned n = 0; n < KEYS; n++) {
        uint64_t k = 1 + (n * 17) % KEYS; /* 17 is prime to KEYS: every key once */
        uint64_t i = oa_find(t, sizeof *t, SLOTS - 1, crowded(k), k);
        if (t[i].key != k)
            return 0;
        oa_remove(t, sizeof *t, SLOTS - 1, i, crowded);
        gone[k] = 1;
        for (uint64_t j = 1; j <= KEYS; j++)
            if (present(t, j) == gone[j])
                return 0;
    }
    for (unsigned i = 0; i < SLOTS; i++)
        if (t[i].key)
            return 0;
    return 1;
}

static void core(void)
{
    struct slot t[SLOTS] = {{0}};
    for (uint64_t k = 1; k <= KEYS; k++) {
        uint64_t i = oa_find(t, sizeof *t, SLOTS - 1, crowded(k), k);
        t[i] = (struct slot){k, k * 3};
    }
    int all = 1;
    for (uint64_t k = 1; k <= KEYS; k++)
        all &= present(t, k);
    TCHECK("oa_table: 44 keys on 8 homes in 64 slots, runs wrapping past the end, all found", all);
    TCHECK("oa_table: a key never put is not found", !present(t, KEYS + 8));
    TCHECK("oa_table: each removal (backward shift) leaves every other key found and the removed one gone", remove_all(t));
}

static void addr(void)
{
    enum { N = 20000 };
    struct addr_table a;
    static uint64_t ref[N];
    int ok = addr_table_init(&a) == 0;
    for (uint64_t i = 0; ok && i < N; i++) {
        ref[i] = 0x7f0000000000ull + i * 4096; /* page-aligned addresses: the high bits carry the hash */
        ok = addr_table_put(&a, ref[i], i) == 0;
    }
    TCHECK("addr_table: 20000 page-aligned keys put (grown from 4096 slots)", ok && a.n == N && a.cap >= 2 * N);
    uint64_t v;
    int taken = 1;
    for (uint64_t i = 0; i < N; i += 2)
        taken &= addr_table_take(&a, ref[i], &v) == 1 && v == i;
    int after = a.n == N / 2;
    for (uint64_t i = 0; i < N; i++)
        after &= addr_table_find(&a, ref[i], &v) == (int)(i & 1) && (!(i & 1) || v == i);
    TCHECK("addr_table: half taken, the rest found with their values, the taken not", taken && after);
    uint64_t *k = addr_table_sorted_keys(&a);
    int sorted = k != NULL;
    for (uint64_t i = 0; sorted && i < N / 2; i++)
        sorted = k[i] == ref[2 * i + 1];
    TCHECK("addr_table: its keys sorted", sorted);
    free(k);
    addr_table_free(&a);
}

int main(void)
{
    core();
    addr();
    return tcheck_summary();
}
