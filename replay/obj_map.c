/* obj_map.c - the recorder's lock-free address -> object map (see obj_map.h).
 * Always holds: a slot's key is EMPTY (never used), TOMB (used, free again) or a live address;
 * keys go EMPTY -> address -> TOMB -> address ... and never back to EMPTY, so a take that
 * reaches an EMPTY slot knows its address is absent; id and size are written by the thread
 * that won the key's CAS, before the address can reach any other thread through the program. */
#include "obj_map.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#define EMPTY ((uintptr_t)0)
#define TOMB ((uintptr_t)1)

struct slot {
    _Atomic uintptr_t key;
    uint64_t id, size;
};

static struct slot *table;
static uint64_t mask;
static int shift;

int obj_map_init(const char *slots)
{
    unsigned long long want = slots && *slots ? strtoull(slots, NULL, 0) : 0;
    int bits = 21;
    if (want >= 1024 && want <= (1ull << 32))
        for (bits = 10; (1ull << bits) < want; bits++)
            ;
    void *p = mmap(NULL, sizeof(struct slot) << bits, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    table = p;
    mask = (1ull << bits) - 1;
    shift = 64 - bits;
    return 0;
}

/* Blocks are at least 16-byte aligned: the low 4 bits carry nothing. */
static uint64_t home(uintptr_t addr) { return ((uint64_t)(addr >> 4) * 0x9E3779B97F4A7C15ull) >> shift; }

int obj_map_put(uintptr_t addr, uint64_t id, uint64_t size)
{
    uint64_t h = home(addr);
    for (uint64_t i = 0; i < OBJ_MAP_PROBES; i++) {
        struct slot *s = &table[(h + i) & mask];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_relaxed);
        if (k <= TOMB && atomic_compare_exchange_strong(&s->key, &k, addr)) {
            s->id = id;
            s->size = size;
            return 1;
        }
    }
    return 0;
}

int obj_map_take(uintptr_t addr, uint64_t *id, uint64_t *size)
{
    uint64_t h = home(addr);
    for (uint64_t i = 0; i < OBJ_MAP_PROBES; i++) {
        struct slot *s = &table[(h + i) & mask];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == addr) {
            *id = s->id;
            *size = s->size;
            atomic_store_explicit(&s->key, TOMB, memory_order_release);
            return 1;
        }
        if (k == EMPTY)
            return 0;
    }
    return 0;
}

void obj_map_each(void (*fn)(void *arg, uint64_t *id, uint64_t size), void *arg)
{
    for (uint64_t i = 0; table && i <= mask; i++)
        if (atomic_load_explicit(&table[i].key, memory_order_relaxed) > TOMB)
            fn(arg, &table[i].id, table[i].size);
}
