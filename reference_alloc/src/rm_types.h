/* rm_types.h - refmalloc's glossary: every structure, the whole chunk layout, the invariants
 * and the cross-file contract, in one header (read this first; like musl's meta.h).
 *
 * Always true (the heap checker in rm_check.c verifies each of these):
 *   - every chunk address and every chunk size is a multiple of RM_ALIGN (16), sizes >= 32;
 *   - a chunk's P bit says whether the chunk just below it is in use; when it is clear, the
 *     prev_size word holds that free neighbour's size (its "foot");
 *   - no two free chunks are adjacent (free coalesces; fastbin chunks count as in use), and
 *     top is never in a bin;
 *   - a free chunk that is not top is in exactly one bin: the unsorted bin, or the small bin
 *     of its exact size, or the large bin of its size range (large bins sorted by size);
 *   - chunks handed to the thread cache (tcache) or sitting in a fastbin count as in use for
 *     their neighbours (the P bit above them stays set);
 *   - mapped chunks (M bit) live alone in their own mapping and belong to no arena;
 *   - chunks of a thread arena (A bit) live in a heap aligned to RM_HEAP_MAX, whose first
 *     word names the arena, so the arena of any chunk is found with one mask.
 */
#ifndef RM_TYPES_H
#define RM_TYPES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- chunk layout --------------------------------------------------------------------
 *
 *    chunk ->  +----------------------------+
 *              | prev_size (foot of the     |  only meaningful when P is clear
 *              |  free chunk below)         |
 *              +----------------------------+
 *              | size | A | M | P           |  size is a multiple of 16
 *    mem   ->  +----------------------------+
 *              | user data ...              |  (free: fd, bk, fd_nextsize, bk_nextsize)
 *              |                            |
 *    next  ->  +- - - - - - - - - - - - - - +
 *              | next->prev_size: the last  |  8 bytes of user data while this chunk is in use
 *              | 8 bytes of user data       |
 *              +----------------------------+
 * Usable size of an in-use chunk: size - 8 (size - 16 for a mapped chunk, which has no next).
 * A mapped chunk's prev_size is its offset from the start of its mapping (memalign).
 */
typedef struct rm_chunk {
    size_t prev_size;
    size_t size;
    struct rm_chunk *fd, *bk;                   /* free only: bin list */
    struct rm_chunk *fd_nextsize, *bk_nextsize; /* free large only: ring of distinct sizes */
} rm_chunk;

#define RM_SIZE_SZ ((size_t)8)   /* one header word */
#define RM_ALIGN ((size_t)16)    /* alignment of chunks and user pointers */
#define RM_HDR ((size_t)16)      /* chunk -> user pointer */
#define RM_MIN_CHUNK ((size_t)32) /* fd + bk + foot must fit */
#define RM_FENCE ((size_t)16)    /* a 16-byte in-use "chunk" that ends a segment */
#define RM_P ((size_t)1)         /* previous chunk in use */
#define RM_M ((size_t)2)         /* chunk is its own mmap */
#define RM_A ((size_t)4)         /* chunk belongs to a thread (non-main) arena */
#define RM_FLAGS ((size_t)7)

/* ---- bins ----------------------------------------------------------------------------
 * bin 1: unsorted; bins 2..63: small, exact 16-byte classes (32 .. 1008);
 * bins 64..126: large, log-spaced ranges (glibc's largebin_index_64), each sorted by size,
 * largest first, with a ring (fd_nextsize) through the first chunk of each distinct size. */
#define RM_NBINS 128
#define RM_UNSORTED 1
#define RM_MIN_LARGE ((size_t)1024)
#define RM_UNSORTED_MAX_ITERS 10000
/* Fastbins: singly-linked LIFO lists of chunks of 32 .. 176 bytes freed without coalescing (they
 * stay "in use" for their neighbours) until a large request, a failed search or a trim
 * consolidates them. */
#define RM_NFASTBINS 10
#define RM_MXFAST ((size_t)128)     /* default largest request kept in a fastbin */
#define RM_MXFAST_MAX ((size_t)160) /* glibc's MAX_FAST_SIZE on 64-bit */

/* ---- sizes and defaults (glibc's, for 64-bit) ---- */
#define RM_HEAP_MAX ((size_t)64 << 20)          /* a thread heap: size and alignment */
#define RM_MMAP_THRESHOLD ((size_t)128 << 10)   /* default mmap threshold */
#define RM_MMAP_THRESHOLD_MAX ((size_t)32 << 20) /* dynamic threshold ceiling, HEAP_MAX/2 */
#define RM_TRIM_THRESHOLD ((size_t)128 << 10)
#define RM_TOP_PAD ((size_t)128 << 10)
#define RM_TOP_PAD_MAX ((size_t)1 << 30)     /* larger pads are not honoured (growth sums stay small) */
#define RM_MMAP_MAX ((size_t)65536)
#define RM_ARENA_TEST ((size_t)8)
#define RM_TCACHE_BINS 64                    /* chunk sizes 32 .. 1040 */
#define RM_TCACHE_MAX_BYTES ((size_t)1032)   /* largest request a tcache bin holds */
#define RM_TCACHE_COUNT ((size_t)7)
#define RM_TCACHE_COUNT_MAX ((size_t)65535)
#define RM_CONSOLIDATE_TRIM ((size_t)64 << 10) /* frees this large consider trimming */

/* A segment: one contiguous stretch of an arena's chunks. Thread arenas: one RM_HEAP_MAX-aligned
 * mapping per segment (the arena struct itself follows the first segment's header). Main arena:
 * a brk region, or an mmap'd region when the break could not grow or was moved by someone else.
 * Invariant: chunks run from (char *)seg + first up to the arena's top (newest segment) or up to
 * a fence chunk (older segments); size is the bytes from seg to the end of that run. */
typedef struct rm_seg {
    struct rm_arena *arena;
    struct rm_seg *prev; /* older segment of the same arena, or NULL */
    size_t size;         /* bytes in use from the segment start (incl. header, top, fence) */
    size_t first;        /* offset of the first chunk */
    size_t reserved;     /* bytes mapped, size never exceeds it (brk segments: 0 = unbounded) */
    int kind;            /* RM_SEG_BRK, RM_SEG_MMAP or RM_SEG_HEAP */
} rm_seg;
enum { RM_SEG_BRK = 1, RM_SEG_MMAP, RM_SEG_HEAP };

/* An arena: bins + top + segments under one lock (rm_arena_lock, glibc's low-level lock).
 * Arenas are never freed; they form a ring
 * through next starting at the main arena (read without a lock: only ever appended to).
 * attached and next_free are protected by rm_list_lock. */
typedef struct rm_arena {
    int lock;                /* rm_arena_lock's word: 0 free, 1 taken, 2 taken with waiters */
    rm_chunk *top;           /* the free chunk at the end of the newest segment */
    rm_chunk *last_remainder; /* most recent split remainder (small requests reuse it) */
    uint64_t binmap[2];      /* bit i set => bin i may be non-empty (never clear while used) */
    rm_chunk *fastbins[RM_NFASTBINS]; /* LIFO lists of small chunks freed without merging */
    int have_fast;           /* some fastbin may be non-empty */
    rm_chunk bins[RM_NBINS]; /* sentinels: bins[i].fd = first (largest), bins[i].bk = last */
    rm_seg *seg;             /* newest segment */
    struct rm_arena *next;
    struct rm_arena *next_free;
    size_t attached;         /* threads using this arena */
    size_t system_mem;       /* bytes of segments currently held */
    size_t max_system_mem;
    int number;              /* 0 = main */
    int is_main;
} rm_arena;

/* One thread's cache of recently freed chunks, one LIFO list per size class, taken without a lock.
 * Invariant: entries[i] holds counts[i] chunks of size 32 + 16 i, each in use for its arena, each
 * with key == rm_tcache_key (which is how a second free of the same pointer is noticed). */
typedef struct rm_tentry {
    struct rm_tentry *next;
    uintptr_t key;
} rm_tentry;
typedef struct rm_tcache {
    uint16_t counts[RM_TCACHE_BINS];
    rm_tentry *entries[RM_TCACHE_BINS];
} rm_tcache;

/* Where a tunable's value came from (for the REFMALLOC_REPORT lines). */
enum { RM_FROM_DEFAULT = 0, RM_FROM_TUNABLES, RM_FROM_ALIAS, RM_FROM_MALLOPT };

/* Process-wide parameters (tunables) and mmap counters. Parameters are written at init and by
 * mallopt; the counters are updated atomically. */
typedef struct rm_params {
    size_t arena_max;      /* 0 = automatic (8 per CPU once arena_test is exceeded) */
    size_t arena_test;
    size_t tcache_count;
    size_t tcache_max;     /* bytes */
    size_t tcache_bins;    /* derived from tcache_max */
    size_t mmap_threshold;
    size_t trim_threshold;
    size_t top_pad;
    size_t mmap_max;
    size_t perturb;
    size_t mxfast;         /* bytes: largest request freed to a fastbin */
    size_t max_fast;       /* derived: largest chunk size in a fastbin (0: none) */
    int no_dyn_threshold;  /* set when the user fixed mmap or trim threshold */
    size_t narenas;        /* arenas created, under rm_list_lock */
    size_t n_mmaps, max_n_mmaps, mmapped_mem, max_mmapped_mem;
} rm_params;

/* ---- inline helpers over the layout (no state) ---- */

/* The size of c without flag bits. */
static inline size_t rm_csize(const rm_chunk *c) { return c->size & ~RM_FLAGS; }
/* The chunk off bytes after c. */
static inline rm_chunk *rm_at(const void *c, size_t off) { return (rm_chunk *)((char *)c + off); }
/* The chunk just above c. */
static inline rm_chunk *rm_next(const rm_chunk *c) { return rm_at(c, rm_csize(c)); }
/* User pointer of c, and back. */
static inline void *rm_mem(const rm_chunk *c) { return (char *)c + RM_HDR; }
static inline rm_chunk *rm_chunk_of(const void *p) { return (rm_chunk *)((char *)p - RM_HDR); }
/* Whether c has a mapping of its own; whether c is a fence (the 16-byte end of a segment). */
static inline int rm_is_mmapped(const rm_chunk *c) { return (c->size & RM_M) != 0; }
static inline int rm_is_fence(const rm_chunk *c) { return rm_csize(c) == RM_FENCE; }
/* Whether c (not top, not a fence) is in use: the P bit of the chunk above. */
static inline int rm_inuse(const rm_chunk *c) { return (rm_next(c)->size & RM_P) != 0; }
/* Writes the foot of a free chunk of size s: the next chunk's prev_size. */
static inline void rm_set_foot(rm_chunk *c, size_t s) { rm_at(c, s)->prev_size = s; }
/* Chunk size for a request of n bytes (n <= IP_MAX_REQUEST, so no overflow). */
static inline size_t rm_request2size(size_t n)
{
    size_t s = (n + RM_SIZE_SZ + RM_ALIGN - 1) & ~(RM_ALIGN - 1);
    return s < RM_MIN_CHUNK ? RM_MIN_CHUNK : s;
}
/* The largest chunk size kept in a fastbin for mxfast = n requested bytes, as glibc's
 * set_max_fast: (n + SIZE_SZ) rounded down to the alignment, so the default 128 keeps chunks of
 * up to 128 bytes (requests up to 120); 0 when that is below the smallest chunk (n < 8). */
static inline size_t rm_max_fast_of(size_t n)
{
    size_t s = (n + RM_SIZE_SZ) & ~(RM_ALIGN - 1);
    return s < RM_MIN_CHUNK ? 0 : s;
}
/* Bytes the user may use in in-use chunk c. */
static inline size_t rm_usable(const rm_chunk *c)
{
    return rm_csize(c) - (rm_is_mmapped(c) ? 2 * RM_SIZE_SZ : RM_SIZE_SZ);
}
/* Whether chunk size s belongs to a small bin (exact class) rather than a large one. */
static inline int rm_in_smallbin(size_t s) { return s < RM_MIN_LARGE; }
/* The bin of a free chunk of size s (glibc's smallbin_index / largebin_index_64). */
static inline unsigned rm_bin_index(size_t s)
{
    if (rm_in_smallbin(s))
        return (unsigned)(s >> 4);
    if ((s >> 6) <= 48)
        return 48 + (unsigned)(s >> 6);
    if ((s >> 9) <= 20)
        return 91 + (unsigned)(s >> 9);
    if ((s >> 12) <= 10)
        return 110 + (unsigned)(s >> 12);
    if ((s >> 15) <= 4)
        return 119 + (unsigned)(s >> 15);
    if ((s >> 18) <= 2)
        return 124 + (unsigned)(s >> 18);
    return 126;
}
/* The tcache bin of chunk size s (may be >= rm_mp.tcache_bins: then not cached). */
static inline size_t rm_tcache_index(size_t s) { return (s - RM_MIN_CHUNK) / RM_ALIGN; }
/* The fastbin of chunk size s (meaningful for s <= RM_MIN_CHUNK + 16 * (RM_NFASTBINS - 1)). */
static inline size_t rm_fast_index(size_t s) { return (s - RM_MIN_CHUNK) / RM_ALIGN; }

/* ---- cross-file contract ---- */

/* rm_init.c */
extern rm_params rm_mp;
void rm_init(void);                  /* idempotent, survives re-entry from what it calls */
extern volatile int rm_ready;        /* 2 once rm_init finished its core part */
/* Initialises refmalloc unless done: the one check on every entry point. */
static inline void rm_ensure_init(void)
{
    if (__builtin_expect(rm_ready != 2, 0))
        rm_init();
}

/* rm_os.c - the only file with system calls */
void *rm_os_sbrk(intptr_t inc);        /* NULL on failure */
void *rm_os_map(size_t len);           /* NULL on failure; zeroed */
void *rm_os_map_aligned(size_t len, size_t align); /* reserve len bytes aligned to align */
void rm_os_unmap(void *p, size_t len);
void *rm_os_remap(void *p, size_t old_len, size_t new_len); /* may move; NULL on failure */
void rm_os_discard(void *p, size_t len); /* give pages back, keep the range mapped (zeroed) */
void rm_os_write(const char *s);       /* raw write(2) to stderr */
const char *rm_os_getenv(const char *name);
size_t rm_os_ncpus(void);
size_t rm_os_pagesize(void);
void rm_os_futex_wait(int *word, int value); /* sleeps while *word == value (or spuriously) */
void rm_os_futex_wake(int *word);            /* wakes one sleeper on word */
uintptr_t rm_os_random(void);

/* rm_errors.c - messages (no stdio) and fatal errors */
__attribute__((noreturn)) void rm_fatal(const char *what);
char *rm_fmt_str(char *out, char *end, const char *s); /* appends, returns new end of text */
char *rm_fmt_u(char *out, char *end, size_t v);
void rm_check_unlink(const rm_chunk *c);      /* aborts unless c->fd->bk == c == c->bk->fd */
void rm_check_free_ptr(const rm_chunk *c, int in_realloc); /* aborts on a misaligned pointer or bad size */

/* rm_bins.c - the bin data structure */
void rm_bins_init(rm_arena *a);
void rm_bin_unlink(rm_arena *a, rm_chunk *c);
void rm_bin_put_unsorted(rm_arena *a, rm_chunk *c);
void rm_bin_place(rm_arena *a, rm_chunk *c);
rm_chunk *rm_bin_take_small(rm_arena *a, size_t nb);
rm_chunk *rm_bin_take_best_large(rm_arena *a, size_t nb);
rm_chunk *rm_bin_take_above(rm_arena *a, unsigned idx);

/* rm_chunk.c - malloc/free/realloc/memalign inside one locked arena */
void *rm_int_malloc(rm_arena *a, size_t nb);
void rm_int_free(rm_arena *a, rm_chunk *c);
size_t rm_chunk_coalesce(rm_arena *a, rm_chunk *c); /* merged size */

/* rm_fast.c - fastbins (arena locked) */
void rm_fast_put(rm_arena *a, rm_chunk *c);     /* c: at most max_fast bytes */
rm_chunk *rm_fast_take(rm_arena *a, size_t nb); /* a chunk of exactly nb, or NULL */
void rm_fast_consolidate(rm_arena *a);          /* merges every fast chunk into the bins */
void rm_fast_stats(rm_arena *a, size_t chunks[RM_NFASTBINS], size_t bytes[RM_NFASTBINS]);
int rm_fast_check(rm_arena *a);                 /* problems found (reported on stderr) */
int rm_int_grow_inplace(rm_arena *a, rm_chunk *c, size_t nb);
void *rm_int_memalign(rm_arena *a, size_t align, size_t nb);

/* rm_arena.c - arenas, segments, growth */
extern rm_arena rm_main_arena;
extern pthread_mutex_t rm_list_lock;
extern __thread rm_arena *rm_thread_arena;
void rm_arena_init_main(void);
rm_arena *rm_arena_attach(void);       /* the calling thread's arena, choosing one if needed */
void rm_arena_detach(void);            /* the calling thread exits */
rm_chunk *rm_arena_grow(rm_arena *a, size_t nb); /* top >= nb + 32 afterwards, or NULL */
rm_arena *rm_arena_next(rm_arena *a);  /* ring walk from &rm_main_arena; NULL after the last */
void rm_arena_after_fork_child(void);
int rm_lock(rm_arena *a);              /* returns whether the lock was taken */
void rm_unlock(rm_arena *a, int locked);
void rm_arena_lock(rm_arena *a);       /* always takes a's lock (fork, arena choice) */
void rm_arena_unlock(rm_arena *a);
int rm_arena_trylock(rm_arena *a);     /* 1 if taken */
/* Arena of a non-mapped chunk. */
static inline rm_arena *rm_chunk_arena(const rm_chunk *c)
{
    if (!(c->size & RM_A))
        return &rm_main_arena;
    return ((rm_seg *)((uintptr_t)c & ~(RM_HEAP_MAX - 1)))->arena;
}

/* rm_mmap.c */
void *rm_mmap_alloc(size_t nb);        /* NULL when over mmap_max or mmap fails */
void rm_mmap_free(rm_chunk *c);
void *rm_mmap_realloc(rm_chunk *c, size_t nb); /* NULL: caller copies */

/* rm_trim.c */
int rm_trim_top(rm_arena *a, size_t pad);
int rm_trim_arena(rm_arena *a, size_t pad);

/* rm_tcache.c */
extern uintptr_t rm_tcache_key;
void *rm_tcache_take(size_t nb);       /* NULL when the bin is empty or there is no tcache */
int rm_tcache_keep(rm_chunk *c);       /* 1 when c went into the cache */
size_t rm_tcache_room(size_t nb);      /* free slots for chunks of size nb in this thread's cache */
void rm_tcache_thread_start(void);     /* registers the exit hook; no-op if done */
void rm_tcache_init_once(void);        /* creates the key; called by rm_init */
int rm_tcache_check(void);             /* checks this thread's cache; errors counted */

/* rm_tunables.c */
void rm_tunables_load(void);
void rm_tunables_report(void);
int rm_tunables_mallopt(int param, int value);
void rm_tunables_set_tcache_max(size_t bytes);

/* rm_fork.c */
void rm_fork_register(void);

/* rm_check.c */
int refmalloc_check_heap(void) __attribute__((visibility("default")));

/* rm_stats.c */
typedef struct rm_arena_stats {
    size_t system, max_system, inuse, free_bytes, free_chunks, top;
    size_t fast_chunks, fast_bytes;                  /* in fastbins (part of free_bytes) */
    size_t fbin_count[RM_NFASTBINS], fbin_bytes[RM_NFASTBINS]; /* the same per fastbin */
    size_t aspace, subheaps; /* thread arenas: bytes of their heaps in use, number of heaps */
    size_t bin_count[RM_NBINS], bin_bytes[RM_NBINS]; /* free chunks per bin */
    size_t bin_min[RM_NBINS], bin_max[RM_NBINS];     /* their smallest and largest size */
} rm_arena_stats;
void rm_stats_arena(rm_arena *a, rm_arena_stats *out); /* a must be locked */

#endif
