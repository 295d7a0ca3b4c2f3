/* map_table.c - the recorder's table of the program's own mappings (see map_table.h).
 * Always holds: entries [0, n) are the recorded mappings, in no order (a removal moves the
 * last entry into the hole); lock is held for every read or write of them. */
#include "map_table.h"
#include "spin.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

static struct map_entry *tab;
static unsigned n;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void take_lock(void) { spin_take(&lock); }
static void drop_lock(void) { spin_drop(&lock); }

static uint64_t round_up(uint64_t len, uint64_t page) { return (len + page - 1) & ~(page - 1); }

int map_table_init(void)
{
    void *p = mmap(NULL, MAP_TABLE_MAX * sizeof *tab, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    tab = p == MAP_FAILED ? NULL : p;
    return tab ? 0 : -1;
}

int map_table_put(uintptr_t addr, uint64_t len, uint64_t page, uint64_t id)
{
    int ok = 0;
    take_lock();
    if (tab && n < MAP_TABLE_MAX) {
        tab[n++] = (struct map_entry){addr, round_up(len, page), id};
        ok = 1;
    }
    drop_lock();
    return ok;
}

unsigned map_table_cut(uintptr_t addr, uint64_t len, uint64_t page, struct map_entry *out, unsigned cap, unsigned *partial)
{
    uintptr_t end = addr + round_up(len, page);
    unsigned got = 0;
    *partial = 0;
    take_lock();
    for (unsigned i = 0; tab && i < n;) {
        struct map_entry *e = &tab[i];
        if (e->addr >= end || e->addr + e->len <= addr) {
            i++;
        } else if (e->addr >= addr && e->addr + e->len <= end && got < cap) {
            out[got++] = *e;
            *e = tab[--n];
        } else {
            (*partial)++;
            i++;
        }
    }
    drop_lock();
    return got;
}

void map_table_fork_hold(void) { take_lock(); }
void map_table_fork_release(void) { drop_lock(); }

void map_table_each(void (*fn)(void *arg, struct map_entry *e), void *arg)
{
    for (unsigned i = 0; tab && i < n; i++)
        fn(arg, &tab[i]);
}
