/* util.c - the runner's shared helpers (see util.h): checked allocation, usage errors, string vectors.
 *
 * Always holds: every hb_strv stays NULL-terminated after each operation.
 */
#include "base/util.h"

#include "wl_readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Aborts the runner: memory is exhausted, nothing sensible can follow. */
static void hb_oom(void)
{
    static const char msg[] = "heapbench: out of memory\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    abort();
}

/* malloc that never returns NULL. */
void *hb_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        hb_oom();
    return p;
}

/* calloc that never returns NULL. */
void *hb_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        hb_oom();
    return p;
}

/* realloc that never returns NULL. */
void *hb_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        hb_oom();
    return p;
}

/* Room for element n of an array grown one element at a time (util.h). */
void *hb_xappend(void *p, size_t n, size_t elem)
{
    if (n & (n - 1)) /* n is not 0 or a power of two: the last doubling left room */
        return p;
    return hb_xrealloc(p, (n ? 2 * n : 1) * elem);
}

/* strdup that never returns NULL (NULL in gives an empty string). */
char *hb_xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        hb_oom();
    return d;
}

/* vasprintf that never fails. */
static char *hb_vxasprintf(const char *fmt, va_list ap)
{
    char *s;
    if (vasprintf(&s, fmt, ap) < 0)
        hb_oom();
    return s;
}

/* asprintf that never fails. */
char *hb_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = hb_vxasprintf(fmt, ap);
    va_end(ap);
    return s;
}

/* Prints one "heapbench: ..." line to stderr from a va_list: a control character that a user's
 * string brought in (a program name holding a newline) is shown as '?', so the message stays one line. */
static void hb_vmessage(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    for (char *c = line; *c; c++)
        if (hb_is_ctrl((unsigned char)*c))
            *c = '?';
    fprintf(stderr, "heapbench: %s\n", line);
}

/* One-line usage error, exit 2. */
void hb_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hb_vmessage(fmt, ap);
    va_end(ap);
    exit(2);
}

/* One-line failure, exit 1. */
void hb_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hb_vmessage(fmt, ap);
    va_end(ap);
    exit(1);
}

/* Appends an owned string, growing the vector and keeping the NULL terminator. */
static char *hb_strv_take(struct hb_strv *sv, char *s)
{
    if (sv->n + 2 > sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 8;
        sv->v = hb_xrealloc(sv->v, sv->cap * sizeof *sv->v);
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
    return s;
}

/* Appends a copy of s. */
char *hb_strv_push(struct hb_strv *sv, const char *s)
{
    return hb_strv_take(sv, hb_xstrdup(s));
}

/* Appends a formatted string. */
char *hb_strv_pushf(struct hb_strv *sv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = hb_vxasprintf(fmt, ap);
    va_end(ap);
    return hb_strv_take(sv, s);
}

/* Appends copies of every string of src. */
void hb_strv_extend(struct hb_strv *sv, const struct hb_strv *src)
{
    for (size_t i = 0; i < src->n; i++)
        hb_strv_push(sv, src->v[i]);
}

/* Copy of s[0..len) without surrounding blanks. */
static char *hb_trim_ndup(const char *s, size_t len)
{
    while (len && strchr(" \t\r\n", *s)) {
        s++;
        len--;
    }
    while (len && strchr(" \t\r\n", s[len - 1]))
        len--;
    char *d = hb_xmalloc(len + 1);
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

/* Copy of s without surrounding blanks. */
char *hb_trim_dup(const char *s)
{
    return hb_trim_ndup(s, strlen(s));
}

/* Splits s on any of seps, trimming each piece. */
void hb_strv_split(struct hb_strv *sv, const char *s, const char *seps, int keep_empty)
{
    for (;;) {
        size_t len = strcspn(s, seps);
        char *piece = hb_trim_ndup(s, len);
        if (*piece || keep_empty)
            hb_strv_take(sv, piece);
        else
            free(piece);
        if (!s[len])
            break;
        s += len + 1;
    }
}

/* Next table line's fields. */
int hb_table_next(const char *text, size_t *pos, size_t *line, struct hb_strv *fields)
{
    while (text[*pos]) {
        const char *start = text + *pos;
        size_t len = strcspn(start, "\n");
        *pos += len + (start[len] == '\n');
        (*line)++;
        const char *hash = memchr(start, '#', len); /* within the line: a scan to the text's end made it quadratic */
        char *row = hb_trim_ndup(start, hash ? (size_t)(hash - start) : len);
        if (*row) {
            hb_strv_free(fields);
            hb_strv_split(fields, row, "|", 1);
            free(row);
            return 0;
        }
        free(row);
    }
    return -1;
}

/* Position of s in sv, -1 when absent. */
int hb_strv_find(const struct hb_strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return (int)i;
    return -1;
}

/* The strings joined with sep, as a new string. */
char *hb_strv_join(const struct hb_strv *sv, const char *sep)
{
    size_t len = 1;
    for (size_t i = 0; i < sv->n; i++)
        len += strlen(sv->v[i]) + strlen(sep);
    char *out = hb_xmalloc(len), *end = out; /* stpcpy from the end: strcat rescanned the whole result each time */
    *end = '\0';
    for (size_t i = 0; i < sv->n; i++)
        end = stpcpy(i ? stpcpy(end, sep) : end, sv->v[i]);
    return out;
}

/* Frees the strings and the array. */
void hb_strv_free(struct hb_strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

/* Whole-string non-negative integer. */
int hb_parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* Whole-string non-negative finite double. */
int hb_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= 0) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

ssize_t hb_read_small(const char *path, char *buf, size_t len)
{
    return wl_read_small(path, buf, len); /* the one small-file reader of the workloads' floor */
}

/* Whole file as a NUL-terminated string. */
char *hb_read_file(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = hb_xmalloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            cap *= 2;
            buf = hb_xrealloc(buf, cap);
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (lenp)
        *lenp = len;
    return buf;
}

/* Writes path.tmp completely, then renames it over path. */
int hb_write_file_atomic(const char *path, const char *data, size_t len)
{
    char *tmp = hb_xasprintf("%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = -1;
    if (fd >= 0) {
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd, data + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        if (close(fd) == 0 && off == len && rename(tmp, path) == 0)
            rc = 0;
    }
    int err = errno; /* the write's reason, for the caller's message */
    if (rc)
        unlink(tmp);
    free(tmp);
    errno = err;
    return rc;
}

/* The length of the UTF-8 sequence at s (at most n bytes), or 0 when it is not one (util.h's
 * rules: Python's bytes.decode("utf-8") accepts exactly these). */
static size_t hb_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!len || len > n || c == 0 || c == 0xc0 || c == 0xc1 || c > 0xf4)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] > 0x8f))
        return 0; /* overlong, a surrogate, or above U+10FFFF */
    return len;
}

/* Is it UTF-8 text (util.h)? */
int hb_utf8_valid(const char *s, size_t len, size_t *bad)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = hb_utf8_seq(u + i, len - i);
        if (!n) {
            if (bad)
                *bad = i;
            return 0;
        }
        i += n;
    }
    return 1;
}

/* mkdir -p of path ("" is the root: nothing to make). */
int hb_mkdir_p(const char *path)
{
    if (!*path)
        return 0;
    char *copy = hb_xstrdup(path);
    for (char *s = copy + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(copy, 0755);
            *s = '/';
        }
    int rc = mkdir(copy, 0755) == 0 || errno == EEXIST ? 0 : -1;
    free(copy);
    return rc;
}
