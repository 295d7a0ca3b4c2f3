/* bump.c - the simplest allocator there is: every request is carved from fresh memory by moving
 * a pointer, and nothing is ever given back or reused.
 *
 * Lesson: allocation is a pointer increment and free() does nothing, so the process's memory is
 * everything it ever allocated (RSS only grows). And an allocator that writes nothing into the
 * memory it hands out costs no page fault for it: the kernel backs a page when it is first
 * written, so a block costs RSS only once the program writes it.
 *
 * Design, in the order a reader meets it:
 *   - memory comes from the kernel in chunks of BUMP_CHUNK bytes (4 MiB), each starting at a
 *     multiple of BUMP_CHUNK, taken from regions of 64 MiB that mmap gives under teach_lock;
 *   - a chunk's first page holds its header (struct bump_head): the size of the blocks in it.
 *     The header of any block p is at (p - 1) rounded down to BUMP_CHUNK (for a block aligned
 *     to more than BUMP_CHUNK, the page BUMP_CHUNK below it, still in its chunk), so no block
 *     carries a header of its own and bump never writes into a block;
 *   - requests up to 256 KiB are rounded up to a size class (16, 32, 48, 64, then 4 classes per
 *     power of two: 80, 96, 112, 128, 160, ...; at most 25% more than asked); each thread has,
 *     per class, a chunk it carves blocks of exactly that size from, with two thread-local
 *     pointers and no lock;
 *   - bigger requests (or alignments above a page) get a chunk of their own, as many
 *     BUMP_CHUNKs long as they need, whose header is on its own page before the block; its
 *     usable size is the request rounded up to a page, and realloc grows it in place up to the
 *     chunk's end;
 *   - realloc and malloc_usable_size read the block size from the header; calloc writes nothing
 *     (the memory is fresh from mmap, hence zero); free does nothing.
 *
 * Invariants: every chunk starts at a multiple of BUMP_CHUNK; the header of block p, at (p - 1)
 * rounded down to BUMP_CHUNK, lies in p's chunk on a page that holds no block bytes;
 * a thread's bump_runs[c] is [cur, end) of a chunk of class c that no block holds and only that
 * thread carves; bump writes nothing but headers, and no byte is handed out twice, so every
 * block is zero when handed out; bump_region_cur/end change only with teach_lock held.
 */
#include "interpose.h"
#include "teach.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define BUMP_CHUNK ((size_t)4 << 20)       /* chunk size and alignment */
#define BUMP_HEAD ((size_t)4096)           /* the header's page: blocks start after it */
#define BUMP_REGION (16 * BUMP_CHUNK)      /* how much address space one mmap takes at least */
#define BUMP_SMALL_MAX (256 * TEACH_KIB)   /* the largest size class (15 blocks to a chunk) */
#define BUMP_CLASSES 52                    /* 16..64 by 16, then 4 per power of two up to 256 KiB */
#define BUMP_BIG_MAX ((size_t)PTRDIFF_MAX / 2) /* bigger requests fail: their rounding could overflow */

#define BUMP_TLS __thread __attribute__((tls_model("initial-exec")))

/* At the start of every chunk. */
struct bump_head {
    size_t block; /* usable bytes of every block of this chunk: its class size, or the big block's
                   * request rounded up to a page */
    size_t room;  /* what a block may grow to in place: block for a class chunk, the bytes from
                   * the big block to its chunk's end for a big one */
};

/* The part of one of this thread's chunks not yet handed out. */
struct bump_run {
    uintptr_t cur; /* next block starts here (rounded up to its alignment) */
    uintptr_t end; /* end of the chunk (0: this thread has no chunk of this class yet) */
};

static BUMP_TLS struct bump_run bump_runs[BUMP_CLASSES]; /* this thread's chunk per size class */
static uintptr_t bump_region_cur, bump_region_end;      /* unused part of the newest region (teach_lock) */

/* A size class: its index in bump_runs and the size of its blocks. */
struct bump_class {
    unsigned index;
    size_t size;
};

/* The class of a request of n <= BUMP_SMALL_MAX bytes. With m = n - 1, classes are 2^s apart,
 * where s = 4 (16 B) below 64 B and else the highest bit of m minus 2, so that m >> s is m's top
 * three bits (4..7): 4 classes per power of two. n gets the smallest class of at least n bytes. */
static inline struct bump_class bump_class_of(size_t n)
{
    size_t m = n - (n != 0);
    unsigned s = 61 - (unsigned)__builtin_clzl(m | 64); /* highest bit of m (at least 6), minus 2 */
    size_t q = m >> s;                                   /* 0..7 when s = 4, else 4..7 */
    return (struct bump_class){4 * (s - 4) + (unsigned)q, (q + 1) << s};
}

/* The header of the chunk that block p was carved from. */
static inline struct bump_head *bump_head_of(void *p)
{
    return (struct bump_head *)(((uintptr_t)p - 1) & ~(BUMP_CHUNK - 1));
}

/* len bytes (a multiple of BUMP_CHUNK) of fresh memory at a multiple of BUMP_CHUNK: maps
 * len + BUMP_CHUNK and unmaps what lies outside the aligned part. 0 when mmap fails. */
static uintptr_t bump_map(size_t len)
{
    char *raw = mmap(NULL, len + BUMP_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return 0;
    uintptr_t base = teach_round_up((uintptr_t)raw, BUMP_CHUNK);
    size_t front = base - (uintptr_t)raw;
    if (front)
        munmap(raw, front);
    munmap((char *)base + len, BUMP_CHUNK - front);
    return base;
}

/* A new chunk of len bytes (a multiple of BUMP_CHUNK), cut from the newest region; one that does
 * not fit starts a new region (the old one's rest is address space, never touched). 0 with ENOMEM. */
static uintptr_t bump_chunk(size_t len)
{
    pthread_mutex_lock(&teach_lock);
    if (len > bump_region_end - bump_region_cur) {
        size_t size = len > BUMP_REGION ? len : BUMP_REGION;
        uintptr_t region = bump_map(size);
        if (region) {
            bump_region_cur = region;
            bump_region_end = region + size;
        }
    }
    uintptr_t chunk = 0;
    if (len <= bump_region_end - bump_region_cur) {
        chunk = bump_region_cur;
        bump_region_cur += len;
    }
    pthread_mutex_unlock(&teach_lock);
    if (!chunk)
        errno = ENOMEM;
    return chunk;
}

/* The slow path of a small request: gives this thread a new chunk for run r, whose blocks are
 * `size` bytes (the rest of the old chunk is never used), and returns its first block, which
 * starts right after the header page and so has every alignment up to BUMP_HEAD. Kept out of
 * line so the fast path saves no registers. */
static __attribute__((noinline)) void *bump_refill(struct bump_run *r, size_t size)
{
    uintptr_t chunk = bump_chunk(BUMP_CHUNK);
    if (!chunk)
        return NULL;
    *(struct bump_head *)chunk = (struct bump_head){size, size};
    r->cur = chunk + BUMP_HEAD + size;
    r->end = chunk + BUMP_CHUNK;
    return (void *)(chunk + BUMP_HEAD);
}

/* A block of n bytes aligned to align in a chunk of its own: the block starts at the first
 * multiple of align after the header page; its usable size is n rounded up to a page, and it may
 * grow in place (realloc) up to its chunk's end. */
static __attribute__((noinline)) void *bump_big(size_t align, size_t n)
{
    size_t slack = align > BUMP_HEAD ? align : BUMP_HEAD; /* the block starts within this of the chunk */
    if (slack > BUMP_BIG_MAX || n > BUMP_BIG_MAX - slack) {
        errno = ENOMEM;
        return NULL;
    }
    size_t len = teach_round_up(slack + n, BUMP_CHUNK);
    uintptr_t chunk = bump_chunk(len);
    if (!chunk)
        return NULL;
    uintptr_t p = teach_round_up(chunk + BUMP_HEAD, align);
    *bump_head_of((void *)p) = (struct bump_head){teach_round_up(n, BUMP_HEAD), chunk + len - p};
    return (void *)p;
}

/* A fresh block of at least n bytes whose address is a multiple of align (a power of two >=
 * 16); NULL with ENOMEM when the kernel gives no more memory. The fast path: round this thread's
 * pointer of n's class up to align, and move it by the class size if the chunk has room. */
static inline void *bump_take(size_t align, size_t n)
{
    if (n > BUMP_SMALL_MAX || align > BUMP_HEAD)
        return bump_big(align, n);
    struct bump_class c = bump_class_of(n);
    struct bump_run *r = &bump_runs[c.index];
    uintptr_t p = teach_round_up(r->cur, align);
    if (p > r->end || c.size > r->end - p) /* no room (or no chunk of this class yet) */
        return bump_refill(r, c.size);
    r->cur = p + c.size;
    return (void *)p;
}

/* Contract of ip_backend_malloc (interpose.h). */
void *ip_backend_malloc(size_t n) { return bump_take(TEACH_ALIGN, n); }

/* Contract of ip_backend_calloc: bump's blocks are always fresh memory, already zero. */
void *ip_backend_calloc(size_t total) { return bump_take(TEACH_ALIGN, total); }

/* Contract of ip_backend_memalign (interpose.h). */
void *ip_backend_memalign(size_t align, size_t n) { return bump_take(align, n); }

/* Contract of ip_backend_free: bump never frees (and so never sets errno there). */
void ip_backend_free(void *p) { (void)p; }
const char ip_backend_free_keeps_errno;

/* Contract of ip_backend_usable_size (interpose.h). */
size_t ip_backend_usable_size(void *p) { return bump_head_of(p)->block; }

/* Contract of ip_backend_realloc: a shrink keeps the block; a big block grows in place while its
 * chunk has room; any other growth takes a new block and copies the old one's usable bytes (for
 * a big block its request rounded to a page, not its whole chunk, whose unwritten pages a copy
 * would fault in for nothing). */
void *ip_backend_realloc(void *p, size_t n)
{
    struct bump_head *h = bump_head_of(p);
    if (n <= h->block)
        return p;
    if (n <= h->room) { /* only a big block has room beyond its usable size */
        h->block = teach_round_up(n, BUMP_HEAD);
        return p;
    }
    void *q = bump_take(TEACH_ALIGN, n);
    if (q)
        memcpy(q, p, h->block);
    return q;
}
