/* rawtrace.h - the recorder's raw event stream (DIR/<pid>.hbr): what a recorded process writes in
 * place of a format-4 trace when it records in raw mode, for the post-pass (hbconvert.c) to name
 * the objects and encode the trace after the program exits (docs/DATA.md, "Raw recordings").
 *
 * A raw file is a 512-byte prefix (RAW_MAGIC, the parent's order at fork and the parent's raw file
 * name for a fork child), the trace's 4096-byte header (hbt_header_encode: pid, command, ... and at
 * a normal exit the totals), then blocks. A block is one thread's consecutive events behind a
 * 16-byte block header (RAW_BLOCK_MAGIC, thread, payload bytes, 0; RAW_BLOCK_TOUCH there: the
 * exit's touch measures, below); a block is whole or, at the end of a file a crash cut, ignored. A
 * thread block's payload is a sequence of 32-bit units (little-endian; 64-bit words at any 4-byte
 * offset). An event is a compact one (RAW_C_*, below: one unit whose low 4 bits are 0, the common
 * malloc and free) or a full one: one 64-bit word, then the 64-bit words its flags announce:
 *   bits 0-3 kind (an hbt kind 1-14, or RAW_EXT: a record of another kind, its sub-kind in the
 *   size field, e.g. a count at an address), bit 4 RAW_W (the address is in a word: it is not
 *   8-byte aligned or not below 2^47), bit 5 RAW_S (the size is in a word: 4096 or more), bit 6
 *   RAW_O (the order is in a word: it is not the thread's previous order + 1, across blocks; a thread's
 *   first event always has it), bit 7 RAW_T (the
 *   clock was read: the time in ns is in a word; else the event has the thread's last time),
 *   bits 8-19 the size when below 4096, bits 20-63 the address / 8 (0: none, a failed call);
 *   then the words in that order: address, size, order, time; then the kind's own: the old
 *   address of a realloc / reallocarray, the log2 alignment of posix_memalign / aligned_alloc /
 *   memalign, the count of a RAW_EXT record.
 * Always holds: the encoder is inline, allocates nothing, has no loop and writes at most RAW_EVENT_WORDS words;
 * the decoder never reads past a block and says which byte is wrong. */
#ifndef HEAPBENCH_RAWTRACE_H
#define HEAPBENCH_RAWTRACE_H

#include "trace.h"

#include <stddef.h>
#include <stdint.h>

#define RAW_MAGIC "HBRAW1"       /* 8 bytes with its NULs */
#define RAW_PREFIX 512u
#define RAW_BLOCK_MAGIC 0x4b4c4248u /* "HBLK" little-endian */
#define RAW_BLOCK_HEADER 16u
#define RAW_BLOCK_MAX (4u << 20)  /* largest payload a reader accepts */
#define RAW_EVENT_WORDS 6u
#define RAW_NO_FORK UINT64_MAX

enum { RAW_EXT = 15 };
/* RAW_EXT sub-kinds (in the size field; the count in the kind's own word): RAW_X_TAKE: a realloc
 * or reallocarray of the thread is about to end the object at the address (recorded before the real
 * call, which may free it for another thread; the realloc's own event follows, after the call).
 * RAW_X_TOUCH: the touch measure (format 4's touch records, record_touch.c) of the large block at the
 * address, taken just before the free or realloc that ends it: its count word is raw_touch_word(). */
/* RAW_X_FRAME: one frame (a return address, at the address) of the call site of the thread's next
 * allocating event; its count word is raw_frame_word(index, frames): a stack is its frames in order,
 * innermost (the allocating call's caller) first; a lone frame (frames 1) is the call site alone,
 * recorded only when it differs from the thread's previous one (the post-pass keeps the thread's
 * last site for the allocating events that follow). */
enum { RAW_X_TAKE = 1, RAW_X_TOUCH = 2, RAW_X_FRAME = 3 };
static inline uint64_t raw_frame_word(unsigned index, unsigned frames) { return (uint64_t)frames << 8 | index; }
/* A touch measure in one word: whole pages of the block (high 32 bits), resident ones (low 32). */
static inline uint64_t raw_touch_word(uint64_t pages, uint64_t resident) { return pages << 32 | resident; }
/* A block whose header's fourth word is RAW_BLOCK_TOUCH is not a thread's: it holds the touch
 * measures of the large blocks still live at a normal exit, two words each (the address, its
 * raw_touch_word), taken after every thread's block was closed; the post-pass names each by the
 * object live at its address at the end of the global order. */
#define RAW_BLOCK_TOUCH 1u
/* Writes the header of such a block of payload bytes at buf (its thread field 0). */
void raw_touch_block_header(uint8_t *buf, uint32_t payload);
#define RAW_W 0x10u
#define RAW_S 0x20u
#define RAW_O 0x40u
#define RAW_T 0x80u
#define RAW_SIZE_INLINE 4096u
#define RAW_ADDR_BAD 0xffff800000000007ull /* address bits that keep it out of the first word */
/* A compact event: one 32-bit word whose low 4 bits are 0 (no kind); its order is the thread's
 * previous + 1, its time the thread's last, its address the thread's previous event's address + a
 * multiple of 16, d. Bit 4 clear: a malloc, bits 5-12 its size (below RAW_C_SIZE), bits 13-31
 * d / 16 (two's complement: -RAW_C_MALLOC_SPAN <= d < RAW_C_MALLOC_SPAN); bit 4 set (RAW_C_FREE):
 * a free, bits 5-31 d / 16 (-RAW_C_FREE_SPAN <= d < RAW_C_FREE_SPAN). */
#define RAW_C_FREE 0x10u
#define RAW_C_SIZE 256u
#define RAW_C_MALLOC_SPAN (1ull << 22)
#define RAW_C_FREE_SPAN (1ull << 30)

/* The kinds that carry one more word after the common ones. */
static inline int raw_kind_extra(unsigned k)
{
    return k == HBT_REALLOC || k == HBT_REALLOCARRAY || k == HBT_POSIX_MEMALIGN || k == HBT_ALIGNED_ALLOC ||
           k == HBT_MEMALIGN || k == RAW_EXT;
}

/* The prefix of a raw file. */
struct raw_prefix {
    uint64_t fork_order;      /* a fork child: the parent's global order at the fork; else RAW_NO_FORK */
    char parent[256];         /* a fork child: its parent's raw file name (in the same directory) */
};
void raw_prefix_encode(const struct raw_prefix *p, uint8_t out[RAW_PREFIX]);

/* One thread's block being filled (the recorder's): 32-bit units from w to end; next_order: the order an
 * event may leave out. */
struct raw_block {
    uint8_t *buf;             /* RAW_BLOCK_HEADER bytes of header, then the events */
    uint32_t *w, *end;        /* end leaves room for one more event */
    uint64_t next_order;      /* the order an event may leave out; stale (never equal by mistake) while lone */
    uint64_t last_addr;       /* the address of the thread's previous event (0 before its first) */
    uint16_t thread;
};

/* Starts an empty block of cap bytes in buf for thread. */
void raw_block_init(struct raw_block *b, uint8_t *buf, size_t cap, uint16_t thread);
/* Writes the block header; returns the block's length in bytes (0: no event), then raw_block_reset. */
size_t raw_block_seal(struct raw_block *b);
void raw_block_reset(struct raw_block *b);
static inline int raw_block_has_room(const struct raw_block *b) { return b->w < b->end; }

/* Appends one event (needs raw_block_has_room). timed: ns is this event's reading. */
/* check: compare order with the thread's previous one (else the caller knows it follows it: the
 * lone thread's own counter). A malloc or free whose order follows, untimed, 16-byte aligned near
 * the thread's previous address (and a malloc below RAW_C_SIZE) takes one compact 32-bit word;
 * else the full record. */
static inline void raw_put64(uint32_t *w, uint64_t v) { __builtin_memcpy(w, &v, 8); }
static inline __attribute__((always_inline)) void raw_put(struct raw_block *b, unsigned kind, uintptr_t addr, uint64_t size,
                                                          uint64_t order, int check, int timed, uint64_t ns, int extra,
                                                          uint64_t xword)
{
    uint32_t *w = b->w;
    uint64_t d = (uint64_t)addr - b->last_addr;
    b->last_addr = addr;
    if ((kind == HBT_MALLOC || kind == HBT_FREE) && !extra && !timed && (!check || order == b->next_order)) {
        if (kind == HBT_MALLOC && size < RAW_C_SIZE && ((d + RAW_C_MALLOC_SPAN) & ~(2 * RAW_C_MALLOC_SPAN - 16)) == 0) {
            *w = (uint32_t)(d << 9) | (uint32_t)size << 5;
            b->next_order = order + 1;
            __atomic_store_n(&b->w, w + 1, __ATOMIC_RELEASE);
            return;
        }
        if (kind == HBT_FREE && size == 0 && ((d + RAW_C_FREE_SPAN) & ~(2 * RAW_C_FREE_SPAN - 16)) == 0) {
            *w = (uint32_t)(d << 1) | RAW_C_FREE;
            b->next_order = order + 1;
            __atomic_store_n(&b->w, w + 1, __ATOMIC_RELEASE);
            return;
        }
    }
    uint64_t f = kind;
    unsigned n = 2;
    if (__builtin_expect((addr & RAW_ADDR_BAD) == 0, 1))
        f |= (uint64_t)addr << 17;
    else
        f |= RAW_W, raw_put64(w + n, addr), n += 2;
    if (__builtin_expect(size < RAW_SIZE_INLINE, 1))
        f |= size << 8;
    else
        f |= RAW_S, raw_put64(w + n, size), n += 2;
    if (check) {
        if (order != b->next_order)
            f |= RAW_O, raw_put64(w + n, order), n += 2;
        b->next_order = order + 1;
    }
    if (timed)
        f |= RAW_T, raw_put64(w + n, ns), n += 2;
    if (extra)
        raw_put64(w + n, xword), n += 2;
    raw_put64(w, f);
    __atomic_store_n(&b->w, w + n, __ATOMIC_RELEASE); /* after the event's words: exit may write the block up to here */
}

/* ---- reader ---- */

/* One decoded event. */
struct raw_event {
    unsigned kind;
    uint16_t thread;
    uint64_t addr, size, order, ns, extra;
};

/* A raw file's blocks, indexed per thread (the file is read with pread, a block at a time). */
struct raw_thread {
    uint64_t nblocks, cap;
    uint64_t *off;            /* file offsets of its blocks' payloads */
    uint32_t *len;            /* their payload bytes */
};
struct raw_file {
    int fd;
    uint64_t size, used;      /* used: bytes of whole blocks (a crash may leave a cut one after them) */
    struct raw_prefix pre;
    struct hbt_header h;
    uint32_t nthreads;
    struct raw_thread *threads;
    struct raw_thread exit_touch; /* the RAW_BLOCK_TOUCH blocks */
};
/* Opens and indexes path. 0, or -1 with a one-line reason in err. */
int raw_open(const char *path, struct raw_file *f, char *err, size_t errlen);
void raw_close(struct raw_file *f);

/* Calls fn(arg, address, pages, resident) on every touch measure of the exit's RAW_BLOCK_TOUCH
 * blocks. 0, fn's non-zero value, or -1 with the reason in err. */
int raw_exit_touch_each(const struct raw_file *f, int (*fn)(void *arg, uint64_t addr, uint64_t pages, uint64_t resident),
                        void *arg, char *err, size_t errlen);

/* Decodes one thread's events in order. */
struct raw_cursor {
    const struct raw_file *f;
    uint16_t thread;
    uint64_t block, order, ns, addr;
    uint32_t *buf, *p, *end;
    size_t cap;
};
int raw_cursor_init(struct raw_cursor *c, const struct raw_file *f, uint16_t thread);
void raw_cursor_free(struct raw_cursor *c);
/* The next event: 1, 0 at the thread's end, -1 on a malformed one (with its reason in err). */
int raw_next(struct raw_cursor *c, struct raw_event *e, char *err, size_t errlen);

#endif
