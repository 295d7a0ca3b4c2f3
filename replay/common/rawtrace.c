/* rawtrace.c - the raw event stream's block writer (the recorder's, beside the inline raw_put of
 * rawtrace.h) and its only reader (hbconvert's): format in rawtrace.h.
 * Always holds: the writer never allocates; the reader reads with pread, bounds every length by the
 * file and its block, takes a cut block at the file's end as the end of the recording (a crash), and
 * refuses any other damage with one line saying what is wrong and what to do. */
#include "rawtrace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writer ---- */

void raw_prefix_encode(const struct raw_prefix *p, uint8_t out[RAW_PREFIX])
{
    memset(out, 0, RAW_PREFIX);
    memcpy(out, RAW_MAGIC, sizeof RAW_MAGIC);
    memcpy(out + 8, &p->fork_order, 8);
    snprintf((char *)out + 16, sizeof p->parent, "%s", p->parent);
}

void raw_block_init(struct raw_block *b, uint8_t *buf, size_t cap, uint16_t thread)
{
    b->buf = buf;
    b->thread = thread;
    b->end = (uint32_t *)(buf + cap) - 2 * RAW_EVENT_WORDS;
    b->next_order = UINT64_MAX; /* the thread's first event carries its order */
    b->last_addr = 0;
    raw_block_reset(b);
}

void raw_block_reset(struct raw_block *b)
{
    b->w = (uint32_t *)(b->buf + RAW_BLOCK_HEADER);
}

size_t raw_block_seal(struct raw_block *b)
{
    uint32_t magic = RAW_BLOCK_MAGIC, len = (uint32_t)((uint8_t *)__atomic_load_n(&b->w, __ATOMIC_ACQUIRE) - b->buf - RAW_BLOCK_HEADER), thread = b->thread;
    if (len == 0)
        return 0;
    memcpy(b->buf, &magic, 4);
    memcpy(b->buf + 4, &thread, 4);
    memcpy(b->buf + 8, &len, 4);
    memset(b->buf + 12, 0, 4);
    return RAW_BLOCK_HEADER + len;
}

void raw_touch_block_header(uint8_t *buf, uint32_t payload)
{
    uint32_t h[4] = {RAW_BLOCK_MAGIC, 0, payload, RAW_BLOCK_TOUCH};
    memcpy(buf, h, sizeof h);
}

/* ---- reader ---- */

/* Appends a block to t's index. 0, or -1 when out of memory. */
static int index_add(struct raw_thread *t, uint64_t off, uint32_t len)
{
    if (t->nblocks == t->cap) {
        uint64_t cap = t->cap ? 2 * t->cap : 64;
        uint64_t *o = realloc(t->off, cap * sizeof *o);
        uint32_t *l = o ? realloc(t->len, cap * sizeof *l) : NULL;
        if (!o || !l) {
            t->off = o ? o : t->off;
            return -1;
        }
        t->off = o, t->len = l, t->cap = cap;
    }
    t->off[t->nblocks] = off;
    t->len[t->nblocks++] = len;
    return 0;
}

static int add_block(struct raw_file *f, uint32_t thread, uint64_t off, uint32_t len)
{
    if (thread >= f->nthreads) {
        struct raw_thread *t = realloc(f->threads, (thread + 1) * sizeof *t);
        if (!t)
            return -1;
        memset(t + f->nthreads, 0, (thread + 1 - f->nthreads) * sizeof *t);
        f->threads = t;
        f->nthreads = thread + 1;
    }
    return index_add(&f->threads[thread], off, len);
}

/* Indexes the blocks; a cut one at the end ends the file (f->used). */
static int index_blocks(struct raw_file *f, const char *path, char *err, size_t errlen)
{
    uint64_t off = RAW_PREFIX + HBT_HEADER_SIZE;
    while (off + RAW_BLOCK_HEADER <= f->size) {
        uint32_t h[4];
        if (hbt_pread_all(f->fd, h, sizeof h, off) < 0)
            return hbt_fail(err, errlen, "cannot read raw recording %s: %s", path, strerror(errno));
        if (h[0] != RAW_BLOCK_MAGIC || h[1] >= HBT_MAX_THREADS || h[2] == 0 || h[2] > RAW_BLOCK_MAX || h[2] % 4 ||
            h[3] > RAW_BLOCK_TOUCH || (h[3] == RAW_BLOCK_TOUCH && h[2] % 16))
            return hbt_fail(err, errlen, "corrupt raw recording %s: no valid block header at byte %" PRIu64 "; record the program "
                        "again", path, off);
        if (off + RAW_BLOCK_HEADER + h[2] > f->size)
            break; /* cut by a crash: the recording ends at the last whole block */
        if ((h[3] == RAW_BLOCK_TOUCH ? index_add(&f->exit_touch, off + RAW_BLOCK_HEADER, h[2]) : add_block(f, h[1], off + RAW_BLOCK_HEADER, h[2])) < 0)
            return hbt_fail(err, errlen, "out of memory indexing raw recording %s", path);
        off += RAW_BLOCK_HEADER + h[2];
    }
    f->used = off;
    return 0;
}

int raw_open(const char *path, struct raw_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) < 0)
        return hbt_fail(err, errlen, "cannot open raw recording %s: %s", path, strerror(errno));
    f->size = (uint64_t)st.st_size;
    uint8_t head[RAW_PREFIX + HBT_HEADER_SIZE];
    if (f->size < sizeof head) {
        raw_close(f);
        return hbt_fail(err, errlen, "raw recording %s is %" PRIu64 " bytes, shorter than its %zu-byte header: the program "
                    "ended before its first write; record it again", path, f->size, sizeof head);
    }
    if (hbt_pread_all(f->fd, head, sizeof head, 0) < 0 || memcmp(head, RAW_MAGIC, sizeof RAW_MAGIC) != 0) {
        raw_close(f);
        return hbt_fail(err, errlen, "%s is not a raw recording (no %s magic at its start); give a .hbr file written by "
                    "libhbrecord.so in raw mode", path, RAW_MAGIC);
    }
    memcpy(&f->pre.fork_order, head + 8, 8);
    memcpy(f->pre.parent, head + 16, sizeof f->pre.parent - 1);
    char why[256];
    if (hbt_header_decode(head + RAW_PREFIX, &f->h, why, sizeof why) < 0 || index_blocks(f, path, why, sizeof why) < 0) {
        raw_close(f);
        return hbt_fail(err, errlen, "raw recording %s: %s", path, why);
    }
    return 0;
}

void raw_close(struct raw_file *f)
{
    for (uint32_t i = 0; i < f->nthreads; i++)
        free(f->threads[i].off), free(f->threads[i].len);
    free(f->threads);
    free(f->exit_touch.off), free(f->exit_touch.len);
    if (f->fd >= 0)
        close(f->fd);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

int raw_exit_touch_each(const struct raw_file *f, int (*fn)(void *arg, uint64_t addr, uint64_t pages, uint64_t resident),
                        void *arg, char *err, size_t errlen)
{
    const struct raw_thread *t = &f->exit_touch;
    int rc = 0;
    for (uint64_t b = 0; b < t->nblocks && rc == 0; b++) {
        uint64_t *w = malloc(t->len[b]);
        if (!w)
            return hbt_fail(err, errlen, "out of memory reading a raw block of %u bytes", t->len[b]);
        if (hbt_pread_all(f->fd, w, t->len[b], t->off[b]) < 0)
            rc = hbt_fail(err, errlen, "cannot read a raw block at byte %" PRIu64 ": %s", t->off[b], strerror(errno));
        for (uint32_t i = 0; rc == 0 && i < t->len[b] / 8; i += 2)
            rc = fn(arg, w[i], w[i + 1] >> 32, w[i + 1] & 0xffffffffu);
        free(w);
    }
    return rc;
}

int raw_cursor_init(struct raw_cursor *c, const struct raw_file *f, uint16_t thread)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->thread = thread;
    c->order = UINT64_MAX; /* the thread's first event carries its order */
    return 0;
}

void raw_cursor_free(struct raw_cursor *c) { free(c->buf); }

/* Reads the cursor's next block; 0 at the thread's end. */
static int next_block(struct raw_cursor *c, char *err, size_t errlen)
{
    if (c->thread >= c->f->nthreads || c->block >= c->f->threads[c->thread].nblocks)
        return 0;
    const struct raw_thread *t = &c->f->threads[c->thread];
    uint32_t len = t->len[c->block];
    if (len > c->cap) {
        free(c->buf);
        c->buf = malloc(len);
        c->cap = c->buf ? len : 0;
        if (!c->buf)
            return hbt_fail(err, errlen, "out of memory reading a raw block of %u bytes", len);
    }
    if (hbt_pread_all(c->f->fd, c->buf, len, t->off[c->block]) < 0)
        return hbt_fail(err, errlen, "cannot read a raw block at byte %" PRIu64 ": %s", t->off[c->block], strerror(errno));
    c->block++;
    c->p = c->buf;
    c->end = c->buf + len / 4;
    return 1;
}

static uint64_t get64(const uint32_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* A compact event (rawtrace.h, RAW_C_*) of unit u. */
static void compact_event(struct raw_cursor *c, struct raw_event *e, uint32_t u)
{
    int64_t d;
    if (u & RAW_C_FREE) {
        e->kind = HBT_FREE, e->size = 0;
        d = (int64_t)(int32_t)(u & ~0x1fu) >> 1;
    } else {
        e->kind = HBT_MALLOC, e->size = (u >> 5) & (RAW_C_SIZE - 1);
        d = (int64_t)(int32_t)(u & ~0x1fffu) >> 9;
    }
    e->addr = c->addr + (uint64_t)d;
    e->order = ++c->order;
    e->ns = c->ns;
    e->extra = 0;
}

int raw_next(struct raw_cursor *c, struct raw_event *e, char *err, size_t errlen)
{
    if (c->p == c->end) {
        int r = next_block(c, err, errlen);
        if (r <= 0)
            return r;
    }
    uint32_t u = *c->p;
    e->thread = c->thread;
    if ((u & 15) == 0 && c->order != UINT64_MAX) {
        c->p++;
        compact_event(c, e, u);
        c->addr = e->addr;
        return 1;
    }
    uint64_t w = (uint64_t)(c->end - c->p) >= 2 ? get64(c->p) : 0;
    const uint32_t *q = c->p + 2;
    unsigned n = !!(w & RAW_W) + !!(w & RAW_S) + !!(w & RAW_O) + !!(w & RAW_T);
    e->kind = w & 15;
    n += raw_kind_extra(e->kind);
    if (e->kind == 0 || (uint64_t)(c->end - q) < 2 * n || (!(w & RAW_O) && c->order == UINT64_MAX))
        return hbt_fail(err, errlen, "corrupt raw block of thread %u (block %" PRIu64 "): event word %#" PRIx64 " is not an "
                    "event; record the program again", c->thread, c->block - 1, (c->end - c->p) >= 2 ? w : (uint64_t)u);
    e->addr = (w & RAW_W) ? get64(q) : (w >> 20) << 3;
    q += 2 * !!(w & RAW_W);
    e->size = (w & RAW_S) ? get64(q) : (w >> 8) & 0xfff;
    q += 2 * !!(w & RAW_S);
    c->order = (w & RAW_O) ? get64(q) : c->order + 1;
    q += 2 * !!(w & RAW_O);
    e->order = c->order;
    if (w & RAW_T)
        c->ns = get64(q), q += 2;
    e->ns = c->ns;
    e->extra = raw_kind_extra(e->kind) ? get64(q) : 0;
    q += 2 * raw_kind_extra(e->kind);
    c->p = (uint32_t *)q;
    c->addr = e->addr;
    return 1;
}
