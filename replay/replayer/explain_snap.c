/* explain_snap.c - a replay's resident memory split into measured parts and its pinned free memory
 * attributed to call sites (explain_snap.h).
 * Always holds: see explain_snap.h; /proc/self/smaps and smaps_rollup are read with read(2) into
 * hbt_pages buffers (no stdio: its buffers would come from the allocator being measured); every
 * per-page table is per mapping and released before the next. */
#include "explain_snap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SMAPS_MAX (64u << 20)
#define MAPS_MAX 65536u
#define PAGES_MAX (16ull << 20) /* 64 GiB of a mapping at 4 KiB pages: larger ones are counted whole as unexplained */

struct obj {
    uint64_t ptr, size, usable;
    uint32_t site;
    uint8_t map;
};

struct mapping {
    uint64_t lo, hi, rss, lazy;
    int kind;                  /* M_* */
};
enum { M_FILE, M_STACK, M_HEAP_BRK, M_ANON, M_LIBDATA, M_SPECIAL };

struct parts {
    uint64_t live, rounding, gaps, free, lazyfree, mapped, runtime, files, rss, anonhuge, skipped;
    uint64_t free_kept, free_top, pinned;
};

struct snap {
    const struct explain_in *in;
    struct obj *objs;
    uint64_t n, cap;
    struct mapping *maps;
    uint32_t nmaps;
    struct parts p;
    double *pinned;            /* per site (0..nsites): pinned bytes */
    uint64_t *live, *live_objs, *pin_objs, *pin_live; /* per site */
    uint8_t *pinning;          /* per object (sorted index): it pins something */
    struct { uintptr_t lo; size_t len; } own[4096];
    uint32_t nown;
};

/* ---- the live objects ---- */

static void count_obj(void *arg, uint64_t obj, uint64_t ptr, uint64_t size)
{
    (void)obj, (void)ptr, (void)size;
    ((struct snap *)arg)->cap++;
}

static void put_obj(void *arg, uint64_t obj, uint64_t ptr, uint64_t size)
{
    struct snap *s = arg;
    if (s->n >= s->cap || !ptr)
        return;
    int map = obj < s->in->t->objects && (s->in->is_map[obj >> 3] >> (obj & 7) & 1);
    uint64_t usable = !map && s->in->usable ? s->in->usable((void *)ptr) : size;
    s->objs[s->n++] = (struct obj){.ptr = ptr, .size = size, .usable = usable > size ? usable : size, .site = site_of(s->in->sites, obj), .map = (uint8_t)map};
}

static int by_ptr(const void *a, const void *b)
{
    uint64_t x = ((const struct obj *)a)->ptr, y = ((const struct obj *)b)->ptr;
    return x < y ? -1 : x > y;
}

/* ---- /proc/self/smaps ---- */

/* The file at path into a new hbt_pages buffer of *cap bytes (NUL-terminated); NULL when unreadable. */
static char *slurp(const char *path, size_t *cap)
{
    *cap = SMAPS_MAX;
    char *buf = hbt_pages(*cap);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0;
    for (ssize_t got; buf && fd >= 0 && len < *cap - 1 && (got = read(fd, buf + len, *cap - 1 - len)) > 0;)
        len += (size_t)got;
    if (fd >= 0)
        close(fd);
    if (buf && fd < 0) {
        hbt_unpages(buf, *cap);
        return NULL;
    }
    return buf;
}

static uint64_t kb_field(const char *line, const char *name)
{
    size_t n = strlen(name);
    return strncmp(line, name, n) == 0 ? strtoull(line + n, NULL, 10) * 1024 : UINT64_MAX;
}

static int read_smaps(struct snap *s)
{
    size_t cap;
    char *buf = slurp("/proc/self/smaps", &cap);
    if (!buf)
        return -1;
    s->maps = hbt_pages(MAPS_MAX * sizeof *s->maps);
    if (!s->maps) {
        hbt_unpages(buf, cap);
        return -1;
    }
    struct mapping *cur = NULL;
    for (char *line = buf; line && *line;) {
        char *eol = strchr(line, '\n');
        if (eol)
            *eol = '\0';
        unsigned long long lo, hi;
        int path_at = 0;
        uint64_t v;
        if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &path_at) == 2 && s->nmaps < MAPS_MAX) {
            cur = &s->maps[s->nmaps++];
            const char *path = path_at ? line + path_at : "";
            *cur = (struct mapping){.lo = lo, .hi = hi};
            cur->kind = path[0] == '/' ? M_FILE : !strcmp(path, "[stack]") ? M_STACK : !strcmp(path, "[heap]") ? M_HEAP_BRK
                        : path[0] == '[' ? M_SPECIAL : M_ANON;
            if (cur->kind == M_ANON && s->nmaps > 1 && s->maps[s->nmaps - 2].kind == M_FILE && s->maps[s->nmaps - 2].hi == lo)
                cur->kind = M_LIBDATA; /* a library's .bss, right after its file mapping */
        } else if (cur && (v = kb_field(line, "Rss:")) != UINT64_MAX) {
            cur->rss = v;
        } else if (cur && (v = kb_field(line, "LazyFree:")) != UINT64_MAX) {
            cur->lazy = v;
        }
        line = eol ? eol + 1 : NULL;
    }
    hbt_unpages(buf, cap);
    buf = slurp("/proc/self/smaps_rollup", &cap);
    for (char *line = buf; line && *line;) {
        char *eol = strchr(line, '\n');
        uint64_t v;
        if ((v = kb_field(line, "Rss:")) != UINT64_MAX)
            s->p.rss = v;
        else if ((v = kb_field(line, "AnonHugePages:")) != UINT64_MAX)
            s->p.anonhuge = v;
        line = eol ? eol + 1 : NULL;
    }
    hbt_unpages(buf, cap);
    return 0;
}

static void note_own(void *arg, uintptr_t lo, size_t len)
{
    struct snap *s = arg;
    if (s->nown < sizeof s->own / sizeof s->own[0])
        s->own[s->nown].lo = lo, s->own[s->nown++].len = len;
}

/* ---- one anonymous mapping, page by page ---- */

struct pages {
    uint64_t lo, n, page;
    unsigned char *res;        /* mincore */
    uint8_t *own, *mapped;     /* the replayer's page, a page of the program's own mapping */
    uint32_t *covered;         /* live + rounding bytes on the page (resident or not) */
    uint64_t *low;             /* sorted index + 1 of the lowest object on the page, 0 none */
};

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
    return y > x ? y - x : 0;
}

/* Calls back for each page of [a, b) within the mapping: its index and the bytes of [a, b) on it. */
#define EACH_PAGE(pg, a, b, i, bytes)                                                                                          \
    for (uint64_t i = ((a) > (pg)->lo ? (a) - (pg)->lo : 0) / (pg)->page, bytes;                                            \
         i < (pg)->n && (pg)->lo + i * (pg)->page < (b) &&                                                                  \
         ((bytes = overlap((a), (b), (pg)->lo + i * (pg)->page, (pg)->lo + (i + 1) * (pg)->page)), 1);                       \
         i++)

/* mincore of the mapping in parts of MINCORE_STEP pages (one call over a 268 MB mapping of jemalloc's
 * was refused with ENOMEM on this kernel, its parts were not); a part refused counts as not resident
 * (what it held is then in the unexplained rest). -1 when every part is refused. */
#define MINCORE_STEP 4096u
static int mincore_pages(const struct mapping *m, uint64_t page, unsigned char *res)
{
    uint64_t n = (m->hi - m->lo) / page, ok = 0;
    for (uint64_t i = 0; i < n; i += MINCORE_STEP) {
        uint64_t k = n - i < MINCORE_STEP ? n - i : MINCORE_STEP;
        if (mincore((void *)(m->lo + i * page), k * page, res + i) == 0)
            ok++;
        else
            memset(res + i, 0, k);
    }
    return ok ? 0 : -1;
}

static void heap_mapping(struct snap *s, const struct mapping *m, int top_trim)
{
    uint64_t page = s->in->page, n = (m->hi - m->lo) / page;
    if (n > PAGES_MAX) {
        s->p.skipped += m->rss;
        return;
    }
    struct pages pg = {.lo = m->lo, .n = n, .page = page};
    size_t bytes = n * (1 + 1 + 1 + sizeof(uint32_t) + sizeof(uint64_t));
    uint8_t *mem = hbt_pages(bytes);
    if (!mem) {
        s->p.skipped += m->rss;
        return;
    }
    pg.res = mem, pg.own = mem + n, pg.mapped = mem + 2 * n, pg.covered = (uint32_t *)(mem + 3 * n);
    pg.low = (uint64_t *)(mem + 3 * n + n * sizeof(uint32_t));
    if (mincore_pages(m, page, pg.res) < 0) {
        hbt_unpages(mem, bytes);
        s->p.skipped += m->rss;
        return;
    }
    for (uint32_t k = 0; k < s->nown; k++)
        EACH_PAGE(&pg, s->own[k].lo, s->own[k].lo + s->own[k].len, i, b)
            pg.own[i] = b > 0;
    /* the objects of the mapping: sorted by address, the first at or after lo */
    uint64_t first = 0, last, hi = s->n;
    while (first < hi) {
        uint64_t mid = first + (hi - first) / 2;
        if (s->objs[mid].ptr < m->lo)
            first = mid + 1;
        else
            hi = mid;
    }
    for (last = first; last < s->n && s->objs[last].ptr < m->hi; last++) {
        const struct obj *o = &s->objs[last];
        if (o->map) {
            EACH_PAGE(&pg, o->ptr, o->ptr + o->size, i, b) {
                pg.mapped[i] = 1;
                s->p.mapped += (pg.res[i] & 1) && !pg.own[i] ? b : 0;
            }
            continue;
        }
        EACH_PAGE(&pg, o->ptr, o->ptr + o->usable, i, b) {
            uint64_t live = overlap(o->ptr, o->ptr + o->size, pg.lo + i * page, pg.lo + (i + 1) * page);
            pg.covered[i] += (uint32_t)b;
            if (!pg.low[i])
                pg.low[i] = last + 1;
            if ((pg.res[i] & 1) && !pg.own[i]) {
                s->p.live += live;
                s->p.rounding += b - live;
                s->live[o->site] += live;
            }
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        if (!(pg.res[i] & 1))
            continue;
        if (pg.own[i])
            s->p.runtime += page;
        else if (pg.mapped[i])
            ;
        else if (pg.covered[i])
            s->p.gaps += pg.covered[i] < page ? page - pg.covered[i] : 0;
        else
            s->p.free += page;
    }
    /* pinning: a page's gaps by its objects, in proportion to their bytes there */
    for (uint64_t k = first; k < last; k++) {
        const struct obj *o = &s->objs[k];
        if (o->map)
            continue;
        EACH_PAGE(&pg, o->ptr, o->ptr + o->usable, i, b) {
            if (!(pg.res[i] & 1) || pg.own[i] || pg.mapped[i] || pg.covered[i] >= page || !pg.covered[i])
                continue;
            s->pinned[o->site] += (double)(page - pg.covered[i]) * (double)b / (double)pg.covered[i];
            s->pinning[k] = 1;
        }
    }
    /* the free pages: pinned by the nearest live object above in a heap returned from its top, else the allocator's */
    uint64_t above = 0;
    for (uint64_t i = n; i-- > 0;) {
        if (pg.covered[i]) {
            above = pg.low[i];
            continue;
        }
        if (!(pg.res[i] & 1) || pg.own[i] || pg.mapped[i])
            continue;
        if (!top_trim) {
            s->p.free_kept += page;
        } else if (!above) {
            s->p.free_top += page;
        } else {
            s->pinned[s->objs[above - 1].site] += (double)page;
            s->pinning[above - 1] = 1;
        }
    }
    s->p.lazyfree += m->lazy;
    hbt_unpages(mem, bytes);
}

static void measure(struct snap *s)
{
    for (uint32_t k = 0; k < s->nmaps; k++) {
        const struct mapping *m = &s->maps[k];
        switch (m->kind) {
        case M_FILE:
        case M_SPECIAL: s->p.files += m->rss; break;
        case M_STACK:
        case M_LIBDATA: s->p.runtime += m->rss; break;
        default: heap_mapping(s, m, s->in->top_trim); break;
        }
    }
    s->p.free = s->p.free > s->p.lazyfree ? s->p.free - s->p.lazyfree : 0; /* LazyFree pages hold no live byte: counted apart */
    for (uint64_t k = 0; k < s->n; k++)
        if (s->pinning[k]) {
            s->pin_objs[s->objs[k].site]++;
            s->pin_live[s->objs[k].site] += s->objs[k].size;
        }
    for (uint64_t k = 0; k < s->n; k++)
        s->live_objs[s->objs[k].site] += !s->objs[k].map;
    for (uint32_t id = 0; id <= s->in->sites->nsites; id++)
        s->p.pinned += (uint64_t)s->pinned[id];
}

static void write_out(const struct snap *s, FILE *out)
{
    const struct parts *p = &s->p;
    const char *names[] = {"live", "rounding", "gaps", "free", "lazyfree", "mapped", "runtime", "files"};
    const uint64_t vals[] = {p->live, p->rounding, p->gaps, p->free, p->lazyfree, p->mapped, p->runtime, p->files};
    uint64_t sum = 0;
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        fprintf(out, "part\t%s\t%" PRIu64 "\n", names[i], vals[i]);
        sum += vals[i];
    }
    fprintf(out, "total\trss\t%" PRIu64 "\ntotal\tsum\t%" PRIu64 "\ntotal\tanonhuge\t%" PRIu64 "\n", p->rss, sum, p->anonhuge);
    fprintf(out, "total\tskipped\t%" PRIu64 "\n", p->skipped);
    fprintf(out, "free\tpinned\t%" PRIu64 "\nfree\tkept\t%" PRIu64 "\nfree\ttop\t%" PRIu64 "\n", p->pinned, p->free_kept, p->free_top);
    if (!s->in->usable)
        fprintf(out, "unmeasured\trounding\tthe allocator has no malloc_usable_size of its own: usable sizes taken as the requested ones\n");
    for (uint32_t id = 0; id <= s->in->sites->nsites; id++)
        if (s->live_objs[id] || s->pinned[id] >= 1.0)
            fprintf(out, "site\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", id, s->live[id], s->live_objs[id],
                    (uint64_t)s->pinned[id], s->pin_objs[id], s->pin_live[id]);
}

int explain_snapshot(const struct explain_in *in, void (*each)(void *ctx, void (*fn)(void *, uint64_t, uint64_t, uint64_t), void *arg),
                     void *ctx, FILE *out, char *err, size_t errlen)
{
    static struct snap s;
    memset(&s, 0, sizeof s);
    s.in = in;
    each(ctx, count_obj, &s);
    uint32_t nsites = in->sites->nsites;
    size_t obytes = (s.cap ? s.cap : 1) * (sizeof *s.objs + 1), sbytes = (size_t)(nsites + 1) * (sizeof(double) + 4 * sizeof(uint64_t));
    uint8_t *om = hbt_pages(obytes), *sm = hbt_pages(sbytes);
    if (!om || !sm)
        return hbt_fail(err, errlen, "out of memory for the explanation of %" PRIu64 " live objects", s.cap);
    s.objs = (struct obj *)om;
    s.pinning = om + (s.cap ? s.cap : 1) * sizeof *s.objs;
    s.pinned = (double *)sm;
    s.live = (uint64_t *)(sm + (nsites + 1) * sizeof(double));
    s.live_objs = s.live + nsites + 1, s.pin_objs = s.live_objs + nsites + 1, s.pin_live = s.pin_objs + nsites + 1;
    each(ctx, put_obj, &s);
    qsort(s.objs, s.n, sizeof *s.objs, by_ptr);
    if (hbt_pages_each(note_own, &s) != 0)
        return hbt_fail(err, errlen, "the replayer's own memory is in more ranges than it can tell apart from the heap");
    if (read_smaps(&s) < 0)
        return hbt_fail(err, errlen, "cannot read /proc/self/smaps (a kernel without it, or out of memory)");
    measure(&s);
    write_out(&s, out);
    hbt_unpages(s.maps, MAPS_MAX * sizeof *s.maps);
    hbt_unpages(om, obytes);
    hbt_unpages(sm, sbytes);
    return 0;
}
