/* trace.h - the allocation trace format (docs/DATA.md, "Allocation traces"): its writer, used by
 * the recorder, and its reader, used by hbtrace and hbreplay (the only trace reader in C).
 *
 * A trace is a 4096-byte header (magic, version, key/value text, CRC-32) followed by chunks.
 * Each chunk holds consecutive events of one recorded thread, delta- and varint-coded, behind
 * a 48-byte chunk header with its own CRC-32, so a chunk decodes on its own; (version 4) touch
 * chunks among them hold how many pages of large blocks the program made resident; (version 5) site
 * chunks hold the call sites of the objects (a table of stacks, the objects' site ids, the mappings).
 * Always holds: the writer never allocates (the caller owns every buffer, the recorder maps
 * them); the reader never trusts a byte it has not checked: every length is bounded by the
 * file, every chunk's CRC is verified and every event decoded once in hbt_open, so a corrupt
 * or truncated file is refused with one line of text and no read outside a chunk's buffer; the
 * reader reads the file with pread, a chunk at a time, and never maps it. */
#ifndef HEAPBENCH_TRACE_H
#define HEAPBENCH_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define HBT_MAGIC "HBTRACE"        /* 8 bytes with its NUL */
#define HBT_VERSION 5u            /* written; versions 1 (no mapping kinds), 2 (no global order, no thread events),
                                   * 3 (no touch chunks) and 4 (no site chunks) are still read */
#define HBT_VERSION_MIN 1u
#define HBT_HEADER_SIZE 4096u
#define HBT_CHUNK_MAGIC 0x4b434248u /* "HBCK" little-endian */
#define HBT_TOUCH_MAGIC 0x43544248u /* "HBTC": a touch chunk (version 4), below */
#define HBT_SITE_MAGIC 0x54534248u  /* "HBST": a site chunk (version 5), below */
#define HBT_CHUNK_HEADER 48u
#define HBT_CHUNK_MAX (1u << 20)    /* largest payload a reader accepts */
#define HBT_EVENT_MAX 56u           /* most bytes one encoded event takes */
#define HBT_MAX_THREADS 4096u

/* Event kinds (low 4 bits of an event's first byte): one per malloc-API function, then (version
 * 2) the program's own anonymous private mappings: HBT_MMAP produces a mapping object of its
 * length, HBT_MUNMAP consumes one whole (an mremap is recorded as the two); then (version 3) a
 * thread's start (its first event) and exit (its last, when it ended before the process). */
enum hbt_kind {
    HBT_MALLOC = 1, HBT_CALLOC, HBT_REALLOC, HBT_FREE, HBT_POSIX_MEMALIGN, HBT_ALIGNED_ALLOC,
    HBT_MEMALIGN, HBT_VALLOC, HBT_PVALLOC, HBT_REALLOCARRAY, HBT_MMAP, HBT_MUNMAP,
    HBT_THREAD_START, HBT_THREAD_EXIT, HBT_KIND_COUNT
};
/* True for the mapping kinds: their objects are the program's mappings, not the allocator's. */
static inline int hbt_kind_maps(unsigned k) { return k == HBT_MMAP || k == HBT_MUNMAP; }
/* True for the thread kinds: no call, no object, no size; they mark a thread's life. */
static inline int hbt_kind_thread(unsigned k) { return k == HBT_THREAD_START || k == HBT_THREAD_EXIT; }

/* Event flags (high 4 bits of the first byte). */
#define HBT_F_XREF 0x10u     /* the object was produced by another thread: thread + seq follow */
#define HBT_F_NOREF 0x20u    /* free/realloc of NULL or of an address the recorder did not know */
#define HBT_F_FAILED 0x40u   /* the call returned NULL: nothing produced (realloc: see DATA.md) */
#define HBT_F_SAMESIZE 0x80u /* size equals this thread's previous event's size (not stored) */

/* No object: the reference of an unknown free, or the product of a failed call. */
#define HBT_NONE UINT64_MAX

/* One event as the writer takes it and the reader gives it. Objects are named by
 * (thread, seq): the seq-th object that thread produced; the reader also gives the global
 * object index (the producing thread's base + seq). */
struct hbt_event {
    uint8_t kind, flags, align_log; /* align_log: log2 of the alignment (memalign kinds) */
    uint16_t thread;               /* the thread that made the call */
    uint64_t size;                 /* bytes requested (calloc, reallocarray: the product) */
    uint64_t ns;                   /* time since the trace started */
    uint64_t order;                /* (version 3) the event's place in the process's global order,
                                    * strictly increasing along each thread, and after the event that
                                    * produced the object it consumes; older versions: the thread's
                                    * event index (no order between threads) */
    uint16_t ref_thread;           /* the consumed object: its producer thread and seq */
    uint64_t ref_seq;
    uint64_t ref;                  /* reader: global index of the object consumed, or HBT_NONE (also
                                    * when a failed realloc names an object it leaves alive) */
    uint64_t prod;                 /* reader: global index of the produced object, or HBT_NONE */
};

/* True when the (decoded) event consumes (frees or moves) an object: its ref is set. */
static inline int hbt_consumes(const struct hbt_event *e) { return e->ref != UINT64_MAX; }
/* True when the (decoded) event produces a new object: its prod is set. */
static inline int hbt_produces(const struct hbt_event *e) { return e->prod != UINT64_MAX; }
/* The function name of a kind ("malloc", ...), "?" for an unknown one. */
const char *hbt_kind_name(unsigned kind);

/* ---- writer ---- */

/* One thread's chunk being filled: buf holds the chunk header, then the events. */
struct hbt_chunk {
    uint8_t *buf;
    size_t cap, len;       /* cap >= HBT_CHUNK_HEADER + HBT_EVENT_MAX */
    uint16_t thread;
    uint32_t nops, nprod;
    uint64_t op, seq;      /* the thread's next op index and next object seq */
    uint64_t base_ns, last_ns, last_size, last_order;
    uint32_t version;      /* the format written: HBT_VERSION (a test may write version 2 events) */
};

/* Starts an empty chunk for thread in buf (the thread's counters start at 0). */
void hbt_chunk_init(struct hbt_chunk *c, uint8_t *buf, size_t cap, uint16_t thread);
/* True when one more event fits. */
int hbt_chunk_has_room(const struct hbt_chunk *c);
/* Appends one event (e->thread is ignored; the chunk's thread is used); returns the seq it
 * produced, or HBT_NONE. Needs hbt_chunk_has_room. */
uint64_t hbt_chunk_put(struct hbt_chunk *c, const struct hbt_event *e);
/* Seals the chunk (header and CRC) and returns its length in bytes, 0 when it holds no
 * event; after writing buf[0..len), call hbt_chunk_reset. */
size_t hbt_chunk_seal(struct hbt_chunk *c);
/* Empties the chunk, keeping the thread's counters. */
void hbt_chunk_reset(struct hbt_chunk *c);

/* The facts a header carries. Strings are NUL-terminated and cut to fit. */
struct hbt_header {
    uint32_t version;
    char command[2048];
    char allocator[512];
    uint64_t page_size, pid, ppid, start_unix_ns;
    int complete;              /* 1: the process exited normally and the totals below are set */
    uint64_t threads, ops, duration_ns;
    uint64_t unknown_refs, lost_threads; /* frees of addresses the recorder did not know; threads past HBT_MAX_THREADS */
    uint64_t partial_unmaps;   /* munmap/mremap calls that cut only part of a recorded mapping: not recorded */
    uint64_t lost_maps;        /* the program's mappings past the recorder's table: not recorded */
    uint64_t orig_wall_ns, orig_maxrss_kb; /* the program run once without the recorder (heapbench record); 0: not measured */
    uint64_t orig_cpu_ns, rec_cpu_ns; /* CPU time (user + sys, children included) of that run and of the recorded one; 0: not measured */
};

/* The recorder's slowdown: CPU time recorded over CPU time plain (heapbench record's two runs); 0 when not measured. */
double hbt_recorder_slowdown(const struct hbt_header *h);

/* Encodes h into out[HBT_HEADER_SIZE]. Returns 0, or -1 when the text does not fit. */
int hbt_header_encode(const struct hbt_header *h, uint8_t *out);
/* Rewrites the header of the trace at path with h (for example with the original program's
 * figures added). 0, or -1 with a one-line reason in err. */
int hbt_header_rewrite(const char *path, const struct hbt_header *h, char *err, size_t errlen);
/* Reads and checks only the header of the trace at path into h (a cheap look, not hbt_open's
 * check of the whole trace). 0, or -1 with a one-line reason in err. */
int hbt_header_read(const char *path, struct hbt_header *h, char *err, size_t errlen);

/* Reads n bytes at off of fd (pread, retried on EINTR). 0, or -1 with errno set (EIO: the file ended). */
int hbt_pread_all(int fd, void *buf, size_t n, uint64_t off);
/* Writes all n bytes of p to fd (write, retried on EINTR and short writes; no allocation, so the
 * recorder calls it inside malloc). 0, or -1 with errno set (0 for a write that wrote nothing). */
int hbt_write_all(int fd, const uint8_t *p, size_t n);
/* Writes the message fmt (printf) into err (errlen bytes, always terminated) and returns -1: the
 * readers' (trace.c, rawtrace.c) way to refuse with one line of text. */
int hbt_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Decodes and checks a header's HBT_HEADER_SIZE bytes at in (a raw recording's copy of it). 0, or -1 with a one-line reason in err. */
int hbt_header_decode(const uint8_t *in, struct hbt_header *h, char *err, size_t errlen);

/* ---- touch chunks (version 4) ----
 * A touch chunk records, for heap blocks whose whole pages the program did not all make resident,
 * how many it did: one record per block, (the object's thread, its seq, the whole pages inside
 * the block, the resident ones), varints; a block without a record was wholly resident (or not
 * measured). Its 48-byte header is an event chunk's with the magic HBTC, the writing thread, the
 * payload length, the record count, the CRC and every other field 0. Touch chunks lie among the
 * event chunks in any order; a record may come before or after the events of its object. */

/* Most bytes one record takes (4 varints). */
#define HBT_TOUCH_RECORD_MAX 40u

/* One record as the writer takes it and the reader gives it. */
struct hbt_touch {
    uint16_t thread;           /* the object: its producer thread and seq */
    uint64_t seq;
    uint64_t obj;              /* reader: the object's global index (the thread's obj_base + seq) */
    uint64_t pages;            /* whole pages inside the block (its usable bytes) */
    uint64_t resident;         /* of those, resident when measured (< pages) */
};

/* A touch chunk being filled: buf holds the chunk header, then the records. */
struct hbt_touch_chunk {
    uint8_t *buf;
    size_t cap, len;           /* cap >= HBT_CHUNK_HEADER + HBT_TOUCH_RECORD_MAX */
    uint32_t n;
    uint16_t thread;           /* the writing thread */
};

void hbt_touch_init(struct hbt_touch_chunk *c, uint8_t *buf, size_t cap, uint16_t thread);
/* True when one more record fits. */
int hbt_touch_has_room(const struct hbt_touch_chunk *c);
/* Appends r (needs hbt_touch_has_room). */
void hbt_touch_put(struct hbt_touch_chunk *c, const struct hbt_touch *r);
/* Seals the chunk and returns its length, 0 when it holds no record; after writing buf[0..len),
 * call hbt_touch_reset. */
size_t hbt_touch_seal(struct hbt_touch_chunk *c);
void hbt_touch_reset(struct hbt_touch_chunk *c);

/* ---- site chunks (version 5) ----
 * A site chunk holds call-site records, each a type varint then its fields (varints): HBT_SITE_DEF
 * (site id, frame count 1..HBT_SITE_FRAMES, the frames: return addresses, innermost first, each as
 * its difference from the previous one, zigzag-coded), HBT_SITE_OBJS (a run of one thread's
 * consecutive objects made at one site: thread, first seq, count, site id) and HBT_SITE_MAPS (the
 * process's /proc/self/maps text at its exit, for symbolizing the frames afterwards: byte count,
 * bytes). Site ids count from 1; a site id of 0 is "not recorded". Its 48-byte header is a touch
 * chunk's with the magic HBST. An object without an HBT_SITE_OBJS record has no site. */
#define HBT_SITE_FRAMES 16u
enum hbt_site_type { HBT_SITE_DEF = 1, HBT_SITE_OBJS, HBT_SITE_MAPS };
/* Most bytes one record takes but a maps record's text. */
#define HBT_SITE_RECORD_MAX (4u * 10u + HBT_SITE_FRAMES * 10u)

/* One record as the writer takes it and the reader gives it. */
struct hbt_site {
    unsigned type;             /* HBT_SITE_* */
    uint32_t id;               /* DEF: the site; OBJS: the site of the run */
    uint32_t nframes;          /* DEF */
    uint64_t frames[HBT_SITE_FRAMES];
    uint16_t thread;           /* OBJS: the run's objects: thread, first seq, count */
    uint64_t seq, count;
    uint64_t obj;              /* reader, OBJS: the first object's global index */
    const char *text;          /* MAPS: the text (not NUL-terminated), len bytes */
    size_t len;
};

struct hbt_site_chunk {
    uint8_t *buf;
    size_t cap, len;           /* cap >= HBT_CHUNK_HEADER + HBT_SITE_RECORD_MAX */
    uint32_t n;
    uint16_t thread;
};
void hbt_site_init(struct hbt_site_chunk *c, uint8_t *buf, size_t cap, uint16_t thread);
/* True when r fits (a maps record: its text too). */
int hbt_site_has_room(const struct hbt_site_chunk *c, const struct hbt_site *r);
/* Appends r (needs hbt_site_has_room). */
void hbt_site_put(struct hbt_site_chunk *c, const struct hbt_site *r);
/* Seals the chunk and returns its length, 0 when it holds no record; then hbt_site_reset. */
size_t hbt_site_seal(struct hbt_site_chunk *c);
void hbt_site_reset(struct hbt_site_chunk *c);

/* ---- reader ---- */

/* Zeroed memory straight from mmap (NULL when refused), and its release: what the reader and
 * the replayer use for their own bookkeeping, so that it never comes from the measured malloc. */
void *hbt_pages(size_t n);
void hbt_unpages(void *p, size_t n);
/* Notes [p, p + n) as the reader's own memory too (a replay thread's stack). hbt_pages notes its own. */
void hbt_pages_note(const void *p, size_t n);
/* Calls fn on every range of the reader's own memory still mapped (up to 4096 of them); returns how
 * many were not kept (past the table: their memory is then not told from the allocator's). */
uint32_t hbt_pages_each(void (*fn)(void *arg, uintptr_t lo, size_t len), void *arg);

struct hbt_thread_index {
    uint64_t nchunks, ops, objects, obj_base;
    uint64_t *chunk_off;       /* file offsets of its chunks, in order */
    uint64_t first_order, last_order; /* the order (hbt_event.order) of its first and last events */
    int exits;                 /* its last event is a thread_exit: it ended before the process */
};

struct hbt_trace {
    int fd;                    /* the file, read with pread (never mapped: what is read costs no resident memory) */
    size_t size;
    uint8_t head[HBT_HEADER_SIZE]; /* the header's bytes */
    uint8_t *scratch;          /* one chunk (hbt_open's checks) */
    struct hbt_header h;
    uint32_t nthreads;         /* 1 + the highest thread number seen */
    int ordered;               /* version 3 or later: events carry the global order (hbt_event.order) */
    uint64_t ops, objects;     /* totals over all chunks */
    struct hbt_thread_index *threads;
    uint64_t ntouch_chunks, touch_records; /* touch chunks (version 4) and the records they hold */
    uint64_t *touch_off;       /* file offsets of the touch chunks */
    uint64_t nsite_chunks, site_records; /* site chunks (version 5) and the records they hold */
    uint64_t *site_off;        /* file offsets of the site chunks */
};

/* Maps, checks and indexes the trace at path: framing, checksums and every event's decoding
 * (the objects' uses are checked by hbt_stats, which every reader runs before trusting them).
 * 0 on success; -1 with a one-line reason in err (what is wrong and what to do) when the file
 * is missing, truncated or corrupt. The file is read with pread, a chunk at a time, so reading a
 * trace costs memory per chunk being read, not per byte of the file. */
int hbt_open(const char *path, struct hbt_trace *t, char *err, size_t errlen);
/* hbt_open without its pass over the events: framing, checksums, touch and site records only; the
 * threads' first_order, last_order and exits are left 0. For a reader that walks every event
 * itself with hbt_next_checked before trusting any (the replayer's check, trace_stats.h's
 * hbt_stats_check, which fills them), so that the trace is decoded once, not twice. */
int hbt_open_unchecked(const char *path, struct hbt_trace *t, char *err, size_t errlen);
void hbt_close(struct hbt_trace *t);

/* Calls fn on every touch record of the opened trace (checked by hbt_open: its object exists,
 * resident < pages), chunk after chunk, until fn returns non-zero. Returns 0, fn's non-zero
 * value, or -1 when a chunk cannot be read again or no memory is left for its buffer. */
int hbt_touch_each(const struct hbt_trace *t, int (*fn)(void *arg, const struct hbt_touch *r), void *arg);

/* Calls fn on every site record of the opened trace (checked by hbt_open: a run names objects of
 * the trace, a definition 1..HBT_SITE_FRAMES frames), chunk after chunk, until fn returns non-zero;
 * a record's text points into a buffer valid only during the call. 0, fn's value, or -1 when a
 * chunk cannot be read again or no memory is left for its buffer. */
int hbt_site_each(const struct hbt_trace *t, int (*fn)(void *arg, const struct hbt_site *r), void *arg);

/* Decodes one thread's events in order, reading its chunks one at a time into its own buffer
 * (only the bytes of the chunks read are ever written: a cursor costs the largest chunk's
 * size in resident memory, not the buffer's). */
struct hbt_cursor {
    const struct hbt_trace *t;
    uint16_t thread;
    uint64_t chunk, left;      /* the current chunk and the events left in it */
    const uint8_t *p, *end;
    uint64_t ns, seq, last_size, order, op;
    int fresh;                 /* the next event is its chunk's first (its order is absolute) */
    int ordered;               /* t->ordered, and below the thread's obj_base: read once, not per event */
    uint64_t base;
    uint8_t buf[HBT_CHUNK_HEADER + HBT_CHUNK_MAX + 1]; /* the chunk, then a 0 byte (no event starts with
                                                        * it: the end of a run of plain events) */
};

void hbt_cursor_init(struct hbt_cursor *c, const struct hbt_trace *t, uint16_t thread);
/* The next event of the thread: 1, 0 at its end, -1 on a malformed event (hbt_open has
 * already decoded every event, so -1 cannot happen on an opened trace). */
int hbt_next(struct hbt_cursor *c, struct hbt_event *e);
/* hbt_next with every check hbt_open's pass makes (bounds, kinds, orders rising, the chunk's end):
 * -1 on a malformed event; for a trace opened with hbt_open_unchecked. */
int hbt_next_checked(struct hbt_cursor *c, struct hbt_event *e);

/* One varint at *pp, moving *pp past it. CHECKED: bounded by end (-1 past it), for hbt_open's
 * check of every event; not CHECKED: for cursors on an opened trace, whose events all decoded
 * within their chunk (only the varint's 10-byte limit is kept). */
static inline __attribute__((always_inline)) int hbt_varint_at(const uint8_t **pp, const uint8_t *end, uint64_t *v, int checked)
{
    const uint8_t *p = *pp;
    if (checked && p >= end)
        return -1;
    uint64_t r = *p++;
    if (r >= 0x80) {
        r &= 0x7f;
        for (unsigned shift = 7;; shift += 7) {
            if (shift >= 70 || (checked && p >= end))
                return -1;
            uint8_t b = *p++;
            r |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
    }
    *pp = p;
    *v = r;
    return 0;
}

/* ---- the cursor's fast path: runs of plain events (the replayer's loop) ---- */

/* A cursor's decoding state, copied into a local for a run of plain events, so that the compiler
 * can keep it in registers (in the cursor, every store through another pointer, and every call,
 * would send it back to memory at each event); hbt_run_end copies it back before hbt_next. */
struct hbt_run {
    const uint8_t *p;
    uint64_t left, ns, order, seq, last_size;
};

/* Plain events, the two the fast path decodes: a malloc (first byte HBT_MALLOC, with or without
 * HBT_F_SAMESIZE) and a free of an object of the event's own thread (first byte HBT_FREE, no
 * flag), neither the first event of its chunk (whose order is absolute), in a trace with the
 * global order (format 3). Every other event is left to hbt_next: the other kinds, another
 * thread's object, an unknown free, a failed call, a chunk's first event, formats 1-2. */
static inline int hbt_plain_malloc(unsigned b) { return (b & ~HBT_F_SAMESIZE) == HBT_MALLOC; }
static inline int hbt_plain_free(unsigned b) { return b == HBT_FREE; }

/* A run at the cursor's next event: empty (at a byte 0) when that event is its chunk's first,
 * when the cursor has not read a chunk yet, or when the trace has no global order. */
static inline struct hbt_run hbt_run_begin(const struct hbt_cursor *c)
{
    static const uint8_t none = 0;
    return (struct hbt_run){.p = c->fresh || !c->ordered || !c->p ? &none : c->p, .left = c->left, .ns = c->ns,
                            .order = c->order, .seq = c->seq, .last_size = c->last_size};
}

/* Puts the run's state back into the cursor (for hbt_next). */
static inline void hbt_run_end(struct hbt_cursor *c, const struct hbt_run *r)
{
    if (c->fresh || !c->ordered || !c->p)
        return; /* the run was empty */
    c->op += c->left - r->left;
    c->p = r->p;
    c->left = r->left;
    c->ns = r->ns;
    c->order = r->order;
    c->seq = r->seq;
    c->last_size = r->last_size;
}

/* The first byte (kind | flags) of the run's next event, 0 when its chunk has none left (the byte
 * after the chunk's last event). */
static inline unsigned hbt_run_peek(const struct hbt_run *r) { return *r->p; }

/* One varint of an opened trace (hbt_varint_at unchecked), its one- and two-byte cases inline. */
static inline __attribute__((always_inline)) uint64_t hbt_run_varint(struct hbt_run *r)
{
    const uint8_t *p = r->p;
    uint64_t v = p[0];
    if (__builtin_expect(v < 0x80, 1)) {
        r->p = p + 1;
        return v;
    }
    if (p[1] < 0x80) {
        r->p = p + 2;
        return (v & 0x7f) | (uint64_t)p[1] << 7;
    }
    hbt_varint_at(&r->p, NULL, &v, 0);
    return v;
}

/* Takes the peeked event: its first byte, time (r->ns) and order (r->order). */
static inline __attribute__((always_inline)) void hbt_run_head(struct hbt_run *r)
{
    r->p++;
    r->ns += hbt_run_varint(r);
    r->order += hbt_run_varint(r) + 1;
    r->left--;
}

/* A plain malloc's size (b: its first byte) and the seq of the object it makes; after hbt_run_head. */
static inline __attribute__((always_inline)) uint64_t hbt_run_malloc(struct hbt_run *r, unsigned b, uint64_t *seq)
{
    if (!(b & HBT_F_SAMESIZE))
        r->last_size = hbt_run_varint(r);
    *seq = r->seq++;
    return r->last_size;
}

/* A plain free's object: the seq of the thread's own object it frees; after hbt_run_head. */
static inline __attribute__((always_inline)) uint64_t hbt_run_free(struct hbt_run *r) { return r->seq - 1 - hbt_run_varint(r); }

#endif
