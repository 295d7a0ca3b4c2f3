/* rm_errors.c - refmalloc's messages and fatal errors: tiny formatters (no stdio) and the cheap
 * corruption checks glibc makes, each aborting with "refmalloc: <what glibc would say>".
 *
 * Always true: nothing here allocates; a detected corruption never returns.
 */
#include "rm_types.h"

#include <stdlib.h>

/* Writes "refmalloc: what" to stderr with write(2) and aborts. */
void rm_fatal(const char *what)
{
    char buf[256];
    char *end = buf + sizeof buf - 2;
    char *p = rm_fmt_str(buf, end, "refmalloc: ");
    p = rm_fmt_str(p, end, what);
    *p++ = '\n';
    *p = '\0';
    rm_os_write(buf);
    abort();
}

/* Appends s at out (never past end, which stays writable for a NUL); returns the new end. */
char *rm_fmt_str(char *out, char *end, const char *s)
{
    while (*s && out < end)
        *out++ = *s++;
    *out = '\0';
    return out;
}

/* Appends v in decimal at out (bounded by end); returns the new end. */
char *rm_fmt_u(char *out, char *end, size_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n > 0 && out < end)
        *out++ = digits[--n];
    *out = '\0';
    return out;
}

/* Checks that the neighbours of free chunk c in its bin list point back at it. */
void rm_check_unlink(const rm_chunk *c)
{
    if (c->fd->bk != c || c->bk->fd != c)
        rm_fatal("corrupted double-linked list");
}

/* Checks a pointer handed to free (in_realloc 0) or realloc (1): chunk alignment, size sanity,
 * no wrap-around; the messages name the function as glibc's free and realloc do. */
void rm_check_free_ptr(const rm_chunk *c, int in_realloc)
{
    size_t size = rm_csize(c);
    if (((uintptr_t)c & (RM_ALIGN - 1)) != 0 || (uintptr_t)c > (uintptr_t)0 - size)
        rm_fatal(in_realloc ? "realloc(): invalid pointer" : "free(): invalid pointer");
    if (size < RM_MIN_CHUNK || (size & (RM_ALIGN - 1)) != 0)
        rm_fatal(in_realloc ? "realloc(): invalid old size" : "free(): invalid size");
}
