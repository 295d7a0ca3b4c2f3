/* teach_check.c - the behaviour test of one teaching allocator, run under
 * LD_PRELOAD=build/lib/lib<NAME>.so as `allocators-teach NAME`.
 *
 * Checks the whole API (contents, alignment, calloc zeroing, realloc keeping contents,
 * malloc(0) distinct), that malloc is served by lib<NAME>.so, a multithreaded churn with
 * content checks, and the lesson of each allocator, read from the program break and the
 * blocks' addresses: bump never reuses (no new block where a freed one was), the others do; trim and mmap give the heap back after free-all,
 * freelist does not; freelist, trim and mmap carve small blocks from the break, bump from chunks it
 * maps; mmap and bump keep a 1 MiB block out of the heap; bump writes nothing into the blocks it
 * hands out (counted in page faults: it has no per-block header).
 * Prints PASS/FAIL lines and "N passed, N failed" (scripts/tcheck.h); exit 2 on bad usage.
 */
#include "tcheck.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* What each allocator must do with memory (1 = yes). */
struct tc_expect {
    const char *name;
    int heap;       /* small blocks come from the program break */
    int untouched;  /* malloc and calloc write nothing into the blocks (no per-block header) */
    int classes;    /* requests up to 256 KiB are rounded to size classes at most 25% (+16 B) above */
    int reuses;     /* freed memory serves later requests: the break does not grow again */
    int gives_back; /* the break comes down after everything is freed */
    int maps_big;   /* a 1 MiB request does not move the break */
};

static const struct tc_expect tc_table[] = {
    {"bump", 0, 1, 1, 0, 0, 1},
    {"freelist", 1, 0, 0, 1, 0, 0},
    {"trim", 1, 0, 0, 1, 1, 0},
    {"mmap", 1, 0, 0, 1, 1, 1},
};

#define TC_BLOCKS 4096
#define TC_BLOCK 1024
static void *tc_blocks[TC_BLOCKS];

/* The byte pattern block number `seed` carries at offset i. */
static unsigned char tc_byte(size_t seed, size_t i) { return (unsigned char)(seed * 31 + i * 7 + 1); }

/* Fills n bytes of p with the pattern of seed. */
static void tc_fill(unsigned char *p, size_t n, size_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = tc_byte(seed, i);
}

/* 1 if the first n bytes of p still carry the pattern of seed. */
static int tc_intact(const unsigned char *p, size_t n, size_t seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != tc_byte(seed, i))
            return 0;
    return 1;
}

/* 1 if malloc in this process is served by a file whose name contains lib<name>.so. */
static int tc_served_by(const char *name)
{
    Dl_info info;
    char want[64];
    snprintf(want, sizeof want, "lib%s.so", name);
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    return sym && dladdr(sym, &info) && info.dli_fname && strstr(info.dli_fname, want);
}

/* malloc/calloc/realloc/memalign/posix_memalign/aligned_alloc/usable_size on many sizes. */
static void tc_api(void)
{
    int ok = 1;
    for (size_t n = 0; n < 5000; n = n * 2 + 1) {
        unsigned char *p = malloc(n);
        ok &= p && (uintptr_t)p % 16 == 0 && malloc_usable_size(p) >= n;
        tc_fill(p, n, n);
        unsigned char *q = realloc(p, n * 3 + 10);
        ok &= q && tc_intact(q, n, n);
        unsigned char *r = realloc(q, n / 2 + 1);
        ok &= r && tc_intact(r, n / 2 + 1 < n ? n / 2 + 1 : n, n);
        free(r);
    }
    TCHECK("malloc/realloc keep contents and 16-byte alignment", ok);

    unsigned char *dirty = malloc(8192);
    memset(dirty, 0xAA, 8192);
    free(dirty);
    unsigned char *z = calloc(8192, 1);
    int zero = z != NULL;
    for (size_t i = 0; z && i < 8192; i++)
        zero &= z[i] == 0;
    free(z);
    TCHECK("calloc zeroes reused memory", zero);

    ok = 1;
    for (size_t a = 32; a <= ((size_t)8 << 20); a *= 2) { /* up to 8 MiB: past bump's 4 MiB chunk */
        void *m = memalign(a, a + 3), *pm = NULL, *al = aligned_alloc(a, 2 * a);
        ok &= m && al && posix_memalign(&pm, a, 100) == 0;
        ok &= (uintptr_t)m % a == 0 && (uintptr_t)pm % a == 0 && (uintptr_t)al % a == 0;
        ok &= malloc_usable_size(m) >= a + 3 && malloc_usable_size(al) >= 2 * a;
        if (m && al && pm) {
            tc_fill(m, a + 3, a);
            tc_fill(al, 2 * a, a + 1);
            tc_fill(pm, 100, a + 2);
            ok &= tc_intact(m, a + 3, a) && tc_intact(al, 2 * a, a + 1) && tc_intact(pm, 100, a + 2);
        }
        free(m);
        free(pm);
        free(al);
    }
    TCHECK("memalign/posix_memalign/aligned_alloc (32 B .. 8 MiB) align and hold their bytes", ok);

    void *e1 = malloc(0), *e2 = malloc(0);
    TCHECK("malloc(0) gives distinct pointers", e1 && e2 && e1 != e2);
    free(e1);
    free(e2);

    unsigned char *big = malloc(3 << 20);
    if (big)
        tc_fill(big, 3 << 20, 7);
    unsigned char *bigger = big ? realloc(big, 5 << 20) : NULL;
    TCHECK("a 3 MiB block grown to 5 MiB keeps its bytes", bigger && tc_intact(bigger, 3 << 20, 7));
    free(bigger);
}

/* Allocates TC_BLOCKS blocks of TC_BLOCK bytes, each filled with its pattern. */
static int tc_alloc_all(void)
{
    for (size_t i = 0; i < TC_BLOCKS; i++) {
        tc_blocks[i] = malloc(TC_BLOCK);
        if (!tc_blocks[i])
            return 0;
        tc_fill(tc_blocks[i], TC_BLOCK, i);
    }
    return 1;
}

/* Checks and frees every block of tc_alloc_all; 1 if all were intact. */
static int tc_free_all(void)
{
    int ok = 1;
    for (size_t i = 0; i < TC_BLOCKS; i++) {
        ok &= tc_intact(tc_blocks[i], TC_BLOCK, i);
        free(tc_blocks[i]);
    }
    return ok;
}

/* The start of the program break's area (the [heap] line of /proc/self/maps); NULL if none. */
static char *tc_heap_start(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long lo = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "[heap]") && sscanf(line, "%lx-", &lo) == 1)
            break;
    if (f)
        fclose(f);
    return (char *)lo;
}

/* How many blocks of tc_blocks lie in [lo, hi). */
static size_t tc_count_within(char *lo, char *hi)
{
    size_t n = 0;
    for (size_t i = 0; i < TC_BLOCKS; i++)
        n += (char *)tc_blocks[i] >= lo && (char *)tc_blocks[i] + TC_BLOCK <= hi;
    return n;
}

static int tc_cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 if no block of tc_blocks overlaps any of the TC_BLOCKS blocks at old (sorted here). */
static int tc_disjoint(uintptr_t *old)
{
    qsort(old, TC_BLOCKS, sizeof *old, tc_cmp_ptr);
    for (size_t i = 0; i < TC_BLOCKS; i++) {
        uintptr_t b = (uintptr_t)tc_blocks[i];
        size_t lo = 0, hi = TC_BLOCKS; /* first old block at or above b */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (old[mid] < b)
                lo = mid + 1;
            else
                hi = mid;
        }
        if ((lo < TC_BLOCKS && old[lo] < b + TC_BLOCK) || (lo > 0 && old[lo - 1] + TC_BLOCK > b))
            return 0;
    }
    return 1;
}

/* The lesson of the allocator, seen through the break: reuse, give-back, mapping. Bump takes
 * the break in chunks ahead of its blocks, so how far the break moves per round says nothing
 * about reuse there: its "never reuses" is read from the blocks' addresses. */
static void tc_memory(const struct tc_expect *e)
{
    static uintptr_t first[TC_BLOCKS];
    const intptr_t total = (intptr_t)TC_BLOCKS * TC_BLOCK;
    char *heap = tc_heap_start(), *b0 = sbrk(0);
    int ok = tc_alloc_all();
    char *b1 = sbrk(0), *heap_lo = b1;
    for (size_t i = 0; ok && i < TC_BLOCKS; i++) {
        first[i] = (uintptr_t)tc_blocks[i];
        if ((char *)tc_blocks[i] < heap_lo)
            heap_lo = tc_blocks[i];
    }
    if (e->heap)
        TCHECK("4 MiB of 1 KiB blocks come from the break (all lie in [heap], below the break)",
               ok && heap && tc_count_within(heap, b1) == TC_BLOCKS);
    else
        TCHECK("4 MiB of 1 KiB blocks come from mappings (the break did not move, none lies below it)",
               ok && b1 == b0 && tc_count_within(heap, b1) == 0);
    ok = tc_free_all();
    char *b2 = sbrk(0);
    TCHECK("blocks are intact when freed", ok);
    if (e->gives_back)
        TCHECK("free-all lowers the break to within 128 KiB of where it was", b2 <= b0 + (128 << 10));
    else
        TCHECK("free-all leaves the break where it was", b2 == b1);
    ok = tc_alloc_all();
    int fresh = ok && tc_disjoint(first);
    ok = ok && tc_free_all();
    char *b3 = sbrk(0);
    if (e->reuses)
        TCHECK("allocating the same again reuses memory (break at most 4 MiB above the start)",
               ok && b3 - b0 <= total + (256 << 10));
    else
        TCHECK("allocating the same again takes new memory (no block where a freed one was)", ok && fresh);
    char *big = malloc(1 << 20);
    int in_heap = big && big >= (heap_lo < b0 ? heap_lo : b0) && big < (char *)sbrk(0);
    if (e->maps_big)
        TCHECK("a 1 MiB block gets its own mapping (outside the heap)", big && !in_heap);
    else
        TCHECK("a 1 MiB block comes from the heap", in_heap);
    free(big);
}

/* Minor page faults of this process so far. */
static long tc_minflt(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

/* An allocator with no per-block header writes nothing into what it hands out, so fresh blocks
 * the program does not write cost no page fault: 4096 malloc'd 1 KiB blocks and a 4 MiB calloc
 * (1,024 + 1,024 pages) may cost only a few faults for chunk headers (bump: 2 + 1), never one per page. */
static void tc_untouched(void)
{
    int ok = tc_minflt() >= 0; /* the first call pages in getrusage before counting */
    long before = tc_minflt();
    for (size_t i = 0; ok && i < TC_BLOCKS; i++)
        ok &= (tc_blocks[i] = malloc(TC_BLOCK)) != NULL;
    void *z = calloc(TC_BLOCKS, TC_BLOCK);
    long faults = tc_minflt() - before;
    TCHECK("malloc and calloc write nothing into their blocks (8 MiB fresh, fewer than 64 page faults)",
           ok && z && faults < 64);

    char *big = malloc(300 << 10);
    uintptr_t was = (uintptr_t)big;
    char *grown = big ? realloc(big, 1 << 20) : NULL;
    TCHECK("a 300 KiB block grows in place to 1 MiB (bump: into the rest of its own chunk)",
           grown && (uintptr_t)grown == was);
    before = tc_minflt();
    char *moved = grown ? realloc(grown, 5 << 20) : NULL; /* copies 1 MiB: 256 pages read, 256 written */
    faults = tc_minflt() - before;
    TCHECK("realloc copies the block's usable bytes, not its chunk (1 MiB moved: fewer than 600 page faults)",
           moved && faults < 600);
}

/* Size classes: malloc(n) has a usable size in [n, n + n/4 + 16] for every n up to 4 KiB, then
 * for n in steps of 1/64 (several per class: classes are 1/4 apart) up to 256 KiB. */
static void tc_classes(void)
{
    int ok = 1;
    for (size_t n = 0; n <= ((size_t)256 << 10); n += n < 4096 ? 1 : 1 + n / 64) {
        void *p = malloc(n);
        size_t u = p ? malloc_usable_size(p) : 0;
        ok &= p && u >= n && u <= n + n / 4 + 16;
        free(p);
    }
    TCHECK("requests up to 256 KiB get a usable size within 25% + 16 B of them", ok);
}

#define TC_THREADS 4
#define TC_SLOTS 64
#define TC_STEPS 20000

/* One thread's churn: random malloc/realloc/free over its slots, checking every block's bytes.
 * arg points to an int that receives 1 when everything was intact. */
static void *tc_churn(void *arg)
{
    unsigned char *slot[TC_SLOTS] = {0};
    size_t len[TC_SLOTS] = {0};
    unsigned seed = (unsigned)(uintptr_t)arg;
    const size_t tag = seed * 1000; /* makes this thread's patterns differ from the others' */
    int ok = 1;
    for (size_t step = 0; step < TC_STEPS; step++) {
        size_t i = (size_t)rand_r(&seed) % TC_SLOTS;
        if (slot[i]) {
            ok &= tc_intact(slot[i], len[i], i + tag);
            free(slot[i]);
            slot[i] = NULL;
        }
        len[i] = (size_t)rand_r(&seed) % 3000;
        slot[i] = malloc(len[i]);
        if (!slot[i])
            return (void *)0;
        tc_fill(slot[i], len[i], i + tag);
    }
    for (size_t i = 0; i < TC_SLOTS; i++) {
        ok &= tc_intact(slot[i], len[i], i + tag);
        free(slot[i]);
    }
    return (void *)(intptr_t)ok;
}

/* TC_THREADS threads churning at once under the allocator's one lock. */
static void tc_threads(void)
{
    pthread_t t[TC_THREADS];
    int ok = 1;
    for (int i = 0; i < TC_THREADS; i++)
        ok &= pthread_create(&t[i], NULL, tc_churn, (void *)(uintptr_t)(i + 1)) == 0;
    for (int i = 0; i < TC_THREADS; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        ok &= r == (void *)1;
    }
    TCHECK("4 threads churning keep every block intact", ok);
}

/* Forks while other threads allocate: every child must be able to allocate (the lock is not
 * copied held) and exit within 5 s. */
static void tc_fork(void)
{
    pthread_t t[2];
    int ok = 1;
    for (int i = 0; i < 2; i++)
        ok &= pthread_create(&t[i], NULL, tc_churn, (void *)(uintptr_t)(i + 11)) == 0;
    for (int f = 0; f < 20 && ok; f++) {
        pid_t pid = fork();
        if (pid == 0) {
            void *p = malloc(100);
            free(p);
            _exit(p ? 0 : 1);
        }
        int status = -1, waited = 0;
        for (int ms = 0; pid > 0 && ms < 5000 && !waited; ms++) {
            waited = waitpid(pid, &status, WNOHANG) == pid;
            if (!waited)
                usleep(1000);
        }
        if (!waited && pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        ok &= waited && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    TCHECK("fork while 2 threads allocate: 20 children allocate and exit", ok);
}

/* Runs every check for the allocator named by argv[1]; exit 2 on a bad argument. */
int main(int argc, char **argv)
{
    const struct tc_expect *e = NULL;
    for (size_t i = 0; argc == 2 && i < sizeof tc_table / sizeof tc_table[0]; i++)
        if (strcmp(argv[1], tc_table[i].name) == 0)
            e = &tc_table[i];
    if (!e) {
        fprintf(stderr, "usage: LD_PRELOAD=build/lib/libNAME.so %s NAME (NAME: bump, freelist, trim or mmap)\n",
                argv[0]);
        return 2;
    }
    TCHECK("malloc is served by the preloaded library", tc_served_by(e->name));
    tc_memory(e);
    if (e->untouched)
        tc_untouched();
    if (e->classes)
        tc_classes();
    tc_api();
    tc_threads();
    tc_fork();
    return tcheck_summary();
}
