/* rm_fuzz.c - libFuzzer target for refmalloc: each input is a program of API calls (malloc,
 * calloc, realloc, memalign, posix_memalign, free, malloc_usable_size, malloc_trim) over 64
 * slots; every live block carries a pattern that is verified before it is resized or freed.
 * After each input every block is freed and the heap checker must pass; any mismatch aborts,
 * which libFuzzer reports as a crash. Built with clang -fsanitize=fuzzer, linked to refmalloc.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int refmalloc_check_heap(void);

#define FZ_SLOTS 64

typedef struct fz_block {
    unsigned char *p;
    size_t n;
    unsigned char tag;
} fz_block;

/* Reads a size from two input bytes: small sizes mostly, large ones (mmap) sometimes. */
static size_t fz_size(const uint8_t *d)
{
    size_t v = (size_t)d[0] | (size_t)d[1] << 8;
    switch (d[0] & 3) {
    case 0:
        return v & 63;
    case 1:
        return v & 2047;
    case 2:
        return v;
    default:
        return (v & 1023) << 10; /* up to 1 MiB */
    }
}

/* Aborts unless b's first n bytes hold its pattern. */
static void fz_verify(const fz_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b->p[i] != (unsigned char)(b->tag ^ i))
            abort();
}

/* Writes b's pattern from byte from to its end. */
static void fz_fill(fz_block *b, size_t from)
{
    for (size_t i = from; i < b->n; i++)
        b->p[i] = (unsigned char)(b->tag ^ i);
}

/* Frees b after verifying it. */
static void fz_release(fz_block *b)
{
    fz_verify(b, b->n);
    free(b->p);
    b->p = NULL;
    b->n = 0;
}

/* Runs one operation (4 input bytes) on slot s. */
static void fz_op(fz_block *s, const uint8_t *d)
{
    size_t n = fz_size(d + 2);
    unsigned op = d[0] & 7;
    if (s->p && op < 5) {
        fz_release(s);
        return;
    }
    if (s->p) {
        fz_verify(s, s->n);
        unsigned char *q = realloc(s->p, n);
        if (!q && n)
            return;
        size_t keep = s->n < n ? s->n : n;
        s->p = q;
        s->n = q ? n : 0;
        fz_verify(s, keep);
        fz_fill(s, keep);
        return;
    }
    size_t align = (size_t)16 << (d[1] & 7);
    void *p = NULL;
    if (op == 0)
        p = malloc(n);
    else if (op == 1 && (p = calloc(1, n)) != NULL)
        for (size_t i = 0; i < n; i++)
            if (((unsigned char *)p)[i])
                abort();
    if (op == 2)
        p = memalign(align, n);
    if (op == 3 && posix_memalign(&p, align, n) != 0)
        p = NULL;
    if (op >= 4)
        p = malloc(n);
    if (op == 7)
        malloc_trim(n);
    if (!p || ((uintptr_t)p % (op == 2 || op == 3 ? align : 16)) || malloc_usable_size(p) < n)
        abort();
    s->p = p;
    s->n = n;
    s->tag = d[1];
    fz_fill(s, 0);
}

/* libFuzzer entry: runs the program in data, frees everything, checks the heap. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_block slots[FZ_SLOTS];
    memset(slots, 0, sizeof slots);
    for (size_t i = 0; i + 5 <= size; i += 5)
        fz_op(&slots[data[i] % FZ_SLOTS], data + i + 1);
    for (int i = 0; i < FZ_SLOTS; i++)
        if (slots[i].p)
            fz_release(&slots[i]);
    if (refmalloc_check_heap() != 0)
        abort();
    return 0;
}
