/* api.c - refmalloc's API conformance test (linked against librefmalloc.so): alignment for every
 * size and alignment, calloc zeroing and overflow, realloc semantics, usable size >= request,
 * errno rules, malloc(0) distinct pointers, mapped chunks, the heap checker after each part.
 * Prints one PASS/FAIL line per check (scripts/tcheck.h) and "N passed, N failed".
 */
#include "tcheck.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int refmalloc_check_heap(void);

/* Sizes the compiler must not see through (it rejects obviously impossible requests). */
static volatile size_t api_huge = SIZE_MAX - 8192, api_half = SIZE_MAX / 2;

/* Returns 1 when all n bytes at p equal v. */
static int api_all(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != v)
            return 0;
    return 1;
}

/* malloc of every size up to 4 KiB and some large ones: 16-aligned, usable >= n, writable. */
static void api_malloc_sizes(void)
{
    int aligned = 1, usable = 1;
    void *keep[4200];
    size_t count = 0;
    for (size_t n = 0; n <= 4096; n++) {
        char *p = malloc(n);
        aligned &= p && ((uintptr_t)p & 15) == 0;
        usable &= p && malloc_usable_size(p) >= n;
        if (p)
            memset(p, 0xab, malloc_usable_size(p));
        keep[count++] = p;
    }
    static const size_t big[] = {65536, 131071, 131072, 200000, 1 << 20, 5 << 20, 40 << 20};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        char *p = malloc(big[i]);
        aligned &= p && ((uintptr_t)p & 15) == 0;
        usable &= p && malloc_usable_size(p) >= big[i];
        if (p)
            memset(p, 0xcd, big[i]);
        keep[count++] = p;
    }
    TCHECK("malloc: every size 16-byte aligned", aligned);
    TCHECK("malloc_usable_size >= request for every size", usable);
    TCHECK("heap check with many live blocks", refmalloc_check_heap() == 0);
    for (size_t i = 0; i < count; i++)
        free(keep[i]);
    TCHECK("heap check after freeing them", refmalloc_check_heap() == 0);
}

/* malloc(0) gives distinct, freeable pointers. */
static void api_malloc_zero(void)
{
    void *a = malloc(0), *b = malloc(0);
    TCHECK("malloc(0) returns non-NULL distinct pointers", a && b && a != b);
    free(a);
    free(b);
}

/* memalign/posix_memalign/aligned_alloc/valloc/pvalloc for every power-of-two alignment. */
static void api_alignment(void)
{
    int ok = 1;
    for (size_t align = 1; align <= ((size_t)1 << 20); align <<= 1) {
        static const size_t sizes[] = {0, 1, 15, 16, 17, 100, 1000, 4096, 70000, 300000};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            void *p = memalign(align, sizes[i]);
            void *q = NULL;
            int rc = align >= sizeof(void *) ? posix_memalign(&q, align, sizes[i]) : 0;
            void *r = aligned_alloc(align, sizes[i]);
            size_t a = align < 16 ? 16 : align;
            ok &= p && ((uintptr_t)p % a) == 0 && malloc_usable_size(p) >= sizes[i];
            ok &= rc == 0 && (align < sizeof(void *) || ((uintptr_t)q % a) == 0);
            ok &= r && ((uintptr_t)r % a) == 0;
            if (p)
                memset(p, 1, sizes[i]);
            free(p);
            free(q);
            free(r);
        }
    }
    TCHECK("memalign/posix_memalign/aligned_alloc: aligned for every alignment and size", ok);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *v = valloc(10), *pv = pvalloc(10);
    TCHECK("valloc/pvalloc page aligned, pvalloc rounds up",
           v && pv && ((uintptr_t)v % page) == 0 && ((uintptr_t)pv % page) == 0 &&
               malloc_usable_size(pv) >= page);
    free(v);
    free(pv);
    void *untouched = (void *)0x1234;
    TCHECK("posix_memalign(3) gives EINVAL and leaves *p", posix_memalign(&untouched, 3, 10) == EINVAL &&
                                                               untouched == (void *)0x1234);
    TCHECK("posix_memalign(huge) gives ENOMEM and leaves *p",
           posix_memalign(&untouched, 64, api_huge) == ENOMEM && untouched == (void *)0x1234);
    TCHECK("heap check after alignment tests", refmalloc_check_heap() == 0);
}

/* calloc zeroes recycled memory, and overflow gives NULL with ENOMEM. */
static void api_calloc(void)
{
    int zero = 1;
    for (size_t n = 1; n < 300000; n = n * 3 + 7) {
        char *dirty = malloc(n);
        memset(dirty, 0xff, n);
        free(dirty);
        char *p = calloc(1, n);
        zero &= p && api_all(p, n, 0);
        free(p);
    }
    TCHECK("calloc zeroes memory (recycled chunks included)", zero);
    errno = 0;
    TCHECK("calloc overflow gives NULL and ENOMEM", calloc(api_half, 3) == NULL && errno == ENOMEM);
    errno = 0;
    TCHECK("malloc(huge) gives NULL and ENOMEM", malloc(api_huge) == NULL && errno == ENOMEM);
    errno = 0;
    TCHECK("reallocarray overflow gives NULL and ENOMEM",
           reallocarray(NULL, api_half, 3) == NULL && errno == ENOMEM);
}

/* A failed realloc leaves p valid: that is what is tested, so the warning does not apply. */
#pragma GCC diagnostic ignored "-Wuse-after-free"

/* realloc: NULL -> malloc, 0 -> free + NULL, contents kept when growing/shrinking/moving,
 * in place into the top, mremap for mapped chunks. */
static void api_realloc(void)
{
    char *p = realloc(NULL, 10);
    TCHECK("realloc(NULL, n) allocates", p != NULL);
    memcpy(p, "refmalloc", 10);
    int kept = 1;
    static const size_t steps[] = {20, 5, 1000, 100000, 300000, 3000000, 64, 200000, 9};
    size_t have = 10;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        p = realloc(p, steps[i]);
        size_t check = have < steps[i] ? have : steps[i];
        kept &= p && memcmp(p, "refmalloc", check < 10 ? check : 10) == 0;
        kept &= malloc_usable_size(p) >= steps[i];
        if (steps[i] > 10)
            memset(p + 10, 'x', steps[i] - 10);
        have = steps[i];
    }
    TCHECK("realloc keeps contents through grow/shrink/mmap/mremap", kept);
    errno = 0;
    void *q = realloc(p, api_huge);
    int failed_ok = q == NULL && errno == ENOMEM;
    char *kept_p = p;
    TCHECK("realloc(huge) fails with ENOMEM and keeps the block",
           failed_ok && memcmp(kept_p, "refmalloc", 9) == 0);
    TCHECK("realloc(p, 0) frees and returns NULL", realloc(p, 0) == NULL);
    TCHECK("heap check after realloc tests", refmalloc_check_heap() == 0);
}

/* Growing in place into a free upper neighbour (run first, on a fresh heap, so that three
 * consecutive requests are adjacent chunks cut from the top). */
static void api_realloc_inplace(void)
{
    char *a = malloc(2000), *next = malloc(3000), *guard = malloc(2000);
    int adjacent = a + malloc_usable_size(a) + 8 == next;
    free(next);
    char *b = realloc(a, 4000);
    TCHECK("realloc grows in place into a free upper neighbour", adjacent && b == a);
    free(b);
    free(guard);
}

/* The program moves the break itself between allocations (by odd amounts too), then blocks it
 * with a mapping: the heap must carry on in new brk segments, then in mmap'd ones, keep every
 * block intact and pass the checker. */
static void api_brk_moved(void)
{
    char *blocks[24];
    int intact = 1;
    for (int i = 0; i < 12; i++) {
        blocks[i] = malloc(90000);
        memset(blocks[i], i, 90000);
        sbrk(i % 2 ? 12345 : 8192); /* someone else's memory, never given back */
    }
    uintptr_t brk_now = ((uintptr_t)sbrk(0) + 4095) & ~(uintptr_t)4095;
    void *wall = mmap((void *)brk_now, 1 << 20, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    for (int i = 12; i < 24; i++) {
        blocks[i] = malloc(90000);
        memset(blocks[i], i, 90000);
    }
    TCHECK("brk blocked by a mapping: malloc still works (mmap'd segments)",
           wall != MAP_FAILED && blocks[23] != NULL && sbrk(0x10000) == (void *)-1);
    for (int i = 0; i < 24; i++) {
        intact &= blocks[i][0] == i && blocks[i][89999] == i;
        free(blocks[i]);
    }
    TCHECK("brk moved by the program: blocks intact", intact);
    TCHECK("brk moved by the program: heap check", refmalloc_check_heap() == 0);
}

/* free keeps errno; mallinfo2/malloc_trim/mallopt answer sensibly. */
static void api_misc(void)
{
    void *p = malloc(50);
    errno = 12345;
    free(p);
    TCHECK("free keeps errno", errno == 12345);
    char *volatile m = malloc(40 << 20); /* above the highest dynamic mmap threshold */
    memset(m, 1, 4096);
    struct mallinfo2 mi = mallinfo2();
    TCHECK("mallinfo2 counts a mapped chunk", mi.hblks >= 1 && mi.hblkhd >= (40 << 20) && mi.arena > 0);
    free(m);
    TCHECK("mallopt(M_MMAP_THRESHOLD, 64 MiB) answers 1 as glibc 2.36 does",
           mallopt(M_MMAP_THRESHOLD, 64 << 20) == 1);
    size_t mapped = mallinfo2().hblks;
    char *volatile m40 = malloc(40 << 20);
    TCHECK("...and is clamped to 32 MiB: a 40 MiB block is still mapped (README: differences)",
           m40 && mallinfo2().hblks == mapped + 1);
    free(m40);
    TCHECK("mallopt(M_TOP_PAD) is accepted", mallopt(M_TOP_PAD, 1 << 16) == 1);
    char *many[2000];
    for (int i = 0; i < 2000; i++)
        many[i] = malloc(1500);
    for (int i = 0; i < 2000; i++)
        free(many[i]);
    TCHECK("malloc_trim releases freed memory", malloc_trim(0) == 1);
    TCHECK("heap check at the end", refmalloc_check_heap() == 0);
}

int main(void)
{
    api_realloc_inplace();
    api_malloc_zero();
    api_malloc_sizes();
    api_alignment();
    api_calloc();
    api_realloc();
    api_brk_moved();
    api_misc();
    return tcheck_summary();
}
