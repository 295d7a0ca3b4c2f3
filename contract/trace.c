/* trace.c - writer and reader of the allocation trace format (see trace.h and docs/DATA.md).
 * Always holds: the writer touches only the caller's buffers (no allocation: it runs inside
 * malloc); the reader bounds every read by the chunk it is in, verifies every chunk's CRC-32
 * (event and touch chunks) and decodes every event and touch record once in hbt_open, refuses a chunk whose counts its bytes cannot hold
 * (so every count, and what is allocated from it, is bounded by the file's size), allocates
 * only with mmap (a replay's own bookkeeping never goes through the allocator it measures), and
 * reads the file with pread a chunk at a time into its own buffers (so reading costs memory per
 * chunk, whatever the file's length, and nothing of the page cache is counted as the reader's). */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---- shared pieces ---- */

#define KIND_BIT(k) (1u << (k))
static inline int kind_is_aligned(unsigned k)
{
    return (KIND_BIT(k) & (KIND_BIT(HBT_POSIX_MEMALIGN) | KIND_BIT(HBT_ALIGNED_ALLOC) | KIND_BIT(HBT_MEMALIGN))) != 0;
}
static inline int kind_takes_ref(unsigned k)
{
    return (KIND_BIT(k) & (KIND_BIT(HBT_FREE) | KIND_BIT(HBT_REALLOC) | KIND_BIT(HBT_REALLOCARRAY) | KIND_BIT(HBT_MUNMAP))) != 0;
}
/* free and munmap: they only consume an object (no size stored, nothing produced). */
static inline int kind_releases(unsigned k) { return k == HBT_FREE || k == HBT_MUNMAP; }
/* The kinds that store a size: every one but free, munmap and the thread kinds. */
static inline int kind_sized(unsigned k)
{
    return (KIND_BIT(k) & (KIND_BIT(HBT_FREE) | KIND_BIT(HBT_MUNMAP) | KIND_BIT(HBT_THREAD_START) | KIND_BIT(HBT_THREAD_EXIT))) == 0;
}

const char *hbt_kind_name(unsigned kind)
{
    static const char *const names[HBT_KIND_COUNT] = {"?", "malloc", "calloc", "realloc", "free",
        "posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc", "reallocarray", "mmap", "munmap",
        "thread_start", "thread_exit"};
    return kind > 0 && kind < HBT_KIND_COUNT ? names[kind] : "?";
}

/* Whether an event that names an object consumes it: a free does; a realloc does unless it
 * failed, and a failed realloc of size 0 is glibc's realloc(p, 0), which freed it. */
static int ref_consumed(const struct hbt_event *e)
{
    return kind_releases(e->kind) || !(e->flags & HBT_F_FAILED) || e->size == 0;
}

static uint32_t crc_of(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint8_t *put_varint_long(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* The writer's varints are mostly one byte (a time or order gap of 0, a recent object): that
 * case is one compare and one store, inline. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v < 0x80, 1)) {
        *p = (uint8_t)v;
        return p + 1;
    }
    return put_varint_long(p, v);
}

/* ---- writer ---- */

void hbt_chunk_init(struct hbt_chunk *c, uint8_t *buf, size_t cap, uint16_t thread)
{
    memset(c, 0, sizeof *c);
    c->buf = buf;
    c->cap = cap;
    c->thread = thread;
    c->version = HBT_VERSION;
    c->len = HBT_CHUNK_HEADER;
}

int hbt_chunk_has_room(const struct hbt_chunk *c) { return c->cap - c->len >= HBT_EVENT_MAX; }

/* What the writer needs of a kind, one table lookup per event (the recorder's hot path). */
enum { W_ALIGNED = 1, W_SIZED = 2, W_REF = 4 };
static const uint8_t kind_writes[16] = {
    [HBT_MALLOC] = W_SIZED, [HBT_CALLOC] = W_SIZED, [HBT_REALLOC] = W_SIZED | W_REF, [HBT_FREE] = W_REF,
    [HBT_POSIX_MEMALIGN] = W_SIZED | W_ALIGNED, [HBT_ALIGNED_ALLOC] = W_SIZED | W_ALIGNED,
    [HBT_MEMALIGN] = W_SIZED | W_ALIGNED, [HBT_VALLOC] = W_SIZED, [HBT_PVALLOC] = W_SIZED,
    [HBT_REALLOCARRAY] = W_SIZED | W_REF, [HBT_MMAP] = W_SIZED, [HBT_MUNMAP] = W_REF,
};

uint64_t hbt_chunk_put(struct hbt_chunk *c, const struct hbt_event *e)
{
    uint8_t *p = c->buf + c->len, *first = p++;
    unsigned flags = e->flags & (HBT_F_NOREF | HBT_F_FAILED), w = kind_writes[e->kind & 15];
    uint64_t ns = e->ns, order = e->order;
    if (__builtin_expect(c->nops == 0, 0)) {
        c->base_ns = c->last_ns = ns;
        c->last_order = order;
        *p++ = 0;
        if (c->version >= 3)
            p = put_varint(p, order); /* a chunk's first order is absolute */
    } else {
        p = put_varint(p, ns > c->last_ns ? ns - c->last_ns : 0);
        c->last_ns = ns > c->last_ns ? ns : c->last_ns;
        /* the global order: the gap to the previous event less 1 */
        if (c->version >= 3) {
            uint64_t last = c->last_order;
            p = put_varint(p, order > last ? order - last - 1 : 0);
            c->last_order = order > last ? order : last + 1;
        }
    }
    if (w & W_ALIGNED)
        *p++ = e->align_log;
    if (w & W_SIZED) {
        if (e->size == c->last_size)
            flags |= HBT_F_SAMESIZE;
        else
            p = put_varint(p, e->size);
        c->last_size = e->size;
    }
    if ((w & W_REF) && !(flags & HBT_F_NOREF)) {
        if (__builtin_expect(e->ref_thread == c->thread, 1)) {
            p = put_varint(p, c->seq - 1 - e->ref_seq);
        } else {
            flags |= HBT_F_XREF;
            p = put_varint(put_varint(p, e->ref_thread), e->ref_seq);
        }
    }
    *first = (uint8_t)(e->kind | flags);
    c->len = (size_t)(p - c->buf);
    c->nops++;
    c->op++;
    if (!(w & W_SIZED) || (flags & HBT_F_FAILED))
        return HBT_NONE;
    c->nprod++;
    return c->seq++;
}

size_t hbt_chunk_seal(struct hbt_chunk *c)
{
    if (c->nops == 0)
        return 0;
    uint8_t *h = c->buf;
    put_le(h, HBT_CHUNK_MAGIC, 4);
    put_le(h + 4, c->thread, 2);
    put_le(h + 6, 0, 2);
    put_le(h + 8, c->len - HBT_CHUNK_HEADER, 4);
    put_le(h + 12, c->nops, 4);
    put_le(h + 16, c->nprod, 4);
    put_le(h + 20, 0, 4);
    put_le(h + 24, c->op - c->nops, 8);
    put_le(h + 32, c->seq - c->nprod, 8);
    put_le(h + 40, c->base_ns, 8);
    put_le(h + 20, crc_of(h, c->len), 4);
    return c->len;
}

void hbt_chunk_reset(struct hbt_chunk *c)
{
    c->len = HBT_CHUNK_HEADER;
    c->nops = c->nprod = 0;
    c->last_size = 0;
}

/* ---- touch chunks ---- */

void hbt_touch_init(struct hbt_touch_chunk *c, uint8_t *buf, size_t cap, uint16_t thread)
{
    memset(c, 0, sizeof *c);
    c->buf = buf;
    c->cap = cap;
    c->thread = thread;
    c->len = HBT_CHUNK_HEADER;
}

int hbt_touch_has_room(const struct hbt_touch_chunk *c) { return c->cap - c->len >= HBT_TOUCH_RECORD_MAX; }

void hbt_touch_put(struct hbt_touch_chunk *c, const struct hbt_touch *r)
{
    uint8_t *p = c->buf + c->len;
    p = put_varint(put_varint(p, r->thread), r->seq);
    p = put_varint(put_varint(p, r->pages), r->resident);
    c->len = (size_t)(p - c->buf);
    c->n++;
}

/* Writes the header of a record chunk (touch or site: magic, thread, payload length, record count,
 * CRC) in front of its len bytes; returns len, or 0 when it holds no record. */
static size_t seal_records(uint8_t *h, size_t len, uint32_t n, uint16_t thread, uint32_t magic)
{
    if (n == 0)
        return 0;
    memset(h, 0, HBT_CHUNK_HEADER);
    put_le(h, magic, 4);
    put_le(h + 4, thread, 2);
    put_le(h + 8, len - HBT_CHUNK_HEADER, 4);
    put_le(h + 12, n, 4);
    put_le(h + 20, crc_of(h, len), 4);
    return len;
}

size_t hbt_touch_seal(struct hbt_touch_chunk *c) { return seal_records(c->buf, c->len, c->n, c->thread, HBT_TOUCH_MAGIC); }

void hbt_touch_reset(struct hbt_touch_chunk *c)
{
    c->len = HBT_CHUNK_HEADER;
    c->n = 0;
}

/* ---- site chunks ---- */

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

void hbt_site_init(struct hbt_site_chunk *c, uint8_t *buf, size_t cap, uint16_t thread)
{
    memset(c, 0, sizeof *c);
    c->buf = buf;
    c->cap = cap;
    c->thread = thread;
    c->len = HBT_CHUNK_HEADER;
}

int hbt_site_has_room(const struct hbt_site_chunk *c, const struct hbt_site *r)
{
    size_t need = HBT_SITE_RECORD_MAX + (r->type == HBT_SITE_MAPS ? r->len : 0);
    return c->cap - c->len >= need && c->len - HBT_CHUNK_HEADER + need <= HBT_CHUNK_MAX;
}

void hbt_site_put(struct hbt_site_chunk *c, const struct hbt_site *r)
{
    uint8_t *p = put_varint(c->buf + c->len, r->type);
    if (r->type == HBT_SITE_DEF) {
        p = put_varint(put_varint(p, r->id), r->nframes);
        uint64_t prev = 0;
        for (uint32_t i = 0; i < r->nframes; i++) {
            p = put_varint(p, zigzag((int64_t)(r->frames[i] - prev)));
            prev = r->frames[i];
        }
    } else if (r->type == HBT_SITE_OBJS) {
        p = put_varint(put_varint(p, r->thread), r->seq);
        p = put_varint(put_varint(p, r->count), r->id);
    } else {
        p = put_varint(p, r->len);
        memcpy(p, r->text, r->len);
        p += r->len;
    }
    c->len = (size_t)(p - c->buf);
    c->n++;
}

size_t hbt_site_seal(struct hbt_site_chunk *c) { return seal_records(c->buf, c->len, c->n, c->thread, HBT_SITE_MAGIC); }

void hbt_site_reset(struct hbt_site_chunk *c)
{
    c->len = HBT_CHUNK_HEADER;
    c->n = 0;
}

/* Appends "key\tvalue\n" at *pos (values with tabs or newlines get spaces); -1 when full. */
static int text_add(char *text, size_t cap, size_t *pos, const char *key, const char *fmt, ...)
{
    char val[2560];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    for (char *s = val; *s; s++)
        if (*s == '\t' || *s == '\n')
            *s = ' ';
    int n = snprintf(text + *pos, cap - *pos, "%s\t%s\n", key, val);
    if (n < 0 || (size_t)n >= cap - *pos)
        return -1;
    *pos += (size_t)n;
    return 0;
}

int hbt_header_encode(const struct hbt_header *h, uint8_t *out)
{
    memset(out, 0, HBT_HEADER_SIZE);
    memcpy(out, HBT_MAGIC, 8);
    put_le(out + 8, HBT_VERSION, 4);
    char *text = (char *)out + 16;
    size_t cap = HBT_HEADER_SIZE - 16 - 4, pos = 0;
    int bad = text_add(text, cap, &pos, "command", "%s", h->command) |
              text_add(text, cap, &pos, "allocator", "%s", h->allocator) |
              text_add(text, cap, &pos, "page_size", "%" PRIu64, h->page_size) |
              text_add(text, cap, &pos, "pid", "%" PRIu64, h->pid) |
              text_add(text, cap, &pos, "ppid", "%" PRIu64, h->ppid) |
              text_add(text, cap, &pos, "start_unix_ns", "%" PRIu64, h->start_unix_ns) |
              text_add(text, cap, &pos, "complete", "%d", h->complete) |
              text_add(text, cap, &pos, "threads", "%" PRIu64, h->threads) |
              text_add(text, cap, &pos, "ops", "%" PRIu64, h->ops) |
              text_add(text, cap, &pos, "duration_ns", "%" PRIu64, h->duration_ns) |
              text_add(text, cap, &pos, "unknown_refs", "%" PRIu64, h->unknown_refs) |
              text_add(text, cap, &pos, "lost_threads", "%" PRIu64, h->lost_threads) |
              text_add(text, cap, &pos, "partial_unmaps", "%" PRIu64, h->partial_unmaps) |
              text_add(text, cap, &pos, "lost_maps", "%" PRIu64, h->lost_maps) |
              text_add(text, cap, &pos, "orig_wall_ns", "%" PRIu64, h->orig_wall_ns) |
              text_add(text, cap, &pos, "orig_maxrss_kb", "%" PRIu64, h->orig_maxrss_kb) |
              text_add(text, cap, &pos, "orig_cpu_ns", "%" PRIu64, h->orig_cpu_ns) |
              text_add(text, cap, &pos, "rec_cpu_ns", "%" PRIu64, h->rec_cpu_ns);
    put_le(out + 12, pos, 4);
    put_le(out + HBT_HEADER_SIZE - 4, crc_of(out, HBT_HEADER_SIZE - 4), 4);
    return bad ? -1 : 0;
}

int hbt_header_rewrite(const char *path, const struct hbt_header *h, char *err, size_t errlen)
{
    uint8_t buf[HBT_HEADER_SIZE];
    if (hbt_header_encode(h, buf) < 0) {
        snprintf(err, errlen, "the header of %s does not fit %u bytes", path, HBT_HEADER_SIZE);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pwrite(fd, buf, sizeof buf, 0) : -1;
    int e = errno;
    if (fd >= 0 && close(fd) < 0 && n == (ssize_t)sizeof buf)
        n = -1, e = errno;
    if (n != (ssize_t)sizeof buf) {
        snprintf(err, errlen, "cannot rewrite the header of %s: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

/* ---- reader ---- */

/* The reader's own mappings (hbt_pages) and the ranges noted with hbt_pages_note: what a replay's
 * explanation counts as the replayer's memory, not the allocator's. */
#define OWN_MAX 4096u
static struct {
    _Atomic uintptr_t lo;
    _Atomic size_t len;
} own[OWN_MAX];
static _Atomic uint32_t own_n, own_lost;

void hbt_pages_note(const void *p, size_t n)
{
    uint32_t i = atomic_fetch_add(&own_n, 1);
    if (i >= OWN_MAX) {
        atomic_fetch_add(&own_lost, 1);
        return;
    }
    atomic_store(&own[i].len, n);
    atomic_store(&own[i].lo, (uintptr_t)p);
}

uint32_t hbt_pages_each(void (*fn)(void *arg, uintptr_t lo, size_t len), void *arg)
{
    uint32_t n = atomic_load(&own_n);
    for (uint32_t i = 0; i < n && i < OWN_MAX; i++)
        if (atomic_load(&own[i].len))
            fn(arg, atomic_load(&own[i].lo), atomic_load(&own[i].len));
    return atomic_load(&own_lost);
}

void *hbt_pages(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    hbt_pages_note(p, n ? n : 1);
    return p;
}

void hbt_unpages(void *p, size_t n)
{
    if (!p)
        return;
    uint32_t k = atomic_load(&own_n);
    for (uint32_t i = 0; i < k && i < OWN_MAX; i++)
        if (atomic_load(&own[i].lo) == (uintptr_t)p)
            atomic_store(&own[i].len, 0);
    munmap(p, n ? n : 1);
}

int hbt_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads the value of key from the header's text into val (cut to cap); "" when absent. */
static void text_get(const char *text, size_t len, const char *key, char *val, size_t cap)
{
    size_t klen = strlen(key);
    val[0] = '\0';
    for (size_t i = 0; i < len;) {
        const char *line = text + i, *nl = memchr(line, '\n', len - i);
        size_t n = nl ? (size_t)(nl - line) : len - i;
        if (n > klen && memcmp(line, key, klen) == 0 && line[klen] == '\t') {
            size_t v = n - klen - 1 < cap - 1 ? n - klen - 1 : cap - 1;
            memcpy(val, line + klen + 1, v);
            val[v] = '\0';
            return;
        }
        i += n + 1;
    }
}

static uint64_t text_num(const char *text, size_t len, const char *key)
{
    char v[32];
    text_get(text, len, key, v, sizeof v);
    return strtoull(v, NULL, 10);
}

int hbt_write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            errno = w < 0 ? errno : 0;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads n bytes at off into buf: 0, or -1 (errno set; EIO for a file cut short since it was opened). */
int hbt_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            errno = r < 0 ? errno : EIO;
            return -1;
        }
        p += r;
        off += (uint64_t)r;
        n -= (size_t)r;
    }
    return 0;
}

static int read_at(const struct hbt_trace *t, uint8_t *buf, size_t n, size_t off) { return hbt_pread_all(t->fd, buf, n, off); }

static int read_header(struct hbt_trace *t, char *err, size_t errlen)
{
    const uint8_t *m = t->head;
    if (t->size < HBT_HEADER_SIZE)
        return hbt_fail(err, errlen, "truncated trace: %zu bytes, shorter than its %u-byte header; record it again", t->size, HBT_HEADER_SIZE);
    if (memcmp(m, "HBRAW", 5) == 0) /* replay/common/rawtrace.h's RAW_MAGIC */
        return hbt_fail(err, errlen, "a raw recording (the recorder's raw mode), not yet a trace: convert it with "
                    "build/replay/hbconvert FILE.hbr (it writes FILE.hbt), then read that");
    if (memcmp(m, HBT_MAGIC, 8) != 0)
        return hbt_fail(err, errlen, "not a heapbench trace (no HBTRACE magic at its start); give a file written by heapbench record");
    if (get_le(m + HBT_HEADER_SIZE - 4, 4) != crc_of(m, HBT_HEADER_SIZE - 4))
        return hbt_fail(err, errlen, "corrupt trace: its header fails its checksum; record it again");
    uint64_t len = get_le(m + 12, 4);
    t->h.version = (uint32_t)get_le(m + 8, 4);
    if (t->h.version < HBT_VERSION_MIN || t->h.version > HBT_VERSION)
        return hbt_fail(err, errlen, "trace format version %u is not version %u to %u; record it again with this heapbench",
                    t->h.version, HBT_VERSION_MIN, HBT_VERSION);
    if (len > HBT_HEADER_SIZE - 20)
        return hbt_fail(err, errlen, "corrupt trace: its header's text length is %" PRIu64 " bytes, more than the %u its "
                    "header holds; record it again", len, HBT_HEADER_SIZE - 20);
    const char *text = (const char *)m + 16;
    text_get(text, len, "command", t->h.command, sizeof t->h.command);
    text_get(text, len, "allocator", t->h.allocator, sizeof t->h.allocator);
    t->h.page_size = text_num(text, len, "page_size");
    t->h.pid = text_num(text, len, "pid");
    t->h.ppid = text_num(text, len, "ppid");
    t->h.start_unix_ns = text_num(text, len, "start_unix_ns");
    t->h.complete = (int)text_num(text, len, "complete");
    t->h.threads = text_num(text, len, "threads");
    t->h.ops = text_num(text, len, "ops");
    t->h.duration_ns = text_num(text, len, "duration_ns");
    t->h.unknown_refs = text_num(text, len, "unknown_refs");
    t->h.lost_threads = text_num(text, len, "lost_threads");
    t->h.partial_unmaps = text_num(text, len, "partial_unmaps");
    t->h.lost_maps = text_num(text, len, "lost_maps");
    t->h.orig_wall_ns = text_num(text, len, "orig_wall_ns");
    t->h.orig_maxrss_kb = text_num(text, len, "orig_maxrss_kb");
    t->h.orig_cpu_ns = text_num(text, len, "orig_cpu_ns");
    t->h.rec_cpu_ns = text_num(text, len, "rec_cpu_ns");
    t->ordered = t->h.version >= 3;
    return 0;
}

/* One chunk header, read at off. */
struct chunk_hdr {
    uint32_t thread, len, nops, nprod, crc;
    uint64_t first_op, first_seq, base_ns;
};

static void chunk_hdr_at(const uint8_t *h, struct chunk_hdr *c)
{
    c->thread = (uint32_t)get_le(h + 4, 2);
    c->len = (uint32_t)get_le(h + 8, 4);
    c->nops = (uint32_t)get_le(h + 12, 4);
    c->nprod = (uint32_t)get_le(h + 16, 4);
    c->crc = (uint32_t)get_le(h + 20, 4);
    c->first_op = get_le(h + 24, 8);
    c->first_seq = get_le(h + 32, 8);
    c->base_ns = get_le(h + 40, 8);
}

/* The payload of the chunk at off (header h, fields c) into t->scratch and its CRC checked: 0, or -1
 * with the reason in err. */
static int read_payload(struct hbt_trace *t, size_t off, uint8_t *h, const struct chunk_hdr *c, const char *what, char *err, size_t errlen)
{
    if (t->size - off - HBT_CHUNK_HEADER < c->len)
        return hbt_fail(err, errlen, "truncated trace: the %s at byte %zu needs %u bytes, the file ends after %zu; record it again",
                    what, off, c->len, t->size - off - HBT_CHUNK_HEADER);
    if (read_at(t, t->scratch, c->len, off + HBT_CHUNK_HEADER) < 0)
        return hbt_fail(err, errlen, "cannot read the trace at byte %zu: %s", off, strerror(errno));
    put_le(h + 20, 0, 4);
    uint32_t crc = (uint32_t)crc32(crc32(crc32(0L, Z_NULL, 0), h, HBT_CHUNK_HEADER), t->scratch, c->len);
    if (crc != c->crc)
        return hbt_fail(err, errlen, "corrupt trace: the %s at byte %zu fails its checksum; record it again", what, off);
    return 0;
}

/* A touch chunk (version 4): framing and CRC (its records are checked once every thread's
 * objects are counted: check_touch); fill: records its offset. Returns its length or 0/1. */
static size_t check_touch_chunk(struct hbt_trace *t, size_t off, uint8_t *h, const struct chunk_hdr *c, int fill, char *err, size_t errlen)
{
    if (c->thread >= HBT_MAX_THREADS || c->len > HBT_CHUNK_MAX || c->nprod || c->nops > c->len / 4 || c->first_op || c->first_seq || c->base_ns)
        return (size_t)hbt_fail(err, errlen, "corrupt trace: the touch chunk at byte %zu has an invalid header (%u records in %u bytes); "
                            "record it again", off, c->nops, c->len) + 1; /* a record takes 4 bytes or more */
    if (read_payload(t, off, h, c, "touch chunk", err, errlen) < 0)
        return 1;
    if (fill)
        t->touch_off[t->ntouch_chunks] = off;
    t->ntouch_chunks++;
    t->touch_records += c->nops;
    return HBT_CHUNK_HEADER + c->len;
}

/* A site chunk (version 5): framing and CRC (its records are checked with the touch records:
 * check_sites); fill: records its offset. Returns its length or 0/1. */
static size_t check_site_chunk(struct hbt_trace *t, size_t off, uint8_t *h, const struct chunk_hdr *c, int fill, char *err, size_t errlen)
{
    if (c->thread >= HBT_MAX_THREADS || c->len > HBT_CHUNK_MAX || c->nprod || c->nops > c->len / 2 || c->first_op || c->first_seq || c->base_ns)
        return (size_t)hbt_fail(err, errlen, "corrupt trace: the site chunk at byte %zu has an invalid header (%u records in %u bytes); "
                            "record it again", off, c->nops, c->len) + 1; /* a record takes 2 bytes or more */
    if (read_payload(t, off, h, c, "site chunk", err, errlen) < 0)
        return 1;
    if (fill)
        t->site_off[t->nsite_chunks] = off;
    t->nsite_chunks++;
    t->site_records += c->nops;
    return HBT_CHUNK_HEADER + c->len;
}

/* Checks the chunk at off (framing, CRC, continuity with the thread's previous chunk) and
 * counts it; fills_offsets: second pass, records its offset. Returns its total length or 0. */
static size_t check_chunk(struct hbt_trace *t, size_t off, int fill, char *err, size_t errlen)
{
    uint8_t h[HBT_CHUNK_HEADER];
    struct chunk_hdr c;
    if (t->size - off < HBT_CHUNK_HEADER)
        return (size_t)hbt_fail(err, errlen, "truncated trace: it ends %zu bytes into a chunk header at byte %zu; record it again", t->size - off, off) + 1;
    if (read_at(t, h, HBT_CHUNK_HEADER, off) < 0)
        return (size_t)hbt_fail(err, errlen, "cannot read the trace at byte %zu: %s", off, strerror(errno)) + 1;
    chunk_hdr_at(h, &c);
    if (get_le(h, 4) == HBT_TOUCH_MAGIC && t->h.version >= 4)
        return check_touch_chunk(t, off, h, &c, fill, err, errlen);
    if (get_le(h, 4) == HBT_SITE_MAGIC && t->h.version >= 5)
        return check_site_chunk(t, off, h, &c, fill, err, errlen);
    if (get_le(h, 4) != HBT_CHUNK_MAGIC || c.thread >= HBT_MAX_THREADS || c.len > HBT_CHUNK_MAX)
        return (size_t)hbt_fail(err, errlen, "corrupt trace: no valid chunk header at byte %zu; record it again", off) + 1;
    if (c.nprod > c.nops || c.nops > c.len / 2) /* an event takes 2 bytes or more and produces at most one object */
        return (size_t)hbt_fail(err, errlen, "corrupt trace: the chunk at byte %zu claims %u events and %u objects in %u bytes; record it again",
                            off, c.nops, c.nprod, c.len) + 1;
    if (!fill && read_payload(t, off, h, &c, "chunk", err, errlen) < 0) /* the second pass trusts the first's CRC */
        return 1;
    struct hbt_thread_index *ti = &t->threads[c.thread];
    if (c.first_op != ti->ops || c.first_seq != ti->objects)
        return (size_t)hbt_fail(err, errlen, "corrupt trace: thread %u's chunk at byte %zu does not follow its previous one (a chunk is missing); record it again",
                            c.thread, off) + 1;
    if (fill)
        ti->chunk_off[ti->nchunks] = off;
    ti->nchunks++;
    ti->ops += c.nops;
    ti->objects += c.nprod;
    if (c.thread + 1 > t->nthreads)
        t->nthreads = c.thread + 1;
    return HBT_CHUNK_HEADER + c.len;
}

/* One pass over the chunks; the second (fill) records their offsets, reading only the event chunks'
 * headers (the first read and checked their payloads). */
static int walk_chunks(struct hbt_trace *t, int fill, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < HBT_MAX_THREADS; i++) {
        t->threads[i].nchunks = t->threads[i].ops = t->threads[i].objects = 0;
    }
    t->nthreads = 0;
    t->ntouch_chunks = t->touch_records = 0;
    t->nsite_chunks = t->site_records = 0;
    for (size_t off = HBT_HEADER_SIZE; off < t->size;) {
        size_t n = check_chunk(t, off, fill, err, errlen);
        if (n <= 1)
            return -1;
        off += n;
    }
    return 0;
}

static int index_chunks(struct hbt_trace *t, char *err, size_t errlen)
{
    t->threads = hbt_pages(HBT_MAX_THREADS * sizeof *t->threads);
    t->scratch = hbt_pages(HBT_CHUNK_HEADER + HBT_CHUNK_MAX); /* a touch chunk is read whole, header first */
    if (!t->threads || !t->scratch)
        return hbt_fail(err, errlen, "out of memory indexing the trace");
    if (walk_chunks(t, 0, err, errlen) < 0)
        return -1;
    for (uint32_t i = 0; i < t->nthreads; i++) {
        t->threads[i].chunk_off = hbt_pages(t->threads[i].nchunks * sizeof(uint64_t));
        if (!t->threads[i].chunk_off)
            return hbt_fail(err, errlen, "out of memory indexing the trace");
    }
    t->touch_off = hbt_pages(t->ntouch_chunks * sizeof(uint64_t));
    t->site_off = hbt_pages(t->nsite_chunks * sizeof(uint64_t));
    if (!t->touch_off || !t->site_off)
        return hbt_fail(err, errlen, "out of memory indexing the trace");
    if (walk_chunks(t, 1, err, errlen) < 0)
        return -1;
    t->ops = t->objects = 0;
    for (uint32_t i = 0; i < t->nthreads; i++) {
        t->threads[i].obj_base = t->objects;
        t->ops += t->threads[i].ops;
        t->objects += t->threads[i].objects;
    }
    return 0;
}

static int next_checked(struct hbt_cursor *c, struct hbt_event *e);

/* Decodes every event once (structure, references in range, the order along each thread) and
 * notes each thread's first and last order and whether it exits. */
static int check_events(struct hbt_trace *t, char *err, size_t errlen)
{
    for (uint32_t th = 0; th < t->nthreads; th++) {
        struct hbt_thread_index *ti = &t->threads[th];
        struct hbt_cursor c;
        struct hbt_event e;
        int got;
        uint64_t n = 0;
        hbt_cursor_init(&c, t, (uint16_t)th);
        while ((got = next_checked(&c, &e)) == 1) {
            if (n++ == 0)
                ti->first_order = e.order;
            ti->last_order = e.order;
            ti->exits = e.kind == HBT_THREAD_EXIT;
        }
        if (got < 0)
            return hbt_fail(err, errlen, "corrupt trace: thread %u's event %" PRIu64 " does not decode; record it again", th, n);
    }
    return 0;
}

/* Decodes the touch records of the chunk at off (read into buf) into fn, checking each: its object
 * exists, resident < pages, and the payload ends with the last record. 0, fn's non-zero value,
 * or -1 (with the reason in err when err is not NULL). */
static int touch_chunk_each(const struct hbt_trace *t, uint64_t off, uint8_t *buf, int (*fn)(void *, const struct hbt_touch *),
                            void *arg, char *err, size_t errlen)
{
    struct chunk_hdr c;
    if (read_at(t, buf, HBT_CHUNK_HEADER, off) < 0)
        return err ? hbt_fail(err, errlen, "cannot read the trace at byte %" PRIu64 ": %s", off, strerror(errno)) : -1;
    chunk_hdr_at(buf, &c);
    if (c.len > HBT_CHUNK_MAX || read_at(t, buf + HBT_CHUNK_HEADER, c.len, off + HBT_CHUNK_HEADER) < 0)
        return err ? hbt_fail(err, errlen, "cannot read the trace at byte %" PRIu64 ": %s", off, strerror(errno)) : -1;
    const uint8_t *p = buf + HBT_CHUNK_HEADER, *end = p + c.len;
    for (uint32_t i = 0; i < c.nops; i++) {
        uint64_t th, seq, pages, res;
        if (hbt_varint_at(&p, end, &th, 1) < 0 || hbt_varint_at(&p, end, &seq, 1) < 0 || hbt_varint_at(&p, end, &pages, 1) < 0 ||
            hbt_varint_at(&p, end, &res, 1) < 0 || th >= t->nthreads || seq >= t->threads[th].objects || res >= pages)
            return err ? hbt_fail(err, errlen, "corrupt trace: record %u of the touch chunk at byte %" PRIu64 " does not decode or names "
                              "no object of the trace; record it again", i, off) : -1;
        struct hbt_touch r = {.thread = (uint16_t)th, .seq = seq, .obj = t->threads[th].obj_base + seq, .pages = pages, .resident = res};
        int rc = fn ? fn(arg, &r) : 0;
        if (rc)
            return rc;
    }
    if (p != end)
        return err ? hbt_fail(err, errlen, "corrupt trace: the touch chunk at byte %" PRIu64 " holds more bytes than its %u records; "
                          "record it again", off, c.nops) : -1;
    return 0;
}

/* Every touch record decodes and names an object of the trace. */
static int check_touch(struct hbt_trace *t, char *err, size_t errlen)
{
    for (uint64_t i = 0; i < t->ntouch_chunks; i++)
        if (touch_chunk_each(t, t->touch_off[i], t->scratch, NULL, NULL, err, errlen) < 0)
            return -1;
    return 0;
}

/* Decodes the site records of the chunk at off (read into buf) into fn, checking each: a definition
 * holds 1..HBT_SITE_FRAMES frames and a site id above 0, a run names objects of the trace, a maps
 * text lies within the chunk, and the payload ends with the last record. 0, fn's non-zero value, or
 * -1 (with the reason in err when err is not NULL). */
static int site_chunk_each(const struct hbt_trace *t, uint64_t off, uint8_t *buf, int (*fn)(void *, const struct hbt_site *),
                           void *arg, char *err, size_t errlen)
{
    struct chunk_hdr c;
    if (read_at(t, buf, HBT_CHUNK_HEADER, off) < 0)
        return err ? hbt_fail(err, errlen, "cannot read the trace at byte %" PRIu64 ": %s", off, strerror(errno)) : -1;
    chunk_hdr_at(buf, &c);
    if (c.len > HBT_CHUNK_MAX || read_at(t, buf + HBT_CHUNK_HEADER, c.len, off + HBT_CHUNK_HEADER) < 0)
        return err ? hbt_fail(err, errlen, "cannot read the trace at byte %" PRIu64 ": %s", off, strerror(errno)) : -1;
    const uint8_t *p = buf + HBT_CHUNK_HEADER, *end = p + c.len;
    for (uint32_t i = 0; i < c.nops; i++) {
        struct hbt_site r;
        uint64_t type = 0, a = 0, b = 0, n = 0, d = 0;
        int bad = hbt_varint_at(&p, end, &type, 1) < 0;
        memset(&r, 0, sizeof r);
        r.type = (unsigned)type;
        if (!bad && type == HBT_SITE_DEF) {
            bad = hbt_varint_at(&p, end, &a, 1) < 0 || hbt_varint_at(&p, end, &n, 1) < 0 || a == 0 || a > UINT32_MAX || n == 0 ||
                  n > HBT_SITE_FRAMES;
            uint64_t prev = 0;
            for (uint64_t k = 0; !bad && k < n; k++) {
                bad = hbt_varint_at(&p, end, &d, 1) < 0;
                prev += (uint64_t)unzigzag(d);
                r.frames[k] = prev;
            }
            r.id = (uint32_t)a;
            r.nframes = (uint32_t)n;
        } else if (!bad && type == HBT_SITE_OBJS) {
            bad = hbt_varint_at(&p, end, &a, 1) < 0 || hbt_varint_at(&p, end, &b, 1) < 0 || hbt_varint_at(&p, end, &n, 1) < 0 ||
                  hbt_varint_at(&p, end, &d, 1) < 0 || a >= t->nthreads || n == 0 || b >= t->threads[a].objects ||
                  n > t->threads[a].objects - b || d == 0 || d > UINT32_MAX;
            r.thread = (uint16_t)a;
            r.seq = b;
            r.count = n;
            r.id = (uint32_t)d;
            r.obj = bad ? 0 : t->threads[a].obj_base + b;
        } else if (!bad && type == HBT_SITE_MAPS) {
            bad = hbt_varint_at(&p, end, &n, 1) < 0 || n > (uint64_t)(end - p);
            r.text = bad ? NULL : (const char *)p;
            r.len = (size_t)n;
            p += bad ? 0 : n;
        } else {
            bad = 1;
        }
        if (bad)
            return err ? hbt_fail(err, errlen, "corrupt trace: record %u of the site chunk at byte %" PRIu64 " does not decode or names "
                              "no object of the trace; record it again", i, off) : -1;
        int rc = fn ? fn(arg, &r) : 0;
        if (rc)
            return rc;
    }
    if (p != end)
        return err ? hbt_fail(err, errlen, "corrupt trace: the site chunk at byte %" PRIu64 " holds more bytes than its %u records; "
                          "record it again", off, c.nops) : -1;
    return 0;
}

/* Every site record decodes and names objects of the trace. */
static int check_sites(struct hbt_trace *t, char *err, size_t errlen)
{
    for (uint64_t i = 0; i < t->nsite_chunks; i++)
        if (site_chunk_each(t, t->site_off[i], t->scratch, NULL, NULL, err, errlen) < 0)
            return -1;
    return 0;
}

int hbt_site_each(const struct hbt_trace *t, int (*fn)(void *arg, const struct hbt_site *r), void *arg)
{
    if (t->nsite_chunks == 0)
        return 0;
    size_t cap = HBT_CHUNK_HEADER + HBT_CHUNK_MAX;
    uint8_t *buf = hbt_pages(cap);
    if (!buf)
        return -1;
    int rc = 0;
    for (uint64_t i = 0; i < t->nsite_chunks && rc == 0; i++)
        rc = site_chunk_each(t, t->site_off[i], buf, fn, arg, NULL, 0);
    hbt_unpages(buf, cap);
    return rc;
}

int hbt_touch_each(const struct hbt_trace *t, int (*fn)(void *arg, const struct hbt_touch *r), void *arg)
{
    if (t->ntouch_chunks == 0)
        return 0;
    size_t cap = HBT_CHUNK_HEADER + HBT_CHUNK_MAX;
    uint8_t *buf = hbt_pages(cap);
    if (!buf)
        return -1;
    int rc = 0;
    for (uint64_t i = 0; i < t->ntouch_chunks && rc == 0; i++)
        rc = touch_chunk_each(t, t->touch_off[i], buf, fn, arg, NULL, 0);
    hbt_unpages(buf, cap);
    return rc;
}

int hbt_header_read(const char *path, struct hbt_header *h, char *err, size_t errlen)
{
    static struct hbt_trace t; /* its header is ~2.6 KB: not on the caller's stack (callers are single-threaded) */
    uint8_t buf[HBT_HEADER_SIZE];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf, 0) : -1;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (n < 0)
        return hbt_fail(err, errlen, "cannot read trace %s: %s", path, strerror(e));
    memset(&t, 0, sizeof t);
    memcpy(t.head, buf, (size_t)n);
    t.size = (size_t)n;
    if (read_header(&t, err, errlen) < 0)
        return -1;
    *h = t.h;
    return 0;
}

int hbt_header_decode(const uint8_t *in, struct hbt_header *h, char *err, size_t errlen)
{
    static struct hbt_trace t; /* as hbt_header_read: not on the caller's stack */
    memset(&t, 0, sizeof t);
    memcpy(t.head, in, HBT_HEADER_SIZE);
    t.size = HBT_HEADER_SIZE;
    if (read_header(&t, err, errlen) < 0)
        return -1;
    *h = t.h;
    return 0;
}

double hbt_recorder_slowdown(const struct hbt_header *h)
{
    return h->orig_cpu_ns && h->rec_cpu_ns ? (double)h->rec_cpu_ns / (double)h->orig_cpu_ns : 0.0;
}

/* hbt_open, with or without the pass that decodes every event (events). */
static int open_trace(const char *path, struct hbt_trace *t, int events, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return hbt_fail(err, errlen, "cannot open trace %s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return hbt_fail(err, errlen, "%s is a directory, not a trace; give a trace file (heapbench record -o FILE)", path);
    }
    t->size = (size_t)st.st_size;
    t->fd = fd;
    if (t->size >= HBT_HEADER_SIZE && read_at(t, t->head, HBT_HEADER_SIZE, 0) < 0) {
        int e = errno;
        hbt_close(t);
        return hbt_fail(err, errlen, "cannot read trace %s: %s", path, strerror(e));
    }
    if (read_header(t, err, errlen) < 0 || index_chunks(t, err, errlen) < 0 || (events && check_events(t, err, errlen) < 0) ||
        check_touch(t, err, errlen) < 0 || check_sites(t, err, errlen) < 0) {
        hbt_close(t);
        return -1;
    }
    if (t->h.complete && (t->h.ops != t->ops || t->h.threads < t->nthreads)) {
        hbt_fail(err, errlen, "truncated trace: its header counts %" PRIu64 " events, its chunks hold %" PRIu64 "; record it again", t->h.ops, t->ops);
        hbt_close(t);
        return -1;
    }
    return 0;
}

int hbt_open(const char *path, struct hbt_trace *t, char *err, size_t errlen) { return open_trace(path, t, 1, err, errlen); }

int hbt_open_unchecked(const char *path, struct hbt_trace *t, char *err, size_t errlen) { return open_trace(path, t, 0, err, errlen); }

void hbt_close(struct hbt_trace *t)
{
    if (t->threads) {
        for (uint32_t i = 0; i < HBT_MAX_THREADS; i++)
            hbt_unpages(t->threads[i].chunk_off, t->threads[i].nchunks * sizeof(uint64_t));
        hbt_unpages(t->threads, HBT_MAX_THREADS * sizeof *t->threads);
    }
    hbt_unpages(t->touch_off, t->touch_off ? t->ntouch_chunks * sizeof(uint64_t) : 0);
    hbt_unpages(t->site_off, t->site_off ? t->nsite_chunks * sizeof(uint64_t) : 0);
    hbt_unpages(t->scratch, t->scratch ? HBT_CHUNK_HEADER + HBT_CHUNK_MAX : 0);
    if (t->fd > 0)
        close(t->fd);
    memset(t, 0, sizeof *t);
}

void hbt_cursor_init(struct hbt_cursor *c, const struct hbt_trace *t, uint16_t thread)
{
    memset(c, 0, offsetof(struct hbt_cursor, buf)); /* not the buffer: it would all be resident */
    c->t = t;
    c->thread = thread;
    c->ordered = t->ordered;
    c->base = thread < t->nthreads ? t->threads[thread].obj_base : 0;
}

/* Moves to the thread's next chunk; 0 when there is none, -1 when it cannot be read again. */
static int next_chunk(struct hbt_cursor *c)
{
    const struct hbt_thread_index *ti = &c->t->threads[c->thread];
    while (c->left == 0) {
        if (c->chunk >= ti->nchunks)
            return 0;
        const uint8_t *h = c->buf;
        struct chunk_hdr hd;
        size_t off = ti->chunk_off[c->chunk++];
        if (read_at(c->t, c->buf, HBT_CHUNK_HEADER, off) < 0)
            return -1;
        chunk_hdr_at(h, &hd);
        if (hd.len > HBT_CHUNK_MAX || read_at(c->t, c->buf + HBT_CHUNK_HEADER, hd.len, off + HBT_CHUNK_HEADER) < 0)
            return -1; /* the file changed since hbt_open checked it */
        c->p = h + HBT_CHUNK_HEADER;
        c->end = c->p + hd.len;
        c->buf[HBT_CHUNK_HEADER + hd.len] = 0; /* the end of a run of plain events (trace.h) */
        c->left = hd.nops;
        c->ns = hd.base_ns;
        c->seq = hd.first_seq;
        c->op = hd.first_op;
        c->last_size = 0;
        c->fresh = 1;
    }
    return 1;
}

/* Reads the reference of e (same-thread distance, or thread + seq) and checks its range. An
 * incomplete trace (crashed program) may name an object whose chunk was never written: that
 * reference becomes unknown; in a complete trace it is corruption. */
static inline __attribute__((always_inline)) int read_ref(struct hbt_cursor *c, struct hbt_event *e, int checked)
{
    uint64_t a, b;
    const struct hbt_trace *t = c->t;
    if (e->flags & HBT_F_XREF) {
        if (hbt_varint_at(&c->p, c->end, &a, checked) < 0 || hbt_varint_at(&c->p, c->end, &b, checked) < 0 || a >= HBT_MAX_THREADS)
            return -1;
        if (a >= t->nthreads || b >= t->threads[a].objects) {
            if (t->h.complete)
                return -1;
            e->flags = (uint8_t)((e->flags & ~HBT_F_XREF) | HBT_F_NOREF);
            return 0;
        }
    } else {
        if (hbt_varint_at(&c->p, c->end, &b, checked) < 0 || b >= c->seq)
            return -1;
        a = c->thread;
        b = c->seq - 1 - b;
    }
    e->ref_thread = (uint16_t)a;
    e->ref_seq = b;
    return 0;
}

/* The chunk ends exactly where its events and objects do. */
static int chunk_end_ok(const struct hbt_cursor *c)
{
    const struct hbt_thread_index *ti = &c->t->threads[c->thread];
    uint8_t b[8];
    uint64_t next_seq = ti->objects;
    if (c->chunk < ti->nchunks) {
        if (read_at(c->t, b, 8, ti->chunk_off[c->chunk] + 32) < 0)
            return 0;
        next_seq = get_le(b, 8);
    }
    return c->p == c->end && c->seq == next_seq;
}

/* Decodes the next event (see hbt_next); CHECKED bounds every read and checks every rule. */
static inline __attribute__((always_inline)) int next_event(struct hbt_cursor *c, struct hbt_event *e, int checked)
{
    if (c->left == 0) {
        int r = next_chunk(c);
        if (r <= 0)
            return r;
    }
    uint64_t v;
    if (checked && c->p >= c->end)
        return -1;
    uint8_t b = *c->p++;
    unsigned kind = b & 0x0f;
    e->kind = (uint8_t)kind;
    e->flags = b & 0xf0;
    e->thread = c->thread;
    e->align_log = 0;
    e->ref = e->prod = HBT_NONE;
    if ((checked && (kind == 0 || kind >= HBT_KIND_COUNT || (hbt_kind_maps(kind) && c->t->h.version < 2))) || hbt_varint_at(&c->p, c->end, &v, checked) < 0)
        return -1;
    c->ns += v;
    e->ns = c->ns;
    if (c->ordered) {
        if (hbt_varint_at(&c->p, c->end, &v, checked) < 0)
            return -1;
        uint64_t prev = c->order;
        c->order = c->fresh ? v : c->order + v + 1;
        if (checked && ((c->fresh && c->op > 0 && v <= prev) || c->order < prev))
            return -1; /* not after the thread's previous event (or wrapped) */
    } else {
        c->order = c->op;
    }
    c->fresh = 0;
    c->op++;
    e->order = c->order;
    if (checked && hbt_kind_thread(kind) && (e->flags || !c->t->ordered))
        return -1;
    if (kind_is_aligned(kind)) {
        if (checked && (c->p >= c->end || *c->p > 63))
            return -1;
        e->align_log = *c->p++;
    }
    if (kind_sized(kind)) {
        if (!(e->flags & HBT_F_SAMESIZE) && hbt_varint_at(&c->p, c->end, &c->last_size, checked) < 0)
            return -1;
        e->size = c->last_size;
    } else {
        e->size = 0;
        if (checked && (e->flags & HBT_F_SAMESIZE))
            return -1;
    }
    if (kind_takes_ref(kind)) {
        if (checked && (e->flags & HBT_F_XREF) && (e->flags & HBT_F_NOREF))
            return -1;
        if (!(e->flags & HBT_F_NOREF)) {
            if (read_ref(c, e, checked) < 0)
                return -1;
            if (ref_consumed(e))
                e->ref = (e->ref_thread == c->thread ? c->base : c->t->threads[e->ref_thread].obj_base) + e->ref_seq;
        }
    } else if (checked && (e->flags & (HBT_F_XREF | HBT_F_NOREF))) {
        return -1;
    }
    if (kind_sized(kind) && !(e->flags & HBT_F_FAILED))
        e->prod = c->base + c->seq++;
    if (--c->left == 0 && checked && !chunk_end_ok(c))
        return -1;
    return 1;
}

int hbt_next(struct hbt_cursor *c, struct hbt_event *e) { return next_event(c, e, 0); }

static int next_checked(struct hbt_cursor *c, struct hbt_event *e) { return next_event(c, e, 1); }

int hbt_next_checked(struct hbt_cursor *c, struct hbt_event *e) { return next_checked(c, e); }
