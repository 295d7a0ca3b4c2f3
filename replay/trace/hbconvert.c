/* hbconvert.c - build/replay/hbconvert PATH...: the recorder's post-pass. Turns each raw recording
 * (DIR/<pid>.hbr, written by libhbrecord.so with HEAPBENCH_RECORD_RAW=1; rawtrace.h) into the
 * format-4 trace DIR/<pid>.hbt the in-process writer would have written, and removes the .hbr.
 * A PATH is a .hbr file or a directory (every .hbr in it). heapbench record runs it after the
 * recorded program exits; run it by hand on what a killed run left.
 *
 * Always holds:
 *   - the threads' raw streams are merged by their global order (a k-way merge), and the events
 *     renumbered 0, 1, ... in that order, as the in-process writer numbers them;
 *   - objects are named (thread, seq) by address in that order, so an address freed by one thread
 *     and reused by another names two objects; a free of an address no event produced is unknown
 *     (HBT_F_NOREF, counted in the header's unknown_refs), as the in-process writer counts it;
 *   - a fork child's trace starts, after its thread 0's start, with one malloc per object it
 *     inherited (of its requested size) then one mmap per mapping (page-rounded), ascending by
 *     address: its parent's raw file is walked up to the order at the fork (and its parent's...);
 *   - a touch measure (RAW_X_TOUCH, before the end of its block; or the exit's RAW_BLOCK_TOUCH
 *     blocks) becomes the touch record of the object live at its address at that point of the
 *     order (at the end, for the exit's), as the in-process writer names it; none when no object
 *     lives there;
 *   - a raw file cut by a crash converts up to its last whole block (complete: no); anything
 *     else wrong is one line naming the file, what is wrong and what to do, exit 1 (usage: 2);
 *   - the .hbr is removed only once its .hbt is whole (written, header last).
 */
#include "addr_table.h"
#include "conv_sites.h"
#include "common/rawtrace.h"
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK_BYTES (64u << 10)
#define ERR 1024

static uint64_t key_of(uint64_t addr, int map) { return addr << 1 | (uint64_t)(map != 0); }
static int produces(unsigned k) { return k != HBT_FREE && k != HBT_MUNMAP && !hbt_kind_thread(k) && k < HBT_KIND_COUNT; }
static int reallocs(unsigned k) { return k == HBT_REALLOC || k == HBT_REALLOCARRAY; }

/* ---- the merge of the threads' streams by global order ---- */

typedef int (*walk_fn)(void *arg, const struct raw_event *e);

struct merge {
    struct raw_cursor *cur;
    struct raw_event *head;
    uint32_t *heap, n;        /* threads with an event left, a min-heap by their head's order */
};

static int less(const struct merge *m, uint32_t a, uint32_t b) { return m->head[a].order < m->head[b].order; }

static void sift_down(struct merge *m, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, s = i;
        if (l < m->n && less(m, m->heap[l], m->heap[s]))
            s = l;
        if (l + 1 < m->n && less(m, m->heap[l + 1], m->heap[s]))
            s = l + 1;
        if (s == i)
            return;
        uint32_t x = m->heap[i];
        m->heap[i] = m->heap[s], m->heap[s] = x, i = s;
    }
}

/* Calls fn on every event of f whose order is below upto, in order. 0, or -1 (err set). */
static int walk(const struct raw_file *f, uint64_t upto, walk_fn fn, void *arg, char *err)
{
    struct merge m = {calloc(f->nthreads + 1, sizeof *m.cur), calloc(f->nthreads + 1, sizeof *m.head),
                      calloc(f->nthreads + 1, sizeof *m.heap), 0};
    int rc = 0;
    if (!m.cur || !m.head || !m.heap) {
        snprintf(err, ERR, "out of memory merging %u threads", f->nthreads);
        rc = -1;
    }
    for (uint32_t i = 0; rc == 0 && i < f->nthreads; i++) {
        raw_cursor_init(&m.cur[i], f, (uint16_t)i);
        int r = raw_next(&m.cur[i], &m.head[i], err, ERR);
        rc = r < 0 ? -1 : 0;
        if (r > 0)
            m.heap[m.n++] = i;
    }
    for (uint32_t i = m.n / 2; rc == 0 && i-- > 0;)
        sift_down(&m, i);
    uint64_t last = 0;
    int any = 0;
    while (rc == 0 && m.n > 0) {
        uint32_t t = m.heap[0];
        if (m.head[t].order >= upto)
            break;
        if (any && m.head[t].order <= last) { /* the recorder gave one number twice: a defect, never a program's doing */
            snprintf(err, ERR, "the raw recording is inconsistent: global order %" PRIu64 " is taken twice (thread %u's "
                     "event and another's); report it with the .hbr file", last, t);
            rc = -1;
            break;
        }
        last = m.head[t].order, any = 1;
        if (fn(arg, &m.head[t]) < 0) {
            rc = -1;
            break;
        }
        int r = raw_next(&m.cur[t], &m.head[t], err, ERR);
        if (r < 0)
            rc = -1;
        else if (r == 0)
            m.heap[0] = m.heap[--m.n];
        sift_down(&m, 0);
    }
    for (uint32_t i = 0; m.cur && i < f->nthreads; i++)
        raw_cursor_free(&m.cur[i]);
    free(m.cur), free(m.head), free(m.heap);
    return rc;
}

/* ---- a fork child's inherited heap: its parent's live objects at the fork ---- */

/* What an event does to the live objects (key -> size); a realloc's old object leaves at its
 * RAW_X_TAKE and comes back when the realloc failed. */
struct live {
    struct addr_table t;
    uint64_t taken[HBT_MAX_THREADS]; /* per thread: the size its pending realloc took, or HBT_NONE */
};

static int track(void *arg, const struct raw_event *e)
{
    struct live *l = arg;
    uint64_t v;
    if (e->kind == HBT_FREE || e->kind == HBT_MUNMAP)
        addr_table_take(&l->t, key_of(e->addr, e->kind == HBT_MUNMAP), &v);
    if (e->kind == RAW_EXT && e->size == RAW_X_TAKE)
        l->taken[e->thread] = addr_table_take(&l->t, key_of(e->addr, 0), &v) ? v : HBT_NONE;
    if (reallocs(e->kind) && e->extra && !e->addr && e->size > 0 && l->taken[e->thread] != HBT_NONE &&
        addr_table_put(&l->t, key_of(e->extra, 0), l->taken[e->thread]) < 0)
        return -1;
    if (produces(e->kind) && e->addr && addr_table_put(&l->t, key_of(e->addr, e->kind == HBT_MMAP), e->size) < 0)
        return -1;
    return 0;
}

/* The live objects of the raw file `name` (in dir) before its order upto, into live. */
static int inherited(const char *dir, const char *name, uint64_t upto, struct live *live, int depth, char *err)
{
    char path[PATH_MAX], why[ERR];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct raw_file f;
    if (depth > 64 || raw_open(path, &f, why, sizeof why) < 0) {
        snprintf(err, ERR, "a fork child's parent recording is missing or unreadable (%.400s); convert the child with its "
                 "parent's .hbr beside it", depth > 64 ? "more than 64 forks deep" : why);
        return -1;
    }
    int rc = 0;
    if (f.pre.fork_order != RAW_NO_FORK)
        rc = inherited(dir, f.pre.parent, f.pre.fork_order, live, depth + 1, err);
    if (rc == 0)
        rc = walk(&f, upto, track, live, err);
    raw_close(&f);
    return rc;
}

/* ---- the trace writer (format 4) ---- */

struct conv {
    const struct raw_file *f;
    uint64_t *taken;           /* per thread: the id its pending realloc took (RAW_X_TAKE), or HBT_NONE */
    int fd;
    const char *out;
    struct hbt_chunk *chunks;  /* per thread, buf NULL until its first event */
    struct hbt_touch_chunk touch; /* the touch records (written as thread 0's), buf NULL until the first */
    struct addr_table objs;    /* key -> rec id of the live object */
    struct live *inh;          /* a fork child: key -> size of what it inherited (emitted after thread 0's start) */
    int inherit_pending;
    struct conv_sites sites;   /* the call sites (format 5) */
    uint64_t ops, unknown;
    char *err;
};

static int flush_chunk(struct conv *c, struct hbt_chunk *ch)
{
    size_t len = hbt_chunk_seal(ch);
    if (len && hbt_write_all(c->fd, ch->buf, len) < 0) {
        snprintf(c->err, ERR, "cannot write %.400s: %s; free some space and run hbconvert again", c->out, strerror(errno ? errno : ENOSPC));
        return -1;
    }
    hbt_chunk_reset(ch);
    return 0;
}

static int flush_touch(struct conv *c)
{
    size_t len = hbt_touch_seal(&c->touch);
    if (len && hbt_write_all(c->fd, c->touch.buf, len) < 0) {
        snprintf(c->err, ERR, "cannot write %.400s: %s; free some space and run hbconvert again", c->out, strerror(errno ? errno : ENOSPC));
        return -1;
    }
    hbt_touch_reset(&c->touch);
    return 0;
}

/* Appends e to its thread's chunk, numbered next in the global order; *seq: the object it made. */
static int emit(struct conv *c, struct hbt_event *e, uint64_t *seq)
{
    struct hbt_chunk *ch = &c->chunks[e->thread];
    if (!ch->buf) {
        uint8_t *buf = malloc(CHUNK_BYTES);
        if (!buf) {
            snprintf(c->err, ERR, "out of memory converting to %s", c->out);
            return -1;
        }
        hbt_chunk_init(ch, buf, CHUNK_BYTES, e->thread);
    }
    if (!hbt_chunk_has_room(ch) && flush_chunk(c, ch) < 0)
        return -1;
    e->order = c->ops++;
    *seq = hbt_chunk_put(ch, e);
    return 0;
}

/* The touch record of the object live at addr (none when nothing lives there). */
static int put_touch(void *arg, uint64_t addr, uint64_t pages, uint64_t resident)
{
    struct conv *c = arg;
    uint64_t id;
    if (!addr_table_find(&c->objs, key_of(addr, 0), &id) || resident >= pages)
        return 0;
    if (!c->touch.buf) {
        uint8_t *buf = malloc(CHUNK_BYTES);
        if (!buf) {
            snprintf(c->err, ERR, "out of memory converting to %s", c->out);
            return -1;
        }
        hbt_touch_init(&c->touch, buf, CHUNK_BYTES, 0);
    }
    if (!hbt_touch_has_room(&c->touch) && flush_touch(c) < 0)
        return -1;
    struct hbt_touch r = {.thread = (uint16_t)(id >> 48), .seq = id & ((1ull << 48) - 1), .pages = pages, .resident = resident};
    hbt_touch_put(&c->touch, &r);
    return 0;
}

static uint64_t id_of(uint16_t thread, uint64_t seq) { return (uint64_t)thread << 48 | seq; }
static void set_ref(struct hbt_event *e, uint64_t id) { e->ref_thread = (uint16_t)(id >> 48), e->ref_seq = id & ((1ull << 48) - 1); }

/* A fork child's inherited objects, as thread 0's events right after its start. */
static int emit_inherited(struct conv *c, uint64_t ns)
{
    uint64_t *keys = addr_table_sorted_keys(&c->inh->t);
    if (!keys) {
        snprintf(c->err, ERR, "out of memory converting to %s", c->out);
        return -1;
    }
    int rc = 0;
    uint64_t page = c->f->h.page_size ? c->f->h.page_size : 4096;
    for (int map = 0; map <= 1 && rc == 0; map++)
        for (size_t i = 0; i < c->inh->t.n && rc == 0; i++) {
            if ((int)(keys[i] & 1) != map)
                continue;
            uint64_t size = addr_table_get(&c->inh->t, keys[i]), seq;
            struct hbt_event e = {.kind = map ? HBT_MMAP : HBT_MALLOC, .size = map ? (size + page - 1) / page * page : size, .ns = ns};
            rc = emit(c, &e, &seq);
            if (rc == 0 && seq != HBT_NONE && addr_table_put(&c->objs, keys[i], id_of(0, seq)) < 0)
                rc = -1;
        }
    free(keys);
    return rc;
}

/* One raw event as the in-process writer would have recorded it. */
static int convert_event(void *arg, const struct raw_event *r)
{
    struct conv *c = arg;
    if (r->kind == RAW_EXT && r->size == RAW_X_TAKE) { /* a realloc's end of its old object, before its real call */
        uint64_t id;
        c->taken[r->thread] = addr_table_take(&c->objs, key_of(r->addr, 0), &id) ? id : HBT_NONE;
        return 0;
    }
    if (r->kind == RAW_EXT && r->size == RAW_X_TOUCH)
        return put_touch(c, r->addr, r->extra >> 32, r->extra & 0xffffffffu);
    if (r->kind == RAW_EXT && r->size == RAW_X_FRAME) {
        if (conv_sites_frame(&c->sites, r->thread, r->addr, r->extra) == 0)
            return 0;
        snprintf(c->err, ERR, errno == EINVAL ? "%s: a call-site frame record of thread %u is out of sequence; the raw recording is damaged, record it again"
                                              : "cannot write %s (thread %u's call sites): %s; free some space and memory and run hbconvert again",
                 c->out, r->thread, strerror(errno ? errno : ENOMEM));
        return -1;
    }
    if (r->kind == RAW_EXT) {
        snprintf(c->err, ERR, "%s holds a raw record of sub-kind %" PRIu64 ", which this hbconvert does not know; "
                 "convert it with the hbconvert built with the recorder that wrote it", c->out, r->size);
        return -1;
    }
    struct hbt_event e = {.kind = (uint8_t)r->kind, .thread = r->thread, .ns = r->ns, .size = r->size};
    uint64_t old = HBT_NONE, seq;
    if (e.kind == HBT_POSIX_MEMALIGN || e.kind == HBT_ALIGNED_ALLOC || e.kind == HBT_MEMALIGN)
        e.align_log = (uint8_t)r->extra;
    uint64_t gone = r->kind == HBT_FREE || r->kind == HBT_MUNMAP ? r->addr : reallocs(r->kind) ? r->extra : 0;
    if (reallocs(r->kind) && gone) { /* its old object was taken by its RAW_X_TAKE */
        old = c->taken[r->thread];
        c->taken[r->thread] = HBT_NONE;
        if (old != HBT_NONE)
            set_ref(&e, old);
        else
            e.flags |= HBT_F_NOREF, c->unknown++;
    } else if (r->kind == HBT_FREE || r->kind == HBT_MUNMAP || reallocs(r->kind)) {
        if (gone && addr_table_take(&c->objs, key_of(gone, r->kind == HBT_MUNMAP), &old)) {
            set_ref(&e, old);
        } else {
            e.flags |= HBT_F_NOREF;
            c->unknown += gone != 0;
            old = HBT_NONE;
        }
    }
    if (produces(e.kind) && !r->addr)
        e.flags |= HBT_F_FAILED;
    if (emit(c, &e, &seq) < 0)
        return -1;
    if (reallocs(e.kind) && !r->addr && r->size > 0 && old != HBT_NONE && addr_table_put(&c->objs, key_of(gone, 0), old) < 0)
        return -1; /* a failed realloc: the old object lives on under its name */
    if (produces(e.kind) && r->addr && seq != HBT_NONE && addr_table_put(&c->objs, key_of(r->addr, e.kind == HBT_MMAP), id_of(r->thread, seq)) < 0)
        return -1;
    if (produces(e.kind) && e.kind != HBT_MMAP && seq != HBT_NONE && conv_sites_made(&c->sites, r->thread, seq) < 0) {
        snprintf(c->err, ERR, "cannot write %.400s (call sites): %s; free some space and run hbconvert again", c->out, strerror(errno ? errno : ENOMEM));
        return -1;
    }
    if (c->inherit_pending && r->thread == 0 && r->kind == HBT_THREAD_START) {
        c->inherit_pending = 0;
        return emit_inherited(c, r->ns);
    }
    return 0;
}

static int write_header(struct conv *c, const struct hbt_header *h)
{
    uint8_t buf[HBT_HEADER_SIZE];
    if (hbt_header_encode(h, buf) < 0 || pwrite(c->fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
        snprintf(c->err, ERR, "cannot write the header of %s: %s; free some space and run hbconvert again", c->out,
                 strerror(errno ? errno : ENOSPC));
        return -1;
    }
    return 0;
}

/* Converts raw file in into the trace out. 0, or -1 (err set). *cut: the raw file ended in a cut block. */
static int convert(const char *dir, const char *in, const char *out, int *cut, char *err)
{
    struct raw_file f;
    char why[ERR];
    if (raw_open(in, &f, why, sizeof why) < 0) {
        snprintf(err, ERR, "%.1000s", why);
        return -1;
    }
    *cut = f.used < f.size;
    struct conv c = {.f = &f, .out = out, .err = err, .fd = -1};
    c.chunks = calloc(f.nthreads + 1, sizeof *c.chunks);
    c.taken = malloc((f.nthreads + 1) * sizeof *c.taken);
    for (uint32_t i = 0; c.taken && i <= f.nthreads; i++)
        c.taken[i] = HBT_NONE;
    c.inh = calloc(1, sizeof *c.inh);
    for (uint32_t i = 0; c.inh && i < HBT_MAX_THREADS; i++)
        c.inh->taken[i] = HBT_NONE;
    int rc = c.chunks && c.taken && c.inh && addr_table_init(&c.objs) == 0 && addr_table_init(&c.inh->t) == 0 ? 0 : -1;
    if (rc < 0)
        snprintf(err, ERR, "out of memory converting %s", in);
    if (rc == 0 && f.pre.fork_order != RAW_NO_FORK) {
        rc = inherited(dir, f.pre.parent, f.pre.fork_order, c.inh, 0, err);
        c.inherit_pending = 1;
    }
    struct hbt_header h = f.h;
    h.version = HBT_VERSION;
    if (rc == 0) {
        c.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        rc = c.fd >= 0 && write_header(&c, &h) == 0 && lseek(c.fd, HBT_HEADER_SIZE, SEEK_SET) == HBT_HEADER_SIZE ? 0 : -1;
        if (c.fd < 0)
            snprintf(err, ERR, "cannot create %.400s: %s; check the directory's permissions and free space", out, strerror(errno));
        if (rc == 0 && conv_sites_init(&c.sites, f.nthreads, c.fd) < 0) {
            snprintf(err, ERR, "out of memory converting %s", in);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = walk(&f, UINT64_MAX, convert_event, &c, err);
    if (rc == 0)
        rc = raw_exit_touch_each(&f, put_touch, &c, err, ERR);
    for (uint32_t i = 0; rc == 0 && i < f.nthreads; i++)
        if (c.chunks[i].buf)
            rc = flush_chunk(&c, &c.chunks[i]);
    if (rc == 0 && c.touch.buf)
        rc = flush_touch(&c);
    char maps[PATH_MAX];
    snprintf(maps, sizeof maps, "%s.maps", in);
    if (rc == 0 && conv_sites_finish(&c.sites, maps) < 0) {
        snprintf(err, ERR, "cannot write the call sites of %.400s: %s; free some space and run hbconvert again", out, strerror(errno ? errno : ENOMEM));
        rc = -1;
    }
    if (rc == 0) {
        h.complete = f.h.complete && !*cut;
        h.ops = c.ops;
        h.unknown_refs = c.unknown;
        if (!h.complete)
            h.threads = h.duration_ns = 0;
        rc = write_header(&c, &h);
    }
    if (c.fd >= 0 && close(c.fd) < 0 && rc == 0) {
        snprintf(err, ERR, "cannot write %.400s: %s; free some space and run hbconvert again", out, strerror(errno));
        rc = -1;
    }
    if (rc < 0 && c.fd >= 0)
        unlink(out);
    for (uint32_t i = 0; c.chunks && i < f.nthreads; i++)
        free(c.chunks[i].buf);
    free(c.chunks);
    free(c.touch.buf);
    free(c.taken);
    if (c.sites.cur)
        conv_sites_free(&c.sites);
    addr_table_free(&c.objs);
    if (c.inh)
        addr_table_free(&c.inh->t);
    free(c.inh);
    raw_close(&f);
    return rc;
}

/* ---- the command ---- */

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Removes a converted raw recording and its mappings' copy (NAME.hbr.maps). */
static void unlink_raw(const char *path)
{
    char maps[PATH_MAX];
    snprintf(maps, sizeof maps, "%s.maps", path);
    unlink(path);
    unlink(maps);
}

/* Converts one .hbr (keep: leave it). 0, or 1 after saying why on stderr. */
static int convert_file(const char *path, int keep)
{
    char dir[PATH_MAX], out[PATH_MAX], err[ERR];
    if (!ends_with(path, ".hbr") || strlen(path) >= sizeof out) {
        fprintf(stderr, "hbconvert: %s is not a raw recording's name (NAME.hbr); give a .hbr file or a directory\n", path);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    snprintf(out, sizeof out, "%.*s.hbt", (int)(strlen(path) - 4), path);
    int cut = 0;
    if (convert(dir, path, out, &cut, err) < 0) {
        fprintf(stderr, "hbconvert: %s\n", err);
        return 1;
    }
    if (cut)
        fprintf(stderr, "hbconvert: %s ends in a cut block (the program was killed or its disk filled): converted up to "
                "its last whole block, the trace says complete: no\n", path);
    if (!keep)
        unlink_raw(path);
    return 0;
}

static int convert_dir(const char *dir, int keep)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "hbconvert: cannot read directory %s: %s\n", dir, strerror(errno));
        return 1;
    }
    /* every name first: a fork child's conversion reads its parent's .hbr, so none is removed before all are converted */
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!ends_with(e->d_name, ".hbr"))
            continue;
        char **more = realloc(names, (n + 1) * sizeof *names);
        if (!more)
            break;
        names = more;
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n])
            break;
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= convert_file(names[i], 1);
    for (size_t i = 0; i < n; i++) {
        if (!bad && !keep)
            unlink_raw(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int keep = argc > 1 && strcmp(argv[1], "--keep") == 0, first = 1 + keep;
    if (argc <= first || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(stderr, "usage: hbconvert [--keep] PATH...   (PATH: a raw recording NAME.hbr, or a directory of them;\n"
                        "writes NAME.hbt beside each and removes the .hbr unless --keep)\n");
        return 2;
    }
    int bad = 0;
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "hbconvert: %s: %s; give a .hbr file or a directory holding them\n", argv[i], strerror(errno));
            bad = 1;
        } else {
            bad |= S_ISDIR(st.st_mode) ? convert_dir(argv[i], keep) : convert_file(argv[i], keep);
        }
    }
    return bad;
}
