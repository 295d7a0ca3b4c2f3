/* objtab.c - the object table whose memory follows the live objects (see objtab.h).
 * Always holds: memory comes from mmap (hbt_pages), never from the allocator being measured. */
#include "objtab.h"
#include "trace.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Objects in page p of the table (the last page may hold fewer). */
static uint64_t page_objects(const struct objtab *t, uint64_t p)
{
    uint64_t first = p * t->per_page;
    return t->n - first < t->per_page ? t->n - first : t->per_page;
}

static uint64_t per_page(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return (uint64_t)(page > 0 ? page : 4096) / sizeof(struct obj_entry);
}

uint64_t objtab_npages(uint64_t n) { return (n + per_page() - 1) / per_page(); }

int objtab_init(struct objtab *t, uint64_t n)
{
    memset(t, 0, sizeof *t);
    t->per_page = per_page();
    t->n = n;
    t->npages = (n + t->per_page - 1) / t->per_page;
    t->e = hbt_pages((t->npages ? t->npages : 1) * t->per_page * sizeof *t->e);
    t->done = hbt_pages((t->npages ? t->npages : 1) * sizeof *t->done);
    if (!t->e || !t->done) {
        objtab_free(t);
        return -1;
    }
    return 0;
}

void objtab_reset(struct objtab *t)
{
    if (t->npages) {
        madvise(t->e, t->npages * t->per_page * sizeof *t->e, MADV_DONTNEED);
        madvise((void *)t->done, t->npages * sizeof *t->done, MADV_DONTNEED);
    }
}

void objtab_free(struct objtab *t)
{
    uint64_t np = t->npages ? t->npages : 1;
    if (t->e)
        hbt_unpages(t->e, np * t->per_page * sizeof *t->e);
    if (t->done)
        hbt_unpages((void *)t->done, np * sizeof *t->done);
    memset(t, 0, sizeof *t);
}

void objtab_consumed(struct objtab *t, uint64_t i)
{
    uint64_t p = i / t->per_page;
    if (atomic_fetch_add_explicit(&t->done[p], 1, memory_order_acq_rel) + 1 == page_objects(t, p))
        madvise(t->e + p * t->per_page, t->per_page * sizeof *t->e, MADV_DONTNEED);
}

int objtab_page_gone(const struct objtab *t, uint64_t p)
{
    return atomic_load_explicit(&t->done[p], memory_order_acquire) == page_objects(t, p);
}

void objtab_fault(struct objtab *t, const uint8_t *map)
{
    for (uint64_t p = 0; p < t->npages; p++)
        if (map[p / 8] & (1u << (p % 8)))
            *(volatile uint64_t *)&t->e[p * t->per_page].b = 0;
}
