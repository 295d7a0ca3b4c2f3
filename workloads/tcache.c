/* tcache.c - how many freed chunks of one size glibc's per-thread cache keeps, read from mallinfo2.
 *
 * Claim checked: tcache keeps 7 chunks per size (glibc up to 2.42), for requests up to 1,032
 * bytes. For each request size S of SIZES, --blocks blocks of S are allocated, each followed by a
 * guard block of S that stays live (so no freed block can coalesce with another), then the
 * --blocks blocks are freed. A chunk tcache keeps still counts as in use in mallinfo2's
 * uordblks; one that goes to a bin does not. Phases: `size-S` (ops = chunks of the freed ones
 * that still count as in use: --blocks - (the drop of uordblks) / the chunk size, the chunk
 * size being malloc_usable_size + 8), then two probes of tcache's safety checks, each in a child
 * process (it reads a freed block or frees one twice, which may kill it):
 * `safe-linking` (ops 1 when, after free(a) then free(b) of one small size, the word at b's start
 * is not a's address but a's address XORed with b's address shifted right by 12, glibc's
 * Safe-Linking of the cache's next pointers; 0 otherwise) and `double-free` (ops 1 when a child
 * doing free(a), free(b), free(a) is killed by SIGABRT, the allocator's double-free check; 0 when
 * it exits normally or dies otherwise; a child that hangs is killed after 5 s), then `free` (the
 * guards freed, 0).
 * Always holds: every block is filled when allocated and checked when freed; the sizes are
 * measured in the order of SIZES, each on fresh blocks; the probes touch nothing of the parent's
 * heap; nothing is held at the end. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define TC_MAX_BLOCKS 64

static const size_t SIZES[] = {24, 1032, 1033, 2048};
#define TC_NSIZES (sizeof SIZES / sizeof SIZES[0])

static struct wl_param tc_params[] = {
    WL_INT("blocks", "16", NULL, 1, TC_MAX_BLOCKS, "blocks of each size freed (more than the 7 tcache keeps)"),
};

static struct wl_prog tc_prog =
    WL_PROG("tcache", "freed chunks per size that tcache keeps (24, 1032, 1033, 2048 bytes), via mallinfo2", tc_params);

/* Allocates n filled blocks of size s into p (NULLs counted in *bad). */
static void tc_alloc(void **p, size_t n, size_t s, uint64_t tag0, uint64_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        WL_LAT(WL_OP_MALLOC, p[i] = malloc(s));
        if (p[i])
            wl_fill(p[i], s, tag0 + i);
        else
            (*bad)++;
    }
}

/* Checks and frees n blocks of size s (damaged ones counted in *bad). */
static void tc_free(void **p, size_t n, size_t s, uint64_t tag0, uint64_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        if (!p[i])
            continue;
        *bad += wl_check(p[i], s, tag0 + i) ? 0 : 1;
        WL_LAT(WL_OP_FREE, free(p[i]));
    }
}

#define TC_PROBE_SIZE 24
#define TC_MASKED 10 /* the safe-linking child's exit status when the next pointer is masked */

/* Child of the safe-linking probe: frees a then b and reads the word at b's start. */
static void tc_safe_linking_child(void)
{
    char *a = malloc(TC_PROBE_SIZE), *b = malloc(TC_PROBE_SIZE);
    if (!a || !b)
        _exit(1);
    void (*volatile release)(void *) = free; /* reading b after its free is the probe's point */
    uintptr_t ua = (uintptr_t)a, ub = (uintptr_t)b, word;
    release(a);
    release(b);
    memcpy(&word, b, sizeof word);
    _exit(word == ((ub >> 12) ^ ua) && word != ua ? TC_MASKED : 0);
}

/* Child of the double-free probe: frees a, b, then a again (not in a row, which only the cache's
 * key catches: a check of the list's head would miss it). */
static void tc_double_free_child(void)
{
    void *a = malloc(TC_PROBE_SIZE), *b = malloc(TC_PROBE_SIZE);
    void (*volatile release)(void *) = free; /* the compiler must not see the second free */
    release(a);
    release(b);
    release(a);
    _exit(0);
}

/* Runs child() in a child process (no core file, killed after 5 s); its wait status, or -1 when
 * fork fails. */
static int tc_probe(void (*child)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        alarm(5);
        child();
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

int main(int argc, char **argv)
{
    wl_args_parse(&tc_prog, argc, argv);
    wl_served_by();
    size_t k = (size_t)wl_arg("blocks");
    static void *blk[TC_NSIZES][TC_MAX_BLOCKS], *guard[TC_NSIZES][TC_MAX_BLOCKS];
    uint64_t bad = 0, live = 0;
    double t0 = wl_now();
    for (size_t z = 0; z < TC_NSIZES; z++) {
        size_t s = SIZES[z];
        for (size_t i = 0; i < k; i++) {
            tc_alloc(&blk[z][i], 1, s, 1000 * z + i, &bad);
            tc_alloc(&guard[z][i], 1, s, 1000 * z + 500 + i, &bad);
        }
        size_t chunk = blk[z][0] ? malloc_usable_size(blk[z][0]) + 8 : 0;
        size_t before = mallinfo2().uordblks;
        for (size_t i = 0; i < k; i++)
            tc_free(&blk[z][i], 1, s, 1000 * z + i, &bad);
        size_t after = mallinfo2().uordblks, drop = before > after ? before - after : 0;
        uint64_t kept = chunk && drop / chunk <= k ? k - drop / chunk : 0;
        live += k * s;
        char name[32];
        snprintf(name, sizeof name, "size-%zu", s);
        t0 = wl_phase(name, t0, kept, live);
    }
    int st = tc_probe(tc_safe_linking_child);
    t0 = wl_phase("safe-linking", t0, st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == TC_MASKED, live);
    st = tc_probe(tc_double_free_child);
    t0 = wl_phase("double-free", t0, st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, live);
    for (size_t z = 0; z < TC_NSIZES; z++)
        for (size_t i = 0; i < k; i++)
            tc_free(&guard[z][i], 1, SIZES[z], 1000 * z + 500 + i, &bad);
    wl_phase("free", t0, k * TC_NSIZES, 0);
    char detail[64];
    snprintf(detail, sizeof detail, "bad=%llu", (unsigned long long)bad);
    return wl_verify(bad == 0, detail);
}
