/* wl_block.c - pattern fill and check of allocated blocks (see wl_block.h).
 * Always holds: wl_check(p, n, t) == 1 right after wl_fill(p, n, t) if nothing else wrote there. */
#include "wl_block.h"

#include <string.h>

#define WL_STRIDE 64     /* one word per cache line ... */
#define WL_DENSE 4096    /* ... over the first 4 KiB, */
#define WL_PAGE 4096     /* then one word per page */

/* The offset after off in the walk: every line in the first 4 KiB, then every page. */
static inline size_t wl_next_off(size_t off)
{
    return off + (off < WL_DENSE ? WL_STRIDE : WL_PAGE);
}

/* The word stored at offset off of a block tagged tag. */
static inline uint64_t wl_word_at(uint64_t tag, size_t off)
{
    return (tag * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)off;
}

/* Walks the same offsets wl_check reads (wl_next_off), then the last word. */
void wl_fill(void *p, size_t n, uint64_t tag)
{
    unsigned char *b = p;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            b[i] = (unsigned char)wl_word_at(tag, i);
        return;
    }
    for (size_t off = 0; off + 8 <= n; off = wl_next_off(off)) {
        uint64_t w = wl_word_at(tag, off);
        memcpy(b + off, &w, 8);
    }
    uint64_t last = wl_word_at(tag, n - 8);
    memcpy(b + n - 8, &last, 8);
}

/* Reads back every word wl_fill wrote; the last word is checked after the lines (it may overlap one). */
int wl_check(const void *p, size_t n, uint64_t tag)
{
    const unsigned char *b = p;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (b[i] != (unsigned char)wl_word_at(tag, i))
                return 0;
        return 1;
    }
    for (size_t off = 0; off + 8 <= n - 8; off = wl_next_off(off)) {
        uint64_t w;
        memcpy(&w, b + off, 8);
        if (w != wl_word_at(tag, off))
            return 0;
    }
    uint64_t last;
    memcpy(&last, b + n - 8, 8);
    return last == wl_word_at(tag, n - 8);
}
