/* check_cache.c - a trace's check cached beside it, keyed by SHA-256 (see check_cache.h).
 * Always holds: the cache file is one header line "heapbench-check KEY SIZE\n" (KEY: 64 hex
 * digits, SIZE: sizeof(struct hbt_stats)) followed by the struct's bytes exactly; anything else
 * is not a cache and is walked over (and replaced). */
#include "check_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HASH_BUF (1u << 20)
#define MAGIC "heapbench-check"

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

/* The key of the trace at path for this executable: 64 hex digits into hex. 0, or -1 (errno). */
static int cache_key(const char *path, char hex[65])
{
    uint8_t *buf = hbt_pages(HASH_BUF);
    if (!buf)
        return -1;
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    int rc = hash_file(&ctx, path, buf) < 0 || hash_file(&ctx, "/proc/self/exe", buf) < 0 ? -1 : 0;
    int e = errno;
    hbt_unpages(buf, HASH_BUF);
    errno = e;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof d, d);
    for (unsigned i = 0; i < sizeof d; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return rc;
}

/* The header line of a cache file for key. */
static int header(char *out, size_t cap, const char *key)
{
    return snprintf(out, cap, MAGIC " %s %zu\n", key, sizeof(struct hbt_stats));
}

/* s from the cache file cpath when it holds key: 1, else 0. */
static int cache_read(const char *cpath, const char *key, struct hbt_stats *s)
{
    char want[128], got[128];
    int hl = header(want, sizeof want, key);
    int fd = open(cpath, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int ok = hbt_pread_all(fd, got, (size_t)hl, 0) == 0 && memcmp(got, want, (size_t)hl) == 0 &&
             hbt_pread_all(fd, s, sizeof *s, (uint64_t)hl) == 0 && pread(fd, got, 1, (off_t)hl + (off_t)sizeof *s) == 0;
    close(fd);
    return ok;
}

/* Writes s under key to cpath through a temporary file renamed over it; any failure leaves no file. */
static void cache_write(const char *cpath, const char *key, const struct hbt_stats *s)
{
    char tmp[4200], head[128];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", cpath, (long)getpid()) >= (int)sizeof tmp)
        return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    int hl = header(head, sizeof head, key);
    int ok = hbt_write_all(fd, (const uint8_t *)head, (size_t)hl) == 0 && hbt_write_all(fd, (const uint8_t *)s, sizeof *s) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, cpath) != 0)
        unlink(tmp);
}

int check_trace(const char *path, const struct hbt_trace *t, enum check_how how, struct hbt_stats *s, char *err, size_t errlen)
{
    char key[65], cpath[4096];
    int keyed = snprintf(cpath, sizeof cpath, "%s.check", path) < (int)sizeof cpath && cache_key(path, key) == 0;
    if (keyed && how == CHECK_CACHED && cache_read(cpath, key, s)) {
        return 0;
    }
    if (hbt_stats(t, s, err, errlen) < 0)
        return -1;
    if (keyed)
        cache_write(cpath, key, s);
    return 0;
}
