/* check_cache.c - a trace's check cached beside it, keyed by SHA-256 (see check_cache.h).
 * Always holds: the key is the SHA-256 of the trace's size, its header and every chunk's header (each
 * holding its payload's CRC-32, which hbt_open checked against the payload), then of this executable;
 * the cache file is one header line "heapbench-check2 KEY SIZE THREADS\n" (KEY: 64 hex
 * digits, SIZE: sizeof(struct hbt_stats), THREADS: the trace's threads) followed by the struct's
 * bytes, then per thread its first order, last order and exit (3 x 8 bytes), exactly; anything else
 * is not a cache and is walked over (and replaced). */
#include "check_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HASH_BUF (1u << 20)
#define MAGIC "heapbench-check2"

/* Feeds the whole file at path into ctx. 0, or -1 with errno set. */
static int hash_file(struct sha256_ctx *ctx, const char *path, uint8_t *buf)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n;
    while ((n = read(fd, buf, HASH_BUF)) > 0)
        sha256_update(ctx, (size_t)n, buf);
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

/* Feeds the chunk headers at the n offsets off of the opened trace t into ctx. 0, or -1 (errno). */
static int hash_chunks(struct sha256_ctx *ctx, const struct hbt_trace *t, const uint64_t *off, uint64_t n)
{
    uint8_t h[HBT_CHUNK_HEADER];
    for (uint64_t i = 0; i < n; i++) {
        if (hbt_pread_all(t->fd, h, sizeof h, off[i]) < 0)
            return -1;
        sha256_update(ctx, sizeof h, h);
    }
    return 0;
}

/* Feeds the opened trace t into ctx: its size, its header and every chunk's header, each of which
 * holds its payload's CRC-32 (checked against the payload when t was opened), so that the bytes
 * hashed stand for the whole file without reading it again. 0, or -1 (errno). */
static int hash_trace(struct sha256_ctx *ctx, const struct hbt_trace *t)
{
    uint64_t size = t->size;
    sha256_update(ctx, sizeof size, (const uint8_t *)&size);
    sha256_update(ctx, HBT_HEADER_SIZE, t->head);
    for (uint32_t i = 0; i < t->nthreads; i++)
        if (hash_chunks(ctx, t, t->threads[i].chunk_off, t->threads[i].nchunks) < 0)
            return -1;
    return hash_chunks(ctx, t, t->touch_off, t->ntouch_chunks) < 0 ? -1 : hash_chunks(ctx, t, t->site_off, t->nsite_chunks);
}

/* The key of the opened trace t for this executable: 64 hex digits into hex. 0, or -1 (errno). */
static int cache_key(const struct hbt_trace *t, char hex[65])
{
    uint8_t *buf = hbt_pages(HASH_BUF);
    if (!buf)
        return -1;
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    int rc = hash_trace(&ctx, t) < 0 || hash_file(&ctx, "/proc/self/exe", buf) < 0 ? -1 : 0;
    int e = errno;
    hbt_unpages(buf, HASH_BUF);
    errno = e;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof d, d);
    for (unsigned i = 0; i < sizeof d; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return rc;
}

/* The header line of a cache file for key and a trace of nthreads threads. */
static int header(char *out, size_t cap, const char *key, uint32_t nthreads)
{
    return snprintf(out, cap, MAGIC " %s %zu %u\n", key, sizeof(struct hbt_stats), nthreads);
}

/* A thread's orders as cached: first, last, exits. */
#define THREAD_WORDS 3

/* The threads' orders, to or from words (THREAD_WORDS per thread). */
static void orders_out(const struct hbt_trace *t, uint64_t *w)
{
    for (uint32_t i = 0; i < t->nthreads; i++)
        w[THREAD_WORDS * i] = t->threads[i].first_order, w[THREAD_WORDS * i + 1] = t->threads[i].last_order,
        w[THREAD_WORDS * i + 2] = (uint64_t)t->threads[i].exits;
}
static void orders_in(struct hbt_trace *t, const uint64_t *w)
{
    for (uint32_t i = 0; i < t->nthreads; i++)
        t->threads[i].first_order = w[THREAD_WORDS * i], t->threads[i].last_order = w[THREAD_WORDS * i + 1],
        t->threads[i].exits = (int)w[THREAD_WORDS * i + 2];
}

/* s and t's threads' orders from the cache file cpath when it holds key: 1, else 0. */
static int cache_read(const char *cpath, const char *key, struct hbt_trace *t, struct hbt_stats *s)
{
    char want[160], got[160];
    int hl = header(want, sizeof want, key, t->nthreads);
    size_t wbytes = (size_t)t->nthreads * THREAD_WORDS * sizeof(uint64_t);
    uint64_t *w = hbt_pages(wbytes ? wbytes : 1);
    int fd = w ? open(cpath, O_RDONLY | O_CLOEXEC) : -1;
    int ok = fd >= 0 && hbt_pread_all(fd, got, (size_t)hl, 0) == 0 && memcmp(got, want, (size_t)hl) == 0 &&
             hbt_pread_all(fd, s, sizeof *s, (uint64_t)hl) == 0 && hbt_pread_all(fd, w, wbytes, (uint64_t)hl + sizeof *s) == 0 &&
             pread(fd, got, 1, (off_t)hl + (off_t)sizeof *s + (off_t)wbytes) == 0;
    if (fd >= 0)
        close(fd);
    if (ok)
        orders_in(t, w);
    hbt_unpages(w, wbytes ? wbytes : 1);
    return ok;
}

/* Writes s and t's threads' orders under key to cpath through a temporary file renamed over it; any
 * failure leaves no file. */
static void cache_write(const char *cpath, const char *key, const struct hbt_trace *t, const struct hbt_stats *s)
{
    char tmp[4200], head[160];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", cpath, (long)getpid()) >= (int)sizeof tmp)
        return;
    size_t wbytes = (size_t)t->nthreads * THREAD_WORDS * sizeof(uint64_t);
    uint64_t *w = hbt_pages(wbytes ? wbytes : 1);
    int fd = w ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (fd < 0) {
        hbt_unpages(w, w ? (wbytes ? wbytes : 1) : 0);
        return;
    }
    orders_out(t, w);
    int hl = header(head, sizeof head, key, t->nthreads);
    int ok = hbt_write_all(fd, (const uint8_t *)head, (size_t)hl) == 0 && hbt_write_all(fd, (const uint8_t *)s, sizeof *s) == 0 &&
             hbt_write_all(fd, (const uint8_t *)w, wbytes) == 0;
    ok = close(fd) == 0 && ok;
    hbt_unpages(w, wbytes ? wbytes : 1);
    if (!ok || rename(tmp, cpath) != 0)
        unlink(tmp);
}

int check_trace(const char *path, struct hbt_trace *t, enum check_how how, struct hbt_stats *s, char *err, size_t errlen)
{
    char key[65], cpath[4096];
    int keyed = snprintf(cpath, sizeof cpath, "%s.check", path) < (int)sizeof cpath && cache_key(t, key) == 0;
    if (keyed && how == CHECK_CACHED && cache_read(cpath, key, t, s)) {
        return 0;
    }
    if (hbt_stats_check(t, s, err, errlen) < 0)
        return -1;
    if (keyed)
        cache_write(cpath, key, t, s);
    return 0;
}
