/* conv_sites.c - the post-pass's call sites: RAW_X_FRAME records into trace format 5's site chunks
 * (conv_sites.h). Always holds: see conv_sites.h; every record is written through the one site
 * chunk, flushed when full and at the end. */
#include "conv_sites.h"
#include "common/rawtrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SITE_CHUNK (1u << 20)

int conv_sites_init(struct conv_sites *s, uint32_t nthreads, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->nthreads = nthreads;
    s->cur = calloc(nthreads + 1, sizeof *s->cur);
    s->pending = calloc(nthreads + 1, sizeof *s->pending);
    s->runs = calloc(nthreads + 1, sizeof *s->runs);
    if (!s->cur || !s->pending || !s->runs || addr_table_init(&s->by_hash) < 0 || addr_table_init(&s->by_pc) < 0)
        return -1;
    return 0;
}

void conv_sites_free(struct conv_sites *s)
{
    free(s->cur);
    free(s->pending);
    free(s->runs);
    free(s->stacks);
    free(s->c.buf);
    addr_table_free(&s->by_hash);
    addr_table_free(&s->by_pc);
}

static int flush(struct conv_sites *s)
{
    size_t len = hbt_site_seal(&s->c);
    if (len && hbt_write_all(s->fd, s->c.buf, len) < 0)
        return -1;
    hbt_site_reset(&s->c);
    return 0;
}

static int put(struct conv_sites *s, const struct hbt_site *r)
{
    if (!s->c.buf) {
        uint8_t *buf = malloc(HBT_CHUNK_HEADER + SITE_CHUNK);
        if (!buf)
            return -1;
        hbt_site_init(&s->c, buf, HBT_CHUNK_HEADER + SITE_CHUNK, 0);
    }
    if (!hbt_site_has_room(&s->c, r) && flush(s) < 0)
        return -1;
    if (!hbt_site_has_room(&s->c, r)) { /* a maps text longer than a chunk: cut */
        errno = EFBIG;
        return -1;
    }
    hbt_site_put(&s->c, r);
    return 0;
}

static uint64_t hash_of(const struct conv_stack *k)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ k->n;
    for (uint32_t i = 0; i < k->n; i++)
        h = (h ^ k->f[i]) * 0x100000001b3ull, h ^= h >> 29;
    return h ? h : 1;
}

/* The id of stack k, made when new. 0 when out of memory. */
static uint32_t intern(struct conv_sites *s, const struct conv_stack *k)
{
    uint64_t id;
    for (uint64_t h = hash_of(k);; h = h + 1 ? h + 1 : 1) {
        if (!addr_table_find(&s->by_hash, h, &id))
            break;
        const struct conv_stack *o = &s->stacks[id - 1];
        if (o->n == k->n && !memcmp(o->f, k->f, k->n * sizeof k->f[0]))
            return (uint32_t)id;
    }
    if (s->nstacks == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 256;
        struct conv_stack *more = realloc(s->stacks, cap * sizeof *more);
        if (!more)
            return 0;
        s->stacks = more, s->cap = cap;
    }
    s->stacks[s->nstacks++] = *k;
    uint64_t h = hash_of(k);
    while (addr_table_find(&s->by_hash, h, &id))
        h = h + 1 ? h + 1 : 1;
    return addr_table_put(&s->by_hash, h, s->nstacks) < 0 ? 0 : s->nstacks;
}

int conv_sites_frame(struct conv_sites *s, uint16_t thread, uint64_t pc, uint64_t word)
{
    unsigned index = (unsigned)(word & 0xff), n = (unsigned)(word >> 8);
    struct conv_stack *k = &s->pending[thread];
    if (thread > s->nthreads || n == 0 || n > HBT_SITE_FRAMES || index >= n || index != (index ? k->n : 0)) {
        errno = EINVAL;
        return -1;
    }
    k->n = index + 1;
    k->f[index] = pc;
    if (index + 1 < n)
        return 0;
    uint64_t id;
    if (n == 1 && pc && addr_table_find(&s->by_pc, pc, &id)) { /* a lone frame: the last whole stack starting there */
        s->cur[thread] = (uint32_t)id;
        return 0;
    }
    uint32_t got = intern(s, k);
    if (!got || (n > 1 && k->f[0] && addr_table_put(&s->by_pc, k->f[0], got) < 0))
        return -1;
    s->cur[thread] = got;
    return 0;
}

static int end_run(struct conv_sites *s, uint16_t thread)
{
    struct conv_run *r = &s->runs[thread];
    if (!r->count)
        return 0;
    struct hbt_site rec = {.type = HBT_SITE_OBJS, .thread = thread, .seq = r->seq, .count = r->count, .id = r->site};
    r->count = 0;
    return put(s, &rec);
}

int conv_sites_made(struct conv_sites *s, uint16_t thread, uint64_t seq)
{
    uint32_t site = thread <= s->nthreads ? s->cur[thread] : 0;
    if (!site)
        return 0;
    struct conv_run *r = &s->runs[thread];
    if (r->count && r->site == site && r->seq + r->count == seq) {
        r->count++;
        return 0;
    }
    if (end_run(s, thread) < 0)
        return -1;
    *r = (struct conv_run){.seq = seq, .count = 1, .site = site};
    return 0;
}

/* The maps text (when the file exists and there are stacks). */
static int put_maps(struct conv_sites *s, const char *maps)
{
    int fd = open(maps, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* no mappings (a killed program): the frames stay addresses */
    size_t cap = SITE_CHUNK - HBT_SITE_RECORD_MAX, len = 0;
    char *text = malloc(cap);
    ssize_t got = 0;
    while (text && len < cap && (got = read(fd, text + len, cap - len)) > 0)
        len += (size_t)got;
    close(fd);
    if (!text)
        return -1;
    struct hbt_site rec = {.type = HBT_SITE_MAPS, .text = text, .len = len};
    int rc = len ? put(s, &rec) : 0;
    free(text);
    return rc;
}

int conv_sites_finish(struct conv_sites *s, const char *maps)
{
    for (uint32_t t = 0; t <= s->nthreads; t++)
        if (end_run(s, (uint16_t)t) < 0)
            return -1;
    for (uint32_t i = 0; i < s->nstacks; i++) {
        uint64_t whole;
        if (s->stacks[i].n == 1 && addr_table_find(&s->by_pc, s->stacks[i].f[0], &whole)) /* a lone frame seen before its */
            s->stacks[i] = s->stacks[whole - 1];                                                 /* first whole stack */
        struct hbt_site rec = {.type = HBT_SITE_DEF, .id = i + 1, .nframes = s->stacks[i].n};
        memcpy(rec.frames, s->stacks[i].f, s->stacks[i].n * sizeof rec.frames[0]);
        if (put(s, &rec) < 0)
            return -1;
    }
    if (s->nstacks && put_maps(s, maps) < 0)
        return -1;
    return flush(s);
}
