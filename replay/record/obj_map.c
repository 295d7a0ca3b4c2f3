/* obj_map.c - the recorder's address -> object radix map (see obj_map.h).
 * Always holds: a slot holds 0 (no object) or id + 1; a leaf, once installed, stays for the
 * life of the process and is listed in regions[] (for the fork child's walk); the top array
 * covers the 47-bit user address space; no mapping of the map is a multiple of 2 MiB long. */
#include "obj_map.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

#define REGION_BITS 21                    /* 2 MiB per leaf */
#define GRANULE_BITS 3                    /* one slot per 8 bytes */
#define TOP_BITS (47 - REGION_BITS)
#define LEAF_SLOTS (1u << (REGION_BITS - GRANULE_BITS))

typedef _Atomic uint64_t leaf_t[LEAF_SLOTS];
static leaf_t *_Atomic *top;
static uint32_t *regions;        /* the regions that have a leaf, for obj_map_each */
static _Atomic uint32_t nregions;
#define MAX_REGIONS (1u << 22)

/* The map's own mappings must not move the program's. The kernel puts an anonymous mapping whose
 * length is a multiple of 2 MiB on a 2 MiB boundary (for transparent huge pages), and the
 * program's later mappings, placed below it, inherit that alignment: with 2 MiB leaves every
 * pymalloc arena of a recorded CPython was 16 KiB-aligned (64 pools an arena), where a plain
 * run's arenas are at a random page offset (63 pools in 3 runs of 4), which changed the
 * program's arena count and its peak (replay/README.md, "Allocators' order"). One more 64 KiB
 * keeps every length off a multiple of 2 MiB and every later mapping's offset modulo 64 KiB as
 * without the recorder (the recorder's other mappings are multiples of 64 KiB too). */
#define MAP_PAD ((size_t)64 << 10)

static void *pages(size_t n)
{
    void *p = mmap(NULL, n + MAP_PAD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int obj_map_init(void)
{
    top = pages(sizeof(*top) << TOP_BITS);
    regions = pages(sizeof(*regions) * MAX_REGIONS);
    return top && regions ? 0 : -1;
}

/* The slot of an 8-byte aligned addr within its region's leaf: the 16-byte aligned addresses in
 * the leaf's first half (one slot per 16 bytes), the others in its second half. Allocators that
 * return only 16-byte aligned blocks (glibc here) touch only the first half: one map page per two
 * heap pages, half the page faults a program that fills a large heap took with one slot per 8
 * bytes in order; an allocator with 8-byte aligned blocks (jemalloc's 8-byte class) uses both. */
static inline uintptr_t slot_index(uintptr_t addr)
{
    return ((addr & ((1u << REGION_BITS) - 1)) >> (GRANULE_BITS + 1)) | ((addr & 8) << (REGION_BITS - GRANULE_BITS - 4));
}

/* The address of slot i of region r (the inverse of slot_index). */
static inline uintptr_t slot_addr(uintptr_t r, uintptr_t i)
{
    uintptr_t half = LEAF_SLOTS / 2;
    return (r << REGION_BITS) | ((i & (half - 1)) << (GRANULE_BITS + 1)) | (i >= half ? 8 : 0);
}

/* Installs the leaf of top slot t (addr's region), or takes the one another thread installed
 * first; NULL when there is no memory. Once per 2 MiB region: out of the hot path. */
static __attribute__((noinline, cold)) leaf_t *leaf_make(_Atomic(leaf_t *) *t, uintptr_t addr)
{
    leaf_t *fresh = pages(sizeof(leaf_t)), *none = NULL;
    if (!fresh)
        return NULL;
    if (!atomic_compare_exchange_strong(t, &none, fresh)) {
        munmap(fresh, sizeof(leaf_t) + MAP_PAD);
        return none;
    }
    uint32_t n = atomic_fetch_add(&nregions, 1);
    if (n < MAX_REGIONS)
        regions[n] = (uint32_t)(addr >> REGION_BITS);
    return fresh;
}

/* The slot of addr; with make, installs its leaf when missing. NULL when there is none. */
static inline __attribute__((always_inline)) _Atomic uint64_t *slot(uintptr_t addr, int make)
{
    if ((addr & ((1u << GRANULE_BITS) - 1)) || (addr >> 47) || !top)
        return NULL;
    _Atomic(leaf_t *) *t = &top[addr >> REGION_BITS];
    leaf_t *leaf = atomic_load_explicit(t, memory_order_acquire);
    if (__builtin_expect(!leaf, 0) && make)
        leaf = leaf_make(t, addr);
    return leaf ? &(*leaf)[slot_index(addr)] : NULL;
}

int obj_map_put(uintptr_t addr, uint64_t id)
{
    _Atomic uint64_t *s = slot(addr, 1);
    if (!s)
        return 0;
    atomic_store_explicit(s, id + 1, memory_order_release);
    return 1;
}

int obj_map_take(uintptr_t addr, uint64_t *id)
{
    _Atomic uint64_t *s = slot(addr, 0);
    uint64_t v = s ? atomic_load_explicit(s, memory_order_acquire) : 0;
    if (!v)
        return 0;
    atomic_store_explicit(s, 0, memory_order_relaxed);
    *id = v - 1;
    return 1;
}

void obj_map_each(void (*fn)(void *arg, uintptr_t addr, uint64_t *id), void *arg)
{
    uint32_t n = atomic_load(&nregions);
    for (uint32_t k = 0; top && k < n && k < MAX_REGIONS; k++) {
        uintptr_t r = regions[k];
        leaf_t *leaf = atomic_load_explicit(&top[r], memory_order_relaxed);
        for (uintptr_t i = 0; leaf && i < LEAF_SLOTS; i++) {
            uint64_t v = atomic_load_explicit(&(*leaf)[i], memory_order_relaxed);
            if (v) {
                uint64_t id = v - 1;
                fn(arg, slot_addr(r, i), &id);
                atomic_store_explicit(&(*leaf)[i], id + 1, memory_order_relaxed);
            }
        }
    }
}
