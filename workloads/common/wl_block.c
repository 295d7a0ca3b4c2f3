/* wl_block.c - pattern fill and check of allocated blocks (see wl_block.h).
 * Always holds: wl_check(p, n, t) == 1 right after wl_fill(p, n, t) if nothing else wrote there.
 * Every byte's pattern value depends only on (tag, its offset), so the words written may overlap
 * (the last word overlaps the previous one) and still agree; words sit at multiples of 8. */
#include "wl_block.h"

#include <string.h>

#define WL_STRIDE 64  /* one word per cache line ... */
#define WL_DENSE 4096 /* ... over the first 4 KiB, */
#define WL_PAGE 4096  /* then one word per page */

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "wl_word_at assumes little-endian words");

/* The pattern byte at offset i of a block whose tag mixes to tk. */
static inline unsigned char wl_byte_at(uint64_t tk, size_t i)
{
    return (unsigned char)((tk >> ((i & 7) * 8)) ^ (i >> 3));
}

/* The 8 pattern bytes at offset off (a multiple of 8) as one little-endian word. */
static inline uint64_t wl_word_at(uint64_t tk, size_t off)
{
    return tk ^ (0x0101010101010101ULL * (unsigned char)(off >> 3));
}

/* The offset after off in the walk: every line in the first 4 KiB, then every page. */
static inline size_t wl_next_off(size_t off)
{
    return off + (off < WL_DENSE ? WL_STRIDE : WL_PAGE);
}

/* The tag mixed so that neighbouring tags give unrelated patterns. */
static inline uint64_t wl_mix(uint64_t tag)
{
    return (tag + 1) * 0x9e3779b97f4a7c15ULL;
}

/* Words at the walk's offsets, then the last 8 bytes one by one (all bytes of a block under 8). */
void wl_fill(void *p, size_t n, uint64_t tag)
{
    unsigned char *b = p;
    uint64_t tk = wl_mix(tag);
    for (size_t off = 0; off + 8 <= n; off = wl_next_off(off)) {
        uint64_t w = wl_word_at(tk, off);
        memcpy(b + off, &w, 8);
    }
    for (size_t i = n > 8 ? n - 8 : 0; i < n; i++)
        b[i] = wl_byte_at(tk, i);
}

/* Reads back exactly what wl_fill wrote. */
int wl_check(const void *p, size_t n, uint64_t tag)
{
    const unsigned char *b = p;
    uint64_t tk = wl_mix(tag);
    for (size_t off = 0; off + 8 <= n; off = wl_next_off(off)) {
        uint64_t w;
        memcpy(&w, b + off, 8);
        if (w != wl_word_at(tk, off))
            return 0;
    }
    for (size_t i = n > 8 ? n - 8 : 0; i < n; i++)
        if (b[i] != wl_byte_at(tk, i))
            return 0;
    return 1;
}
