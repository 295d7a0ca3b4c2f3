/* record_map.c - the recorder's hooks on the program's own anonymous private mappings (mmap,
 * mmap64, munmap, mremap) inside libhbrecord.so: CPython's pymalloc, for one, takes its object
 * arenas with mmap, so a trace of the malloc API alone misses them (replay/README.md).
 *
 * Always holds:
 *   - recorded: an mmap of MAP_PRIVATE | MAP_ANONYMOUS, writable, without MAP_FIXED (HBT_MMAP,
 *     producing an object of its length, failures flagged); an munmap (or the old side of an
 *     mremap) of whole recorded mappings (one HBT_MUNMAP each); an mremap of a whole recorded
 *     mapping as its munmap and an mmap of the new length;
 *   - not recorded: mappings of files, shared, fixed or read-only ones; a call made while the
 *     thread is inside a recorded malloc-API call or the recorder itself (rec_enter), or from
 *     the code of the allocator serving malloc (its own arenas, in any of its threads), so that
 *     glibc's, jemalloc's... mappings stay the allocator's; an unmap that cuts only part of a
 *     recorded mapping (counted: partial_unmaps) and mappings past the table's capacity
 *     (counted: lost_maps);
 *   - the real call is the next library's (dlsym RTLD_NEXT), or the system call itself before
 *     that is known; errno is what the real call left.
 */
#include "map_table.h"
#include "record.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define CUT_MAX 64u

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static uintptr_t alloc_lo, alloc_hi; /* the code and data of the allocator serving malloc */
static _Atomic uint64_t partial_unmaps, lost_maps;
static int ready;

/* ---- the real calls ---- */

static void *do_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    return real_mmap ? real_mmap(a, n, prot, flags, fd, off) : (void *)syscall(SYS_mmap, a, n, prot, flags, fd, off);
}

static int do_munmap(void *a, size_t n) { return real_munmap ? real_munmap(a, n) : (int)syscall(SYS_munmap, a, n); }

static void *do_mremap(void *a, size_t n, size_t m, int flags, void *to)
{
    return real_mremap ? real_mremap(a, n, m, flags, to) : (void *)syscall(SYS_mremap, a, n, m, flags, to);
}

/* ---- set-up ---- */

/* dl_iterate_phdr callback: when fn lies in this object's loaded segments, keeps their span. */
static int find_object(struct dl_phdr_info *info, size_t size, void *fn)
{
    (void)size;
    uintptr_t lo = UINTPTR_MAX, hi = 0, f = (uintptr_t)fn;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
    }
    if (f < lo || f >= hi)
        return 0;
    alloc_lo = lo;
    alloc_hi = hi;
    return 1;
}

int rec_map_init(void *alloc_fn)
{
    real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
    real_mremap = (void *(*)(void *, size_t, size_t, int, ...))dlsym(RTLD_NEXT, "mremap");
    if (alloc_fn)
        dl_iterate_phdr(find_object, alloc_fn);
    if (map_table_init() < 0 || pthread_atfork(map_table_fork_hold, map_table_fork_release, map_table_fork_release) != 0)
        return -1;
    ready = 1;
    return 0;
}

/* ---- what is recorded ---- */

static int recordable(int prot, int flags, int fd)
{
    return (flags & MAP_ANONYMOUS) && (flags & MAP_PRIVATE) && !(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
           (prot & PROT_WRITE) && fd == -1;
}

/* The program's own call: not from the allocator's code; t: the thread's recorder, or NULL. */
static struct rec_thread *program_call(const void *caller)
{
    if (!ready || ((uintptr_t)caller >= alloc_lo && (uintptr_t)caller < alloc_hi))
        return NULL;
    return rec_enter();
}

/* Records the mapping p of n bytes (MAP_FAILED: a failed call). */
static void record_map(struct rec_thread *t, void *p, size_t n)
{
    struct hbt_event e = {.kind = HBT_MMAP, .size = n, .flags = p == MAP_FAILED ? HBT_F_FAILED : 0};
    uint64_t id = rec_put_at(t, &e, (uintptr_t)p);
    if (p != MAP_FAILED && id != HBT_NONE && !map_table_put((uintptr_t)p, n, rec_page_size(), id))
        atomic_fetch_add(&lost_maps, 1);
}

/* Records the unmapping of the cut mappings, one munmap event each. */
static void record_unmaps(struct rec_thread *t, const struct map_entry *cut, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct hbt_event e = {.kind = HBT_MUNMAP};
        rec_ref(&e, cut[i].id);
        rec_put_at(t, &e, cut[i].addr);
    }
}

/* Takes the recorded mappings inside [p, p + n) out of the table (counting partial cuts). */
static unsigned cut(void *p, size_t n, struct map_entry *out)
{
    unsigned partial;
    unsigned got = map_table_cut((uintptr_t)p, n, rec_page_size(), out, CUT_MAX, &partial);
    if (partial)
        atomic_fetch_add(&partial_unmaps, partial);
    return got;
}

/* A failed unmap: the mappings are still there (in raw mode, whose unmaps were recorded before the
 * call, as new mappings of the same place and length). */
static void uncut(struct rec_thread *t, const struct map_entry *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (rec_raw()) {
            record_map(t, (void *)c[i].addr, c[i].len);
            continue;
        }
        map_table_put(c[i].addr, c[i].len, rec_page_size(), c[i].id);
    }
}

/* ---- the hooks ---- */

static void *mmap_hook(void *a, size_t n, int prot, int flags, int fd, off_t off, const void *caller)
{
    struct rec_thread *t = recordable(prot, flags, fd) ? program_call(caller) : NULL;
    void *p = do_mmap(a, n, prot, flags, fd, off);
    if (t) {
        int err = errno;
        record_map(t, p, n);
        rec_leave(t);
        errno = err;
    }
    return p;
}

EXPORT void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    return mmap_hook(a, n, prot, flags, fd, off, __builtin_return_address(0));
}

EXPORT void *mmap64(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    return mmap_hook(a, n, prot, flags, fd, off, __builtin_return_address(0));
}

EXPORT int munmap(void *a, size_t n)
{
    struct rec_thread *t = program_call(__builtin_return_address(0));
    if (!t)
        return do_munmap(a, n);
    struct map_entry c[CUT_MAX];
    unsigned got = cut(a, n, c);
    if (rec_raw()) /* raw mode names mappings by address: the unmap is ordered before another thread can map the place */
        record_unmaps(t, c, got);
    int rc = do_munmap(a, n), err = errno;
    if (rc == 0 && !rec_raw())
        record_unmaps(t, c, got);
    else if (rc != 0)
        uncut(t, c, got);
    rec_leave(t);
    errno = err;
    return rc;
}

EXPORT void *mremap(void *a, size_t n, size_t m, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    void *to = (flags & MREMAP_FIXED) ? va_arg(ap, void *) : NULL;
    va_end(ap);
    struct rec_thread *t = program_call(__builtin_return_address(0));
    if (!t)
        return do_mremap(a, n, m, flags, to);
    struct map_entry c[CUT_MAX];
    unsigned got = (flags & MREMAP_DONTUNMAP) ? 0 : cut(a, n, c);
    if (rec_raw()) /* as munmap: the old side ordered before the call */
        record_unmaps(t, c, got);
    void *p = do_mremap(a, n, m, flags, to);
    int err = errno;
    if (p == MAP_FAILED) {
        uncut(t, c, got);
    } else if (got == 1 && c[0].addr == (uintptr_t)a) { /* a whole recorded mapping moved or resized */
        if (!rec_raw())
            record_unmaps(t, c, got);
        record_map(t, p, m);
    } else if (got > 0) { /* recorded mappings inside a larger range that moved: they are gone */
        if (!rec_raw())
            record_unmaps(t, c, got);
        atomic_fetch_add(&partial_unmaps, 1);
    }
    rec_leave(t);
    errno = err;
    return p;
}

/* ---- fork and exit ---- */

static void inherit_one(void *arg, struct map_entry *e)
{
    struct hbt_event ev = {.kind = HBT_MMAP, .size = e->len};
    e->id = rec_put(arg, &ev);
}

void rec_map_inherit(struct rec_thread *t)
{
    atomic_store(&partial_unmaps, 0); /* the parent's counts are in the parent's trace */
    atomic_store(&lost_maps, 0);
    if (t)
        map_table_each(inherit_one, t);
}

void rec_map_counts(uint64_t *partial, uint64_t *lost)
{
    *partial = atomic_load(&partial_unmaps);
    *lost = atomic_load(&lost_maps);
}
