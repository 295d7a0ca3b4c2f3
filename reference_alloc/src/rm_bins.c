/* rm_bins.c - the bins of one arena: the unsorted bin, small bins of exact sizes, large bins
 * sorted for best fit, and the binmap that lets a search skip empty bins.
 *
 * Always true (the caller holds the arena lock):
 *   - a bin is a circular doubly-linked list through its sentinel a->bins[i];
 *   - small bin i holds only chunks of size 16 i; large bin i only sizes with rm_bin_index == i,
 *     ordered largest first; within a large bin the first chunk of each distinct size is on
 *     the fd_nextsize ring, every other chunk has fd_nextsize == NULL;
 *   - large chunks in the unsorted bin have fd_nextsize == NULL (small chunks have no such field);
 *   - a non-empty bin has its binmap bit set (a set bit may be stale: cleared on search).
 * Taking a chunk out of a bin leaves its in-use bit alone: the caller marks it.
 */
#include "rm_types.h"

/* Sets the binmap bit of bin i. */
static void rm_bin_mark(rm_arena *a, unsigned i) { a->binmap[i >> 6] |= (uint64_t)1 << (i & 63); }

/* Makes every bin of a empty. The sentinels' fd_nextsize is non-NULL so that a chunk whose fd
 * is a sentinel is never mistaken for a same-size follower (see rm_bin_unlink). */
void rm_bins_init(rm_arena *a)
{
    for (unsigned i = 0; i < RM_NBINS; i++) {
        rm_chunk *b = &a->bins[i];
        b->fd = b->bk = b;
        b->fd_nextsize = b->bk_nextsize = b;
    }
    a->binmap[0] = a->binmap[1] = 0;
}

/* Removes free chunk c from whatever bin holds it, keeping the nextsize ring intact. */
void rm_bin_unlink(rm_arena *a, rm_chunk *c)
{
    (void)a;
    rm_check_unlink(c);
    rm_chunk *fd = c->fd, *bk = c->bk;
    fd->bk = bk;
    bk->fd = fd;
    if (rm_in_smallbin(rm_csize(c)) || c->fd_nextsize == NULL)
        return;
    if (c->fd_nextsize->bk_nextsize != c || c->bk_nextsize->fd_nextsize != c)
        rm_fatal("corrupted double-linked list (not small)");
    if (fd->fd_nextsize == NULL) {
        /* fd has the same size: it takes c's place on the ring */
        if (c->fd_nextsize == c) {
            fd->fd_nextsize = fd->bk_nextsize = fd;
        } else {
            fd->fd_nextsize = c->fd_nextsize;
            fd->bk_nextsize = c->bk_nextsize;
            c->fd_nextsize->bk_nextsize = fd;
            c->bk_nextsize->fd_nextsize = fd;
        }
    } else {
        c->fd_nextsize->bk_nextsize = c->bk_nextsize;
        c->bk_nextsize->fd_nextsize = c->fd_nextsize;
    }
}

/* Puts free chunk c at the head of the unsorted bin (its one chance before being binned). */
void rm_bin_put_unsorted(rm_arena *a, rm_chunk *c)
{
    rm_chunk *b = &a->bins[RM_UNSORTED];
    rm_chunk *first = b->fd;
    if (first->bk != b)
        rm_fatal("free(): corrupted unsorted chunks");
    c->fd = first;
    c->bk = b;
    if (!rm_in_smallbin(rm_csize(c))) /* a 32-byte chunk has no room for these */
        c->fd_nextsize = c->bk_nextsize = NULL;
    first->bk = c;
    b->fd = c;
}

/* Links c between bk and fd. */
static void rm_bin_link(rm_chunk *c, rm_chunk *bk, rm_chunk *fd)
{
    c->bk = bk;
    c->fd = fd;
    fd->bk = c;
    bk->fd = c;
}

/* Inserts free chunk c (taken off the unsorted bin) into the bin of its size. */
void rm_bin_place(rm_arena *a, rm_chunk *c)
{
    size_t size = rm_csize(c);
    unsigned i = rm_bin_index(size);
    rm_chunk *b = &a->bins[i];
    rm_bin_mark(a, i);
    if (rm_in_smallbin(size)) {
        rm_bin_link(c, b, b->fd);
        return;
    }
    if (b->fd == b) {
        c->fd_nextsize = c->bk_nextsize = c;
        rm_bin_link(c, b, b);
        return;
    }
    rm_chunk *largest = b->fd;
    if (size < rm_csize(b->bk)) {
        /* smallest of the bin: goes last, and onto the ring before the largest */
        c->fd_nextsize = largest;
        c->bk_nextsize = largest->bk_nextsize;
        largest->bk_nextsize = c;
        c->bk_nextsize->fd_nextsize = c;
        rm_bin_link(c, b->bk, b);
        return;
    }
    rm_chunk *fwd = largest;
    while (size < rm_csize(fwd))
        fwd = fwd->fd_nextsize;
    if (size == rm_csize(fwd)) {
        /* same size exists: go right after its first chunk, off the ring */
        c->fd_nextsize = c->bk_nextsize = NULL;
        rm_bin_link(c, fwd, fwd->fd);
        return;
    }
    c->fd_nextsize = fwd;
    c->bk_nextsize = fwd->bk_nextsize;
    fwd->bk_nextsize = c;
    c->bk_nextsize->fd_nextsize = c;
    rm_bin_link(c, fwd->bk, fwd);
}

/* Takes a chunk of exactly nb bytes (nb < RM_MIN_LARGE) from its small bin, or NULL. */
rm_chunk *rm_bin_take_small(rm_arena *a, size_t nb)
{
    rm_chunk *b = &a->bins[rm_bin_index(nb)];
    rm_chunk *c = b->bk;
    if (c == b)
        return NULL;
    rm_bin_unlink(a, c);
    return c;
}

/* Takes the smallest chunk >= nb from nb's own large bin (best fit), or NULL. */
rm_chunk *rm_bin_take_best_large(rm_arena *a, size_t nb)
{
    rm_chunk *b = &a->bins[rm_bin_index(nb)];
    rm_chunk *c = b->fd;
    if (c == b || rm_csize(c) < nb)
        return NULL;
    c = c->bk_nextsize; /* the smallest size */
    while (rm_csize(c) < nb)
        c = c->fd_nextsize;
    /* prefer a same-size follower: no ring update needed */
    if (c != b->bk && rm_csize(c->fd) == rm_csize(c))
        c = c->fd;
    rm_bin_unlink(a, c);
    return c;
}

/* Takes the smallest chunk of the first non-empty bin above idx (any of them is big enough for
 * a request whose bin is idx), or NULL. Clears stale binmap bits on the way. */
rm_chunk *rm_bin_take_above(rm_arena *a, unsigned idx)
{
    for (unsigned i = idx + 1; i < RM_NBINS;) {
        uint64_t word = a->binmap[i >> 6] >> (i & 63);
        if (word == 0) {
            i = (i | 63) + 1;
            continue;
        }
        i += (unsigned)__builtin_ctzll(word);
        rm_chunk *b = &a->bins[i];
        rm_chunk *c = b->bk;
        if (c == b) {
            a->binmap[i >> 6] &= ~((uint64_t)1 << (i & 63));
            i++;
            continue;
        }
        rm_bin_unlink(a, c);
        return c;
    }
    return NULL;
}
