/* util.h - the runner's shared helpers: allocation that cannot fail, usage errors, string vectors.
 *
 * Always holds: hb_x* functions never return NULL (they abort the runner on exhaustion);
 * an hb_strv is always NULL-terminated (v[n] == NULL), so it can be passed as argv/envp;
 * hb_usage() prints exactly one line to stderr and exits 2.
 */
#ifndef HEAPBENCH_UTIL_H
#define HEAPBENCH_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* A growable NULL-terminated vector of owned strings. Zero-initialised = empty. */
struct hb_strv {
    char **v;   /* v[0..n-1] owned strings, v[n] == NULL (v itself NULL while empty) */
    size_t n;
    size_t cap;
};

/* 1 for a control character (C0 or DEL), which a name, a table field or a one-line message must not
 * hold: the one test of the runner's refusals and of its '?' replacements. */
static inline int hb_is_ctrl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* malloc/realloc/strdup/asprintf that abort with a message instead of returning NULL. */
void *hb_xmalloc(size_t n);
void *hb_xcalloc(size_t n, size_t size);
void *hb_xrealloc(void *p, size_t n);
char *hb_xstrdup(const char *s);
char *hb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The array p of n elements of elem bytes, with room for element n: its capacity doubles each time
 * n reaches a power of two, so n appends cost O(n) copying. Every append to such an array must go
 * through this (its capacity is known only from n). */
void *hb_xappend(void *p, size_t n, size_t elem);

/* Prints "heapbench: <message>" as one line on stderr and exits 2 (a usage error). */
void hb_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Prints "heapbench: <message>" on stderr and exits 1 (a failure that is not the user's input). */
void hb_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Appends a copy of s; returns the stored copy. */
char *hb_strv_push(struct hb_strv *sv, const char *s);
/* Appends a formatted string. */
char *hb_strv_pushf(struct hb_strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends every string of src (copies). */
void hb_strv_extend(struct hb_strv *sv, const struct hb_strv *src);
/* Splits s on any char of seps, trimming blanks around each piece; empty pieces are kept
 * only when keep_empty. Appends the pieces to sv. */
void hb_strv_split(struct hb_strv *sv, const char *s, const char *seps, int keep_empty);
/* Index of s in sv, or -1. */
int hb_strv_find(const struct hb_strv *sv, const char *s);
/* Joins the strings with sep into a new string. */
char *hb_strv_join(const struct hb_strv *sv, const char *sep);
/* Frees every string and the vector; leaves sv empty. */
void hb_strv_free(struct hb_strv *sv);

/* Reads the next line of a '|'-separated table (registry.txt, LIST) from text at *pos,
 * skipping blank lines and '#' comments: its trimmed fields replace *fields, *line is its
 * 1-based number. Returns 0, or -1 at the end of text. */
int hb_table_next(const char *text, size_t *pos, size_t *line, struct hb_strv *fields);

/* Copy of s without leading/trailing blanks (space, tab, CR, LF). */
char *hb_trim_dup(const char *s);

/* Parses a whole string as a non-negative int / double; 0 on success, -1 when malformed. */
int hb_parse_int(const char *s, int *out);
int hb_parse_double(const char *s, double *out);

/* Reads at most len - 1 bytes of a small file (/proc, /sys, cgroup files) into buf, NUL-terminated,
 * without allocating: the byte count, or -1 (buf "") when it cannot be opened or read or is empty. */
ssize_t hb_read_small(const char *path, char *buf, size_t len);

/* Reads a whole file into a new NUL-terminated string (NULL on error; len may be NULL). */
char *hb_read_file(const char *path, size_t *len);

/* 1 when the len bytes at s are UTF-8 text (no overlong form, no surrogate, nothing above
 * U+10FFFF) without a NUL byte, else 0 with *bad (when not NULL) the offset of the first bad byte. */
int hb_utf8_valid(const char *s, size_t len, size_t *bad);

/* Writes data to path through path.tmp + rename (the file appears complete). 0 or -1. */
int hb_write_file_atomic(const char *path, const char *data, size_t len);

/* mkdir -p: creates path and every missing parent (mode 0755). 0, or -1 with errno. */
int hb_mkdir_p(const char *path);

#endif
