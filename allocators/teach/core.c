/* core.c - the freelist family of teaching allocators (freelist, trim, mmap): one
 * implementation, told apart by the teach_policy each of freelist.c, trim.c, mmap.c defines.
 *
 * The design, in the order a reader meets it:
 *   - every block has a 16-byte header (struct teach_chunk) holding its size;
 *   - free chunks form ONE singly linked list sorted by address; malloc takes the first
 *     chunk that is big enough (first fit) and splits off what it does not need;
 *   - free() inserts the chunk at its place by address and merges it with the free chunk
 *     just before and just after it when they touch (coalescing), so free memory never
 *     stays cut into pieces that are next to each other;
 *   - when nothing fits, the heap grows by moving the program break (sbrk);
 *   - policy trim: when free() leaves a free chunk of trim_at bytes or more at the very
 *     top of the heap, the break is lowered so that only trim_keep bytes of it remain;
 *   - policy mmap: requests of mmap_at bytes and up get an anonymous mapping of their own,
 *     given back to the kernel by munmap() in free().
 * Invariants (with teach_lock held, which every function here except the mapping ones requires):
 *   - core_list is sorted by address and no two chunks on it touch;
 *   - every chunk on it, and every in-use heap chunk, is at least CORE_MIN bytes, a multiple
 *     of 16, and lies inside memory this allocator got from the break.
 * Lesson: all of it is a walk along one list, so malloc and free cost O(free chunks).
 */
#include "interpose.h"
#include "teach.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A free chunk: its header, then the link to the next free chunk by address. */
struct core_free {
    struct teach_chunk hdr;
    struct core_free *next;
};

#define CORE_MIN ((size_t)32)         /* header + next link, rounded up to 16 */
#define CORE_GROW (64 * TEACH_KIB) /* the least the break grows by at once */

static struct core_free *core_list; /* all free heap chunks, sorted by address */

/* The chunk size that holds n user bytes. */
static size_t core_need(size_t n)
{
    size_t need = teach_round_up(n, TEACH_ALIGN) + sizeof(struct teach_chunk);
    return need < CORE_MIN ? CORE_MIN : need;
}

/* Puts chunk c (its size set) on the list at its place by address and merges it with the
 * free neighbours it touches; returns the free chunk that now contains it. */
static struct core_free *core_insert(struct teach_chunk *c)
{
    struct core_free *f = (struct core_free *)c, *prev = NULL, *next = core_list;
    while (next && next < f) {
        prev = next;
        next = next->next;
    }
    f->hdr.map_off = 0;
    f->next = next;
    if (prev)
        prev->next = f;
    else
        core_list = f;
    if (next && (char *)f + f->hdr.size == (char *)next) { /* merge with the chunk after */
        f->hdr.size += next->hdr.size;
        f->next = next->next;
    }
    if (prev && (char *)prev + prev->hdr.size == (char *)f) { /* merge into the chunk before */
        prev->hdr.size += f->hdr.size;
        prev->next = f->next;
        f = prev;
    }
    return f;
}

/* Shortens in-use chunk c to need bytes when the rest can form a chunk, freeing the rest. */
static void core_split_tail(struct teach_chunk *c, size_t need)
{
    if (c->size - need < CORE_MIN)
        return;
    struct teach_chunk *tail = (struct teach_chunk *)((char *)c + need);
    tail->size = c->size - need;
    c->size = need;
    core_insert(tail);
}

/* First fit: unlinks the first free chunk (by address) of at least need bytes and returns it
 * cut down to need bytes; NULL when no free chunk is big enough. */
static struct teach_chunk *core_first_fit(size_t need)
{
    for (struct core_free **link = &core_list; *link; link = &(*link)->next) {
        struct core_free *f = *link;
        if (f->hdr.size >= need) {
            *link = f->next;
            core_split_tail(&f->hdr, need);
            return &f->hdr;
        }
    }
    return NULL;
}

/* A heap chunk of need bytes: first fit, else grow the break (by CORE_GROW at least; the new
 * space merges with a free chunk at the old top) and fit again. NULL with ENOMEM on failure. */
static struct teach_chunk *core_heap_take(size_t need)
{
    struct teach_chunk *c = core_first_fit(need);
    if (c)
        return c;
    size_t grow = need > CORE_GROW ? need : CORE_GROW;
    struct teach_chunk *fresh = teach_sbrk(grow);
    if (!fresh)
        return NULL;
    fresh->size = grow;
    core_insert(fresh);
    return core_first_fit(need);
}

/* Lowers the break when free chunk f ends at it, leaving f with keep bytes (>= CORE_MIN).
 * Returns 1 if memory went back to the kernel. */
static int core_trim_top(struct core_free *f, size_t keep)
{
    if ((char *)f + f->hdr.size != (char *)sbrk(0) || f->hdr.size <= keep)
        return 0;
    size_t drop = f->hdr.size - keep;
    if (sbrk(-(intptr_t)drop) == (void *)-1)
        return 0;
    f->hdr.size = keep;
    return 1;
}

/* A block with a mapping of its own: n user bytes at a multiple of align (>= 16). Needs no lock. */
static void *core_map(size_t align, size_t n)
{
    size_t slack = align > TEACH_ALIGN ? align : 0;
    size_t len = teach_round_up(sizeof(struct teach_chunk) + slack + n, (size_t)getpagesize());
    char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    char *p = (char *)teach_round_up((uintptr_t)base + sizeof(struct teach_chunk), align);
    struct teach_chunk *c = teach_chunk_of(p);
    c->map_off = (size_t)((char *)c - base);
    c->size = (len - c->map_off) | TEACH_MAPPED;
    return p;
}

/* 1 when the policy gives a request of n bytes a mapping of its own. */
static int core_wants_map(size_t n) { return teach_policy.mmap_at && n >= teach_policy.mmap_at; }

/* Contract of ip_backend_malloc (interpose.h). */
void *ip_backend_malloc(size_t n)
{
    if (core_wants_map(n))
        return core_map(TEACH_ALIGN, n);
    pthread_mutex_lock(&teach_lock);
    struct teach_chunk *c = core_heap_take(core_need(n));
    pthread_mutex_unlock(&teach_lock);
    return c ? teach_user_of(c) : NULL;
}

/* Contract of ip_backend_memalign: takes align + CORE_MIN bytes extra, frees the part in
 * front of the aligned block (it is 0 or at least CORE_MIN long) and the unneeded tail. */
void *ip_backend_memalign(size_t align, size_t n)
{
    if (core_wants_map(n))
        return core_map(align, n);
    size_t need = core_need(n);
    pthread_mutex_lock(&teach_lock);
    struct teach_chunk *c = core_heap_take(need + align + CORE_MIN);
    if (c) {
        char *u = teach_user_of(c);
        char *p = (char *)teach_round_up((uintptr_t)u, align);
        if (p != u && (size_t)(p - u) < CORE_MIN)
            p += align;
        if (p != u) {
            struct teach_chunk *front = c;
            c = teach_chunk_of(p);
            c->size = front->size - (size_t)(p - u);
            c->map_off = 0;
            front->size = (size_t)(p - u);
            core_insert(front);
        }
        core_split_tail(c, need);
    }
    pthread_mutex_unlock(&teach_lock);
    return c ? teach_user_of(c) : NULL;
}

/* Contract of ip_backend_free: a mapped block is unmapped; a heap chunk goes back on the
 * list, and under the trim policy a big enough free top is given back to the kernel. */
void ip_backend_free(void *p)
{
    struct teach_chunk *c = teach_chunk_of(p);
    if (c->size & TEACH_MAPPED) {
        munmap((char *)c - c->map_off, teach_size(c) + c->map_off);
        return;
    }
    pthread_mutex_lock(&teach_lock);
    struct core_free *f = core_insert(c);
    if (teach_policy.trim_at && f->hdr.size >= teach_policy.trim_at)
        core_trim_top(f, teach_policy.trim_keep);
    pthread_mutex_unlock(&teach_lock);
}

/* Contract of ip_backend_usable_size (interpose.h). */
size_t ip_backend_usable_size(void *p) { return teach_size(teach_chunk_of(p)) - sizeof(struct teach_chunk); }

/* Contract of ip_backend_realloc: a shrink stays in place (a heap chunk frees its tail);
 * a growth takes a new block, copies and frees the old one. */
void *ip_backend_realloc(void *p, size_t n)
{
    struct teach_chunk *c = teach_chunk_of(p);
    size_t have = ip_backend_usable_size(p);
    if (n <= have) {
        if (!(c->size & TEACH_MAPPED)) {
            pthread_mutex_lock(&teach_lock);
            core_split_tail(c, core_need(n));
            pthread_mutex_unlock(&teach_lock);
        }
        return p;
    }
    void *q = ip_backend_malloc(n);
    if (q) {
        memcpy(q, p, have);
        ip_backend_free(p);
    }
    return q;
}

/* Contract of ip_backend_trim (malloc_trim): under the trim policy, gives back the free top
 * beyond pad bytes; the plain freelist never returns memory. Returns 1 if something went back. */
int ip_backend_trim(size_t pad)
{
    if (!teach_policy.trim_at)
        return 0;
    size_t keep = teach_round_up(pad, TEACH_ALIGN);
    pthread_mutex_lock(&teach_lock);
    struct core_free *top = core_list;
    while (top && top->next)
        top = top->next;
    int released = top && core_trim_top(top, keep < CORE_MIN ? CORE_MIN : keep);
    pthread_mutex_unlock(&teach_lock);
    return released;
}
