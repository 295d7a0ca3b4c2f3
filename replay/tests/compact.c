/* compact.c - a program for the post-pass's tests: malloc and free events just inside and just
 * outside the raw stream's compact range (rawtrace.h, RAW_C_*): sizes 250-261, and address
 * deltas of +-(span - 16), +-span and +-(span + 16) from the thread's previous event for the
 * malloc span (4 MiB) and the free span (1 GiB). glibc with mmap off (M_MMAP_MAX 0) carves blocks
 * from the top of its heap one after the other, so a block of chunk size C puts the next one at +C.
 * Always holds: prints one line "deltas N of M exact" (M cases, N of them laid out as planned: the
 * test needs N == M to have reached the boundary), frees nothing twice
 * and keeps the large blocks (~6 GiB of address space, untouched) to its exit. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink; /* every block passes through it: the compiler keeps each call */

/* One case: a 48-byte block a (a 64-byte chunk), a block of chunk c - 64 (a request of c - 72:
 * large, a full record, never freed), a 64-byte block q at a + c: malloc q, free a (-c from q),
 * free q (+c), malloc 48 (a again from the thread's cache: -c), malloc 64 (q again: +c); none of
 * them large, so no touch record comes between. 1 when the addresses were as planned. */
static int one(size_t c)
{
    char *a = sink = malloc(48);
    sink = malloc(c - 72);
    char *q = sink = malloc(64);
    int ok = a && q && (size_t)(q - a) == c;
    sink = a, free(sink);
    sink = q, free(sink);
    ok = ok && (sink = malloc(48)) == a;
    return ok && (sink = malloc(64)) == q;
}

int main(void)
{
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_TOP_PAD, 0);
    int n = 0, m = 0;
    for (int pass = 0; pass < 2; pass++) { /* twice: a case the clock's reading made full is compact in the other */
        for (size_t s = 250; s < 262; s++) {
            sink = malloc(s);
            free(sink);
        }
        const size_t spans[] = {(size_t)1 << 22, (size_t)1 << 30};
        for (int i = 0; i < 2; i++)
            for (int k = -1; k <= 1; k++, m++)
                n += one(spans[i] + (size_t)(k * 16));
    }
    printf("deltas %d of %d exact\n", n, m);
    return 0;
}
