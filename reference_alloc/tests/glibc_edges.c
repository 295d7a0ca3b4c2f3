/* glibc_edges.c - refmalloc answers glibc 2.36's edge cases of the API (linked against it):
 * errno after a failed posix_memalign (also under RLIMIT_AS), mallopt's return values and the
 * effect of M_TRIM_THRESHOLD=-1, a 2^63 alignment (ENOMEM, not EINVAL) and the default fastbin limit.
 * Each check runs in its own child process (rmbounded.h), so settings do not leak between them.
 * Always holds: the expected answers are glibc 2.36's (read from its malloc.c and checked with
 * its own tests); each check that changes a setting runs in a child of its own.
 * Prints PASS/FAIL lines and a summary.
 */
#include "rmbounded.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>

/* Prints why a check failed (the line is ignored by the runners, it is for the reader). */
#define EDGE_REQUIRE(cond)                                                                   \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            printf("note: not true: %s (%s:%d)\n", #cond, __FILE__, __LINE__);              \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

/* Called through a volatile pointer: GCC models the posix_memalign builtin as writing only *pp,
 * so a direct call would let it reuse the errno value stored before the call. */
static int (*volatile edge_posix_memalign)(void **, size_t, size_t) = posix_memalign;

/* A posix_memalign that cannot be served: returns ENOMEM and leaves errno == ENOMEM. */
static int edge_memalign_errno_huge(void)
{
    void *p = (void *)0x1234;
    errno = 0;
    EDGE_REQUIRE(edge_posix_memalign(&p, 64, SIZE_MAX / 2) == ENOMEM);
    EDGE_REQUIRE(errno == ENOMEM && p == (void *)0x1234);
    return 0;
}

/* The same under an address-space limit (the request is valid, only the memory is missing). */
static int edge_memalign_errno_rlimit(void)
{
    struct rlimit lim = {(rlim_t)256 << 20, (rlim_t)256 << 20};
    EDGE_REQUIRE(setrlimit(RLIMIT_AS, &lim) == 0);
    void *p = NULL;
    errno = 0;
    EDGE_REQUIRE(edge_posix_memalign(&p, 128, (size_t)512 << 20) == ENOMEM);
    EDGE_REQUIRE(errno == ENOMEM);
    errno = 0;
    EDGE_REQUIRE(memalign(128, (size_t)512 << 20) == NULL && errno == ENOMEM);
    return 0;
}

/* glibc 2.36's mallopt answers 1 to all of these (and 0 only to an M_MXFAST above 160). */
static int edge_mallopt_answers(void)
{
    EDGE_REQUIRE(mallopt(M_CHECK_ACTION, 1) == 1);
    EDGE_REQUIRE(mallopt(M_TRIM_THRESHOLD, -1) == 1);
    EDGE_REQUIRE(mallopt(M_TOP_PAD, -1) == 1);
    EDGE_REQUIRE(mallopt(M_MMAP_THRESHOLD, -1) == 1);
    EDGE_REQUIRE(mallopt(M_MMAP_MAX, -1) == 1);
    EDGE_REQUIRE(mallopt(M_ARENA_MAX, 0) == 1);
    EDGE_REQUIRE(mallopt(M_ARENA_TEST, 0) == 1);
    EDGE_REQUIRE(mallopt(M_PERTURB, 300) == 1);
    EDGE_REQUIRE(mallopt(12345, 1) == 1);
    EDGE_REQUIRE(mallopt(M_MXFAST, 161) == 0);
    EDGE_REQUIRE(mallopt(M_MXFAST, 64) == 1);
    /* the process still allocates after all of that (top_pad clamped, no mapped chunks) */
    void *big = malloc((size_t)1 << 20), *small = malloc(100);
    EDGE_REQUIRE(big && small);
    free(big);
    free(small);
    return 0;
}

/* M_TRIM_THRESHOLD=-1 turns trimming off: freeing 4 MiB at the top leaves the break alone. */
static int edge_trim_off(void)
{
    EDGE_REQUIRE(mallopt(M_TRIM_THRESHOLD, -1) == 1);
    enum { N = 40 };
    void *blocks[N];
    for (int i = 0; i < N; i++)
        EDGE_REQUIRE((blocks[i] = malloc(100 << 10)) != NULL); /* below the mmap threshold */
    void *brk_full = sbrk(0);
    for (int i = N - 1; i >= 0; i--)
        free(blocks[i]);
    EDGE_REQUIRE(sbrk(0) == brk_full);
    return 0;
}

/* The control: with the default threshold the same frees do give the memory back (so the check
 * above can fail). */
static int edge_trim_on(void)
{
    enum { N = 40 };
    void *blocks[N];
    for (int i = 0; i < N; i++)
        EDGE_REQUIRE((blocks[i] = malloc(100 << 10)) != NULL);
    void *brk_full = sbrk(0);
    for (int i = N - 1; i >= 0; i--)
        free(blocks[i]);
    EDGE_REQUIRE((char *)sbrk(0) < (char *)brk_full);
    return 0;
}

/* Frees 20 blocks of n bytes, each kept apart by a live guard (no merging), after the
 * tcache's 7 of that size are full: how many bytes the fastbins then hold (mallinfo2's fsmblks). */
static size_t edge_fast_bytes_after_frees(size_t n)
{
    enum { N = 20 };
    void *blocks[N], *guards[N];
    for (int i = 0; i < N; i++)
        blocks[i] = malloc(n), guards[i] = malloc(16);
    for (int i = 0; i < N; i++)
        free(blocks[i]);
    size_t fast = mallinfo2().fsmblks;
    for (int i = 0; i < N; i++)
        free(guards[i]);
    return fast;
}

/* The default fastbin limit is glibc's set_max_fast(128): chunks of up to 128 bytes, so a
 * 120-byte request's chunk goes to a fastbin and a 121-byte one's (144 bytes) does not. */
static int edge_fastbin_limit(void)
{
    EDGE_REQUIRE(edge_fast_bytes_after_frees(120) > 0);
    EDGE_REQUIRE(edge_fast_bytes_after_frees(121) == 0);
    EDGE_REQUIRE(edge_fast_bytes_after_frees(128) == 0);
    return 0;
}

/* 2^63 is a power of two: no memory for it (ENOMEM); above it no power of two exists (EINVAL). */
static int edge_align_2_63(void)
{
    void *p = (void *)0x1234;
    EDGE_REQUIRE(posix_memalign(&p, (size_t)1 << 63, 64) == ENOMEM && p == (void *)0x1234);
    errno = 0;
    EDGE_REQUIRE(memalign((size_t)1 << 63, 64) == NULL && errno == ENOMEM);
    errno = 0;
    EDGE_REQUIRE(aligned_alloc((size_t)1 << 63, 64) == NULL && errno == ENOMEM);
    errno = 0;
    EDGE_REQUIRE(memalign(((size_t)1 << 63) + 1, 64) == NULL && errno == EINVAL);
    return 0;
}

int main(void)
{
    rmt_bounded_check("posix_memalign(64, SIZE_MAX/2) fails with ENOMEM and errno ENOMEM", edge_memalign_errno_huge, 30);
    rmt_bounded_check("posix_memalign under RLIMIT_AS fails with ENOMEM and errno ENOMEM", edge_memalign_errno_rlimit, 30);
    rmt_bounded_check("mallopt answers as glibc 2.36 (M_CHECK_ACTION, -1 values, arena 0, perturb 300, unknown)",
                      edge_mallopt_answers, 30);
    rmt_bounded_check("mallopt(M_TRIM_THRESHOLD, -1) stops trimming", edge_trim_off, 30);
    rmt_bounded_check("without it the same frees lower the break (control)", edge_trim_on, 30);
    rmt_bounded_check("alignment 2^63 gives ENOMEM, above it EINVAL", edge_align_2_63, 30);
    rmt_bounded_check("fastbins keep chunks of up to 128 bytes (requests up to 120), as glibc's default mxfast",
                      edge_fastbin_limit, 30);
    return tcheck_summary();
}
